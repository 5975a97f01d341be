defmodule Backplane.AgentRuntime.InputSchema.SharedTermsTest do
  @moduledoc """
  A schema term whose subterms are shared thousands of times stays bounded
  in memory. Not async: the test reads the whole VM's memory, which tests
  running beside it (large instances, hostile schemas) would move.
  """
  use ExUnit.Case, async: false

  @moduletag timeout: 900_000

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema

  # Found by the term fuzzing (input_schema/term_fuzz_test.exs): a term
  # whose subterms are shared is small on the heap and as large as its flat
  # expansion wherever it is copied, hashed as a whole or written out. The
  # cache copied such a schema whole, and compile/1 wrote it whole as the
  # struct's source: a few KiB on the heap took the VM's memory.
  test "schemas and terms that share one subterm thousands of times stay bounded" do
    deep = Enum.reduce(1..20_000, 1, fn _, acc -> [acc] end)
    shared = List.duplicate(deep, 20_000)
    # 20,000 words on the heap, 400 million (3.2 GB) flat.
    schema = %{"type" => "object", "default" => shared}
    before = :erlang.memory(:total)

    assert InputSchema.validate_schema(schema) == :ok
    assert InputSchema.validate(schema, %{"a" => 1}) == {:ok, %{"a" => 1}}
    assert {:ok, compiled} = InputSchema.compile(schema)
    assert InputSchema.validate(compiled, %{"a" => 1}) == {:ok, %{"a" => 1}}
    # Too large to carry: usable where it was compiled, refused elsewhere.
    assert compiled.source == nil

    assert_result(
      InputSchema.validate(%{compiled | resource: make_ref()}, %{"a" => 1}),
      {:unsupported_capability, "compiled tool schema cannot be used on this node", %{}}
    )

    for term <- [shared, {shared}] do
      assert_result(
        InputSchema.validate_schema(term),
        {:validation, "tool schema must be a map", %{}}
      )
    end

    assert_result(
      InputSchema.validate_schema(%{"a" => shared}),
      {:unsupported_capability, "schema keyword is unsupported", %{keyword: "a"}}
    )

    assert_result(
      Backplane.AgentRuntime.InputSchema.JSON.encode(
        Enum.map(1..1_000, fn _ -> List.duplicate(1, 1_000) end)
      ),
      {:validation, "term is too large to encode", %{}}
    )

    Backplane.AgentRuntime.InputSchema.Memory.settle()
    assert :erlang.memory(:total) - before < 200_000_000
  end

  # Found by the term test on a sample of the fuzz corpora: a `const` (or an
  # `enum` choice) whose value shares one map 13,621 times was copied
  # whole, 185 million values, before its copy was charged to the compile
  # budget; the VM was killed for memory at 24 GB. Now the copy is refused
  # before it is made when the budget left cannot pay for it.
  test "a const or enum value that shares its subterms is refused by the compile budget before it is copied" do
    inner = Map.new(1..13_621, &{"k#{&1}", 1})
    wide = Map.new(1..13_621, &{"k#{&1}", inner})
    nested = %{"type" => "object", "const" => %{"type" => "object", "const" => wide}}
    before = :erlang.memory(:total)

    for schema <- [
          %{"const" => wide},
          %{"const" => nested},
          %{"enum" => [1, wide]},
          %{"properties" => %{"a" => %{"enum" => [wide]}}}
        ] do
      budget = {:validation, "tool schema exceeds the supported compile budget", %{reason: :work}}
      assert_result(InputSchema.validate_schema(schema), budget)
      assert_result(InputSchema.validate(schema, %{}), budget)
      assert_result(InputSchema.validate(schema, %{}, errors: :all), budget)
      assert_result(InputSchema.compile(schema), budget)
    end

    # A value the budget pays for is copied and compared as before.
    small = Map.new(1..10, &{"k#{&1}", 1})

    assert InputSchema.validate(%{"const" => %{"a" => small}}, %{"a" => small}) ==
             {:ok, %{"a" => small}}

    Backplane.AgentRuntime.InputSchema.Memory.settle()
    assert :erlang.memory(:total) - before < 200_000_000
  end
end
