defmodule Backplane.DoctestsTest do
  # The examples of the public modules that have no test module of their
  # own; the others run theirs where their tests are (`doctest` in
  # input_schema_test.exs, error_test.exs, input_schema/json_test.exs,
  # json_schema_test.exs and json_schema/schema_validator_test.exs).
  use ExUnit.Case, async: true

  doctest Backplane.AgentRuntime.InputSchema.Compiled
  doctest Backplane.JSONSchema.Compiled
  doctest Backplane.JSONSchema.CompileError
  doctest Backplane.JSONSchema.LimitError
  doctest Backplane.JSONSchema.ValidationError
end
