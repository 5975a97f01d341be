defmodule Backplane.AgentRuntime.InputSchemaTest do
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema.ContractCases
  alias Backplane.AgentRuntime.InputSchema

  doctest InputSchema

  describe "entry checks (contract section 1)" do
    test "validate_schema/1 of a non-map" do
      for schema <- [nil, [], "object", 1, {:type, "object"}, :object] do
        assert_result(
          InputSchema.validate_schema(schema),
          {:validation, "tool schema must be a map", %{}}
        )
      end
    end

    test "validate/2 with a nil schema" do
      for arguments <- [%{}, nil, "x", [1]] do
        assert_result(
          InputSchema.validate(nil, arguments),
          {:unsupported_capability, "tool schema is required", %{}}
        )
      end
    end

    test "validate/2 when either side is not a map" do
      for {schema, arguments} <- [{%{}, nil}, {%{}, []}, {[], %{}}, {"s", %{}}, {%{}, {:a}}] do
        assert_result(
          InputSchema.validate(schema, arguments),
          {:validation, "tool schema and arguments must be maps", %{}}
        )
      end
    end

    test "validate/2 preflights the whole schema before reading arguments" do
      schema = %{"properties" => %{"a" => %{"type" => "string"}, "b" => %{"$ref" => "#/nope"}}}

      assert_result(
        InputSchema.validate(schema, %{"a" => 1}),
        {:unsupported_capability, "schema keyword is unsupported", %{keyword: "$ref"}}
      )
    end
  end

  describe "schema preflight (contract sections 2, 6 and 8)" do
    for {name, _schema, _expected} <- ContractCases.preflight() do
      @name name
      test "validate_schema: #{name}" do
        {@name, schema, expected} = ContractCases.preflight(@name)
        assert_result(InputSchema.validate_schema(schema), expected, :no_arguments, @name)
      end
    end

    test "validate/2 gives the preflight's error" do
      for {name, schema, expected} <- ContractCases.preflight(), expected != :ok do
        assert_result(InputSchema.validate(schema, %{}), expected, %{}, name)
      end
    end
  end

  describe "argument validation (contract sections 3, 4, 6 and 8)" do
    for {name, _schema, _arguments, _expected} <- ContractCases.arguments() do
      @name name
      test "validate: #{name}" do
        {@name, schema, arguments, expected} = ContractCases.arguments(@name)
        assert InputSchema.validate_schema(schema) == :ok
        assert_result(InputSchema.validate(schema, arguments), expected, arguments, @name)
      end
    end

    test "case names are unique" do
      names = Enum.map(ContractCases.arguments(), &elem(&1, 0))
      assert names == Enum.uniq(names)
      names = Enum.map(ContractCases.preflight(), &elem(&1, 0))
      assert names == Enum.uniq(names)
    end
  end

  test "fixtures/contract_rows.json holds exactly the rows both backends run" do
    # The Rust core's tests read the file (native/input_schema_core/tests/contract.rs);
    # scripts/contract_rows rewrites it after a row changes.
    {:ok, written} =
      ContractCases.shared_rows_path()
      |> File.read!()
      |> Backplane.AgentRuntime.InputSchema.JSON.decode()

    assert written === ContractCases.shared_rows()
  end

  test "arguments come back as the identical term, defaults never applied" do
    schema = %{
      "properties" => %{
        "a" => %{"type" => "integer", "default" => 5},
        "b" => %{"type" => "array", "default" => [], "items" => %{"default" => "x"}}
      }
    }

    arguments = %{"b" => [1, 2.0, "z"]}
    assert {:ok, returned} = InputSchema.validate(schema, arguments)
    assert returned === arguments
    assert :erts_debug.same(returned, arguments)
  end
end
