defmodule Backplane.JSONSchema.ValidationError do
  @moduledoc """
  One failure of an instance: the specification's output unit.

    * `keyword`: the keyword that failed (`"minimum"`, `"required"`, ...);
      a `false` schema reports the keyword it sits under.
    * `keyword_location`: JSON Pointer through the schema as evaluated,
      references included (`"/properties/n/$ref/minimum"`).
    * `absolute_keyword_location`: the keyword's absolute URI (its
      resource's base URI and a JSON Pointer fragment), or `nil` under a
      schema without `$id`.
    * `instance_location`: JSON Pointer into the instance (`""` is the
      root).
    * `message`: what failed, in words.
  """

  defstruct [
    :keyword,
    :keyword_location,
    :absolute_keyword_location,
    :instance_location,
    :message
  ]

  @type t :: %__MODULE__{
          keyword: String.t(),
          keyword_location: String.t(),
          absolute_keyword_location: String.t() | nil,
          instance_location: String.t(),
          message: String.t()
        }
end
