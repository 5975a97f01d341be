defmodule Backplane.AgentRuntime.InputSchema.PropertyTest do
  @moduledoc """
  Properties checked with PropEr, each with shrinking. Cases per property:
  `PROPERTY_CASES` (default 1,000; the soak runs more).
  """
  use ExUnit.Case, async: true

  # Generous: these assert outcomes, not times, and CI machines vary.
  @moduletag timeout: 900_000

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.Generators, as: G
  alias Backplane.AgentRuntime.InputSchema

  @cases String.to_integer(System.get_env("PROPERTY_CASES", "1000"))
  @classes [:validation, :unsupported_capability, :execution_failure]

  # Runs a property; on failure, fails with PropEr's shrunk counterexample.
  defp check(name, property, cases \\ @cases) do
    result =
      :proper.quickcheck(property, [
        {:numtests, cases},
        {:max_size, 24},
        {:on_output, fn _, _ -> :ok end}
      ])

    if result == true do
      IO.puts("property #{name}: #{cases} cases passed")
    else
      flunk(
        "property #{name} failed; shrunk counterexample: #{inspect(:proper.counterexample(), limit: 60)}"
      )
    end
  end

  defp forall(gen, fun), do: :proper.forall(gen, fun)

  # A panic in the core comes back as this error: it is a bug, and fails
  # every property, even where it would otherwise count as a result.
  @panic "tool schema validation failed unexpectedly"

  defp panicked?({:error, %Error{message: @panic}}), do: true
  defp panicked?(_), do: false

  defp well_formed?({:error, %Error{message: @panic}}), do: false
  defp well_formed?({:ok, _}), do: true
  defp well_formed?(:ok), do: true

  defp well_formed?(
         {:error, %Error{class: class, message: message, details: details, cause: nil}}
       ),
       do: class in @classes and is_binary(message) and is_map(details)

  defp well_formed?(_), do: false

  test "never raises; results have the contract's shapes; arguments come back identical" do
    check(
      "never raises",
      forall({G.any_schema(), G.arguments()}, fn {schema, arguments} ->
        preflight = InputSchema.validate_schema(schema)
        result = InputSchema.validate(schema, arguments)
        all = InputSchema.validate(schema, arguments, errors: :all)

        well_formed?(preflight) and well_formed?(result) and well_formed?(all) and
          case result do
            {:ok, returned} -> returned === arguments
            {:error, _} -> true
          end
      end)
    )
  end

  test "validate_schema is :ok exactly when compile succeeds, with the same error" do
    check(
      "validate_schema agrees with compile",
      forall(G.any_schema(), fn schema ->
        case {InputSchema.validate_schema(schema), InputSchema.compile(schema)} do
          {:ok, {:ok, %InputSchema.Compiled{}}} -> true
          {{:error, e}, {:error, e} = error} -> not panicked?(error)
          _ -> false
        end
      end)
    )
  end

  test "compiled, uncompiled, cached, repeated and all-errors calls agree" do
    check(
      "compiled equals uncompiled",
      forall({G.schema(), G.arguments()}, fn {schema, arguments} ->
        uncompiled = InputSchema.validate(schema, arguments)

        case InputSchema.compile(schema) do
          {:ok, compiled} ->
            first = InputSchema.validate(compiled, arguments)
            again = InputSchema.validate(schema, arguments)

            all_agrees =
              case {first, InputSchema.validate(compiled, arguments, errors: :all)} do
                {{:ok, _}, {:ok, _}} -> true
                {{:error, e}, {:error, a}} -> %{a | details: Map.delete(a.details, :errors)} === e
                _ -> false
              end

            first === uncompiled and again === uncompiled and all_agrees and
              not panicked?(uncompiled)

          {:error, _} = error ->
            # A malformed schema gives its preflight error for any map arguments.
            not panicked?(error) and (not is_map(arguments) or uncompiled === error)
        end
      end)
    )
  end

  test "concurrent callers get the results a single caller gets" do
    check(
      "concurrent equals sequential",
      forall(G.list({G.schema(), G.arguments()}), fn calls ->
        expected = Enum.map(calls, fn {s, a} -> InputSchema.validate(s, a) end)

        concurrent =
          calls
          |> Task.async_stream(fn {s, a} -> InputSchema.validate(s, a) end,
            max_concurrency: 4,
            ordered: true
          )
          |> Enum.map(fn {:ok, r} -> r end)

        concurrent === expected and not Enum.any?(expected, &panicked?/1)
      end),
      div(@cases, 5)
    )
  end

  test "generated valid arguments are accepted; each single mutation gives its own error and path" do
    check(
      "valid accepted, mutation rejected",
      forall(G.valid_pair(), fn {schema, value, breaks} ->
        accepted = InputSchema.validate(schema, value) === {:ok, value}

        rejected =
          Enum.all?(breaks, fn {broken, message, path} ->
            case InputSchema.validate(schema, broken) do
              {:error, %Error{message: ^message, details: %{path: ^path}}} -> true
              _ -> false
            end
          end)

        accepted and rejected
      end)
    )
  end
end
