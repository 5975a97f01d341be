defmodule Backplane.AgentRuntime.InputSchema.NativeTest do
  # The NIF's guard: every NIF body runs under `catch_unwind`, so a panic in
  # the Rust code (a bug) comes back as an error, never as a raise or a
  # crash of the VM. `panic_probe/0` exists only in the test environment's
  # build (cargo feature `panic-probe`).
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.Native

  test "a panic inside a NIF comes back as the execution_failure error" do
    for _ <- 1..3 do
      assert Native.panic_probe() ===
               {:error,
                %Error{
                  class: :execution_failure,
                  message: "tool schema validation failed unexpectedly",
                  details: %{},
                  cause: nil
                }}
    end

    # The library is still loaded and answers after the panics.
    assert Backplane.AgentRuntime.InputSchema.validate_schema(%{}) == :ok
  end
end
