defmodule Backplane.AgentRuntime.InputSchema.AllErrorsTest do
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.ContractCases
  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema

  defp strip(%Error{details: details} = error),
    do: %{error | details: Map.delete(details, :errors)}

  test "the first error is validate/2's, over the whole contract suite" do
    for {name, schema, arguments, _} <- ContractCases.arguments() do
      {:ok, compiled} = InputSchema.compile(schema)

      for s <- [schema, compiled] do
        case {InputSchema.validate(s, arguments),
              InputSchema.validate(s, arguments, errors: :all)} do
          {{:ok, same}, {:ok, same2}} ->
            assert same === arguments and same2 === arguments, name

          {{:error, first}, {:error, all}} ->
            assert strip(all) === first, name
            [listed | _] = all.details.errors

            assert listed === %{
                     class: first.class,
                     message: first.message,
                     details: first.details
                   },
                   name

          other ->
            flunk("#{name}: #{inspect(other, limit: 10)}")
        end
      end
    end
  end

  test "errors: :first is the default" do
    schema = %{"required" => ["a", "b"]}
    assert InputSchema.validate(schema, %{}, errors: :first) == InputSchema.validate(schema, %{})
  end

  test "every failure of a multi-failure call, in document order, each with its own path" do
    schema = %{
      "type" => "object",
      "required" => ["name", "mode"],
      "properties" => %{
        "name" => %{"type" => "string", "minLength" => 3, "pattern" => "^[a-z]+$"},
        "size" => %{"type" => "integer", "minimum" => 1, "maximum" => 10},
        "tags" => %{"type" => "array", "maxItems" => 2, "items" => %{"enum" => ["a", "b"]}},
        "nested" => %{
          "type" => "object",
          "additionalProperties" => false,
          "properties" => %{"x" => %{"type" => "boolean"}}
        }
      },
      "additionalProperties" => false
    }

    arguments = %{
      "name" => "A",
      "size" => 1.5,
      "tags" => ["a", "z", "y"],
      "nested" => %{"x" => 1, "p" => 1, "q" => 2},
      "extra1" => 1,
      "extra2" => 2
    }

    assert {:error, error} = InputSchema.validate(schema, arguments, errors: :all)
    assert {error.class, error.message} == {:validation, "required tool argument is missing"}

    assert Enum.map(error.details.errors, &{&1.message, &1.details}) == [
             {"required tool argument is missing", %{path: "$arguments", property: "mode"}},
             {"tool argument is shorter than the minimum length",
              %{path: "$arguments.name", minLength: 3}},
             {"tool argument does not match the pattern", %{path: "$arguments.name"}},
             {"tool argument has the wrong type",
              %{path: "$arguments.nested.x", type: "boolean"}},
             {"additional tool argument is not allowed",
              %{path: "$arguments.nested", property: "p"}},
             {"additional tool argument is not allowed",
              %{path: "$arguments.nested", property: "q"}},
             {"tool argument has the wrong type", %{path: "$arguments.size", type: "integer"}},
             {"tool argument has too many items", %{path: "$arguments.tags", maxItems: 2}},
             {"tool argument is not an allowed enum value", %{path: "$arguments.tags[1]"}},
             {"tool argument is not an allowed enum value", %{path: "$arguments.tags[2]"}},
             {"additional tool argument is not allowed",
              %{path: "$arguments", property: "extra1"}},
             {"additional tool argument is not allowed",
              %{path: "$arguments", property: "extra2"}}
           ]

    assert Enum.all?(error.details.errors, &(&1.class == :validation))
    assert Map.delete(error.details, :errors) == %{path: "$arguments", property: "mode"}
  end

  test "the list stops at 64 failures, in the argument map's own key order" do
    schema = %{"additionalProperties" => %{"type" => "string"}}
    arguments = Map.new(1..500, &{"k#{&1}", &1})
    assert {:error, error} = InputSchema.validate(schema, arguments, errors: :all)
    assert length(error.details.errors) == 64

    expected = arguments |> Map.keys() |> Enum.take(64) |> Enum.map(&"$arguments.#{&1}")
    assert Enum.map(error.details.errors, & &1.details.path) == expected
  end

  test "map order is Map.keys/1 order for flat maps, hash maps and maps shrunk back" do
    schema = %{"additionalProperties" => %{"type" => "string"}}
    big = Map.new(1..40, &{"k#{&1}", &1})
    shrunk = Enum.reduce(1..10, big, &Map.delete(&2, "k#{&1}"))
    mixed = Map.new(1..50, fn i -> if rem(i, 2) == 0, do: {i, i}, else: {:"a#{i}", i} end)

    for n <- [1, 31, 32, 33, 100, 1000] do
      map = Map.new(1..n, &{"k#{&1}", &1})
      {:error, error} = InputSchema.validate(schema, map, errors: :all)
      expected = map |> Map.keys() |> Enum.take(64) |> Enum.map(&"$arguments.#{&1}")
      assert Enum.map(error.details.errors, & &1.details.path) == expected, "#{n} keys"
    end

    for map <- [shrunk, mixed] do
      {:error, error} = InputSchema.validate(schema, map, errors: :all)
      expected = map |> Map.keys() |> Enum.take(64) |> Enum.map(&"$arguments.#{&1}")
      assert Enum.map(error.details.errors, & &1.details.path) == expected
    end

    # Properties of a large schema are checked in the schema map's order.
    wide = %{"properties" => Map.new(1..40, &{"p#{&1}", %{"type" => "string"}})}
    arguments = Map.new(1..40, &{"p#{&1}", &1})
    {:error, first} = InputSchema.validate(wide, arguments)
    assert first.details.path == "$arguments." <> hd(Map.keys(wide["properties"]))
  end

  test "an aborting failure ends the list" do
    schema = %{
      "properties" => %{
        "a" => %{"type" => "integer"},
        "b" => %{"items" => %{}},
        "c" => %{"type" => "integer"}
      }
    }

    assert {:error, error} =
             InputSchema.validate(schema, %{"a" => "x", "b" => [1 | 2], "c" => "y"}, errors: :all)

    assert {error.class, error.message} == {:validation, "tool argument has the wrong type"}

    assert Enum.map(error.details.errors, &{&1.class, &1.message, &1.details.path}) == [
             {:validation, "tool argument has the wrong type", "$arguments.a"},
             {:validation, "tool argument is not a proper list", "$arguments.b"}
           ]
  end

  test "a walk that fails and then runs out of work lists the failures before the work limit" do
    # Each item of "a" meets 2^14 references; 400 items pass the work limit
    # for schemas with $ref (5,000,000 units). "0" fails first, within it.
    defs =
      Map.new(0..13, fn i ->
        next = %{"$ref" => "#/$defs/d#{i + 1}"}
        {"d#{i}", %{"allOf" => [next, next]}}
      end)

    schema = %{
      "type" => "object",
      "properties" => %{
        "0" => %{"type" => "string"},
        "a" => %{"type" => "array", "items" => %{"$ref" => "#/$defs/d0"}}
      },
      "$defs" => Map.put(defs, "d14", %{"type" => "integer"})
    }

    arguments = %{"0" => 1, "a" => Enum.to_list(1..400)}
    {:ok, compiled} = InputSchema.compile(schema)

    for s <- [schema, compiled] do
      assert {:error, first} = InputSchema.validate(s, arguments)

      assert {first.class, first.message, first.details} ==
               {:validation, "tool argument has the wrong type",
                %{path: "$arguments.0", type: "string"}}

      assert {:error, all} = InputSchema.validate(s, arguments, errors: :all)
      assert strip(all) === first

      assert all.details.errors == [
               %{
                 class: :validation,
                 message: "tool argument has the wrong type",
                 details: %{path: "$arguments.0", type: "string"}
               },
               %{
                 class: :execution_failure,
                 message: "tool argument validation exceeds the supported work",
                 details: %{path: "$arguments", reason: :work}
               }
             ]
    end
  end

  test "schema errors are not affected" do
    assert InputSchema.validate(%{"$ref" => "x"}, %{}, errors: :all) ==
             InputSchema.validate(%{"$ref" => "x"}, %{})
  end

  test "locate_schema_error/1 names the failing keyword with a JSON Pointer" do
    cases = [
      {%{"type" => "object"}, :ok},
      {%{"type" => "string"}, "/type"},
      {%{"properties" => %{"a/b" => %{"$ref" => "#/x"}}}, "/properties/a~1b/$ref"},
      {%{"properties" => %{"a~" => %{"minimum" => "1"}}}, "/properties/a~0/minimum"},
      {%{properties: %{n: %{type: :date}}}, "/properties/n/type"},
      {%{"oneOf" => [%{}, %{"items" => %{"pattern" => "(?=x)"}}]}, "/oneOf/1/items/pattern"},
      {%{"anyOf" => [%{}, 1]}, "/anyOf/1"},
      {%{"properties" => %{"e" => %{"enum" => [1, {:x}]}}}, "/properties/e/enum/1"},
      {%{"additional_properties" => %{"not" => 1}}, "/additional_properties/not"},
      {%{"oneOf" => [%{}], "anyOf" => [%{}]}, "/anyOf"},
      {%{"required" => [:a]}, "/required"},
      {%{"items" => %{}, "not" => %{"maxLength" => -1}}, "/not/maxLength"}
    ]

    for {schema, expected} <- cases do
      case expected do
        :ok ->
          assert InputSchema.locate_schema_error(schema) == :ok

        pointer ->
          {:error, error} = InputSchema.validate_schema(schema)
          assert InputSchema.locate_schema_error(schema) == {:error, error, pointer}
      end
    end
  end
end
