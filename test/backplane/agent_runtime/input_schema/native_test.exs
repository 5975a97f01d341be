defmodule Backplane.AgentRuntime.InputSchema.NativeTest do
  # The NIF's guard: every NIF body runs under `catch_unwind`, so a panic in
  # the Rust code (a bug) comes back as an error, never as a raise or a
  # crash of the VM. `panic_probe/0` and `list_length_within/2` exist only in
  # the test environment's build (cargo feature `test-probes`).
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.Native

  test "a panic inside a NIF comes back as the execution_failure error" do
    for _ <- 1..3 do
      assert Native.panic_probe() ===
               {:error,
                %Error{
                  class: :execution_failure,
                  message: "tool schema validation failed unexpectedly",
                  details: %{},
                  cause: nil
                }}
    end

    # The library is still loaded and answers after the panics.
    assert Backplane.AgentRuntime.InputSchema.validate_schema(%{}) == :ok
  end

  describe "the hand-written entries of validate/3 and validate_compiled/4" do
    # Written without rustler's wrapper (nif.rs, "entries"): a mode that is
    # not one of the four atoms is refused with `badarg`, as rustler's
    # decoding would refuse it; only a caller other than the library's
    # Elixir side can pass one. The dirty half, a rustler function, refuses
    # the same.
    test "answer as the public API does, and refuse a mode that is not one of the four" do
      schema = %{"required" => ["q"], "properties" => %{"d" => %{"format" => "date"}}}

      {:ok, %{resource: resource, source: source}} =
        Backplane.AgentRuntime.InputSchema.compile(schema)

      for mode <- [:first, :all, :first_asserting, :all_asserting] do
        assert Native.validate(schema, %{"q" => 1}, mode) == {:ok, %{"q" => 1}}
        assert Native.validate_compiled(resource, source, %{"q" => 1}, mode) == {:ok, %{"q" => 1}}
      end

      # The mode decides the errors listed and whether formats are asserted.
      bad = %{"d" => "2023-02-30"}
      assert {:error, %Error{details: %{property: "q"}}} = Native.validate(schema, bad, :first)
      assert {:error, %Error{details: %{errors: [_]}}} = Native.validate(schema, bad, :all)

      assert {:error, %Error{details: %{errors: [_, %{details: %{format: "date"}}]}}} =
               Native.validate(schema, bad, :all_asserting)

      for mode <- [nil, true, false, :assert, 1, "first", {:first}] do
        assert_raise ArgumentError, fn -> Native.validate(schema, %{}, mode) end

        assert_raise ArgumentError, fn ->
          Native.validate_compiled(resource, source, %{}, mode)
        end

        assert_raise ArgumentError, fn ->
          Native.validate_compiled_dirty(resource, source, %{}, mode)
        end
      end

      # The library still answers.
      assert {:error, %Error{message: "required tool argument is missing"}} =
               Native.validate(schema, %{}, :first)
    end
  end

  describe "the hand-written entries of the standard entry point's validations" do
    # `json_schema_validate/3` and `json_schema_check/7` are written without
    # rustler's wrapper too (standard.rs, "entries"): a mode, dialect,
    # formats or content argument that is not an atom is refused with `badarg`, as
    # rustler's decoding refuses it, and so do their dirty halves.
    test "answer as the public API does, and refuse an argument that is not an atom" do
      schema = %{"required" => ["q"], "properties" => %{"q" => %{"type" => "integer"}}}
      {:ok, %{resource: resource}} = Backplane.JSONSchema.compile(schema)

      assert Native.json_schema_validate(resource, %{"q" => 1}, :all) == :ok
      assert Native.json_schema_validate(resource, %{"q" => 1}, :valid) == true
      assert Native.json_schema_validate(resource, %{}, :valid) == false

      assert {:error, [{"required", "required property \"q\" is missing", "/required", "", nil}]} =
               Native.json_schema_validate(resource, %{}, :all)

      check = &Native.json_schema_check(schema, &1, &2, :draft2020_12, %{}, :annotate, :annotate)
      assert check.(%{"q" => 1}, :all) == :ok
      assert check.(%{"q" => "1"}, :valid) == false

      assert {:error,
              [{"type", "instance is not of type integer", "/properties/q/type", "/q", nil}]} =
               check.(%{"q" => "1"}, :all)

      for bad <- [1, "all", {:all}, [:all]] do
        refuse = [
          fn -> Native.json_schema_validate(resource, %{}, bad) end,
          fn -> Native.json_schema_validate_dirty(resource, %{}, bad) end,
          fn ->
            Native.json_schema_check(schema, %{}, bad, :draft2020_12, %{}, :annotate, :annotate)
          end,
          fn -> Native.json_schema_check(schema, %{}, :all, bad, %{}, :annotate, :annotate) end,
          fn ->
            Native.json_schema_check(schema, %{}, :all, :draft2020_12, %{}, bad, :annotate)
          end,
          fn ->
            Native.json_schema_check(schema, %{}, :all, :draft2020_12, %{}, :annotate, bad)
          end,
          fn ->
            Native.json_schema_check_dirty(schema, %{}, :all, bad, %{}, :annotate, :annotate)
          end
        ]

        for call <- refuse, do: assert_raise(ArgumentError, call)
      end

      # The library still answers.
      assert Backplane.JSONSchema.valid?(schema, %{"q" => 1})
    end
  end

  describe "the map order the NIF learns when it loads" do
    # `:maps.iterator/1` walks a map as the NIF's iterator does; whether
    # `Map.keys/1` lists that order or its reverse is what OTP releases
    # differ on (docs/behaviour.md, section 5).
    defp iterated(map) do
      Stream.unfold(:maps.iterator(map), fn iterator ->
        case :maps.next(iterator) do
          :none -> nil
          {key, _value, next} -> {key, next}
        end
      end)
      |> Enum.to_list()
    end

    defp backward?(map) do
      cond do
        iterated(map) == Map.keys(map) -> false
        Enum.reverse(iterated(map)) == Map.keys(map) -> true
      end
    end

    test "the loader's probes give this VM's directions, flat maps forward" do
      {:map_order, probes} = Native.load_info()
      hash = Map.new(1..100, &{&1, &1})
      assert Native.map_order_probe(probes) == {false, backward?(hash)}
      assert backward?(Map.new(1..32, &{&1, &1})) == false
    end

    test "probes that no walk gives, or that leave a kind out, are refused" do
      flat = Map.new(1..8, &{"k#{&1}", &1})
      hash = Map.new(1..64, &{"k#{&1}", &1})
      good = [{flat, Map.keys(flat)}, {hash, Map.keys(hash)}]
      assert is_tuple(Native.map_order_probe(good))

      shuffled = [{flat, Map.keys(flat)}, {hash, Enum.sort(Map.keys(hash))}]
      assert Native.map_order_probe(shuffled) == :error
      assert Native.map_order_probe([{flat, Map.keys(flat)}]) == :error
      assert Native.map_order_probe([{hash, Map.keys(hash)}]) == :error

      # Two hash maps that show opposite directions.
      other = Map.new(1..40, &{&1, &1})
      opposite = [{other, Enum.reverse(Map.keys(other))} | good]
      assert Native.map_order_probe(opposite) == :error

      assert Native.map_order_probe(:not_a_list) == :error
      assert Native.map_order_probe([{flat, :not_keys}]) == :error
    end
  end

  test "a list is counted up to a bound: exactly the bound is a length, one cell more is longer" do
    # The array checks count cells only as far as the work budget left
    # allows; a longer list is handed to the dirty half (or reaches the
    # work limit there), an improper one is refused.
    list = Enum.to_list(1..1000)
    assert Native.list_length_within(list, 1000) == {:proper, 1000}
    assert Native.list_length_within(list, 999) == :longer
    assert Native.list_length_within(list, 1001) == {:proper, 1000}
    assert Native.list_length_within([], 0) == {:proper, 0}
    assert Native.list_length_within([1], 0) == :longer

    improper = [1, 2, 3 | :tail]
    assert Native.list_length_within(improper, 3) == :improper
    assert Native.list_length_within(improper, 2) == :longer
    assert Native.list_length_within(:not_a_list, 0) == :improper

    # Without a bound worth counting to, the runtime's own length.
    unbounded = 18_446_744_073_709_551_615
    assert Native.list_length_within(list, unbounded) == {:proper, 1000}
    assert Native.list_length_within(improper, unbounded) == :improper
  end
