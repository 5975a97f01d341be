defmodule Backplane.AgentRuntime.InputSchema.DirtyGate do
  @moduledoc false
  # Bounds how many calls run on dirty CPU schedulers at once.
  #
  # A dirty CPU scheduler is an OS thread that runs a large validation to
  # the end. When as many of them are busy as there are cores, the normal
  # schedulers wait for the operating system to give them a time slice, and
  # every process on the node wakes late (several milliseconds on a 2-core
  # machine). Leaving one core to the normal schedulers keeps the rest of the
  # node responsive while large arguments are validated; the calls that
  # exceed the limit wait here without holding any scheduler.
  #
  # Two lanes share the places: `:compile` (a schema compiled for the first
  # time; at most the compile budget, about 50 ms) and `:validate`
  # (arguments walked against a compiled schema). Each lane is first in,
  # first out, and a freed place goes to the other lane's oldest caller when
  # one waits, so a validation never queues behind more than the one
  # compile that is running, however many schemas (an untrusted server's,
  # say) wait to be compiled.
  #
  # Only calls that went over the inline budget pass through the gate: two
  # messages against at least about 100 µs of work. A holder or a waiter that
  # exits gives its place up. When the gate is not running (the application
  # is not started) or the limit is `:unlimited`, calls run at once.

  use GenServer

  @limit_key {__MODULE__, :limit}

  @typedoc "How many dirty validations may run at once."
  @type limit :: pos_integer() | :unlimited

  @spec start_link(limit()) :: GenServer.on_start()
  def start_link(limit), do: GenServer.start_link(__MODULE__, limit, name: __MODULE__)

  @doc """
  The limit a setting names: `:auto` is one fewer than the dirty CPU
  schedulers online (at least one); a positive integer or `:unlimited` is
  itself.
  """
  @spec resolve(:auto | limit()) :: limit()
  def resolve(:auto), do: max(:erlang.system_info(:dirty_cpu_schedulers_online) - 1, 1)
  def resolve(:unlimited), do: :unlimited
  def resolve(n) when is_integer(n) and n > 0, do: n

  @doc "The limit in force (`:unlimited` when the gate is not running)."
  @spec limit() :: limit()
  def limit, do: :persistent_term.get(@limit_key, :unlimited)

  @typedoc "A lane of the gate: what a call does on the dirty scheduler."
  @type lane :: :compile | :validate

  @doc "Runs `fun` once a place is free, queued in `lane`."
  @spec run(lane(), (() -> result)) :: result when result: term()
  def run(lane, fun) when lane in [:compile, :validate] do
    with limit when is_integer(limit) <- limit(),
         gate when is_pid(gate) <- Process.whereis(__MODULE__),
         :ok <- acquire(gate, lane) do
      try do
        fun.()
      after
        GenServer.cast(gate, {:release, self()})
      end
    else
      _ -> fun.()
    end
  end

  defp acquire(gate, lane) do
    GenServer.call(gate, {:acquire, lane}, :infinity)
  catch
    # The gate stopped meanwhile: run without it rather than fail the call.
    :exit, _ -> :ungated
  end

  @impl true
  def init(limit) do
    # So that `terminate/2` runs on shutdown and calls stop waiting for it.
    Process.flag(:trap_exit, true)
    :persistent_term.put(@limit_key, limit)

    {:ok,
     %{
       limit: limit,
       running: %{},
       waiting: %{compile: :queue.new(), validate: :queue.new()},
       served: :validate
     }}
  end

  @impl true
  def terminate(_reason, _state), do: :persistent_term.erase(@limit_key)

  @impl true
  def handle_call({:acquire, lane}, {pid, _} = from, state) do
    monitor = Process.monitor(pid)

    if map_size(state.running) < state.limit do
      {:reply, :ok, %{state | running: Map.put(state.running, pid, monitor), served: lane}}
    else
      waiting = Map.update!(state.waiting, lane, &:queue.in({from, monitor}, &1))
      {:noreply, %{state | waiting: waiting}}
    end
  end

  @impl true
  def handle_cast({:release, pid}, state) do
    case Map.pop(state.running, pid) do
      {nil, _} ->
        {:noreply, state}

      {monitor, running} ->
        Process.demonitor(monitor, [:flush])
        {:noreply, admit(%{state | running: running})}
    end
  end

  @impl true
  def handle_info({:DOWN, monitor, :process, pid, _}, state) do
    case Map.get(state.running, pid) do
      ^monitor ->
        {:noreply, admit(%{state | running: Map.delete(state.running, pid)})}

      _ ->
        waiting =
          Map.new(state.waiting, fn {lane, queue} ->
            {lane, :queue.filter(fn {_, m} -> m != monitor end, queue)}
          end)

        {:noreply, %{state | waiting: waiting}}
    end
  end

  def handle_info(_other, state), do: {:noreply, state}

  # Gives a free place to the oldest caller of the lane not served last,
  # or of the other lane when that one is empty.
  defp admit(state) do
    other = if state.served == :compile, do: :validate, else: :compile

    with true <- map_size(state.running) < state.limit,
         {lane, {{:value, {{pid, _} = from, monitor}}, queue}} <-
           next(state, [other, state.served]) do
      GenServer.reply(from, :ok)

      admit(%{
        state
        | running: Map.put(state.running, pid, monitor),
          waiting: Map.put(state.waiting, lane, queue),
          served: lane
      })
    else
      _ -> state
    end
  end

  defp next(state, lanes) do
    Enum.find_value(lanes, fn lane ->
      case :queue.out(Map.fetch!(state.waiting, lane)) do
        {:empty, _} -> nil
        taken -> {lane, taken}
      end
    end)
  end
end
