defmodule Backplane.AgentRuntime.InputSchema.CacheTest do
  # The cache is shared by the whole VM: these tests run alone.
  use ExUnit.Case, async: false

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema.ContractCases
  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Native

  setup do
    InputSchema.configure_cache(enabled: true)
    InputSchema.clear_cache()
    on_exit(fn -> InputSchema.configure_cache(enabled: true) end)
  end

  defp error_of({:error, error}), do: {error.message, error.details}
  defp error_of({:ok, _}), do: :ok

  test "a repeated schema term is compiled once" do
    schema = %{"properties" => %{"n" => %{"type" => "integer", "minimum" => 1}}}
    assert {:ok, _} = InputSchema.validate(schema, %{"n" => 1})
    assert %{entries: 1, misses: 1} = InputSchema.cache_info()

    for _ <- 1..10, do: assert({:ok, _} = InputSchema.validate(schema, %{"n" => 2}))
    # A copy of the term (not the same pointer) is found too.
    copy = :erlang.binary_to_term(:erlang.term_to_binary(schema))

    assert_result(
      InputSchema.validate(copy, %{"n" => 0}),
      {:validation, "tool argument is below the minimum", %{path: "$arguments.n", minimum: 1}}
    )

    assert %{entries: 1, hits: 11} = InputSchema.cache_info()
  end

  test "the cache counts the schema term it keeps by its flat size" do
    # Each schema alone in the cache; annotations leave the compiled form
    # alone, so the differences are the term's own. A term counts a word
    # (8 bytes), a binary its bytes besides, a number 16 more.
    bytes_of = fn schema ->
      InputSchema.clear_cache()
      assert {:ok, _} = InputSchema.validate(schema, %{})
      assert %{entries: 1, bytes: bytes} = InputSchema.cache_info()
      bytes
    end

    base = bytes_of.(%{"description" => "", "default" => []})
    text = String.duplicate("x", 10_000)
    assert bytes_of.(%{"description" => text, "default" => []}) - base == 10_000
    # A list: a word for each element, each integer 16 more.
    assert bytes_of.(%{"description" => "", "default" => Enum.to_list(1..1000)}) - base ==
             1000 * 24

    # A map: its keys and values.
    map = Map.new(1..100, &{"k#{&1}", &1})
    key_bytes = Enum.sum(for {k, _} <- map, do: 8 + byte_size(k))
    assert bytes_of.(%{"description" => "", "default" => map}) - base == key_bytes + 100 * 24

    # A tuple: its elements.
    assert bytes_of.(%{"description" => "", "default" => {1, 2.5, "abc"}}) - base ==
             24 + 24 + 11
  end

  test "the cache is exact: schemas differing in 1 and 1.0, key forms or deep in a branch" do
    pairs = [
      {%{"properties" => %{"n" => %{"minimum" => 1}}},
       %{"properties" => %{"n" => %{"minimum" => 1.0}}}, %{"n" => 0}},
      {%{"properties" => %{"n" => %{"type" => "string"}}}, %{properties: %{n: %{type: :string}}},
       %{"n" => 1}},
      {%{"properties" => %{"n" => %{"type" => "string"}}},
       %{"properties" => %{n: %{"type" => "string"}}}, %{"n" => 1}},
      {%{"oneOf" => [%{}, %{"properties" => %{"x" => %{"enum" => [1]}}}]},
       %{"oneOf" => [%{}, %{"properties" => %{"x" => %{"enum" => [1.0]}}}]}, %{"x" => 1}},
      {%{"oneOf" => [%{"required" => ["a"]}, %{"required" => ["b"]}]},
       %{"oneOf" => [%{"required" => ["a"]}, %{"required" => ["c"]}]}, %{"a" => 1, "b" => 1}}
    ]

    for {one, other, arguments} <- pairs do
      InputSchema.configure_cache(enabled: false)
      expected_one = InputSchema.validate(one, arguments)
      expected_other = InputSchema.validate(other, arguments)
      InputSchema.configure_cache(enabled: true)

      for _ <- 1..3 do
        assert InputSchema.validate(one, arguments) == expected_one
        assert InputSchema.validate(other, arguments) == expected_other
      end
    end

    # The first pair really differs in its details.
    {one, other, arguments} = hd(pairs)

    assert error_of(InputSchema.validate(one, arguments)) ==
             {"tool argument is below the minimum", %{path: "$arguments.n", minimum: 1}}

    assert error_of(InputSchema.validate(other, arguments)) ==
             {"tool argument is below the minimum", %{path: "$arguments.n", minimum: 1.0}}
  end

  test "a loop of 100,000 distinct schemas leaves the cache at its bound" do
    for i <- 1..100_000 do
      {:ok, _} = InputSchema.validate(%{"properties" => %{"n" => %{"maximum" => i}}}, %{"n" => 0})
    end

    info = InputSchema.cache_info()
    assert info.entries == info.max_entries
    assert info.max_entries == 1024
    assert info.bytes <= info.max_bytes
  end

  test "the byte bound holds too, and shrinking evicts at once" do
    InputSchema.configure_cache(enabled: true, max_entries: 1024, max_bytes: 200_000)

    for i <- 1..2_000 do
      {:ok, _} =
        InputSchema.validate(
          %{"properties" => %{"s" => %{"pattern" => "^x{#{rem(i, 50) + 1}}", "maxLength" => i}}},
          %{}
        )
    end

    info = InputSchema.cache_info()
    assert info.bytes <= 200_000
    assert info.entries < 1024

    InputSchema.configure_cache(enabled: true, max_entries: 10)
    assert InputSchema.cache_info().entries <= 10
  end

  test "bounds left out are the defaults: 1,024 entries, 64 MiB" do
    InputSchema.configure_cache(enabled: true, max_entries: 3, max_bytes: 1000)
    assert %{max_entries: 3, max_bytes: 1000} = InputSchema.cache_info()
    InputSchema.configure_cache([])

    assert %{enabled: true, max_entries: 1024, max_bytes: 67_108_864} = InputSchema.cache_info()

    InputSchema.configure_cache(enabled: false, max_bytes: 1000)
    assert %{enabled: false, max_entries: 1024, max_bytes: 1000} = InputSchema.cache_info()
  end

  describe "filing and eviction" do
    # These schemas share a bucket (same size, same property names).
    defp bucketed(i), do: %{"properties" => %{"n" => %{"maximum" => i}}}

    defp file_in_order(schemas) do
      InputSchema.clear_cache()
      for schema <- schemas, do: assert({:ok, _} = InputSchema.validate(schema, %{}))
    end

    defp cached?(schema) do
      %{hits: hits} = InputSchema.cache_info()
      assert {:ok, _} = InputSchema.validate(schema, %{})
      InputSchema.cache_info().hits == hits + 1
    end

    test "the oldest entry goes first, within one bucket too" do
      InputSchema.configure_cache(enabled: true, max_entries: 3)
      # Each check files what it misses: a fresh run for each.
      for {filed, probe, expected} <- [
            {1..4, 1, false},
            {1..4, 2, true},
            {1..5, 2, false},
            {1..5, 3, true},
            {1..6, 3, false},
            {1..6, 4, true}
          ] do
        file_in_order(Enum.map(filed, &bucketed/1))
        assert %{entries: 3} = InputSchema.cache_info()
        assert cached?(bucketed(probe)) == expected, "#{inspect(filed)}: #{probe}"
      end
    end

    test "the byte bound holds exactly, when filing and when shrinking" do
      bytes_of = fn schema ->
        file_in_order([schema])
        InputSchema.cache_info().bytes
      end

      {one, two} = {bytes_of.(bucketed(1)), bytes_of.(bucketed(2))}

      InputSchema.configure_cache(enabled: true, max_bytes: one + two)
      file_in_order([bucketed(1), bucketed(2)])
      assert %{entries: 2} = InputSchema.cache_info()

      InputSchema.configure_cache(enabled: true, max_bytes: one + two - 1)
      file_in_order([bucketed(1), bucketed(2)])
      assert %{entries: 1} = InputSchema.cache_info()
      assert cached?(bucketed(2))
    end

    test "reconfiguring keeps what fits: shrinking to exactly what is held evicts nothing" do
      file_in_order([bucketed(1), bucketed(2), bucketed(3)])
      %{bytes: held} = InputSchema.cache_info()

      InputSchema.configure_cache(enabled: true, max_entries: 3, max_bytes: held)
      assert %{entries: 3, bytes: ^held} = InputSchema.cache_info()

      # One byte less: the oldest goes.
      InputSchema.configure_cache(enabled: true, max_entries: 3, max_bytes: held - 1)
      assert %{entries: 2} = InputSchema.cache_info()

      # One entry less: the oldest goes.
      InputSchema.configure_cache(enabled: true, max_entries: 1)
      assert %{entries: 1} = InputSchema.cache_info()
      assert cached?(bucketed(3))

      # Turning the cache off empties it; on again, it starts empty.
      InputSchema.configure_cache(enabled: false)
      assert %{entries: 0, bytes: 0} = InputSchema.cache_info()
      InputSchema.configure_cache(enabled: true)
      assert %{entries: 0, bytes: 0} = InputSchema.cache_info()
    end

    test "a schema compiled by several callers at once is filed once" do
      # Two dirty schedulers compile the same term side by side; the second
      # to file finds the first's entry. Each schema is large enough that
      # its compilation outlasts the start of the other caller.
      schemas =
        for i <- 1..20 do
          properties = Map.new(1..2000, &{"p#{&1}", %{"type" => "string", "maxLength" => i}})
          %{"properties" => properties}
        end

      InputSchema.clear_cache()

      for schema <- schemas do
        1..4
        |> Enum.map(fn _ -> Task.async(fn -> Native.compile_dirty(schema, false) end) end)
        |> Enum.each(&assert({:ok, _} = Task.await(&1, 60_000)))
      end

      assert %{entries: 20} = InputSchema.cache_info()
    end
  end

  test "the cache can be turned off; results do not change" do
    InputSchema.configure_cache(enabled: false)
    schema = %{"required" => ["q"]}

    assert_result(
      InputSchema.validate(schema, %{}),
      {:validation, "required tool argument is missing", %{path: "$arguments", property: "q"}}
    )

    assert_result(InputSchema.validate(schema, %{"q" => 1}), :ok, %{"q" => 1})
    assert %{enabled: false, entries: 0} = InputSchema.cache_info()
  end

  test "the application applies its configuration at start" do
    Application.put_env(:backplane_input_schema, :cache, enabled: true, max_entries: 7)
    Application.put_env(:backplane_input_schema, :dirty_concurrency, 3)

    Application.stop(:backplane_input_schema)
    :ok = Application.start(:backplane_input_schema)
    assert %{max_entries: 7} = InputSchema.cache_info()
    assert Backplane.AgentRuntime.InputSchema.DirtyGate.limit() == 3
  after
    Application.delete_env(:backplane_input_schema, :cache)
    Application.delete_env(:backplane_input_schema, :dirty_concurrency)
    Application.stop(:backplane_input_schema)
    :ok = Application.start(:backplane_input_schema)
  end

  test "concurrent callers share the cache and get identical results" do
    cases =
      ContractCases.arguments() |> Enum.reject(fn {name, _, _, _} -> name =~ "work limit" end)

    expected = Enum.map(cases, fn {_, s, a, _} -> InputSchema.validate(s, a) end)

    results =
      1..8
      |> Task.async_stream(
        fn _ -> Enum.map(cases, fn {_, s, a, _} -> InputSchema.validate(s, a) end) end,
        max_concurrency: 8,
        timeout: 60_000
      )
      |> Enum.map(fn {:ok, r} -> r end)

    assert Enum.all?(results, &(&1 == expected))
  end

  describe "what the inline half may compare and file" do
    # The inline half compares and files schema terms of up to 32 KiB of
    # flat size (a word of 8 bytes a term, a binary its bytes besides, a
    # number 16 more); anything larger is the dirty half's. Each answer
    # below is the inline NIF's own: the result, or `:dirty` (handed over).
    @inline_term_bytes 32 * 1024

    defp flat_size(term) when is_binary(term), do: 8 + byte_size(term)
    defp flat_size(term) when is_number(term), do: 24

    defp flat_size(term) when is_map(term),
      do: 8 + Enum.sum(for {key, value} <- term, do: flat_size(key) + flat_size(value))

    defp flat_size(term) when is_list(term), do: 8 + Enum.sum(Enum.map(term, &flat_size/1))
    defp flat_size(_atom), do: 8

    # `schema` with a description that brings its flat size to `bytes`.
    defp of_size(schema, bytes) do
      schema = Map.put(schema, "description", "")
      Map.put(schema, "description", String.duplicate("x", bytes - flat_size(schema)))
    end

    test "a term of exactly 32 KiB is filed and found inline; one byte more goes to the dirty half" do
      at = of_size(%{"type" => "object"}, @inline_term_bytes)
      over = of_size(%{"type" => "object"}, @inline_term_bytes + 1)
      assert flat_size(at) == @inline_term_bytes

      assert {:ok, %{}} = Native.validate(at, %{}, :first)
      assert %{entries: 1, misses: 1, hits: 0} = InputSchema.cache_info()
      assert {:ok, %{}} = Native.validate(at, %{}, :first)
      assert %{entries: 1, misses: 1, hits: 1} = InputSchema.cache_info()

      # Compiled inline, but not filed there: handed over.
      assert :dirty = Native.validate(over, %{}, :first)
      assert %{entries: 1, misses: 1} = InputSchema.cache_info()
      # The dirty half files it ...
      assert {:ok, %{}} = InputSchema.validate(over, %{})
      assert %{entries: 2, misses: 2, hits: 1} = InputSchema.cache_info()
      # ... and only the dirty half compares it, though it is cached.
      assert :dirty = Native.validate(over, %{}, :first)
      assert {:ok, %{}} = InputSchema.validate(over, %{})
      assert %{entries: 2, misses: 2, hits: 2} = InputSchema.cache_info()
    end

    test "with the cache off, a large schema is answered inline: nothing to compare or file" do
      InputSchema.configure_cache(enabled: false)
      large = of_size(%{"type" => "object"}, 2 * @inline_term_bytes)

      assert {:ok, %{}} = Native.validate(large, %{}, :first)
      assert %{entries: 0, misses: 0, hits: 0} = InputSchema.cache_info()
    end

    test "a crowded bucket is searched by the whole term's hash; a large term there goes to the dirty half" do
      # Terms with the same size and property names share a bucket; a bucket
      # of more than 4 is searched by the runtime's hash of the whole term,
      # which the inline half computes only for a term of up to 32 KiB.
      shape = fn description ->
        %{"properties" => %{"a" => %{"type" => "string"}}, "description" => description}
      end

      unsupported = %{"properties" => %{"a" => %{"type" => "date"}}, "description" => ""}
      large = of_size(unsupported, 2 * @inline_term_bytes)

      refused = {:unsupported_capability, "property schema type is unsupported", %{type: "date"}}

      # Its own bucket empty (beside five of other property names), then
      # one of 4: compared term by term, so the large term is compiled
      # inline and refused there.
      for i <- 1..5 do
        other = %{"properties" => %{"b#{i}" => %{"type" => "string"}}, "description" => ""}
        assert {:ok, _} = Native.validate(other, %{}, :first)
      end

      InputSchema.clear_cache()
      assert_result(Native.validate(large, %{}, :first), refused)

      for i <- 1..4,
          do: assert({:ok, _} = Native.validate(shape.("#{i}"), %{"a" => "x"}, :first))

      assert_result(Native.validate(large, %{}, :first), refused)

      # A fifth: now crowded.
      assert {:ok, _} = Native.validate(shape.("5"), %{"a" => "x"}, :first)
      assert %{entries: 5, misses: 5, hits: 0} = InputSchema.cache_info()
      assert :dirty = Native.validate(large, %{}, :first)
      assert_result(InputSchema.validate(large, %{}), refused)

      # Each of the five is found by its hash, inline.
      for i <- 1..5 do
        assert_result(
          Native.validate(shape.("#{i}"), %{"a" => 1}, :first),
          {:validation, "tool argument has the wrong type",
           %{path: "$arguments.a", type: "string"}}
        )
      end

      assert %{entries: 5, misses: 5, hits: 5} = InputSchema.cache_info()
    end

    test "a schema of up to 256 property names is found inline; more go to the dirty half" do
      # The bucket a schema is filed under hashes its property names: the
      # inline half hashes at most 256 of them.
      schema_of = fn count ->
        %{"properties" => Map.new(1..count, &{"p#{&1}", %{}}), "required" => ["p1"]}
      end

      for {count, inline} <- [{256, true}, {257, false}] do
        schema = schema_of.(count)
        assert {:ok, %{"p1" => 1}} = InputSchema.validate(schema, %{"p1" => 1})
        assert %{entries: 1, hits: 0} = InputSchema.cache_info()

        if inline do
          assert {:ok, %{"p1" => 2}} = Native.validate(schema, %{"p1" => 2}, :first)
          assert %{hits: 1} = InputSchema.cache_info()
        else
          assert :dirty = Native.validate(schema, %{"p1" => 2}, :first)
          assert %{hits: 0} = InputSchema.cache_info()
        end

        InputSchema.clear_cache()
      end
    end

    test "an entry is filed within the byte bound, at exactly the bound, and never with room for no entries" do
      schema = %{"properties" => %{"n" => %{"type" => "integer"}}}
      assert {:ok, _} = InputSchema.validate(schema, %{})
      assert %{entries: 1, bytes: bytes} = InputSchema.cache_info()

      filed = fn opts ->
        InputSchema.configure_cache([enabled: true] ++ opts)
        InputSchema.clear_cache()
        assert {:ok, _} = Native.validate(schema, %{"n" => 1}, :first)
        info = InputSchema.cache_info()
        assert info.misses == 1
        info.entries
      end

      assert filed.(max_bytes: bytes) == 1
      assert InputSchema.cache_info().bytes == bytes
      assert filed.(max_bytes: bytes - 1) == 0
      assert filed.(max_entries: 1) == 1
      assert filed.(max_entries: 0) == 0
    end
  end

  describe "scheduling" do
    test "the inline half answers or hands over; its answers equal the dirty half's" do
      answered = :counters.new(2, [])

      for {name, schema, arguments, _} <- ContractCases.arguments(), mode <- [:first, :all] do
        # What the wrapper does with a call the inline half hands over:
        # compile on a dirty scheduler (filing the schema), then validate there.
        {:ok, resource} = Native.compile_dirty(schema, false)
        dirty = Native.validate_compiled_dirty(resource, nil, arguments, mode)
        # The dirty compile filed the schema; the inline half can now find it.
        inline = Native.validate(schema, arguments, mode)
        assert inline == :dirty or inline === dirty, name
        if inline != :dirty, do: :counters.add(answered, 1, 1)

        {:ok, compiled} = InputSchema.compile(schema)
        inline = Native.validate_compiled(compiled.resource, nil, arguments, mode)

        assert inline == :dirty or
                 inline ===
                   Native.validate_compiled_dirty(compiled.resource, nil, arguments, mode),
               name

        if inline != :dirty, do: :counters.add(answered, 2, 1)
      end

      # Not vacuous: nearly every row is small enough to be answered inline
      # (the rest hold large or deep arguments, or schemas over the budget).
      rows = 2 * length(ContractCases.arguments())
      assert :counters.get(answered, 1) > rows * 0.9
      assert :counters.get(answered, 2) > rows * 0.9
    end

    test "small calls finish inline; large ones and cache misses reach the dirty half" do
      schema = %{
        "properties" => %{"items" => %{"type" => "array", "items" => %{"type" => "string"}}}
      }

      {:ok, compiled} = InputSchema.compile(schema)
      small = %{"items" => ["a", "b"]}
      large = %{"items" => List.duplicate("x", 100_000)}
      long = %{"items" => [String.duplicate("x", 1_000_000)]}

      assert {:ok, ^small} = Native.validate_compiled(compiled.resource, nil, small, :first)
      assert :dirty = Native.validate_compiled(compiled.resource, nil, large, :first)
      assert :dirty = Native.validate_compiled(compiled.resource, nil, long, :first)
      assert {:ok, ^large} = InputSchema.validate(compiled, large)
      assert {:ok, ^long} = InputSchema.validate(compiled, long)

      # A cache miss compiles inline, unless a pattern must be built.
      InputSchema.clear_cache()
      assert {:ok, ^small} = Native.validate(schema, small, :first)
      assert %{entries: 1, misses: 1} = InputSchema.cache_info()
      assert :dirty = Native.validate(schema, large, :first)

      fresh = "^fresh-#{System.unique_integer([:positive])}$"
      patterned = %{"properties" => %{"s" => %{"pattern" => fresh}}}
      assert :dirty = Native.validate(patterned, %{"s" => "x"}, :first)
      assert :dirty = Native.validate_schema(patterned)
      assert :dirty = Native.compile(patterned, false)

      assert_result(
        InputSchema.validate(patterned, %{"s" => "x"}),
        {:validation, "tool argument does not match the pattern", %{path: "$arguments.s"}}
      )

      # The pattern is built now: the next schema using it compiles inline.
      assert :ok = Native.validate_schema(%{"properties" => %{"t" => %{"pattern" => fresh}}})

      # An improper list longer than the budget is handed over before its end is seen.
      improper = %{"items" => Enum.reduce(1..100_000, :tail, &[&1 | &2])}
      assert :dirty = Native.validate_compiled(compiled.resource, nil, improper, :first)

      assert_result(
        InputSchema.validate(compiled, improper),
        {:validation, "tool argument is not a proper list", %{path: "$arguments.items"}}
      )
    end
  end

  test "a compiled schema whose reference is foreign is compiled once per node, then found by its source" do
    schema = %{"properties" => %{"only_here_#{System.unique_integer([:positive])}" => %{}}}
    {:ok, compiled} = InputSchema.compile(schema)
    foreign = %{compiled | resource: make_ref()}
    before = InputSchema.cache_info()
    assert {:ok, _} = InputSchema.validate(foreign, %{})
    first = InputSchema.cache_info()
    # The schema term was filed by compile/1 already; the source is new.
    assert first.misses - before.misses == 1
    for _ <- 1..5, do: assert({:ok, _} = InputSchema.validate(foreign, %{}))
    assert InputSchema.cache_info().misses == first.misses
    assert InputSchema.cache_info().hits - first.hits == 5
  end
end
