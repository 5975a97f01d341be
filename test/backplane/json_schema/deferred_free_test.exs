defmodule Backplane.JSONSchema.DeferredFreeTest do
  # Freeing a large compiled schema costs milliseconds (one deallocation
  # per node, name and value), so a destructor on a normal scheduler leaves
  # a schema of 256 KiB or more to the next call of the library on a dirty
  # scheduler. Not async: any dirty call frees the list.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.{DeferredFree, Native}
  alias Backplane.JSONSchema

  # 20,000 strings: about 1.2 MiB once compiled, whichever entry point.
  @large_enum Enum.map(1..20_000, &"value number #{&1}")

  # A dirty call, which frees what the list holds first (at most 16 MiB).
  defp dirty_call, do: Native.check_schema(%{"type" => "object"})

  # Dirty calls until nothing is held (earlier tests may have left more than
  # one call frees).
  defp free_all(calls \\ 100) do
    dirty_call()
    if calls > 0 and Native.deferred_held() != {0, 0}, do: free_all(calls - 1)
  end

  # Compiles with `compile` in a process of its own, which then exits: its
  # heap, and the compiled schema's last reference with it, is freed by a
  # normal scheduler. Waits until the destructor has run (`held` shows more
  # than `before`) or a second has passed.
  defp compile_and_drop(compile, before) do
    {pid, ref} = spawn_monitor(fn -> {:ok, _} = compile.() end)
    assert_receive {:DOWN, ^ref, :process, ^pid, :normal}, 30_000
    wait_for(fn -> elem(Native.deferred_held(), 0) > before end, 1_000)
  end

  # Exactly one large schema waits, and `free` (a dirty call) frees it.
  defp assert_one_held_then_freed_by(free) do
    assert {1, bytes} = Native.deferred_held()
    assert bytes >= 256 * 1024
    free.()
    assert Native.deferred_held() == {0, 0}
  end

  defp wait_for(condition, ms) do
    cond do
      condition.() -> true
      ms <= 0 -> false
      true -> Process.sleep(10) && wait_for(condition, ms - 10)
    end
  end

  @supervisor Backplane.AgentRuntime.InputSchema.Application.Supervisor

  # The periodic sweep would free the list at any moment; the tests stop it
  # (the last test runs it on purpose).
  setup do
    :ok = Supervisor.terminate_child(@supervisor, DeferredFree)
    on_exit(fn -> Supervisor.restart_child(@supervisor, DeferredFree) end)
    free_all()
    assert Native.deferred_held() == {0, 0}
    :ok
  end

  test "a large standard schema is freed by the next dirty call, not where it is collected" do
    assert compile_and_drop(fn -> JSONSchema.compile(%{"enum" => @large_enum}) end, 0)
    assert_one_held_then_freed_by(&dirty_call/0)
  end

  test "a large gateway schema is too, once the cache does not hold it" do
    InputSchema.configure_cache(enabled: false)
    on_exit(fn -> InputSchema.configure_cache([]) end)
    schema = %{"type" => "object", "properties" => %{"kind" => %{"enum" => @large_enum}}}
    assert compile_and_drop(fn -> InputSchema.compile(schema) end, 0)
    # A standard validation over the inline budget is a dirty call too.
    assert_one_held_then_freed_by(fn ->
      assert JSONSchema.validate(%{"maxLength" => 1}, String.duplicate("x", 100_000)) != :ok
    end)
  end

  test "a large cached gateway schema that clear_cache/0 lets go of is handed over too" do
    InputSchema.configure_cache([])
    InputSchema.clear_cache()
    schema = %{"type" => "object", "properties" => %{"tag" => %{"enum" => @large_enum}}}
    # Validating against the schema map files it in the cache, whose entry
    # is then its only reference.
    arguments = %{"tag" => "value number 7"}
    assert InputSchema.validate(schema, arguments) == {:ok, arguments}
    assert {true, 1, _, _, _, _, _} = Native.cache_stats()
    assert Native.deferred_held() == {0, 0}
    InputSchema.clear_cache()
    assert_one_held_then_freed_by(&dirty_call/0)
  end

  test "a small schema is freed where it is collected" do
    refute compile_and_drop(
             fn -> JSONSchema.compile(%{"enum" => Enum.take(@large_enum, 10)}) end,
             0
           )

    assert Native.deferred_held() == {0, 0}
  end

  test "several schemas held are freed by one dirty call, up to 16 MiB" do
    # Compiled first (each compile is a dirty call, which would free what
    # an earlier holder left), then let go together.
    parent = self()

    holders =
      for i <- 1..3 do
        spawn(fn ->
          {:ok, _compiled} = JSONSchema.compile(%{"enum" => [i | @large_enum]})
          send(parent, {:compiled, self()})
          receive do: (:exit -> :ok)
        end)
      end

    for pid <- holders, do: assert_receive({:compiled, ^pid}, 30_000)
    for pid <- holders, do: send(pid, :exit)
    assert wait_for(fn -> elem(Native.deferred_held(), 0) == 3 end, 1_000)
    {3, bytes} = Native.deferred_held()
    # About 1.2 MiB each: the three fit one call's 16 MiB.
    assert bytes < 16 * 1024 * 1024
    dirty_call()
    assert Native.deferred_held() == {0, 0}
  end

  test "with no other dirty call, the periodic sweep frees what is held within about a second" do
    assert compile_and_drop(fn -> JSONSchema.compile(%{"enum" => @large_enum}) end, 0)
    assert {1, _bytes} = Native.deferred_held()
    {:ok, _} = Supervisor.restart_child(@supervisor, DeferredFree)
    assert wait_for(fn -> Native.deferred_held() == {0, 0} end, 3_000)
  end
end
