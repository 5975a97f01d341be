defmodule Backplane.AgentRuntime.InputSchema.DeferredFree do
  @moduledoc false
  # Frees the large compiled schemas that resource destructors on normal
  # schedulers left for a dirty call (native/input_schema/src/deferred.rs).
  # Every dirty call of the library frees them first; this process covers a
  # node that makes no more dirty calls, so that their memory does not stay
  # held: every second it reads how many are held (a counter, on a normal
  # scheduler) and, when there are some, frees them on a dirty scheduler,
  # through the gate like any other dirty call.

  use GenServer

  alias Backplane.AgentRuntime.InputSchema.{DirtyGate, Native}

  @every_ms 1_000

  @spec start_link(term()) :: GenServer.on_start()
  def start_link(_), do: GenServer.start_link(__MODULE__, nil, name: __MODULE__)

  @impl true
  def init(nil) do
    schedule()
    {:ok, nil}
  end

  @impl true
  def handle_info(:sweep, state) do
    sweep()
    schedule()
    {:noreply, state}
  end

  # Never crashes the process, and so never counts against the supervisor's
  # restarts: without the library loaded there is nothing to free, and a
  # gate that went away meanwhile is the next sweep's to use.
  defp sweep do
    case Native.deferred_held() do
      {0, _bytes} -> :ok
      _held -> DirtyGate.run(:compile, &Native.deferred_free_dirty/0)
    end
  rescue
    _ -> :ok
  catch
    :exit, _ -> :ok
  end

  defp schedule, do: Process.send_after(self(), :sweep, @every_ms)
end
