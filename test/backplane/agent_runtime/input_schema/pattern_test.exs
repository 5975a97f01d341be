defmodule Backplane.AgentRuntime.InputSchema.PatternTest do
  @moduledoc "Contract section 5 and the escapes of section 8, through the public API."
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema

  defp schema(pattern), do: %{"properties" => %{"s" => %{"pattern" => pattern}}}

  defp preflight(pattern), do: InputSchema.validate_schema(schema(pattern))

  defp matches?(pattern, input) do
    case InputSchema.validate(schema(pattern), %{"s" => input}) do
      {:ok, _} -> true
      {:error, %{message: "tool argument does not match the pattern"}} -> false
    end
  end

  @accepted [
    "abc",
    "é😀",
    "]",
    "}",
    "a{",
    "a{,2}",
    "{",
    "x{1,a}",
    ".",
    "^a$",
    "[$]",
    "\\\\",
    "\\.",
    "\\^",
    "\\$",
    "\\|",
    "\\?",
    "\\*",
    "\\+",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "\\{",
    "\\}",
    "\\-",
    "\\/",
    "[abc]",
    "[^abc]",
    "[a-z0-9]",
    "[-a]",
    "[a-]",
    "[[]",
    "[]a]",
    "[^]a]",
    "(a)",
    "(?:a)",
    "a|b",
    "a|",
    "|",
    "()",
    "a*",
    "a+",
    "a?",
    "a{2}",
    "a{2,}",
    "a{2,5}",
    "a*?",
    "a+?",
    "a??",
    "a{2}?",
    "a{65535,65535}",
    "[a-z]{1,1000}",
    # Rejected by the old module's substring checks, valid in this subset.
    "\\(?",
    "[(?]",
    "[*+]",
    "\\(*",
    "\\++",
    # Section 8 escapes.
    "\\d\\D\\w\\W\\s\\S",
    "\\bword\\B",
    "\\t\\n\\v\\f\\r",
    "\\0",
    "\\cA\\cz",
    "\\x41",
    "\\u00e9",
    "\\uD83D\\uDE00",
    "\\u{1F600}",
    "[\\b]",
    "[\\d\\s-]",
    "[\\u0000-\\u{10FFFF}]"
  ]

  test "accepted syntax" do
    for pattern <- @accepted do
      assert preflight(pattern) == :ok,
             "#{inspect(pattern)} was refused: #{inspect(preflight(pattern))}"
    end
  end

  @unsupported [
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?<!a)",
    "(?<n>a)",
    "(?P<n>a)",
    "(?i)a",
    "(?i:a)",
    "(?>a)",
    "(?R)",
    "(?1)",
    "(?#c)",
    "(*FAIL)",
    "(*UTF)a",
    "a*+",
    "a++",
    "a?+",
    "a{2}+",
    "a{2,}+",
    "[[:alpha:]]",
    "[[:digit:]x]",
    "(a)\\1",
    "\\1",
    "\\k<n>",
    "\\p{L}",
    "\\P{L}",
    "\\K",
    "\\#",
    "\\:",
    "\\ ",
    "\\e",
    "\\a",
    "\\z",
    "\\Z",
    "\\A",
    "\\G",
    "\\Q",
    "\\E",
    "\\R",
    "\\h",
    "\\X",
    "\\N",
    "\\o{1}",
    "\\8",
    "\\01",
    "\\c1",
    "\\x4",
    "\\xZZ",
    "\\uZZZZ",
    "\\u{}",
    "[\\B]",
    "[\\p{L}]",
    "\\é"
  ]

  test "unsupported syntax" do
    for pattern <- @unsupported do
      assert_result(
        preflight(pattern),
        {:validation, "schema pattern uses unsupported syntax", %{}},
        :no_arguments,
        pattern
      )
    end
  end

  @invalid [
    "[",
    "[a",
    "a{2,1}",
    "a{65536}",
    "a{0,65536}",
    "*a",
    "+",
    "?",
    "^*",
    "$+",
    "a**",
    "a{2}{3}",
    "a*??",
    "(",
    "(a",
    ")",
    "a)",
    "\\",
    "[z-a]",
    "[\\d-z]",
    "[a-\\w]",
    "\\b*",
    "\\u{110000}",
    "{2}",
    "|*"
  ]

  test "invalid syntax" do
    for pattern <- @invalid do
      assert_result(
        preflight(pattern),
        {:validation, "schema pattern must be a valid regular expression", %{}},
        :no_arguments,
        pattern
      )
    end
  end

  test "an automaton over the size cap" do
    for pattern <- ["a{0,65535}", "((a{1000}){1000})", "(.{1000}){100}"] do
      assert_result(
        preflight(pattern),
        {:validation, "schema pattern exceeds the supported size", %{}},
        :no_arguments,
        pattern
      )
    end

    deep = String.duplicate("(", 64) <> "a" <> String.duplicate(")", 64)
    assert preflight(deep) == :ok
    deeper = String.duplicate("(", 65) <> "a" <> String.duplicate(")", 65)

    assert_result(
      preflight(deeper),
      {:validation, "schema pattern exceeds the supported size", %{}}
    )
  end

  test "unsupported syntax is reported before a malformed part" do
    assert_result(
      preflight("*(?=a)"),
      {:validation, "schema pattern uses unsupported syntax", %{}}
    )

    assert_result(
      preflight("[\\p{L}"),
      {:validation, "schema pattern uses unsupported syntax", %{}}
    )
  end

  @matches [
    # Search semantics, anchors, line terminators
    {"b", "abc", true},
    {"^b", "abc", false},
    {"c$", "abc", true},
    {"^a$", "a\n", false},
    {"^a$", "a", true},
    {"^$", "", true},
    {"^a.c$", "a\u2029c", false},
    {"^a.c$", "aéc", true},
    {"^a.c$", "a😀c", true},
    {"^[^x]$", "\n", true},
    {"^a|b$", "ab", true},
    {"^(a|b)$", "ab", false},
    {"^a{2,3}$", "aaaa", false},
    {"^x{$", "x{", true},
    {"^\\($", "(", true},
    {"^[]a]+$", "]a]", true},
    {"[(?]", "?", true},
    # Case-sensitive, code points
    {"^a$", "A", false},
    {"^.{3}$", "e\u0301x", true},
    {"^\\u00e9$", "e\u0301", false},
    # Section 8 escapes with their ECMAScript meaning
    {"^\\d+$", "0123456789", true},
    {"\\d", "٣", false},
    {"\\d", "１", false},
    {"^\\D$", "٣", true},
    {"^\\w+$", "aZ_9", true},
    {"\\w", "é", false},
    {"^\\W$", "é", true},
    {"^\\s$", "\uFEFF", true},
    {"^\\s$", "\u00A0", true},
    {"^\\s$", "\u0085", false},
    {"^\\s$", "\u3000", true},
    {"^\\s$", "\u2028", true},
    {"^\\S$", "\u0085", true},
    {"^\\s+$", " \t\n\v\f\r", true},
    {"\\bfoo\\b", "foo", true},
    {"\\bfoo\\b", "(foo)", true},
    {"\\bfoo\\b", "foobar", false},
    {"\\bé", "é", false},
    {"^\\B$", "", true},
    {"\\Bo", "foo", true},
    {"^\\cJ$", "\n", true},
    {"^\\cj$", "\n", true},
    {"^\\x41$", "A", true},
    {"^\\0$", <<0>>, true},
    {"^\\uD83D\\uDE00$", "😀", true},
    {"^[\\uD83D\\uDE00]$", "😀", true},
    {"\\uD83D", "😀", false},
    {"^\\u{1F600}$", "😀", true},
    {"^[\\b]$", "\b", true},
    {"^\\t$", "\t", true},
    {"^\\v$", "\v", true}
  ]

  test "matching follows ECMAScript" do
    for {pattern, input, expected} <- @matches do
      assert matches?(pattern, input) == expected, "#{inspect(pattern)} on #{inspect(input)}"
    end
  end

  test "a multi-megabyte argument against an ordinary pattern is evaluated" do
    big = String.duplicate("abc_DEF-123.", 400_000)
    assert matches?("^[A-Za-z0-9_.-]+$", big)
    refute matches?("^[a-z]+$", big)
    assert matches?("123\\.$", big)
  end
end
