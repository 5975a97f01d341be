defmodule Backplane.AgentRuntime.InputSchema do
  @moduledoc """
  Validates tool-call arguments against the tool's `inputSchema`: a strict,
  fail-closed subset of JSON Schema, checked by a Rust NIF.

  The whole schema is checked before any argument is read. An unknown keyword
  or type is `:unsupported_capability`; a malformed schema or arguments that
  break a constraint are `:validation`; a pattern search over the work limit
  or arguments nested too deep are `:execution_failure`. Neither function
  raises; arguments come back unchanged (defaults are never inserted).

      iex> alias Backplane.AgentRuntime.InputSchema
      iex> schema = %{"type" => "object", "properties" => %{"path" => %{"type" => "string"}}, "required" => ["path"]}
      iex> InputSchema.validate(schema, %{"path" => "lib/app.ex"})
      {:ok, %{"path" => "lib/app.ex"}}
      iex> {:error, error} = InputSchema.validate(schema, %{})
      iex> {error.class, error.message, error.details}
      {:validation, "required tool argument is missing", %{path: "$arguments", property: "path"}}
  """

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.{Compiled, Native}

  @typedoc "A tool schema: a map with atom or string keys."
  @type schema :: map()

  @doc """
  Checks a whole tool schema without arguments (catalog publication,
  preflight).

      iex> Backplane.AgentRuntime.InputSchema.validate_schema(%{"type" => "object"})
      :ok
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate_schema(%{"$ref" => "#/x"})
      iex> {error.class, error.message, error.details}
      {:unsupported_capability, "schema keyword is unsupported", %{keyword: "$ref"}}
  """
  @spec validate_schema(term()) :: :ok | {:error, Error.t()}
  def validate_schema(schema), do: Native.validate_schema(schema)

  @doc """
  Validates `arguments` against `schema` (a schema map or a compiled schema)
  and returns the identical arguments term, or the first failure.

      iex> schema = %{type: "object", properties: %{limit: %{type: "integer", minimum: 1}}}
      iex> Backplane.AgentRuntime.InputSchema.validate(schema, %{"limit" => 10})
      {:ok, %{"limit" => 10}}
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate(schema, %{"limit" => 0})
      iex> {error.message, error.details}
      {"tool argument is below the minimum", %{path: "$arguments.limit", minimum: 1}}
  """
  @spec validate(schema() | Compiled.t() | nil, term()) :: {:ok, term()} | {:error, Error.t()}
  def validate(%Compiled{resource: resource}, arguments),
    do: Native.validate_compiled(resource, arguments)

  def validate(schema, arguments), do: Native.validate(schema, arguments)

  @doc """
  Checks and compiles a schema once, for many `validate/2` calls. The result
  gives exactly the results and errors the schema map gives.

      iex> {:ok, compiled} = Backplane.AgentRuntime.InputSchema.compile(%{"required" => ["q"]})
      iex> Backplane.AgentRuntime.InputSchema.validate(compiled, %{"q" => "beam"})
      {:ok, %{"q" => "beam"}}
  """
  @spec compile(term()) :: {:ok, Compiled.t()} | {:error, Error.t()}
  def compile(schema) do
    case Native.compile(schema) do
      {:ok, resource} -> {:ok, %Compiled{resource: resource}}
      {:error, _} = error -> error
    end
  end
end