end

defmodule Backplane.AgentRuntime.InputSchema.NativeMemoryTest do
  # Measures VM-wide memory: runs alone.
  use ExUnit.Case, async: false

  import Backplane.AgentRuntime.InputSchema.Memory

  alias Backplane.AgentRuntime.InputSchema

  test "walking maps of more than 32 keys gives the VM's map iterators back" do
    # A map of more than 32 keys is a hash map: the VM lends each iterator
    # over it a stack of its own, which the NIF must destroy. What a walk
    # keeps is the growth of the VM's own memory outside process heaps
    # (where the stacks live; ETS, code and atoms left out) over a run of
    # walks after a first run that absorbs warming up. A walk that keeps a
    # stack keeps it in every run (184 bytes each); other activity of the
    # VM does not repeat itself in every run, so the least of three runs
    # counts.
    names = for i <- 1..40, do: "p#{i}"

    {:ok, compiled} =
      InputSchema.compile(%{
        "properties" => Map.new(names, &{&1, %{"type" => "integer"}}),
        "additionalProperties" => false
      })

    arguments = Map.new(names, &{&1, 1})
    cycle = fn _ -> {:ok, ^arguments} = InputSchema.validate(compiled, arguments) end

    walks = 100_000
    settle()
    Enum.each(1..20_000, cycle)

    per_walk =
      Enum.min(
        for _ <- 1..3 do
          settle()
          before = outside_heaps()
          Enum.each(1..walks, cycle)
          settle()
          (outside_heaps() - before) / walks
        end
      )

    assert per_walk < 8, "#{Float.round(per_walk, 2)} bytes kept a walk"
  end

  defp outside_heaps do
    [system: system, ets: ets, code: code, atom: atom] =
      :erlang.memory([:system, :ets, :code, :atom])

    system - ets - code - atom
  end
end
