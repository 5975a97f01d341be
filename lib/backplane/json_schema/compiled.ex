defmodule Backplane.JSONSchema.Compiled do
  @moduledoc """
  A schema compiled by `Backplane.JSONSchema.compile/2`: an immutable graph
  held by the NIF, for as long as the term is referenced. It also keeps the
  schema and the options it was compiled with, so that a struct used where
  its graph is not (on another node, or after an upgrade to another build
  of the library) is compiled again there, with the same results.

      iex> {:ok, compiled} = Backplane.JSONSchema.compile(%{"type" => "string"}, dialect: :draft7)
      iex> {compiled.schema, compiled.dialect, compiled.formats, compiled.content}
      {%{"type" => "string"}, :draft7, :annotate, :annotate}
  """

  @enforce_keys [:resource]
  defstruct [:resource, :schema, :dialect, :formats, content: :annotate, resources: %{}]

  @typedoc """
  A compiled schema: the NIF's graph (`resource`), and the `schema`,
  `dialect`, `formats`, `content` and `resources` it was compiled with.
  """
  @type t :: %__MODULE__{
          resource: reference(),
          schema: map() | boolean() | nil,
          dialect: atom(),
          formats: :annotate | :assert,
          content: :annotate | :assert,
          resources: map()
        }
end
