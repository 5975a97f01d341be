defmodule Backplane.AgentRuntime.InputSchema.Compiled do
  @moduledoc """
  A tool schema checked and compiled once by
  `Backplane.AgentRuntime.InputSchema.compile/2`. Opaque: pass it to
  `Backplane.AgentRuntime.InputSchema.validate/2` in place of the schema map.
  It is immutable, can be shared between processes and stored in ETS or
  `:persistent_term`, and is freed when no process references it.

  It is valid on every node and across restarts: besides the compiled form
  (a reference owned by the NIF of the node that compiled it) it carries
  its schema as a binary (`term_to_binary/2`, shared between the processes
  of a node, not copied). A node that does not own the reference, because
  the struct was sent to it, read back from disk after a restart, or made
  before a release upgrade, compiles the schema again from that binary,
  once, through the schema cache, and validates exactly as the compiling
  node does. It also carries whether it asserts formats (`formats:`), so
  the schema is compiled again the same way.

      iex> alias Backplane.AgentRuntime.InputSchema
      iex> {:ok, compiled} = InputSchema.compile(%{"required" => ["q"]})
      iex> inspect(compiled)
      "#Backplane.AgentRuntime.InputSchema.Compiled<>"
      iex> stored = :erlang.term_to_binary(compiled)
      iex> InputSchema.validate(:erlang.binary_to_term(stored), %{"q" => "beam"})
      {:ok, %{"q" => "beam"}}
  """

  @enforce_keys [:resource]
  defstruct [:resource, :source, formats: :annotate]

  @typedoc "A compiled tool schema (opaque)."
  @opaque t :: %__MODULE__{
            resource: reference(),
            source: binary() | nil,
            formats: :annotate | :assert
          }

  defimpl Inspect do
    def inspect(_compiled, _opts), do: "#Backplane.AgentRuntime.InputSchema.Compiled<>"
  end
end
