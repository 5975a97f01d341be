defmodule Backplane.McpProtocol.SchemaValidator do
  @moduledoc """
  A copy of an agent runtime's MCP schema-validator behaviour, as the
  runtime defines it, so that the tests can hold
  `Backplane.JSONSchema.SchemaValidator` to it. The library itself never
  names this module: a host without it compiles the library unchanged.
  """

  @callback compile(map(), keyword()) :: {:ok, term()} | {:unsupported, term()} | {:error, term()}
  @callback validate(term(), term(), keyword()) :: :ok | {:error, term()}
end
