defmodule Backplane.AgentRuntime.InputSchema.CompiledTest do
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.ContractCases
  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Compiled

  test "compile/1 fails exactly when validate_schema/1 does, with the same error" do
    for {name, schema, _} <- ContractCases.preflight() do
      case InputSchema.validate_schema(schema) do
        :ok -> assert {:ok, %Compiled{}} = InputSchema.compile(schema), name
        {:error, error} -> assert InputSchema.compile(schema) == {:error, error}, name
      end
    end

    assert InputSchema.compile(nil) == InputSchema.validate_schema(nil)
  end

  test "a compiled schema gives the schema map's results over the whole contract suite" do
    for {name, schema, arguments, _} <- ContractCases.arguments() do
      {:ok, compiled} = InputSchema.compile(schema)
      expected = InputSchema.validate(schema, arguments)
      assert InputSchema.validate(compiled, arguments) === expected, name
      # Repeated calls on one compiled schema give the same result.
      assert InputSchema.validate(compiled, arguments) === expected, name
    end
  end

  test "a compiled schema with non-map arguments" do
    {:ok, compiled} = InputSchema.compile(%{})

    for arguments <- [[1], nil, "x", {:a}] do
      assert_result(
        InputSchema.validate(compiled, arguments),
        {:validation, "tool schema and arguments must be maps", %{}}
      )
    end
  end

  test "compiled schemas are shared between processes and stay opaque" do
    {:ok, compiled} = InputSchema.compile(%{"required" => ["q"]})
    assert inspect(compiled) == "#Backplane.AgentRuntime.InputSchema.Compiled<>"

    results =
      1..200
      |> Task.async_stream(fn i -> InputSchema.validate(compiled, %{"q" => i}) end,
        max_concurrency: 50
      )
      |> Enum.map(fn {:ok, result} -> result end)

    assert results == Enum.map(1..200, &{:ok, %{"q" => &1}})
  end
end
