defmodule Backplane.JSONSchema.CompileError do
  @moduledoc """
  Why a schema did not compile.

    * `reason`: `:metaschema` (the schema fails its dialect's metaschema;
      `failures` lists where and why), `:unresolved_reference` (`uri` names
      it), `:unknown_metaschema`, `:unknown_vocabulary`, `:pattern` (a
      pattern that needs backtracking or is not ECMAScript), `:invalid_keyword`,
      `:not_a_schema`, `:not_json` (a term that is not JSON), `:too_deep`,
      `:compile_budget`, `:foreign` (a struct whose graph this node did
      not make and that carries no schema to compile again), or `:internal`.
    * `message`: the whole reason in words.
    * `pointer`: where in the schema, as a JSON Pointer (`nil` if none).
    * `uri`: the URI concerned (`nil` if none).
    * `failures`: for `:metaschema`, each `%{pointer: _, keyword: _, message: _}`.

      iex> {:error, error} = Backplane.JSONSchema.compile(%{"$ref" => "https://example.com/s"})
      iex> {error.reason, error.pointer, error.uri}
      {:unresolved_reference, "/$ref", "https://example.com/s"}
      iex> {:error, error} = Backplane.JSONSchema.compile(%{"minLength" => -1})
      iex> error.failures
      [%{keyword: "minimum", message: "instance is less than the minimum 0", pointer: "/minLength"}]
  """

  defstruct [:reason, :message, :pointer, :uri, failures: []]

  @typedoc "Why a schema did not compile (the fields are described above)."
  @type t :: %__MODULE__{
          reason: atom(),
          message: String.t(),
          pointer: String.t() | nil,
          uri: String.t() | nil,
          failures: [%{pointer: String.t(), keyword: String.t(), message: String.t()}]
        }

  @doc false
  @spec new(map() | keyword()) :: t()
  def new(details), do: struct(__MODULE__, details)

  @doc false
  @spec foreign() :: t()
  def foreign do
    %__MODULE__{
      reason: :foreign,
      message:
        "compiled schema cannot be used on this node and carries no schema to compile again"
    }
  end

  @doc false
  @spec internal() :: t()
  def internal do
    %__MODULE__{reason: :internal, message: "schema compilation failed unexpectedly"}
  end
end
