defmodule Backplane.AgentRuntime.InputSchema.JSONTest do
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema.JSON

  doctest JSON

  test "values decode to the terms an Elixir host has" do
    assert JSON.decode(~s([{"k": {}}, [], "é\\u00e9", -0, 1.0, 1e2, -12345678901234567890123])) ==
             {:ok, [%{"k" => %{}}, [], "éé", 0, 1.0, 100.0, -12_345_678_901_234_567_890_123]}

    assert {:ok, 1.0} = JSON.decode("1.0")
    assert {:ok, nil} = JSON.decode(" null ")
  end

  test "invalid text reports line, column and reason" do
    assert_result(
      JSON.decode(~s({"a": 1,\n "b": tru})),
      {:validation, "invalid JSON", %{line: 2, column: 10, reason: "expected ident"}}
    )

    assert_result(
      JSON.decode(""),
      {:validation, "invalid JSON", %{line: 1, column: 0, reason: "EOF while parsing a value"}}
    )

    assert_result(
      JSON.decode("[1] x"),
      {:validation, "invalid JSON", %{line: 1, column: 5, reason: "trailing characters"}}
    )
  end

  test "nesting of 128 or more is refused, 127 is accepted" do
    assert {:ok, _} = JSON.decode(String.duplicate("[", 127) <> String.duplicate("]", 127))

    assert {:error, %{message: "invalid JSON", details: %{reason: "recursion limit exceeded"}}} =
             JSON.decode(String.duplicate("[", 1_000_000))
  end

  test "encode writes report terms, and decoding gives them back" do
    term = %{"a" => [1, 2.5, nil, true, "é", 2 ** 80, %{"b" => []}], "c" => false}
    assert {:ok, text} = JSON.encode(term)
    assert JSON.decode(text) == {:ok, term}
    assert JSON.encode(%{ok: :yes}) == {:ok, ~s({\n  "ok": "yes"\n})}
  end

  test "encode refuses what JSON cannot carry, improper lists included" do
    for term <- [
          [1 | 2],
          ["a", "b" | :tail],
          %{"a" => [1 | 2]},
          {1, 2},
          self(),
          make_ref(),
          <<0xFF>>,
          %{1 => 2}
        ] do
      assert_result(JSON.encode(term), {:validation, message_for(term), %{}})
    end

    deep = Enum.reduce(1..100, 1, fn _, acc -> [acc] end)
    assert_result(JSON.encode(deep), {:validation, "term is nested too deep", %{}})
  end

  defp message_for(<<0xFF>>), do: "map key is not UTF-8"
  defp message_for(%{1 => 2}), do: "map keys must be atoms or strings"
  defp message_for(_), do: "term cannot be encoded as JSON"

  test "non-binaries are refused" do
    assert_result(JSON.decode(~c"[]"), {:validation, "JSON text must be a binary", %{}})
  end
end
