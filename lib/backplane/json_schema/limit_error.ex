defmodule Backplane.JSONSchema.LimitError do
  @moduledoc """
  A validation that stopped without a verdict: `reason` is `:work` (over
  the work limit), `:depth` (nested past the depth limit) or `:internal`.
  """

  defstruct [:reason, :message]

  @type t :: %__MODULE__{reason: :work | :depth | :internal, message: String.t()}

  @doc false
  def internal, do: %__MODULE__{reason: :internal, message: "validation failed unexpectedly"}
end
