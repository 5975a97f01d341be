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

      iex> schema = %{"$id" => "https://example.com/s", "properties" => %{"n" => %{"minimum" => 1}}}
      iex> Backplane.JSONSchema.validate(schema, %{"n" => 0})
      {:error, [%Backplane.JSONSchema.ValidationError{keyword: "minimum", keyword_location: "/properties/n/minimum", absolute_keyword_location: "https://example.com/s#/properties/n/minimum", instance_location: "/n", message: "instance is less than the minimum 1"}]}
  """

  defstruct [
    :keyword,
    :keyword_location,
    :absolute_keyword_location,
    :instance_location,
    :message
  ]

  @typedoc "One failure of an instance (the fields are described above)."
  @type t :: %__MODULE__{
          keyword: String.t(),
          keyword_location: String.t(),
          absolute_keyword_location: String.t() | nil,
          instance_location: String.t(),
          message: String.t()
        }
end
