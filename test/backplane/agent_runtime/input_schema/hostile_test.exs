defmodule Backplane.AgentRuntime.InputSchema.HostileTest do
  @moduledoc "Contract section 6: any term in, a result out; never a raise or a crash."
  use ExUnit.Case, async: true

  # Generous: these assert outcomes, not times, and CI machines vary.
  @moduletag timeout: 900_000

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  import Backplane.AgentRuntime.InputSchema.ContractCases,
    only: [prop: 1, nested_list: 2, wide: 2]

  alias Backplane.AgentRuntime.{Error, InputSchema}

  @too_deep_schema {:validation, "tool schema nesting exceeds the supported depth", %{}}

  defp nested_map(0, leaf), do: leaf
  defp nested_map(depth, leaf), do: nested_map(depth - 1, %{"a" => leaf})

  defp nested_schema(0, leaf, _wrap), do: leaf
  defp nested_schema(depth, leaf, wrap), do: nested_schema(depth - 1, wrap.(leaf), wrap)

  test "schemas nested a million levels deep" do
    for wrap <- [
          &%{"properties" => %{"a" => &1}},
          &%{"items" => &1},
          &%{"not" => &1},
          &%{"oneOf" => [&1]},
          &%{"anyOf" => [%{}, &1]},
          &%{"additionalProperties" => &1}
        ] do
      schema = nested_schema(1_000_000, %{}, wrap)
      assert_result(InputSchema.validate_schema(schema), @too_deep_schema)
      assert_result(InputSchema.validate(schema, %{}), @too_deep_schema)
      assert_result(InputSchema.compile(schema), @too_deep_schema)
    end

    assert_result(
      InputSchema.validate_schema(prop(%{"enum" => [nested_list(1_000_000, 1)]})),
      @too_deep_schema
    )

    assert_result(
      InputSchema.validate_schema(prop(%{"const" => nested_map(1_000_000, 1)})),
      @too_deep_schema
    )

    assert_result(
      InputSchema.validate_schema(prop(%{"default" => nested_map(1_000_000, 1)})),
      :ok
    )
  end

  test "arguments nested a million levels deep" do
    deep_list = nested_list(1_000_000, "x")
    deep_map = nested_map(1_000_000, "x")

    depth_error = fn path ->
      {:execution_failure, "tool argument nesting exceeds the supported depth", %{path: path}}
    end

    items = Enum.reduce(1..90, %{}, fn _, s -> %{"items" => s} end)

    assert_result(
      InputSchema.validate(prop(items), %{"a" => deep_list}),
      depth_error.("$arguments.a" <> String.duplicate("[0]", 64))
    )

    additional = Enum.reduce(1..90, %{}, fn _, s -> %{"additionalProperties" => s} end)

    assert_result(
      InputSchema.validate(additional, deep_map),
      depth_error.("$arguments" <> String.duplicate(".a", 65))
    )

    # Equality stops at the choice's depth; unconstrained values are not walked.
    assert_result(
      InputSchema.validate(prop(%{"enum" => [[[["x"]]]]}), %{"a" => deep_list}),
      {:validation, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}
    )

    assert_result(InputSchema.validate(prop(%{"type" => "array"}), %{"a" => deep_list}), :ok, %{
      "a" => deep_list
    })

    assert_result(InputSchema.validate(%{}, deep_map), :ok, deep_map)
  end

  test "odd keys in schemas" do
    for key <- [self(), make_ref(), fn -> :ok end, 1.5, {:a}, [], %{}, <<1::3>>] do
      assert_result(
        InputSchema.validate_schema(%{key => 1}),
        {:unsupported_capability, "schema keyword is unsupported", %{keyword: key}}
      )

      assert_result(
        InputSchema.validate_schema(%{"properties" => %{key => %{}}}),
        {:validation, "schema property names must be strings or atoms", %{}}
      )
    end
  end

  test "terms outside JSON as schema values" do
    for value <- [self(), make_ref(), fn -> :ok end, {1}, <<1::3>>, 2 ** 1000] do
      assert_result(
        InputSchema.validate_schema(prop(%{"type" => value})),
        {:validation, "schema type must be a supported type or non-empty unique list", %{}}
      )

      assert_result(
        InputSchema.validate_schema(prop(%{"enum" => [value]})),
        if(is_integer(value),
          do: :ok,
          else: {:validation, "schema enum must be a list of JSON values", %{}}
        )
      )

      assert_result(
        InputSchema.validate_schema(prop(%{"items" => value})),
        {:validation, "schema items must be a schema map", %{}}
      )
    end
  end

  test "terms outside JSON as arguments" do
    for value <- [
          self(),
          make_ref(),
          fn -> :ok end,
          {1, 2},
          <<1::3>>,
          :atom,
          2 ** 100_000,
          -(2 ** 100_000)
        ] do
      arguments = %{"a" => value}
      assert_result(InputSchema.validate(prop(%{}), arguments), :ok, arguments)

      assert_result(
        InputSchema.validate(prop(%{"type" => "string"}), arguments),
        {:validation, "tool argument has the wrong type", %{path: "$arguments.a", type: "string"}}
      )
    end

    huge = 2 ** 100_000

    assert_result(
      InputSchema.validate(prop(%{"maximum" => 1.0e308}), %{"a" => huge}),
      {:validation, "tool argument is above the maximum",
       %{path: "$arguments.a", maximum: 1.0e308}}
    )

    assert_result(
      InputSchema.validate(prop(%{"minimum" => huge}), %{"a" => huge - 1}),
      {:validation, "tool argument is below the minimum", %{path: "$arguments.a", minimum: huge}}
    )
  end

  test "large inputs" do
    list = Enum.map(1..1_000_000, &%{"id" => &1})

    schema =
      prop(%{
        "type" => "array",
        "items" => %{
          "type" => "object",
          "required" => ["id"],
          "properties" => %{"id" => %{"type" => "integer", "minimum" => 1}}
        }
      })

    assert_result(InputSchema.validate(schema, %{"a" => list}), :ok, %{"a" => list})

    map = Map.new(1..100_000, &{"k#{&1}", &1})

    assert_result(
      InputSchema.validate(%{"additionalProperties" => %{"type" => "integer"}}, map),
      :ok,
      map
    )

    assert_result(
      InputSchema.validate(
        %{"additionalProperties" => %{"type" => "integer"}},
        Map.put(map, "k50000", "x")
      ),
      {:validation, "tool argument has the wrong type",
       %{path: "$arguments.k50000", type: "integer"}}
    )

    wide = %{
      "properties" => Map.new(1..10_000, &{"p#{&1}", %{"type" => "integer"}}),
      "required" => ["p9999"]
    }

    assert InputSchema.validate_schema(wide) == :ok

    assert_result(
      InputSchema.validate(wide, %{"p9999" => "x"}),
      {:validation, "tool argument has the wrong type",
       %{path: "$arguments.p9999", type: "integer"}}
    )

    string = String.duplicate("a", 100_000_000)

    assert_result(
      InputSchema.validate(
        prop(%{"type" => "string", "minLength" => 100_000_000, "pattern" => "^a+$"}),
        %{"a" => string}
      ),
      :ok,
      %{"a" => string}
    )
  end

  test "a process killed while validating leaves the VM and the schema usable" do
    {:ok, compiled} = InputSchema.compile(prop(%{"items" => %{"pattern" => "^[a-z]+$"}}))
    big = %{"a" => List.duplicate("abc", 2_000_000)}

    for _ <- 1..5 do
      pid = spawn(fn -> InputSchema.validate(compiled, big) end)
      Process.sleep(5)
      Process.exit(pid, :kill)
    end

    assert {:ok, _} = InputSchema.validate(compiled, %{"a" => ["x"]})
  end

  describe "hostile schemas: the compile budget (docs/behaviour.md, section 3)" do
    @budget "tool schema exceeds the supported compile budget"

    defp budget_error(reason), do: {:validation, @budget, %{reason: reason}}

    # Each shape is fresh (a seed no other test uses), so its patterns are
    # built here, then found built: the verdict is the same both times.
    defp assert_rejected_twice(schema, reason) do
      for _ <- 1..2 do
        assert_result(InputSchema.validate_schema(schema), budget_error(reason))
        assert_result(InputSchema.validate(schema, %{}), budget_error(reason), %{})
      end

      assert {:error, %Error{message: @budget}, pointer} = InputSchema.locate_schema_error(schema)
      pointer
    end

    test "400 distinct long counted patterns" do
      seed = System.unique_integer([:positive])

      schema =
        wide(400, &%{"type" => "string", "pattern" => "^[a-z0-9]{1,#{20_000 - &1}}$x#{seed}"})

      assert assert_rejected_twice(schema, :patterns) =~ ~r"^/properties/p\d+/pattern$"
    end

    test "2,000 distinct medium patterns" do
      seed = System.unique_integer([:positive])

      schema =
        wide(
          2_000,
          &%{"pattern" => "^(?:[a-f]{2,#{10 + rem(&1, 31)}}\\.){1,#{20 + div(&1, 31)}}x#{seed}$"}
        )

      assert assert_rejected_twice(schema, :patterns) =~ ~r"^/properties/p\d+/pattern$"
    end

    test "10,000 properties with small distinct patterns" do
      seed = System.unique_integer([:positive])

      schema =
        wide(10_000, &%{"type" => "string", "pattern" => "^item#{&1}x#{seed}[0-9]{3}-abc$"})

      assert assert_rejected_twice(schema, :patterns) =~ ~r"^/properties/p\d+/pattern$"
    end

    test "100,000 properties" do
      assert assert_rejected_twice(wide(100_000, fn _ -> %{"type" => "integer"} end), :work) =~
               ~r"^/properties/p\d+"
    end

    test "100,000-element enum and const values are accepted and enforced" do
      choices = Enum.map(1..100_000, &"choice#{&1}")
      schema = prop(%{"enum" => choices})
      assert InputSchema.validate_schema(schema) == :ok
      assert {:ok, _} = InputSchema.validate(schema, %{"a" => "choice99999"})

      assert_result(
        InputSchema.validate(schema, %{"a" => "choice0"}),
        {:validation, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}
      )

      list = Enum.to_list(1..100_000)
      schema = prop(%{"const" => list})
      assert InputSchema.validate_schema(schema) == :ok
      assert {:ok, _} = InputSchema.validate(schema, %{"a" => list})

      assert_result(
        InputSchema.validate(schema, %{"a" => [0 | list]}),
        {:validation, "tool argument is not the allowed constant value", %{path: "$arguments.a"}}
      )
    end

    test "the deepest allowed nesting with the widest levels" do
      # 45 levels of `properties` (90 of the 96 nesting levels), each with
      # `width` siblings beside the next level.
      deep_wide = fn width ->
        Enum.reduce(1..45, %{"type" => "integer"}, fn _, inner ->
          siblings = Map.new(1..width, &{"s#{&1}", %{"type" => "string"}})
          %{"type" => "object", "properties" => Map.put(siblings, "next", inner)}
        end)
      end

      assert InputSchema.validate_schema(deep_wide.(100)) == :ok
      assert_result(InputSchema.validate_schema(deep_wide.(3_000)), budget_error(:work))
    end
  end
end
