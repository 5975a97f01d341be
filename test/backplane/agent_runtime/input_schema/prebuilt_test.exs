defmodule Backplane.AgentRuntime.InputSchema.PrebuiltTest do
  # The NIF as a release pipeline ships it: one library, built once, taken
  # in by BACKPLANE_INPUT_SCHEMA_NIF on every Elixir/OTP platform. scripts/suite
  # runs this module alone (`--only prebuilt`) with that variable set, on
  # each platform of the matrix.
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.ContractCases

  @moduletag :prebuilt

  test "the loaded library is the prebuilt one, byte for byte" do
    prebuilt = System.fetch_env!("BACKPLANE_INPUT_SCHEMA_NIF")
    loaded = Mix.Tasks.Compile.InputSchemaNative.library_path()
    assert File.read!(loaded) == File.read!(prebuilt)
    # A release build has no test probes: their stubs stay.
    assert_raise ErlangError, fn -> Backplane.AgentRuntime.InputSchema.Native.panic_probe() end

    IO.puts("prebuilt NIF #{prebuilt} on OTP #{System.otp_release()}")
  end

  test "every preflight row" do
    for {name, schema, expected} <- ContractCases.preflight() do
      assert_result(InputSchema.validate_schema(schema), expected, :no_arguments, name)
    end
  end

  test "every argument row, through the schema map and the compiled schema" do
    for {name, schema, arguments, expected} <- ContractCases.arguments() do
      assert_result(InputSchema.validate(schema, arguments), expected, arguments, name)

      with {:ok, compiled} <- InputSchema.compile(schema) do
        assert_result(InputSchema.validate(compiled, arguments), expected, arguments, name)
      end
    end
  end
end
