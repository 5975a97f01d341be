defmodule Backplane.AgentRuntime.Error do
  @moduledoc """
  The runtime's error: a `class` callers branch on, a human `message`, and
  `details` that locate the problem (for InputSchema: the argument `path`,
  the schema `keyword`, the violated bound, ...).

  This library owns the module, and a runtime that adopts the library deletes
  its own copy: InputSchema builds these structs inside the NIF, so the
  library cannot compile or be tested without the struct, and one definition
  avoids a module defined twice. It behaves exactly as the runtime's error
  always has, for every caller, not only InputSchema's (the "Error" section of
  `docs/behaviour.md`).

      iex> Backplane.AgentRuntime.Error.new(:validation, "tool argument is missing", details: [path: "$arguments"])
      %Backplane.AgentRuntime.Error{class: :validation, message: "tool argument is missing", details: %{path: "$arguments"}, cause: nil}

      iex> Backplane.AgentRuntime.Error.new(:validation, "bad", details: %{path: "$arguments"}, cause: :io)
      ...> |> Backplane.AgentRuntime.Error.to_map()
      %{"class" => :validation, "message" => "bad", "details" => %{path: "$arguments"}}
  """

  @classes [
    :validation,
    :forbidden,
    :approval_required,
    :not_found,
    :timeout,
    :cancelled,
    :transient_transport,
    :resource_conflict,
    :execution_failure,
    :malformed_result,
    :budget_exceeded,
    :unsupported_capability,
    :unknown_outcome,
    :overloaded
  ]

  @typedoc "An error class: what kind of failure, for callers to branch on."
  @type class ::
          :validation
          | :forbidden
          | :approval_required
          | :not_found
          | :timeout
          | :cancelled
          | :transient_transport
          | :resource_conflict
          | :execution_failure
          | :malformed_result
          | :budget_exceeded
          | :unsupported_capability
          | :unknown_outcome
          | :overloaded

  @typedoc """
  An error: its `class`, its `message` (`nil` if none was given), its
  `details` map and its `cause` (any term, `nil` if none).
  """
  @type t :: %__MODULE__{
          class: class(),
          message: String.t() | nil,
          details: map(),
          cause: term()
        }

  defstruct class: :execution_failure, message: nil, details: %{}, cause: nil

  @doc """
  The classes an error may have.

      iex> :validation in Backplane.AgentRuntime.Error.classes()
      true
      iex> length(Backplane.AgentRuntime.Error.classes())
      14
  """
  @spec classes() :: [class()]
  def classes, do: @classes

  @doc """
  Builds an error. `opts[:details]` (a map, a keyword list or any list of
  pairs) becomes the details map through `Map.new/1`; `opts[:cause]` is the
  cause. Raises `ArgumentError` for a class outside `classes/0`; `opts` must
  be a list.

      iex> Backplane.AgentRuntime.Error.new(:timeout)
      %Backplane.AgentRuntime.Error{class: :timeout, message: nil, details: %{}, cause: nil}
      iex> Backplane.AgentRuntime.Error.new(:oops, "no such class")
      ** (ArgumentError) unknown agent runtime error class :oops
  """
  @spec new(class(), String.t() | nil, keyword()) :: t()
  def new(class, message \\ nil, opts \\ []) when is_list(opts) do
    %__MODULE__{
      class: known_class!(class),
      message: message,
      details: Map.new(Keyword.get(opts, :details, [])),
      cause: Keyword.get(opts, :cause)
    }
  end

  defp known_class!(class) when class in @classes, do: class

  defp known_class!(class) when is_atom(class),
    do: raise(ArgumentError, "unknown agent runtime error class #{inspect(class)}")

  defp known_class!(class),
    do: raise(ArgumentError, "agent runtime error class must be an atom, got #{inspect(class)}")

  @doc """
  The error as a string-keyed map, for logs and wire formats: the class stays
  an atom, the details are kept as they are, the cause is left out.
  """
  @spec to_map(t()) :: %{String.t() => term()}
  def to_map(%__MODULE__{class: class, message: message, details: details}) do
    %{"class" => class, "message" => message, "details" => details}
  end
end
