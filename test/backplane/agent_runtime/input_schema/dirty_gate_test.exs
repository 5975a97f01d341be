defmodule Backplane.AgentRuntime.InputSchema.DirtyGateTest do
  # Fills the application's gate: other tests' dirty calls would wait.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.DirtyGate

  setup do
    limit = DirtyGate.limit()
    assert is_integer(limit) and limit >= 1
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
    running = :counters.new(2, [:atomics])
    callers = limit + 4

    tasks =
      for _ <- 1..callers do
        Task.async(fn ->
          DirtyGate.run(fn ->
            :counters.add(running, 1, 1)
            now = :counters.get(running, 1)
            if now > :counters.get(running, 2), do: :counters.put(running, 2, now)
            Process.sleep(20)
            :counters.sub(running, 1, 1)
            :done
          end)
        end)
      end

    assert Enum.map(tasks, &Task.await(&1, 10_000)) == List.duplicate(:done, callers)
    assert :counters.get(running, 2) in 1..limit
  end

  test "a holder that exits gives its place up", %{limit: limit} do
    holders = fill(limit)
    Enum.each(holders, &Process.exit(&1, :kill))
    assert Task.await(Task.async(fn -> DirtyGate.run(fn -> :ran end) end), 5_000) == :ran
  end

  test "a waiter that exits is dropped from the queue", %{limit: limit} do
    holders = fill(limit)
    waiter = spawn(fn -> DirtyGate.run(fn -> :never end) end)
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

  # Takes every place with a process that holds it until told to release.
  defp fill(limit) do
    test = self()

    holders =
      for _ <- 1..limit do
        spawn(fn ->
          DirtyGate.run(fn ->
            send(test, {:holding, self()})

            receive do
              :release -> :ok
            end
          end)
        end)
      end

    for holder <- holders, do: assert_receive({:holding, ^holder}, 5_000)
    holders
  end

  defp waiting, do: :queue.len(:sys.get_state(DirtyGate).waiting)

  defp idle? do
    state = :sys.get_state(DirtyGate)
    map_size(state.running) == 0 and :queue.is_empty(state.waiting)
  end

  defp wait_until(check, tries \\ 500) do
    cond do
      check.() -> :ok
      tries == 0 -> flunk("condition not reached")
      true -> Process.sleep(10) && wait_until(check, tries - 1)
    end
  end
end
