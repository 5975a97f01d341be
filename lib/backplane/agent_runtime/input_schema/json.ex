defmodule Backplane.AgentRuntime.InputSchema.JSON do
  @moduledoc """
  Decodes JSON text into the terms an Elixir host would have: string keys,
  integers of any size, floats, `nil`, booleans. Decoding runs in Rust
  (`serde_json`) on a dirty scheduler; text nesting 128 or more arrays or
  objects is refused (serde_json's recursion limit).

      iex> Backplane.AgentRuntime.InputSchema.JSON.decode(~s({"a": [1, 2.5, null, true, 123456789012345678901234567890]}))
      {:ok, %{"a" => [1, 2.5, nil, true, 123456789012345678901234567890]}}
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.JSON.decode("{\\n  \\"a\\": ]")
      iex> {error.class, error.message, error.details}
      {:validation, "invalid JSON", %{line: 2, column: 8, reason: "expected value"}}
  """

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.Native

  @doc """
  Decodes one JSON value; the error's details carry `line`, `column` and
  `reason`.

      iex> Backplane.AgentRuntime.InputSchema.JSON.decode(~s([1, "a", {"b": false}]))
      {:ok, [1, "a", %{"b" => false}]}
  """
  @spec decode(binary()) :: {:ok, term()} | {:error, Error.t()}
  def decode(text), do: Native.decode_json(text)

  @doc """
  Encodes a report term as pretty-printed JSON: maps with atom or string
  keys, lists, strings, numbers, booleans, `nil` (as `null`) and other atoms
  (as strings).

      iex> Backplane.AgentRuntime.InputSchema.JSON.encode(%{ok: [1, nil, :x]})
      {:ok, "{\\n  \\"ok\\": [\\n    1,\\n    null,\\n    \\"x\\"\\n  ]\\n}"}
  """
  @spec encode(term()) :: {:ok, String.t()} | {:error, Error.t()}
  def encode(term), do: Native.encode_json(term)
end
