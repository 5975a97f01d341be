defmodule Backplane.JSONSchema.Compiled do
  @moduledoc """
  A schema compiled by `Backplane.JSONSchema.compile/2`: an immutable graph
  held by the NIF, valid on the node that compiled it, for as long as the
  term is referenced.
  """

  @enforce_keys [:resource]
  defstruct [:resource, :dialect, :formats]

  @type t :: %__MODULE__{
          resource: reference(),
          dialect: atom(),
          formats: :annotate | :assert
        }
end
