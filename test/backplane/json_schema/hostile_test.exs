defmodule Backplane.JSONSchema.HostileTest do
  @moduledoc """
  Hostile input against the standard entry point (docs/behaviour.md,
  section 11, "Limits"): each shape is decided within the limits, as the
  gateway's are. Past a limit the answer is an error
  (`%LimitError{}`, or `%CompileError{reason: :compile_budget | :too_deep}`),
  never a verdict; no call raises, and the VM and the library answer
  afterwards. Each call runs in a process of its own, and the test asserts
  its exact outcome, never a time. The Rust core's test
  `native/input_schema_core/tests/standard_hostile.rs` asserts the same
  shapes through `standard::Validator`. Run it also with the smallest
  scheduler stacks: `ELIXIR_ERL_OPTIONS="+sss 20 +sssdcpu 20" mix test
  test/backplane/json_schema/hostile_test.exs`.
  """
  use ExUnit.Case, async: true

  # Generous: these assert outcomes, not times, and CI machines vary.
  @moduletag timeout: 600_000

  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, LimitError, ValidationError}

  @false_schema "no value is allowed here (the schema is false)"
  @work %LimitError{reason: :work, message: "validation exceeds its work limit"}
  @depth %LimitError{reason: :depth, message: "validation nesting exceeds the supported depth"}
  @budget %CompileError{
    reason: :compile_budget,
    message: "schema exceeds the compile work limit",
    pointer: nil,
    uri: nil,
    failures: []
  }

  # Runs `fun` in a process of its own, which must end normally with the
  # result; then the VM and the library still answer a small call.
  defp decide(fun) do
    {pid, ref} = spawn_monitor(fn -> exit({:decided, fun.()}) end)

    result =
      receive do
        {:DOWN, ^ref, :process, ^pid, {:decided, result}} ->
          result

        {:DOWN, ^ref, :process, ^pid, other} ->
          flunk("the call's process ended with #{inspect(other)}")
      end

    assert JSONSchema.validate(%{"type" => "integer"}, 1) == :ok
    result
  end

  # validate/2 and valid?/2 on a compiled schema, in processes of their own;
  # valid?/2 must agree (false past a limit: fail closed).
  defp check(compiled, instance) do
    result = decide(fn -> JSONSchema.validate(compiled, instance) end)
    valid? = decide(fn -> JSONSchema.valid?(compiled, instance) end)
    assert valid? == (result == :ok)
    result
  end

  defp compile!(schema) do
    assert {:ok, compiled} = decide(fn -> JSONSchema.compile(schema) end)
    compiled
  end

  # The inline half of the NIF: a call over the inline budget is handed to
  # the dirty scheduler (`:dirty`), never decided on the caller's.
  defp inline(compiled, instance),
    do: Native.json_schema_validate(compiled.resource, instance, :all)

  defp unit(%ValidationError{} = e),
    do: {e.keyword, e.keyword_location, e.instance_location, e.message}

  defp nest(depth, leaf, wrap),
    do: Enum.reduce(1..depth//1, leaf, fn _, inner -> wrap.(inner) end)

  describe "unevaluatedProperties and unevaluatedItems over in-place chains" do
    test "100 levels of allOf on a large object" do
      leaf = %{
        "properties" => %{"id" => %{"type" => "integer"}},
        "patternProperties" => %{"^k" => %{"type" => "integer"}}
      }

      compiled = compile!(nest(100, leaf, &%{"allOf" => [&1], "unevaluatedProperties" => false}))

      object = fn count -> Map.new(0..(count - 1), &{"k#{&1}", &1}) |> Map.put("id", 1) end

      assert check(compiled, object.(20_000)) == :ok
      assert inline(compiled, object.(20_000)) == :dirty
      assert inline(compiled, %{"id" => 1}) == :ok

      # The innermost level refuses the one key nothing evaluates; each
      # level above sees no annotation of its failed allOf, up to 64 units.
      assert {:error, units} = check(compiled, Map.put(object.(20_000), "zz", 0))
      assert length(units) == 64

      assert unit(hd(units)) ==
               {"unevaluatedProperties",
                String.duplicate("/allOf/0", 99) <> "/unevaluatedProperties", "/zz",
                @false_schema}

      assert check(compiled, object.(100_000)) == {:error, @work}
    end

    test "a wide anyOf of 1,000 branches, each with properties" do
      branches =
        for i <- 0..999,
            do: %{"properties" => %{"p#{i}" => %{"type" => "integer"}}, "required" => ["p#{i}"]}

      compiled = compile!(%{"anyOf" => branches, "unevaluatedProperties" => false})
      object = fn count -> Map.new(0..(count - 1), &{"p#{&1}", &1}) end

      assert check(compiled, object.(1_000)) == :ok

      assert {:error, [error]} = check(compiled, Map.put(object.(1_000), "q", 1))

      assert unit(error) ==
               {"unevaluatedProperties", "/unevaluatedProperties", "/q", @false_schema}

      assert check(compiled, object.(10_000)) == {:error, @work}
    end

    test "100 levels of if/then on large arrays" do
      leaf = %{"prefixItems" => [%{"type" => "string"}], "contains" => %{"type" => "integer"}}

      compiled =
        compile!(
          nest(
            100,
            leaf,
            &%{"if" => %{"type" => "array"}, "then" => &1, "unevaluatedItems" => false}
          )
        )

      items = fn count -> ["a" | Enum.to_list(0..(count - 1))] end

      assert check(compiled, items.(20_000)) == :ok
      assert {:error, units} = check(compiled, items.(20_000) ++ [true])
      assert length(units) == 64

      assert unit(hd(units)) ==
               {"unevaluatedItems", String.duplicate("/then", 99) <> "/unevaluatedItems",
                "/20001", @false_schema}

      assert check(compiled, items.(1_000_000)) == {:error, @work}
    end
  end

  describe "$dynamicRef" do
    @tree %{
      "$id" => "https://example.com/tree",
      "$dynamicAnchor" => "node",
      "type" => "object",
      "properties" => %{
        "value" => %{"type" => "integer"},
        "children" => %{"type" => "array", "items" => %{"$dynamicRef" => "#node"}}
      },
      "required" => ["value"]
    }

    @strict_tree %{
      "$id" => "https://example.com/strict-tree",
      "$dynamicAnchor" => "node",
      "$ref" => "tree",
      "unevaluatedProperties" => false,
      "$defs" => %{"tree" => @tree}
    }

    defp deep_tree(depth),
      do: nest(depth, %{"value" => 0}, &%{"value" => 1, "children" => [&1]})

    defp wide_tree(width),
      do: %{"value" => 0, "children" => Enum.map(0..(width - 1), &%{"value" => &1})}

    test "a recursive tree over a deep instance stops at the depth limit" do
      for schema <- [@tree, @strict_tree] do
        compiled = compile!(schema)
        assert check(compiled, deep_tree(100)) == :ok
        assert check(compiled, deep_tree(100_000)) == {:error, @depth}
      end
    end

    test "a recursive tree over a wide instance" do
      wide = wide_tree(200_000)
      extra = put_in(wide, ["children", Access.at(123_456), "extra"], true)

      compiled = compile!(@tree)
      assert check(compiled, wide) == :ok
      assert check(compiled, extra) == :ok
      assert inline(compiled, wide) == :dirty

      strict = compile!(@strict_tree)
      assert check(strict, wide) == :ok
      assert {:error, units} = check(strict, extra)

      assert Enum.map(units, &unit/1) == [
               {"unevaluatedProperties",
                "/$ref/properties/children/items/$dynamicRef/unevaluatedProperties",
                "/children/123456/extra", @false_schema},
               {"unevaluatedProperties", "/unevaluatedProperties", "/children", @false_schema},
               {"unevaluatedProperties", "/unevaluatedProperties", "/value", @false_schema}
             ]

      assert check(strict, wide_tree(2_000_000)) == {:error, @work}
    end

    test "a $dynamicRef cycle that never descends into the instance" do
      cycles = [
        %{"$id" => "https://example.com/loop", "$dynamicAnchor" => "a", "$dynamicRef" => "#a"},
        %{
          "$id" => "https://example.com/loop2",
          "$dynamicAnchor" => "a",
          "anyOf" => [%{"$dynamicRef" => "#a"}, %{"$dynamicRef" => "#a"}]
        },
        %{
          "$id" => "https://example.com/ping",
          "$dynamicAnchor" => "a",
          "$ref" => "pong",
          "$defs" => %{
            "pong" => %{
              "$id" => "pong",
              "$dynamicAnchor" => "b",
              "not" => %{"$dynamicRef" => "ping#a"}
            }
          }
        }
      ]

      for schema <- cycles, instance <- [1, %{"a" => [1, 2]}, nil] do
        assert check(compile!(schema), instance) == {:error, @depth}
      end
    end

    # Found by these shapes: each lookup of a $dynamicRef reads the dynamic
    # scope from its outermost resource, and was not charged. Resources
    # `a` (5,000 dynamic anchors) and `a2` alternate along 450 levels of the
    # instance; at the bottom each item of a list looks `#x` up past 225
    # copies of `a`: before the fix, hours of work within the work limit.
    test "lookups along a long dynamic scope are charged to the work limit" do
      anchors = Map.new(0..4_999, &{"n#{&1}", %{"$dynamicAnchor" => "n#{&1}"}})

      compiled =
        compile!(%{
          "$id" => "https://example.com/root",
          "$ref" => "a",
          "$defs" => %{
            "a" => %{
              "$id" => "a",
              "$defs" => anchors,
              "prefixItems" => [%{"$ref" => "a2"}],
              "items" => %{"$ref" => "b"}
            },
            "a2" => %{
              "$id" => "a2",
              "prefixItems" => [%{"$ref" => "a"}],
              "items" => %{"$ref" => "b"}
            },
            "b" => %{"$id" => "b", "$dynamicAnchor" => "x", "items" => %{"$dynamicRef" => "#x"}}
          }
        })

      instance = fn levels, count -> nest(levels, [0, List.duplicate(0, count)], &[&1]) end
      assert check(compiled, instance.(2, 1_000)) == :ok
      assert check(compiled, instance.(450, 100_000)) == {:error, @work}
    end
  end

  describe "arrays" do
    test "contains with minContains and maxContains on a million items" do
      million = Enum.to_list(0..999_999)

      assert {:error, [error]} =
               check(
                 compile!(%{"contains" => %{"const" => 999_999}, "minContains" => 2}),
                 million
               )

      assert unit(error) ==
               {"contains", "/contains", "",
                "array contains fewer than 2 items valid against the schema of contains"}

      assert check(
               compile!(%{"contains" => %{"minimum" => 999_998}, "minContains" => 2}),
               million
             ) ==
               :ok

      max = compile!(%{"contains" => %{"type" => "integer"}, "maxContains" => 999_999})
      assert {:error, [error]} = check(max, million)

      assert unit(error) ==
               {"contains", "/contains", "",
                "array contains more than 999999 items valid against the schema of contains"}

      assert inline(max, million) == :dirty

      exact =
        compile!(%{
          "contains" => %{"type" => "integer"},
          "minContains" => 1_000_000,
          "maxContains" => 1_000_000
        })

      assert check(exact, million) == :ok

      consts = for i <- 1..10, do: %{"const" => -i}
      costly = compile!(%{"contains" => %{"not" => %{"anyOf" => consts}}, "maxContains" => 5})
      assert check(costly, million) == {:error, @work}
    end

    test "uniqueItems over a million items" do
      compiled = compile!(%{"uniqueItems" => true})
      million = Enum.to_list(0..999_999)
      assert check(compiled, million) == :ok

      assert {:error, [error]} = check(compiled, List.replace_at(million, 999_999, 17.0))
      assert unit(error) == {"uniqueItems", "/uniqueItems", "", "array items are not unique"}
    end

    test "a deep instance (100,000 nested lists) under items: {$ref: #}" do
      compiled = compile!(%{"items" => %{"$ref" => "#"}})
      assert check(compiled, nest(100_000, 1, &[&1])) == {:error, @depth}
      assert check(compiled, nest(300, 1, &[&1])) == :ok
    end
  end

  describe "objects" do
    defp patterns(count),
      do: Map.new(0..(count - 1), &{"^p#{&1}_[a-z]+$", %{"type" => "integer"}})

    test "thousands of patternProperties against an object with many keys" do
      assert decide(fn -> JSONSchema.compile(%{"patternProperties" => patterns(5_000)}) end) ==
               {:error, @budget}

      compiled = compile!(%{"patternProperties" => patterns(1_000)})
      keys = fn count -> Map.new(0..(count - 1), &{"p#{&1}_abc", &1}) end

      assert check(compiled, keys.(200)) == :ok
      assert {:error, [error]} = check(compiled, Map.put(keys.(200), "p150_abc", "x"))

      assert unit(error) ==
               {"type", "/patternProperties/^p150_[a-z]+$/type", "/p150_abc",
                "instance is not of type integer"}

      assert check(compiled, keys.(20_000)) == {:error, @work}

      additional =
        compile!(%{"patternProperties" => patterns(1_000), "additionalProperties" => false})

      matching = fn count ->
        Map.new(
          0..(count - 1),
          &{"p#{rem(&1, 1_000)}_#{String.duplicate("x", 1 + div(&1, 1_000))}", &1}
        )
      end

      assert check(additional, matching.(1_000)) == :ok
      assert check(additional, matching.(20_000)) == {:error, @work}
    end

    # Found by these shapes: the rules of dependentRequired and
    # dependentSchemas whose property is absent were read without charge.
    test "dependentRequired and dependentSchemas rules are charged to the work limit" do
      rules = Map.new(0..49_999, &{"d#{&1}", ["x"]})
      schemas = Map.new(0..19_999, &{"d#{&1}", %{"required" => ["x"]}})

      for {keyword, value} <- [{"dependentRequired", rules}, {"dependentSchemas", schemas}] do
        compiled = compile!(%{"items" => %{keyword => value}})
        assert check(compiled, List.duplicate(%{"y" => 1}, 10)) == :ok
        assert {:error, [_]} = check(compiled, [%{"d7" => 1}])
        assert check(compiled, List.duplicate(%{"y" => 1}, 100_000)) == {:error, @work}
      end
    end
  end

  describe "references" do
    test "10,000 embedded $id resources" do
      defs =
        Map.new(0..9_999, fn i ->
          {"r#{i}", %{"$id" => "https://example.com/r#{i}", "type" => "integer", "minimum" => i}}
        end)

      schema = %{
        "$id" => "https://example.com/root",
        "properties" => %{"a" => %{"$ref" => "https://example.com/r9999"}},
        "$defs" => defs
      }

      # Over the inline budget: the compile is handed to the dirty scheduler.
      assert Native.json_schema_compile(schema, :draft2020_12, %{}, :annotate, :annotate) ==
               :dirty

      compiled = compile!(schema)

      assert check(compiled, %{"a" => 9_999}) == :ok
      assert {:error, [error]} = check(compiled, %{"a" => 5})

      assert error == %ValidationError{
               keyword: "minimum",
               keyword_location: "/properties/a/$ref/minimum",
               absolute_keyword_location: "https://example.com/r9999#/minimum",
               instance_location: "/a",
               message: "instance is less than the minimum 9999"
             }

      chain =
        Map.new(0..9_999, fn i ->
          {"r#{i}", %{"$id" => "https://example.com/c#{i}", "$ref" => "c#{i + 1}"}}
        end)
        |> Map.put("end", %{"$id" => "https://example.com/c10000", "type" => "integer"})

      compiled =
        compile!(%{"$id" => "https://example.com/chain", "$ref" => "c0", "$defs" => chain})

      assert check(compiled, 1) == {:error, @depth}
    end

    defp doubling(levels) do
      defs =
        Map.new(0..(levels - 1), fn i ->
          next = %{"$ref" => "#/$defs/d#{i + 1}"}
          {"d#{i}", %{"allOf" => [next, next]}}
        end)
        |> Map.put("d#{levels}", %{"type" => "integer"})

      %{"$ref" => "#/$defs/d0", "$defs" => defs}
    end

    test "references that multiply: each of 30 definitions refers twice to the next" do
      compiled = compile!(doubling(30))
      assert check(compiled, 1) == {:error, @work}
      # A failure on the first path decides allOf: invalid, the first 64 units.
      assert {:error, units} = check(compiled, "x")
      assert length(units) == 64

      assert unit(hd(units)) ==
               {"type", String.duplicate("/$ref/allOf/0", 30) <> "/$ref/type", "",
                "instance is not of type integer"}
    end

    test "a reference into the metaschema over huge and deep instances" do
      compiled = compile!(%{"$ref" => "https://json-schema.org/draft/2020-12/schema"})

      assert check(compiled, nest(100_000, true, &%{"not" => &1})) == {:error, @depth}
      assert check(compiled, nest(100_000, %{}, &%{"items" => &1})) == {:error, @depth}

      wide = fn count ->
        %{
          "type" => "object",
          "properties" =>
            Map.new(0..(count - 1), &{"p#{&1}", %{"type" => "integer", "minimum" => &1}})
        }
      end

      assert check(compiled, wide.(1_000)) == :ok

      assert {:error, [error]} =
               check(compiled, put_in(wide.(1_000), ["properties", "p500", "minimum"], "0"))

      assert unit(error) ==
               {"type",
                "/$ref/allOf/1/$ref/properties/properties/additionalProperties/$dynamicRef/allOf/3/$ref/properties/minimum/type",
                "/properties/p500/minimum", "instance is not of type number"}

      assert check(compiled, wide.(1_000_000)) == {:error, @work}
    end

    test "$ref: # cycles stop at the depth limit" do
      cycles = [
        %{"$ref" => "#"},
        %{"allOf" => [%{"$ref" => "#"}]},
        %{"anyOf" => [%{"$ref" => "#"}, %{"$ref" => "#"}]},
        %{"not" => %{"$ref" => "#"}},
        %{"if" => %{"$ref" => "#"}},
        %{
          "$defs" => %{"a" => %{"$ref" => "#/$defs/b"}, "b" => %{"$ref" => "#/$defs/a"}},
          "$ref" => "#/$defs/a"
        }
      ]

      for schema <- cycles, instance <- [1, [1], %{}] do
        assert check(compile!(schema), instance) == {:error, @depth}
        # Given as a map (compiled for the call, or found in the schema
        # cache): the same.
        assert decide(fn -> JSONSchema.validate(schema, instance) end) == {:error, @depth}
      end
    end
  end

  describe "values copied at compile" do
    # Reading 401 terms and copying 401 values is charged past the inline
    # budget (each term read four units, each value copied three), so the
    # compile leaves the calling scheduler; five objects stay on it. Under
    # a keyword no dialect defines, the terms are only read: that alone
    # leaves it too.
    test "a const or enum of 200 small objects is compiled on a dirty scheduler" do
      objects = Enum.map(1..200, &%{"k" => &1})

      for {schema, valid, invalid} <- [
            {%{"const" => objects}, objects, tl(objects)},
            {%{"enum" => objects}, %{"k" => 7}, %{"k" => 0}},
            {%{"x-data" => objects, "type" => "object"}, %{}, []}
          ] do
        assert Native.json_schema_compile(schema, :draft2020_12, %{}, :annotate, :annotate) ==
                 :dirty

        assert {:ok, compiled} = decide(fn -> JSONSchema.compile(schema) end)
        assert JSONSchema.valid?(compiled, valid)
        refute JSONSchema.valid?(compiled, invalid)
      end

      few = %{"const" => Enum.take(objects, 5)}
      assert {:ok, _} = Native.json_schema_compile(few, :draft2020_12, %{}, :annotate, :annotate)
    end
  end

  describe "schema nesting" do
    @wraps [
      {"/properties/a", &__MODULE__.properties/1},
      {"/items", &__MODULE__.items/1},
      {"/not", &__MODULE__.negation/1},
      {"/allOf/0", &__MODULE__.all_of/1},
      {"/$defs/a", &__MODULE__.defs/1}
    ]

    def properties(s), do: %{"properties" => %{"a" => s}}
    def items(s), do: %{"items" => s}
    def negation(s), do: %{"not" => s}
    def all_of(s), do: %{"allOf" => [s]}
    def defs(s), do: %{"$defs" => %{"a" => s}}

    # The pointer is where the document scan stops: the first schema
    # nested one level past the limit.
    test "a schema nested 10,000 levels is refused as too deep" do
      for {step, wrap} <- @wraps do
        assert {:error, %CompileError{reason: :too_deep, pointer: pointer}} =
                 decide(fn -> JSONSchema.compile(nest(10_000, %{}, wrap)) end)

        assert pointer == String.duplicate(step, 129)
      end
    end

    test "the deepest nesting allowed (128 levels) compiles; one more is too deep" do
      for {step, wrap} <- @wraps do
        assert {:ok, _} = decide(fn -> JSONSchema.compile(nest(128, %{}, wrap)) end), step

        assert {:error, %CompileError{reason: :too_deep, pointer: pointer}} =
                 decide(fn -> JSONSchema.compile(nest(129, %{}, wrap)) end)

        assert pointer == String.duplicate(step, 129)
      end
    end
  end
end
