defmodule Backplane.AgentRuntime.InputSchema.Draft202012PropertyTest do
  # Properties of InputSchema under `contract: :draft2020_12`, checked
  # with PropEr (cases: `PROPERTY_CASES`, default 1,000): it never raises
  # and answers the contract's shapes, compiled equals uncompiled, and the
  # byte limit reads a schema as `:erlang.external_size/1` reads its
  # normalised term. The contract is the node's: this module runs alone.
  use ExUnit.Case, async: false

  @moduletag timeout: 900_000

  alias Backplane.AgentRuntime.{Error, InputSchema}
  alias Backplane.AgentRuntime.InputSchema.Generators, as: G
  alias Backplane.AgentRuntime.InputSchema.Native

  @cases String.to_integer(System.get_env("PROPERTY_CASES", "1000"))
  @classes [:validation, :unsupported_capability, :execution_failure]

  setup_all do
    InputSchema.put_contract(:draft2020_12)
    on_exit(fn -> InputSchema.put_contract(:subset) end)
  end

  defp check(name, property) do
    result =
      :proper.quickcheck(property, [
        {:numtests, @cases},
        {:max_size, 24},
        {:on_output, fn _, _ -> :ok end}
      ])

    if result == true do
      IO.puts("property #{name}: #{@cases} cases passed")
    else
      flunk(
        "property #{name} failed; shrunk counterexample: #{inspect(:proper.counterexample(), limit: 60)}"
      )
    end
  end

  # An answer past a panic or an unexpected term is this error: a bug.
  defp well_formed?({:error, %Error{message: "JSON Schema validation failed"}}), do: false
  defp well_formed?({:ok, _}), do: true
  defp well_formed?(:ok), do: true

  defp well_formed?(
         {:error, %Error{class: class, message: message, details: details, cause: nil}}
       ),
       do: class in @classes and is_binary(message) and is_map(details)

  defp well_formed?(_), do: false

  test "never raises; results have the contract's shapes; arguments come back identical" do
    check(
      "draft2020_12 never raises",
      :proper.forall({G.any_schema(), G.arguments()}, fn {schema, arguments} ->
        preflight = InputSchema.validate_schema(schema)
        result = InputSchema.validate(schema, arguments)

        well_formed?(preflight) and well_formed?(result) and
          case result do
            {:ok, returned} -> returned === arguments
            {:error, _} -> true
          end
      end)
    )
  end

  test "compiled, uncompiled and repeated calls agree" do
    check(
      "draft2020_12 compiled equals uncompiled",
      :proper.forall({G.schema(), G.arguments()}, fn {schema, arguments} ->
        uncompiled = InputSchema.validate(schema, arguments)

        case InputSchema.compile(schema) do
          {:ok, compiled} ->
            InputSchema.validate(compiled, arguments) === uncompiled and
              InputSchema.validate(schema, arguments) === uncompiled and well_formed?(uncompiled)

          {:error, _} = error ->
            # The arguments' own checks come first (steps 2 and 3): with
            # empty arguments, validate gives the schema's error.
            well_formed?(error) and well_formed?(uncompiled) and
              InputSchema.validate_schema(schema) === error and
              InputSchema.validate(schema, %{}) === error
        end
      end)
    )
  end

  test "the byte limit reads the normalised term's external size" do
    check(
      "draft2020_12 schema size",
      :proper.forall(G.json_value(), fn value ->
        term = %{"default" => value}
        Native.contract_schema_size(term) == :erlang.external_size(term)
      end)
    )
  end
end
