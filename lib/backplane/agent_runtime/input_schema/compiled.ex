defmodule Backplane.AgentRuntime.InputSchema.Compiled do
  @moduledoc """
  A tool schema checked and compiled once by
  `Backplane.AgentRuntime.InputSchema.compile/1`. Opaque: pass it to
  `Backplane.AgentRuntime.InputSchema.validate/2` in place of the schema map.
  It is immutable, can be shared between processes and stored in ETS or
  `:persistent_term`, and is freed when no process references it.
  """

  @enforce_keys [:resource]
  defstruct [:resource]

  @opaque t :: %__MODULE__{resource: reference()}

  defimpl Inspect do
    def inspect(_compiled, _opts), do: "#Backplane.AgentRuntime.InputSchema.Compiled<>"
  end
end
