defmodule Backplane.AgentRuntime.InputSchema.CompiledTest do
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.ContractCases
  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Compiled

  test "compile/1 fails exactly when validate_schema/1 does, with the same error" do
    for {name, schema, _} <- ContractCases.preflight() do
      case InputSchema.validate_schema(schema) do
        :ok -> assert {:ok, %Compiled{}} = InputSchema.compile(schema), name
        {:error, error} -> assert InputSchema.compile(schema) == {:error, error}, name
      end
    end

    assert InputSchema.compile(nil) == InputSchema.validate_schema(nil)
  end

  test "a compiled schema gives the schema map's results over the whole contract suite" do
    for {name, schema, arguments, _} <- ContractCases.arguments() do
      {:ok, compiled} = InputSchema.compile(schema)
      expected = InputSchema.validate(schema, arguments)
      assert InputSchema.validate(compiled, arguments) === expected, name
      # Repeated calls on one compiled schema give the same result.
      assert InputSchema.validate(compiled, arguments) === expected, name
    end
  end

  test "a compiled schema with non-map arguments" do
    {:ok, compiled} = InputSchema.compile(%{})

    for arguments <- [[1], nil, "x", {:a}] do
      assert_result(
        InputSchema.validate(compiled, arguments),
        {:validation, "tool schema and arguments must be maps", %{}}
      )
    end
  end

  test "compiled schemas are shared between processes and stay opaque" do
    {:ok, compiled} = InputSchema.compile(%{"required" => ["q"]})
    assert inspect(compiled) == "#Backplane.AgentRuntime.InputSchema.Compiled<>"

    results =
      1..200
      |> Task.async_stream(fn i -> InputSchema.validate(compiled, %{"q" => i}) end,
        max_concurrency: 50
      )
      |> Enum.map(fn {:ok, result} -> result end)

    assert results == Enum.map(1..200, &{:ok, %{"q" => &1}})
  end

  describe "a compiled schema whose reference this node does not own (docs/behaviour.md, section 1)" do
    # A reference from another node, from before a restart, or from before a
    # release upgrade is, to this node, any reference that is not one of its
    # own resources: `make_ref/0` stands for it here. The cluster tests do
    # the same with real nodes.
    @unusable {:unsupported_capability, "compiled tool schema cannot be used on this node", %{}}

    test "is compiled again from its source, once, and validates exactly, over the whole contract suite" do
      for {name, schema, arguments, expected} <- ContractCases.arguments() do
        {:ok, compiled} = InputSchema.compile(schema)
        foreign = %{compiled | resource: make_ref()}
        assert_result(InputSchema.validate(foreign, arguments), expected, arguments, name)

        assert InputSchema.validate(foreign, arguments) ===
                 InputSchema.validate(compiled, arguments)
      end
    end

    test "without a source, or with one that is not a schema's, is refused with an error that blames neither side" do
      {:ok, compiled} = InputSchema.compile(%{"required" => ["q"]})
      reference = make_ref()

      for struct <- [
            %Compiled{resource: reference},
            %Compiled{resource: reference, source: <<131, 1, 2, 3>>},
            %Compiled{resource: reference, source: "not a term"},
            %Compiled{resource: reference, source: 42},
            Map.delete(%{compiled | resource: reference}, :source)
          ] do
        assert_result(InputSchema.validate(struct, %{"q" => 1}), @unusable)
        assert_result(InputSchema.validate(struct, %{"q" => 1}, errors: :all), @unusable)
      end
    end

    test "a source that decodes to a schema this library refuses gives that schema's error" do
      source = :erlang.term_to_binary(%{"type" => "object", "minimum" => "1"})
      struct = %Compiled{resource: make_ref(), source: source}

      assert_result(
        InputSchema.validate(struct, %{}),
        {:validation, "schema minimum must be a number", %{}}
      )
    end

    test "arguments that are not a map are refused first, as for an own reference" do
      for struct <- [
            %Compiled{resource: make_ref()},
            %Compiled{resource: make_ref(), source: "x"}
          ] do
        assert_result(
          InputSchema.validate(struct, [1]),
          {:validation, "tool schema and arguments must be maps", %{}}
        )
      end
    end

    test "a large source is looked up off the calling scheduler, with the same result" do
      names = Map.new(1..3_000, &{"p#{&1}", %{"type" => "integer"}})
      {:ok, compiled} = InputSchema.compile(%{"properties" => names})
      assert byte_size(compiled.source) > 32 * 1024
      foreign = %{compiled | resource: make_ref()}
      resource = foreign.resource
      arguments = %{"p1" => 1}
      assert {:ok, ^arguments} = InputSchema.validate(foreign, arguments)
      # Filed now; the inline half hands a source this large over.
      alias Backplane.AgentRuntime.InputSchema.Native
      assert Native.validate_compiled(resource, foreign.source, arguments, :first) == :dirty

      assert Native.validate_compiled_dirty(resource, foreign.source, arguments, :first) ==
               {:ok, arguments}
    end
  end
end
