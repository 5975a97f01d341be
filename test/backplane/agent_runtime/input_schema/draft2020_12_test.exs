defmodule Backplane.AgentRuntime.InputSchema.Draft202012Test do
  # `InputSchema` under `contract: :draft2020_12` (docs/behaviour.md, "The
  # Draft 2020-12 contract"): every rule of the contract with its exact
  # class, message and details, and an order test wherever two rules apply
  # to one input. The contract is the node's, so this module runs alone
  # (async: false) and puts the default back when it ends.
  use ExUnit.Case, async: false

  import Backplane.AgentRuntime.InputSchema.ContractAssertions
  import Bitwise

  alias Backplane.AgentRuntime.{Error, InputSchema}
  alias Backplane.AgentRuntime.InputSchema.Native

  @moduletag timeout: 300_000

  @dialect "https://json-schema.org/draft/2020-12/schema"
  @limit "JSON Schema resource limit exceeded"
  @not_loaded "external schema reference could not be loaded"

  setup_all do
    InputSchema.put_contract(:draft2020_12)
    on_exit(fn -> InputSchema.put_contract(:subset) end)
  end

  defp limit(limit, maximum), do: {:execution_failure, @limit, %{limit: limit, maximum: maximum}}

  # A value `levels` levels below the root: `levels` nested maps.
  defp nested(levels), do: Enum.reduce(1..levels, 1, fn _, inner -> %{"a" => inner} end)

  # Every public way to put a schema to the contract: `validate/2,3`,
  # `validate_schema/1,2`, `compile/1,2`; each must answer the same error.
  defp schema_answers(schema, opts) do
    [
      InputSchema.validate(schema, %{}, opts),
      InputSchema.validate_schema(schema, opts),
      InputSchema.compile(schema, opts)
    ] ++
      if(opts == [],
        do: [InputSchema.validate(schema, %{}), InputSchema.validate_schema(schema)],
        else: []
      )
  end

  defp assert_schema_error(schema, expected, opts \\ []) do
    for {answer, i} <- Enum.with_index(schema_answers(schema, opts)) do
      assert_result(answer, expected, :no_arguments, "call #{i} of #{inspect(schema, limit: 5)}")
    end
  end

  describe "step 1: options" do
    test "options that are not a list" do
      expected = {:validation, "schema options must be a list", %{}}

      for opts <- [:x, %{}, "loader", nil] do
        assert_result(InputSchema.validate(%{}, %{}, opts), expected)
        assert_result(InputSchema.validate_schema(%{}, opts), expected)
        assert_result(InputSchema.compile(%{}, opts), expected)
      end
    end

    test "come before the arguments and the schema" do
      expected = {:validation, "schema options must be a list", %{}}
      assert_result(InputSchema.validate(nil, "not a map", :x), expected)
      assert_result(InputSchema.validate(%{"$schema" => 1}, nested(200), :x), expected)
    end

    test "an unknown key, a key given twice, a flag that is not a boolean raise" do
      assert_raise ArgumentError,
                   "unknown option :formats of validate/3 (known: :schema_registry, :schema_loader, :loader, :format_assertion, :content_assertion)",
                   fn -> InputSchema.validate(%{}, %{}, formats: :assert) end

      assert_raise ArgumentError,
                   "option :format_assertion of compile/2 is given more than once",
                   fn ->
                     InputSchema.compile(%{}, format_assertion: true, format_assertion: true)
                   end

      assert_raise ArgumentError,
                   ~s(invalid value for :content_assertion: expected a boolean, got "yes"),
                   fn -> InputSchema.validate_schema(%{}, content_assertion: "yes") end

      assert_raise ArgumentError,
                   "invalid options of validate/3: expected a keyword list, got [:x]",
                   fn -> InputSchema.validate(%{}, %{}, [:x]) end
    end

    test "nil is as absent" do
      assert {:ok, %{}} =
               InputSchema.validate(%{}, %{},
                 schema_registry: nil,
                 schema_loader: nil,
                 loader: nil,
                 format_assertion: nil,
                 content_assertion: nil
               )
    end
  end

  describe "step 2: arguments" do
    test "that are not a map" do
      expected = {:validation, "tool schema and arguments must be maps", %{}}

      for arguments <- [nil, [], "x", 1, [a: 1]] do
        assert_result(InputSchema.validate(%{}, arguments), expected)
        {:ok, compiled} = InputSchema.compile(%{})
        assert_result(InputSchema.validate(compiled, arguments), expected)
      end
    end

    test "come before the schema" do
      assert_result(
        InputSchema.validate(nil, "x"),
        {:validation, "tool schema and arguments must be maps", %{}}
      )
    end
  end

  describe "step 3: the arguments' limits" do
    test "a value more than 128 levels down" do
      assert {:ok, _} = InputSchema.validate(%{}, nested(128))
      assert_result(InputSchema.validate(%{}, nested(129)), limit(:input_depth, 128))
      {:ok, compiled} = InputSchema.compile(%{})
      assert_result(InputSchema.validate(compiled, nested(129)), limit(:input_depth, 128))
    end

    test "more than 100,000 maps and lists" do
      assert {:ok, _} = InputSchema.validate(%{}, %{"l" => List.duplicate([], 99_998)})

      assert_result(
        InputSchema.validate(%{}, %{"l" => List.duplicate([], 99_999)}),
        limit(:input_nodes, 100_000)
      )
    end

    test "come before the schema" do
      assert_result(InputSchema.validate(nil, nested(129)), limit(:input_depth, 128))
      assert_result(InputSchema.validate(%{"type" => 1}, nested(129)), limit(:input_depth, 128))
    end
  end

  describe "step 4: the schema a map" do
    test "anything else" do
      for schema <- [nil, "x", [], true, 1] do
        assert_schema_error(schema, {:validation, "tool schema must be a map", %{}})
      end
    end
  end

  describe "step 5: normalisation" do
    test "atom keys and type values are read as names" do
      schema = %{type: :object, properties: %{n: %{type: [:integer, :null]}}, required: ["n"]}
      assert {:ok, _} = InputSchema.validate(schema, %{"n" => nil})

      assert_result(
        InputSchema.validate(schema, %{"n" => "x"}),
        {:validation, "instance is not of type null, integer",
         %{
           errors: [%{path: ["n"], rule: :type, message: "instance is not of type null, integer"}],
           path: "$arguments.n",
           type: ["integer", "null"]
         }}
      )
    end

    test "a struct or a value outside JSON, with the keys down to it, innermost first" do
      message = "schema values must be JSON values"

      assert_schema_error(
        %{"properties" => %{"at" => ~D[2026-01-01]}},
        {:validation, message, %{path: ["at", "properties"]}}
      )

      assert_schema_error(%{"enum" => [{1, 2}]}, {:validation, message, %{path: ["enum"]}})
      assert_schema_error(%{"enum" => [:not_json]}, {:validation, message, %{path: ["enum"]}})

      assert_schema_error(
        %{properties: %{a: %{const: self()}}},
        {:validation, message, %{path: ["const", "a", "properties"]}}
      )

      assert_schema_error(%{"enum" => [1 | 2]}, {:validation, message, %{path: ["enum"]}})

      assert_schema_error(
        %{"description" => <<255>>},
        {:validation, message, %{path: ["description"]}}
      )

      # A struct is a map to the first check, and no JSON value to the next.
      assert_schema_error(~D[2026-01-01], {:validation, message, %{path: []}})
    end

    test "an atom is read as a name only under type" do
      assert :ok =
               InputSchema.validate_schema(%{
                 "type" => :object,
                 "properties" => %{"t" => %{"type" => [:string]}}
               })

      assert_schema_error(
        %{"properties" => %{"a" => %{"format" => :date}}},
        {:validation, "schema values must be JSON values", %{path: ["format", "a", "properties"]}}
      )
    end

    test "a key neither a binary nor an atom" do
      assert_schema_error(
        %{1 => "x"},
        {:validation, "schema object keys must be strings or atoms", %{key: 1}}
      )

      assert_schema_error(
        %{"properties" => %{{:k} => %{}}},
        {:validation, "schema object keys must be strings or atoms", %{key: {:k}}}
      )
    end

    test "two keys one name" do
      assert_schema_error(
        %{:properties => %{}, "properties" => %{}},
        {:validation, "schema contains duplicate keys after normalization", %{path: []}}
      )

      assert_schema_error(
        %{"properties" => %{:a => %{}, "a" => %{}}},
        {:validation, "schema contains duplicate keys after normalization",
         %{path: ["properties"]}}
      )
    end

    test "additional_properties is additionalProperties, which wins when both are given" do
      legacy = %{"properties" => %{"a" => %{}}, "additional_properties" => false}

      assert_result(
        InputSchema.validate(legacy, %{"a" => 1, "b" => 2}),
        {:validation, "no value is allowed here (the schema is false)",
         %{
           errors: [
             %{
               path: ["b"],
               rule: :additionalProperties,
               message: "no value is allowed here (the schema is false)"
             }
           ],
           path: "$arguments.b"
         }}
      )

      both = Map.put(legacy, "additionalProperties", true)
      assert {:ok, _} = InputSchema.validate(both, %{"a" => 1, "b" => 2})

      assert {:ok, _} =
               InputSchema.validate(Map.put(legacy, "additional_properties", nil), %{"b" => 2})
    end

    test "comes before the limits" do
      deep_and_malformed = %{"properties" => %{"a" => self(), "b" => nested(200)}}

      assert_schema_error(
        deep_and_malformed,
        {:validation, "schema values must be JSON values", %{path: ["a", "properties"]}}
      )
    end

    test "creates no atom" do
      # The library's own atoms (rule names, limits) are made on first
      # use: a first round makes them, the second must make none.
      round = fn ->
        for i <- 1..200 do
          name = "fresh_name_#{i}_#{System.unique_integer([:positive])}"

          schema = %{
            "properties" => %{name => %{"type" => "integer", "minimum" => i}},
            "required" => [name <> "x"]
          }

          {:error, _} = InputSchema.validate(schema, %{name => 0})
          {:error, _} = InputSchema.validate(%{"$schema" => name}, %{})
          {:error, _} = InputSchema.validate(%{"$ref" => name}, %{})
          {:error, _} = InputSchema.validate(%{"minLength" => -1, name => true}, %{})
        end
      end

      round.()
      before = :erlang.system_info(:atom_count)
      round.()
      assert :erlang.system_info(:atom_count) == before
    end
  end

  describe "step 6: the schema's limits" do
    test "more than 1 MiB as :erlang.external_size/1 reads the normalised schema" do
      text = fn bytes -> %{"description" => String.duplicate("a", bytes)} end
      # 1 version byte, a map of one entry (5), the key (5 + 11), the binary (5 + n).
      base = 1 + 5 + 5 + 11 + 5
      assert :erlang.external_size(text.(100)) == base + 100
      assert :ok = InputSchema.validate_schema(text.(1_048_576 - base))
      assert_schema_error(text.(1_048_577 - base), limit(:schema_bytes, 1_048_576))
      # Atom keys are counted as the binaries they are read as.
      atom_keyed = %{description: String.duplicate("a", 1_048_576 - base)}
      assert :ok = InputSchema.validate_schema(atom_keyed)
    end

    test "the size is the normalised term's" do
      for term <- [
            %{"a" => [1, 2, 300], "b" => [256], "c" => [], "d" => [[]]},
            %{
              "n" => [
                -1,
                255,
                2_147_483_647,
                2_147_483_648,
                -2_147_483_649,
                1.0,
                1 <<< 64,
                1 <<< 2100
              ]
            },
            %{"x" => [true, false, nil, "é", %{}], "l" => Enum.to_list(1..300)},
            %{"t" => Enum.to_list(0..255), "u" => List.duplicate(7, 70_000)}
          ] do
        assert Native.contract_schema_size(term) == :erlang.external_size(term),
               inspect(term, limit: 5)
      end

      assert Native.contract_schema_size(%{type: :string, a: %{b: 1}}) ==
               :erlang.external_size(%{"type" => "string", "a" => %{"b" => 1}})
    end

    test "a value more than 128 levels down, more than 100,000 maps and lists, more than 10,000 references" do
      assert :ok = InputSchema.validate_schema(%{"default" => nested(127)})
      assert_schema_error(%{"default" => nested(128)}, limit(:schema_depth, 128))

      assert_schema_error(
        %{"default" => List.duplicate([], 100_000)},
        limit(:schema_nodes, 100_000)
      )

      # The root map, the list and 99,998 lists in it: 100,000.
      assert :ok = InputSchema.validate_schema(%{"default" => List.duplicate([], 99_998)})

      refs = fn n ->
        %{"$defs" => %{"a" => true}, "allOf" => List.duplicate(%{"$ref" => "#/$defs/a"}, n)}
      end

      assert :ok = InputSchema.validate_schema(refs.(10_000))
      assert_schema_error(refs.(10_001), limit(:references, 10_000))
    end

    test "in their order: bytes, nesting and nodes as met, references" do
      huge_and_deep = %{
        "description" => String.duplicate("a", 1_100_000),
        "default" => nested(200)
      }

      assert_schema_error(huge_and_deep, limit(:schema_bytes, 1_048_576))
      deep_then_wide = %{"a" => nested(200), "b" => List.duplicate([], 100_001)}
      assert_schema_error(deep_then_wide, limit(:schema_depth, 128))
      wide_then_deep = %{"a" => List.duplicate([], 100_001), "b" => nested(200)}
      assert_schema_error(wide_then_deep, limit(:schema_nodes, 100_000))

      wide_with_refs = %{
        "a" => List.duplicate([], 100_001),
        "allOf" => List.duplicate(%{"$ref" => "#"}, 10_001)
      }

      assert_schema_error(wide_with_refs, limit(:schema_nodes, 100_000))
    end

    test "come before the dialect" do
      assert_schema_error(
        %{"$schema" => "x", "default" => nested(130)},
        limit(:schema_depth, 128)
      )
    end
  end

  describe "step 7: the dialect" do
    test "any $schema, anywhere, but 2020-12's" do
      expected = fn value ->
        {:unsupported_capability, "JSON Schema dialect is unsupported",
         %{schema: value, supported: @dialect}}
      end

      for value <- [
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-07/schema#",
            1,
            %{"a" => 1}
          ] do
        assert_schema_error(%{"$schema" => value}, expected.(value))
        assert_schema_error(%{"properties" => %{"a" => %{"$schema" => value}}}, expected.(value))
      end

      assert :ok = InputSchema.validate_schema(%{"$schema" => @dialect})
      assert :ok = InputSchema.validate_schema(%{"$schema" => @dialect <> "#"})
      # A nil $schema names no dialect; the metaschema then refuses it.
      assert {:error,
              %Error{
                class: :validation,
                message: "instance is not of type string",
                details: %{path: "$arguments.$schema"}
              }} = InputSchema.validate_schema(%{"$schema" => nil})
    end

    test "comes before the root" do
      assert_schema_error(
        %{"type" => "string", "$schema" => "x"},
        {:unsupported_capability, "JSON Schema dialect is unsupported",
         %{schema: "x", supported: @dialect}}
      )
    end
  end

  describe "step 8: the root" do
    test "type absent, object or [object]" do
      for schema <- [
            %{},
            %{"type" => "object"},
            %{"type" => ["object"]},
            %{type: :object},
            %{type: [:object]}
          ] do
        assert :ok = InputSchema.validate_schema(schema)
      end

      for type <- ["string", ["object", "null"], 1, []] do
        assert_schema_error(
          %{"type" => type},
          {:unsupported_capability, "only object tool schemas are supported", %{type: type}}
        )
      end
    end

    test "comes before the metaschema" do
      assert_schema_error(
        %{"type" => "string", "minLength" => -1},
        {:unsupported_capability, "only object tool schemas are supported", %{type: "string"}}
      )
    end
  end

  describe "step 9: the metaschema" do
    test "a failure answers as the arguments' do" do
      assert_schema_error(
        %{"minLength" => -1},
        {:validation, "instance is less than the minimum 0",
         %{
           errors: [
             %{
               path: ["minLength"],
               rule: :minimum,
               message: "instance is less than the minimum 0"
             }
           ],
           path: "$arguments.minLength",
           minimum: 0
         }}
      )

      assert_schema_error(
        %{"properties" => %{"a" => 1}},
        {:validation, "instance is not of type boolean, object",
         %{
           errors: [
             %{
               path: ["properties", "a"],
               rule: :type,
               message: "instance is not of type boolean, object"
             }
           ],
           path: "$arguments.properties.a",
           type: ["object", "boolean"]
         }}
      )
    end

    test "comes before the registry and the loader" do
      assert_schema_error(
        %{"minLength" => -1, "$ref" => "x.json"},
        {:validation, "instance is less than the minimum 0",
         %{
           errors: [
             %{
               path: ["minLength"],
               rule: :minimum,
               message: "instance is less than the minimum 0"
             }
           ],
           path: "$arguments.minLength",
           minimum: 0
         }},
        schema_registry: %{},
        loader: fn _ -> {:ok, %{}} end
      )
    end
  end

  describe "step 10: references" do
    test "a registry and a loader both, or either of the wrong type" do
      both = {:validation, "provide either schema_registry or schema_loader, not both", %{}}
      assert_schema_error(%{}, both, schema_registry: %{}, schema_loader: fn _ -> {:ok, %{}} end)
      assert_schema_error(%{}, both, schema_registry: %{}, loader: fn _ -> {:ok, %{}} end)

      wrong =
        {:validation, "schema_registry must be a map and schema_loader must be a function", %{}}

      assert_schema_error(%{}, wrong, schema_registry: [])
      assert_schema_error(%{}, wrong, schema_loader: fn _, _ -> :ok end)
      assert_schema_error(%{}, wrong, schema_registry: %{}, loader: :not_a_function)
    end

    test "come before an external reference without a loader" do
      assert_schema_error(
        %{"$ref" => "x.json"},
        {:validation, "provide either schema_registry or schema_loader, not both", %{}},
        schema_registry: %{},
        loader: fn _ -> {:ok, %{}} end
      )
    end

    test "an external reference with neither" do
      expected = fn ref ->
        {:validation, "external schema reference requires an explicit loader", %{reference: ref}}
      end

      assert_schema_error(%{"$ref" => "name.json"}, expected.("name.json"))

      assert_schema_error(
        %{
          "$id" => "https://example.com/root.json",
          "properties" => %{"a" => %{"$ref" => "item.json#/x"}}
        },
        expected.("item.json#/x")
      )

      # The first in the schema's order.
      assert_schema_error(
        %{"properties" => %{"a" => %{"$ref" => "a.json"}, "b" => %{"$ref" => "b.json"}}},
        expected.("a.json")
      )

      # The 2020-12 metaschemas are built in.
      assert :ok = InputSchema.validate_schema(%{"properties" => %{"s" => %{"$ref" => @dialect}}})

      assert {:ok, _} =
               InputSchema.validate(%{"properties" => %{"s" => %{"$ref" => @dialect}}}, %{
                 "s" => %{"type" => "string"}
               })
    end

    test "a registry: documents by URI, normalised; a miss is a load failure" do
      registry = %{"https://example.com/item.json" => %{type: :object, required: ["id"]}}

      schema = %{
        "$id" => "https://example.com/root.json",
        "properties" => %{"item" => %{"$ref" => "item.json"}}
      }

      assert {:ok, _} =
               InputSchema.validate(schema, %{"item" => %{"id" => 1}}, schema_registry: registry)

      assert_result(
        InputSchema.validate(schema, %{"item" => %{}}, schema_registry: registry),
        {:validation, "required property \"id\" is missing",
         %{
           errors: [
             %{path: ["item"], rule: :required, message: "required property \"id\" is missing"}
           ],
           path: "$arguments.item",
           property: "id"
         }}
      )

      assert_schema_error(
        schema,
        {:execution_failure, @not_loaded, %{reference: "item.json", reason: ":schema_not_found"}},
        schema_registry: %{}
      )
    end

    test "a loader: asked once a document, resolved against the base URI or as written" do
      {:ok, asked} = Agent.start_link(fn -> [] end)

      loader = fn uri ->
        Agent.update(asked, &[uri | &1])
        {:ok, %{"type" => "object", "properties" => %{"n" => %{"type" => "integer"}}}}
      end

      relative = %{
        "properties" => %{
          "a" => %{"$ref" => "name.json"},
          "b" => %{"$ref" => "name.json#/properties/n"}
        }
      }

      assert {:ok, _} =
               InputSchema.validate(relative, %{"a" => %{"n" => 1}, "b" => 2}, loader: loader)

      assert Agent.get(asked, & &1) == ["name.json"]

      Agent.update(asked, fn _ -> [] end)
      based = Map.put(relative, "$id", "https://example.com/schemas/root.json")
      assert :ok = InputSchema.validate_schema(based, schema_loader: loader)
      assert Agent.get(asked, & &1) == ["https://example.com/schemas/name.json"]

      # Compiled, the loader is asked at compile only.
      Agent.update(asked, fn _ -> [] end)
      {:ok, compiled} = InputSchema.compile(relative, loader: loader)
      for _ <- 1..5, do: assert({:ok, _} = InputSchema.validate(compiled, %{"a" => %{"n" => 1}}))

      assert_result(
        InputSchema.validate(compiled, %{"b" => "x"}),
        {:validation, "instance is not of type integer",
         %{
           errors: [%{path: ["b"], rule: :type, message: "instance is not of type integer"}],
           path: "$arguments.b",
           type: "integer"
         }}
      )

      assert Agent.get(asked, & &1) == ["name.json"]
    end

    test "a loader's documents with atom keys, and the documents they refer to" do
      loader = fn
        "a.json" -> {:ok, %{properties: %{next: %{"$ref": "b.json"}}}}
        "b.json" -> {:ok, %{type: :string, minLength: 2}}
      end

      schema = %{"properties" => %{"x" => %{"$ref" => "a.json"}}}
      assert {:ok, _} = InputSchema.validate(schema, %{"x" => %{"next" => "ok"}}, loader: loader)

      assert_result(
        InputSchema.validate(schema, %{"x" => %{"next" => "k"}}, loader: loader),
        {:validation, "string is shorter than 2 characters",
         %{
           errors: [
             %{
               path: ["x", "next"],
               rule: :minLength,
               message: "string is shorter than 2 characters"
             }
           ],
           path: "$arguments.x.next"
         }}
      )
    end

    test "a loader that fails, in any way, even inside an unused anyOf branch" do
      schema = %{
        "anyOf" => [%{"required" => ["a"]}, %{"properties" => %{"b" => %{"$ref" => "b.json"}}}]
      }

      failed = fn reason ->
        {:execution_failure, @not_loaded, %{reference: "b.json", reason: reason}}
      end

      for {loader, reason} <- [
            {fn _ -> {:error, :nope} end, ":nope"},
            {fn _ -> raise "boom" end, ~s(%RuntimeError{message: "boom"})},
            {fn _ -> throw(:x) end, "{:throw, :x}"},
            {fn _ -> exit(:gone) end, "{:exit, :gone}"},
            {fn _ -> :what end, "{:invalid_loader_response, :what}"},
            {fn _ -> {:ok, "not a schema"} end,
             inspect({:invalid_schema, Error.new(:validation, "tool schema must be a map")})},
            {fn _ -> {:ok, %{"const" => {1}}} end,
             inspect(
               {:invalid_schema,
                Error.new(:validation, "schema values must be JSON values",
                  details: %{path: ["const"]}
                )}
             )}
          ] do
        assert_result(InputSchema.validate(schema, %{"a" => 1}, loader: loader), failed.(reason))
        assert_result(InputSchema.compile(schema, loader: loader), failed.(reason))
      end

      assert {:ok, _} = InputSchema.validate(schema, %{"a" => 1}, loader: fn _ -> {:ok, true} end)
    end

    test "a pattern that needs backtracking, and one that is not a pattern" do
      assert_schema_error(
        %{"properties" => %{"a" => %{"pattern" => "(a)\\1"}}},
        {:unsupported_capability, "JSON Schema pattern is unsupported", %{pattern: "(a)\\1"}}
      )

      assert {:error,
              %Error{
                class: :validation,
                message: "tool schema is invalid",
                details: %{error: detail}
              }} = InputSchema.validate_schema(%{"properties" => %{"a" => %{"pattern" => "["}}})

      assert detail ==
               ~s(pattern "[" at "/properties/a/pattern" is not supported: it is not a valid ECMAScript regular expression)
    end

    test "a load failure comes before a reference that resolves nowhere" do
      schema = %{
        "properties" => %{"a" => %{"$ref" => "#/$defs/nope"}, "b" => %{"$ref" => "b.json"}}
      }

      assert_schema_error(
        schema,
        {:execution_failure, @not_loaded, %{reference: "b.json", reason: ":nope"}},
        loader: fn _ -> {:error, :nope} end
      )
    end

    test "a pattern comes before a reference that resolves nowhere" do
      schema = %{
        "properties" => %{"a" => %{"$ref" => "#/$defs/nope"}, "b" => %{"pattern" => "(a)\\1"}}
      }

      assert_schema_error(
        schema,
        {:unsupported_capability, "JSON Schema pattern is unsupported", %{pattern: "(a)\\1"}}
      )
    end
  end

  describe "step 11: a reference that resolves nowhere" do
    test "in any branch, used or not" do
      unresolved = fn ref ->
        {:validation, "schema reference could not be resolved", %{reference: ref}}
      end

      assert_schema_error(
        %{"properties" => %{"a" => %{"$ref" => "#/$defs/nope"}}},
        unresolved.("#/$defs/nope")
      )

      assert_schema_error(
        %{"$defs" => %{"unused" => %{"$ref" => "#/$defs/gone"}}},
        unresolved.("#/$defs/gone")
      )

      assert_schema_error(%{"anyOf" => [%{}, %{"$ref" => "#nowhere"}]}, unresolved.("#nowhere"))

      assert_schema_error(
        %{"properties" => %{"a" => %{"$ref" => "x.json#/nope"}}},
        unresolved.("x.json#/nope"),
        loader: fn _ -> {:ok, %{}} end
      )

      assert :ok =
               InputSchema.validate_schema(%{
                 "$defs" => %{"a" => %{}},
                 "properties" => %{"a" => %{"$ref" => "#/$defs/a"}, "b" => %{"$ref" => "#"}}
               })
    end
  end

  describe "step 12: the arguments" do
    @schema %{
      "type" => "object",
      "properties" => %{
        "user" => %{
          "type" => "object",
          "properties" => %{
            "tags" => %{"type" => "array", "items" => %{"type" => "string"}},
            "age" => %{"minimum" => 18, "maximum" => 130}
          },
          "required" => ["name", "email"]
        },
        "score" => %{"exclusiveMinimum" => 0, "exclusiveMaximum" => 1.0},
        "kind" => %{"type" => ["string", "null"]}
      }
    }

    test "every failure, in order, with the first's message, location and constraints" do
      arguments = %{"user" => %{"tags" => ["a", 1], "age" => 200}, "score" => 0, "kind" => 1}

      assert_result(
        InputSchema.validate(@schema, arguments),
        {:validation, "instance is not of type null, string",
         %{
           errors: [
             %{path: ["kind"], rule: :type, message: "instance is not of type null, string"},
             %{
               path: ["score"],
               rule: :exclusiveMinimum,
               message: "instance is not greater than the exclusive minimum 0"
             },
             %{
               path: ["user", "age"],
               rule: :maximum,
               message: "instance is greater than the maximum 130"
             },
             %{path: ["user", "tags", 1], rule: :type, message: "instance is not of type string"},
             %{path: ["user"], rule: :required, message: "required property \"name\" is missing"},
             %{path: ["user"], rule: :required, message: "required property \"email\" is missing"}
           ],
           path: "$arguments.kind",
           type: ["string", "null"],
           exclusiveMinimum: 0,
           maximum: 130,
           property: "name"
         }}
      )

      assert_result(
        InputSchema.validate(@schema, %{
          "score" => 1.0,
          "user" => %{"name" => "a", "email" => "b", "age" => 1}
        }),
        {:validation, "instance is not less than the exclusive maximum 1",
         %{
           errors: [
             %{
               path: ["score"],
               rule: :exclusiveMaximum,
               message: "instance is not less than the exclusive maximum 1"
             },
             %{
               path: ["user", "age"],
               rule: :minimum,
               message: "instance is less than the minimum 18"
             }
           ],
           path: "$arguments.score",
           exclusiveMaximum: 1.0,
           minimum: 18
         }}
      )
    end

    test "the arguments come back identical" do
      arguments = %{"user" => %{"name" => "a", "email" => "b", "age" => 20.0}, "kind" => nil}
      assert {:ok, returned} = InputSchema.validate(@schema, arguments)
      assert returned === arguments
      {:ok, compiled} = InputSchema.compile(@schema)
      assert {:ok, ^arguments} = InputSchema.validate(compiled, arguments)
    end

    test "2020-12 semantics: 1.0 is an integer, combined compositions, unevaluatedProperties" do
      schema = %{
        "properties" => %{"n" => %{"type" => "integer"}},
        "anyOf" => [%{"required" => ["n"]}, %{"required" => ["m"]}],
        "oneOf" => [%{"required" => ["n"]}, %{"required" => ["o"]}],
        "unevaluatedProperties" => false,
        "$defs" => %{"node" => %{"$dynamicAnchor" => "node"}},
        "minProperties" => 1
      }

      assert {:ok, _} = InputSchema.validate(schema, %{"n" => 1.0})

      assert {:error, %Error{class: :validation}} =
               InputSchema.validate(schema, %{"n" => 1, "x" => 2})
    end

    test "a validation past the work limit" do
      branches =
        for i <- 1..1_000,
            do: %{"properties" => %{"p#{i}" => %{"type" => "integer"}}, "required" => ["p#{i}"]}

      schema = %{"anyOf" => branches, "unevaluatedProperties" => false}
      object = Map.new(0..9_999, &{"p#{&1}", &1})
      assert_result(InputSchema.validate(schema, object), limit(:work, 10_000_000))
    end
  end

  describe "compiled schemas and the cache" do
    test "a compiled schema answers as its schema map, and after its resource is lost" do
      {:ok, compiled} = InputSchema.compile(@schema)
      lost = %{compiled | resource: make_ref()}

      for arguments <- [%{}, %{"kind" => 1}, %{"user" => %{"tags" => [1]}}, %{"score" => -1}] do
        expected = InputSchema.validate(@schema, arguments)
        assert InputSchema.validate(compiled, arguments) == expected
        assert InputSchema.validate(lost, arguments) == expected
      end
    end

    test "a compiled schema keeps its contract under the subset, and refuses options" do
      {:ok, compiled} = InputSchema.compile(%{"required" => ["a"]})

      try do
        InputSchema.put_contract(:subset)

        assert {:error, %Error{message: "required property \"a\" is missing"}} =
                 InputSchema.validate(compiled, %{})
      after
        InputSchema.put_contract(:draft2020_12)
      end

      assert_raise ArgumentError, fn ->
        InputSchema.validate(compiled, %{}, format_assertion: true)
      end
    end

    test "a schema map is compiled once, under its assertions" do
      InputSchema.clear_cache()

      schema = %{
        "properties" => %{"d" => %{"format" => "date"}},
        "description" => "cache #{System.unique_integer()}"
      }

      assert {:ok, _} = InputSchema.validate(schema, %{"d" => "x"})
      assert {:ok, _} = InputSchema.validate(schema, %{"d" => "x"})
      assert %{hits: 1, misses: 1} = InputSchema.cache_info()

      assert {:error, %Error{}} =
               InputSchema.validate(schema, %{"d" => "x"}, format_assertion: true)

      assert {:ok, _} = InputSchema.validate(schema, %{"d" => "x"})
    end
  end

  describe "assertions" do
    @content %{
      "type" => "object",
      "properties" => %{
        "blob" => %{
          "contentEncoding" => "base64",
          "contentMediaType" => "application/json",
          "contentSchema" => %{"type" => "object", "required" => ["id"]}
        },
        "day" => %{"format" => "date"}
      }
    }

    test "formats and content are annotations unless asserted" do
      # "e30=" is base64 for {}; "@@" is no base64 at all.
      arguments = %{"blob" => "e30=", "day" => "monday"}
      assert {:ok, ^arguments} = InputSchema.validate(@content, arguments)
      assert {:ok, _} = InputSchema.validate(@content, %{"blob" => "@@"})

      assert_result(
        InputSchema.validate(@content, arguments, format_assertion: true),
        {:validation, "string is not a valid date",
         %{
           errors: [%{path: ["day"], rule: :format, message: "string is not a valid date"}],
           path: "$arguments.day"
         }}
      )
    end

    test "content_assertion: true decodes, parses and applies contentSchema" do
      assert {:ok, _} =
               InputSchema.validate(@content, %{"blob" => "eyJpZCI6MX0="}, content_assertion: true)

      assert_result(
        InputSchema.validate(@content, %{"blob" => "e30="}, content_assertion: true),
        {:validation, "required property \"id\" is missing",
         %{
           errors: [
             %{path: ["blob"], rule: :required, message: "required property \"id\" is missing"}
           ],
           path: "$arguments.blob",
           property: "id"
         }}
      )

      assert_result(
        InputSchema.validate(@content, %{"blob" => "@@"}, content_assertion: true),
        {:validation, "string is not valid base64",
         %{
           errors: [
             %{path: ["blob"], rule: :contentEncoding, message: "string is not valid base64"}
           ],
           path: "$arguments.blob"
         }}
      )

      # "WzE=" is base64 for "[1", which is not JSON.
      assert_result(
        InputSchema.validate(@content, %{"blob" => "WzE="}, content_assertion: true),
        {:validation, "string decoded from base64 is not valid JSON",
         %{
           errors: [
             %{
               path: ["blob"],
               rule: :contentMediaType,
               message: "string decoded from base64 is not valid JSON"
             }
           ],
           path: "$arguments.blob"
         }}
      )
    end

    test "both asserted: every failure, in order" do
      assert_result(
        InputSchema.validate(@content, %{"blob" => "@@", "day" => "x"},
          content_assertion: true,
          format_assertion: true
        ),
        {:validation, "string is not valid base64",
         %{
           errors: [
             %{path: ["blob"], rule: :contentEncoding, message: "string is not valid base64"},
             %{path: ["day"], rule: :format, message: "string is not a valid date"}
           ],
           path: "$arguments.blob"
         }}
      )
    end

    test "a compiled schema keeps the assertions it was compiled with" do
      {:ok, compiled} = InputSchema.compile(@content, content_assertion: true)

      assert {:error, %Error{message: "string is not valid base64"}} =
               InputSchema.validate(compiled, %{"blob" => "@@"})

      {:ok, annotated} = InputSchema.compile(@content)
      assert {:ok, _} = InputSchema.validate(annotated, %{"blob" => "@@"})
    end

    test "a schema map is filed apart for each content mode" do
      InputSchema.clear_cache()
      schema = Map.put(@content, "description", "content #{System.unique_integer()}")

      assert {:ok, _} = InputSchema.validate(schema, %{"blob" => "@@"})

      assert {:error, %Error{}} =
               InputSchema.validate(schema, %{"blob" => "@@"}, content_assertion: true)

      assert {:ok, _} = InputSchema.validate(schema, %{"blob" => "@@"})

      assert {:error, %Error{}} =
               InputSchema.validate(schema, %{"blob" => "@@"}, content_assertion: true)

      assert %{hits: 2, misses: 2} = InputSchema.cache_info()
    end
  end
end
