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
  """

  defstruct [:reason, :message, :pointer, :uri, failures: []]

  @type t :: %__MODULE__{
          reason: atom(),
          message: String.t(),
          pointer: String.t() | nil,
          uri: String.t() | nil,
          failures: [%{pointer: String.t(), keyword: String.t(), message: String.t()}]
        }

  @doc false
  def new(details), do: struct(__MODULE__, details)

  @doc false
  def foreign do
    %__MODULE__{
      reason: :foreign,
      message:
        "compiled schema cannot be used on this node and carries no schema to compile again"
    }
  end

  @doc false
  def internal do
    %__MODULE__{reason: :internal, message: "schema compilation failed unexpectedly"}
  end
end
