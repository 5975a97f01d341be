defmodule Backplane.AgentRuntime.InputSchema.ContractAssertions do
  @moduledoc "Exact assertions on InputSchema results (class, message, details, cause)."

  import ExUnit.Assertions

  alias Backplane.AgentRuntime.Error

  @doc """
  Asserts that `result` is what `expected` names: `:ok` for a preflight,
  `{:ok, arguments}` with the identical term for a validation, or the error
  with exactly this class, message and details (compared with `===`, so `1`
  and `1.0` differ) and no cause.
  """
  def assert_result(result, expected, arguments \\ :no_arguments, label \\ "")

  def assert_result(result, :ok, :no_arguments, label) do
    assert result === :ok, "#{label}: expected :ok, got #{inspect(result, limit: 20)}"
  end

  def assert_result(result, :ok, arguments, label) do
    assert {:ok, returned} = result,
           "#{label}: expected {:ok, _}, got #{inspect(result, limit: 20)}"

    assert returned === arguments, "#{label}: arguments came back changed"
  end

  def assert_result(result, {class, message, details}, _arguments, label) do
    assert {:error, %Error{} = error} = result,
           "#{label}: expected an error, got #{inspect(result, limit: 20)}"

    actual = {error.class, error.message, error.details, error.cause}

    assert actual === {class, message, details, nil},
           "#{label}:\n  expected #{inspect({class, message, details, nil})}\n  got      #{inspect(actual, limit: 50)}"
  end
end
