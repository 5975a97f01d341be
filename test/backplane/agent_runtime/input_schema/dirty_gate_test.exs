defmodule Backplane.AgentRuntime.InputSchema.DirtyGateTest do
  # Fills the application's gate: other tests' dirty calls would wait.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.{DeferredFree, DirtyGate}

  @supervisor Backplane.AgentRuntime.InputSchema.Application.Supervisor

  setup do
    limit = DirtyGate.limit()
    assert is_integer(limit) and limit >= 1
    # The periodic sweep of deferred frees takes a place through the gate
    # when a large schema waits to be freed; these tests count the gate's
    # places and queues, so it is stopped meanwhile.
    :ok = Supervisor.terminate_child(@supervisor, DeferredFree)
    on_exit(fn -> Supervisor.restart_child(@supervisor, DeferredFree) end)
    # A sweep it was running or waiting for is let go of asynchronously.
    wait_until(fn -> idle?() end)
    on_exit(fn -> wait_until(fn -> idle?() end) end)
    %{limit: limit}
  end

  test "the default limit leaves one dirty CPU scheduler to spare" do
    dirty = :erlang.system_info(:dirty_cpu_schedulers_online)
    assert DirtyGate.resolve(:auto) == max(dirty - 1, 1)
    assert DirtyGate.resolve(3) == 3
    assert DirtyGate.resolve(:unlimited) == :unlimited
    assert DirtyGate.limit() == DirtyGate.resolve(:auto)
  end

  test "no more than the limit run at once, and every call runs", %{limit: limit} do
    # 1: running now; 2: the most seen running at once (raised atomically).
    running = :atomics.new(2, signed: false)
    callers = limit + 4

    tasks =
      for i <- 1..callers do
        Task.async(fn ->
          DirtyGate.run(Enum.at([:compile, :validate], rem(i, 2)), fn ->
            now = :atomics.add_get(running, 1, 1)
            raise_peak(running, now)
            Process.sleep(20)
            :atomics.sub(running, 1, 1)
            :done
          end)
        end)
      end

    assert Enum.map(tasks, &Task.await(&1, 10_000)) == List.duplicate(:done, callers)
    assert :atomics.get(running, 2) in 1..limit
  end

  test "a holder that exits gives its place up", %{limit: limit} do
    holders = fill(limit)
    Enum.each(holders, &Process.exit(&1, :kill))

    assert Task.await(Task.async(fn -> DirtyGate.run(:validate, fn -> :ran end) end), 5_000) ==
             :ran
  end

  test "a waiter that exits is dropped from the queue", %{limit: limit} do
    holders = fill(limit)
    waiter = spawn(fn -> DirtyGate.run(:compile, fn -> :never end) end)
    wait_until(fn -> waiting() == 1 end)
    Process.exit(waiter, :kill)
    wait_until(fn -> waiting() == 0 end)
    Enum.each(holders, &send(&1, :release))
    wait_until(fn -> idle?() end)
  end

  test "a call over the inline budget waits for a place, then validates", %{limit: limit} do
    {:ok, schema} =
      InputSchema.compile(%{"properties" => %{"s" => %{"type" => "string", "pattern" => "^a+$"}}})

    arguments = %{"s" => String.duplicate("a", 1_048_576)}
    holders = fill(limit)
    task = Task.async(fn -> InputSchema.validate(schema, arguments) end)
    wait_until(fn -> waiting() == 1 end)
    Enum.each(holders, &send(&1, :release))
    assert Task.await(task, 10_000) == {:ok, arguments}
  end

  test "a validation waits for at most the running compile, not for the compiles queued before it",
       %{limit: limit} do
    holders = fill(limit, :compile)
    # Queued one at a time: processes spawned in a row may reach the gate
    # in another order.
    compiles =
      for {tag, queued} <- [c1: 1, c2: 2, c3: 3] do
        compile = holder(:compile, tag)
        wait_until(fn -> waiting(:compile) == queued end)
        compile
      end

    validation = holder(:validate, :v1)
    wait_until(fn -> waiting(:validate) == 1 end)

    # A place frees: the validation goes first, then the lanes alternate
    # (the compiles in their own order).
    send(hd(holders), :release)
    assert_receive {:holding, ^validation, :v1}, 5_000
    refute_received {:holding, _, _}
    send(validation, :release)
    assert_receive {:holding, c1, :c1}, 5_000
    assert c1 == hd(compiles)
    Enum.each(tl(holders) ++ [c1], &send(&1, :release))
    assert_receive {:holding, c2, :c2}, 5_000
    send(c2, :release)
    assert_receive {:holding, c3, :c3}, 5_000
    send(c3, :release)
    wait_until(fn -> idle?() end)
  end

  # Raises the recorded peak to `now` unless another caller raised it higher.
  defp raise_peak(running, now) do
    peak = :atomics.get(running, 2)

    if now > peak and :atomics.compare_exchange(running, 2, peak, now) != :ok,
      do: raise_peak(running, now)
  end

  # Takes every place with a process that holds it until told to release.
  defp fill(limit, lane \\ :validate) do
    for i <- 1..limit do
      holder = holder(lane, {:filler, i})
      assert_receive {:holding, ^holder, {:filler, ^i}}, 5_000
      holder
    end
  end

  # A process that takes a place in `lane`, says so, and holds it until
  # told to release.
  defp holder(lane, tag) do
    test = self()

    spawn(fn ->
      DirtyGate.run(lane, fn ->
        send(test, {:holding, self(), tag})

        receive do
          :release -> :ok
        end
      end)
    end)
  end

  defp waiting, do: waiting(:compile) + waiting(:validate)
  defp waiting(lane), do: :queue.len(:sys.get_state(DirtyGate).waiting[lane])

  defp idle? do
    state = :sys.get_state(DirtyGate)
    map_size(state.running) == 0 and waiting() == 0
  end

  defp wait_until(check, tries \\ 500) do
    cond do
      check.() -> :ok
      tries == 0 -> flunk("condition not reached")
      true -> Process.sleep(10) && wait_until(check, tries - 1)
    end
  end
end
