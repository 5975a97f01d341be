defmodule Backplane.JSONSchema.LimitError do
  @moduledoc """
  A validation that stopped without a verdict: `reason` is `:work` (over
  the work limit), `:depth` (nested past the depth limit) or `:internal`;
  `message` says which in words.

      iex> tree = Enum.reduce(1..1_000, 1, fn _, inner -> [inner] end)
      iex> Backplane.JSONSchema.validate(%{"items" => %{"$ref" => "#"}}, tree)
      {:error, %Backplane.JSONSchema.LimitError{reason: :depth, message: "validation nesting exceeds the supported depth"}}
  """

  defstruct [:reason, :message]

  @typedoc "A validation that stopped without a verdict."
  @type t :: %__MODULE__{reason: :work | :depth | :internal, message: String.t()}

  @doc false
  @spec internal() :: t()
  def internal, do: %__MODULE__{reason: :internal, message: "validation failed unexpectedly"}
end
