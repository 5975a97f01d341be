defmodule Backplane.AgentRuntime.Error do
  @moduledoc """
  The runtime's error: a `class` callers branch on, a human `message`, and
  `details` that locate the problem (for InputSchema: the argument `path`,
  the schema `keyword`, the violated bound, ...).

      iex> Backplane.AgentRuntime.Error.new(:validation, "tool argument is missing")
      %Backplane.AgentRuntime.Error{class: :validation, message: "tool argument is missing", details: %{}, cause: nil}

      iex> Backplane.AgentRuntime.Error.new(:validation, "bad", details: %{path: "$arguments"})
      ...> |> Backplane.AgentRuntime.Error.to_map()
      %{"class" => "validation", "message" => "bad", "details" => %{path: "$arguments"}}
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

  @type t :: %__MODULE__{
          class: class(),
          message: String.t() | nil,
          details: map(),
          cause: term()
        }

  defstruct class: :execution_failure, message: nil, details: %{}, cause: nil

  @doc "The classes an error may have."
  @spec classes() :: [class()]
  def classes, do: @classes

  @doc """
  Builds an error. `opts[:details]` becomes the details map and `opts[:cause]`
  the cause. Raises `ArgumentError` for a class outside `classes/0`.
  """
  @spec new(class(), String.t() | nil, keyword()) :: t()
  def new(class, message \\ nil, opts \\ [])

  def new(class, message, opts) when class in @classes do
    %__MODULE__{
      class: class,
      message: message,
      details: Keyword.get(opts, :details, %{}),
      cause: Keyword.get(opts, :cause)
    }
  end

  def new(class, _message, _opts) do
    raise ArgumentError, "unknown error class: #{inspect(class)}"
  end

  @doc """
  The error as a string-keyed map, for logs and wire formats. The class is
  rendered as a string; details are kept as they are.
  """
  @spec to_map(t()) :: %{String.t() => term()}
  def to_map(%__MODULE__{class: class, message: message, details: details}) do
    %{"class" => Atom.to_string(class), "message" => message, "details" => details}
  end
end
