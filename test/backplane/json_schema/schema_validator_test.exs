defmodule Backplane.JSONSchema.SchemaValidatorTest do
  # Backplane.JSONSchema.SchemaValidator against the MCP protocol layer's
  # behaviour (a copy in test/support), every outcome of compile/2 and of
  # validate/3 with its exact terms (the messages are docs/behaviour.md's,
  # section 11, "Output", and the compile errors' of docs/checker.md), the
  # fixtures' tool schemas, and hostile input: neither function raises.
  use ExUnit.Case, async: true

  import ExUnit.CaptureIO

  alias Backplane.AgentRuntime.InputSchema.Fixtures
  alias Backplane.AgentRuntime.InputSchema.Generators, as: G
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, Compiled, SchemaValidator}

  doctest SchemaValidator

  @moduletag timeout: 600_000

  @cases String.to_integer(System.get_env("PROPERTY_CASES", "500"))
  @draft2020 "https://json-schema.org/draft/2020-12/schema"
  @draft7 "http://json-schema.org/draft-07/schema#"
  @false_schema "no value is allowed here (the schema is false)"

  defmodule Delegate do
    # What a runtime writes to name this library as its validator.
    @behaviour Backplane.McpProtocol.SchemaValidator

    @impl true
    defdelegate compile(schema, opts), to: Backplane.JSONSchema.SchemaValidator

    @impl true
    defdelegate validate(compiled, value, opts), to: Backplane.JSONSchema.SchemaValidator
  end

  defp compiled!(schema, opts \\ []) do
    assert {:ok, %Compiled{} = compiled} = SchemaValidator.compile(schema, opts)
    compiled
  end

  # An error of validate/3 that no keyword reports.
  defp failure(message, path \\ [], location \\ "") do
    %{
      path: path,
      message: message,
      keyword: nil,
      instance_location: location,
      keyword_location: nil,
      absolute_keyword_location: nil
    }
  end

  @declining ~w($ref $defs definitions allOf anyOf oneOf not if then else minItems format)
  @schema_maps ~w(properties patternProperties $defs definitions dependentSchemas)
  @schema_values ~w(items additionalProperties additionalItems contains propertyNames
                    unevaluatedItems unevaluatedProperties)
  @schema_lists ~w(allOf anyOf oneOf prefixItems)

  # Whether the runtime's old adapter declined the schema under its
  # rules: it refused `$ref`, `$defs` (and draft 7's `definitions`),
  # composition, `minItems`, any `format` and `additionalProperties:
  # false` anywhere in the schema tree.
  defp old_rules_decline?(schema) when is_map(schema) do
    Enum.any?(schema, fn
      {keyword, _} when keyword in @declining ->
        true

      {"additionalProperties", false} ->
        true

      {keyword, value} when keyword in @schema_maps and is_map(value) ->
        Enum.any?(Map.values(value), &old_rules_decline?/1)

      {keyword, value} when keyword in @schema_values ->
        old_rules_decline?(value)

      {keyword, value} when keyword in @schema_lists and is_list(value) ->
        old_rules_decline?(value)

      _ ->
        false
    end)
  end

  # Tuple-form `items` of draft 7.
  defp old_rules_decline?(list) when is_list(list), do: Enum.any?(list, &old_rules_decline?/1)
  defp old_rules_decline?(_schema), do: false

  describe "the behaviour" do
    test "every callback of Backplane.McpProtocol.SchemaValidator is implemented" do
      callbacks = Backplane.McpProtocol.SchemaValidator.behaviour_info(:callbacks)
      functions = SchemaValidator.__info__(:functions)

      assert Enum.sort(callbacks) == [compile: 2, validate: 3]
      assert callbacks -- functions == []
    end

    test "a module declaring the behaviour and delegating here compiles without warnings" do
      source = fn name, functions ->
        """
        defmodule #{name} do
          @behaviour Backplane.McpProtocol.SchemaValidator
          #{functions}
        end
        """
      end

      whole = """
      @impl true
      defdelegate compile(schema, opts), to: Backplane.JSONSchema.SchemaValidator
      @impl true
      defdelegate validate(compiled, value, opts), to: Backplane.JSONSchema.SchemaValidator
      """

      half = """
      @impl true
      defdelegate compile(schema, opts), to: Backplane.JSONSchema.SchemaValidator
      """

      name = "Backplane.JSONSchema.SchemaValidatorTest.Whole#{System.unique_integer([:positive])}"
      warnings = capture_io(:stderr, fn -> Code.compile_string(source.(name, whole)) end)
      assert warnings == ""

      # The check sees a missing callback.
      name = "Backplane.JSONSchema.SchemaValidatorTest.Half#{System.unique_integer([:positive])}"
      warnings = capture_io(:stderr, fn -> Code.compile_string(source.(name, half)) end)
      assert warnings =~ "required by behaviour Backplane.McpProtocol.SchemaValidator"
      assert warnings =~ "validate/3"
    end

    test "a round trip through the delegating module" do
      schema = %{"type" => "object", "required" => ["id"]}
      assert {:ok, compiled} = Delegate.compile(schema, [])
      assert Delegate.validate(compiled, %{"id" => 1}, []) == :ok

      assert Delegate.validate(compiled, %{}, []) ==
               {:error,
                [
                  %{
                    path: [],
                    message: ~s(required property "id" is missing),
                    keyword: "required",
                    instance_location: "",
                    keyword_location: "/required",
                    absolute_keyword_location: nil
                  }
                ]}

      assert {:unsupported, %CompileError{reason: :pattern}} =
               Delegate.compile(%{"pattern" => "(a)\\1"}, [])

      assert {:error, %CompileError{reason: :metaschema}} =
               Delegate.compile(%{"minLength" => -1}, [])
    end
  end

  describe "compile/2" do
    test "a schema the standard entry point compiles is {:ok, compiled}" do
      schema = %{"type" => "object", "properties" => %{"n" => %{"type" => "integer"}}}

      assert {:ok, %Compiled{schema: ^schema, dialect: :draft2020_12}} =
               SchemaValidator.compile(schema, [])

      assert {:ok, %Compiled{}} = SchemaValidator.compile(%{}, [])
      assert {:ok, %Compiled{formats: :assert}} = SchemaValidator.compile(%{}, formats: :assert)
    end

    test "a schema that is not a map is an error, a boolean schema too" do
      for schema <- [5, "schema", nil, [], {:a}, self()] do
        assert SchemaValidator.compile(schema, []) ==
                 {:error,
                  %CompileError{
                    reason: :not_a_schema,
                    message: "schema must be a map",
                    pointer: "",
                    uri: nil,
                    failures: []
                  }}
      end

      for schema <- [true, false] do
        assert SchemaValidator.compile(schema, []) ==
                 {:error,
                  %CompileError{
                    reason: :not_a_schema,
                    message:
                      "schema must be a map; a boolean schema (true or false) is not accepted",
                    pointer: "",
                    uri: nil,
                    failures: []
                  }}
      end
    end

    test "options that are not a keyword list are an error" do
      for opts <- [:strict, %{}, [1], [{"dialect", :draft7}], "[]", nil, [{:a, 1} | :tail]] do
        assert SchemaValidator.compile(%{}, opts) ==
                 {:error,
                  %CompileError{
                    reason: :invalid_options,
                    message: "schema options must be a keyword list"
                  }}
      end
    end

    test "an option the standard entry point refuses is an error, never a raise" do
      assert SchemaValidator.compile(%{}, resources: 5) ==
               {:error,
                %CompileError{
                  reason: :invalid_options,
                  message:
                    "invalid value for :resources: expected a map from URI strings to schemas, got 5"
                }}

      for opts <- [[dialect: :draft3], [formats: :yes], [unknown: 1], [loader: 5]] do
        assert {:error, %CompileError{reason: :invalid_options, message: message}} =
                 SchemaValidator.compile(%{}, opts)

        assert is_binary(message) and message != ""
      end
    end

    test "a schema that fails its metaschema is an error with the library's reason" do
      assert SchemaValidator.compile(%{"minLength" => -1}, []) ==
               {:error,
                %CompileError{
                  reason: :metaschema,
                  message:
                    "schema does not conform to its metaschema #{@draft2020}: " <>
                      ~s(at "/minLength": instance is less than the minimum 0),
                  pointer: "/minLength",
                  uri: @draft2020,
                  failures: [
                    %{
                      pointer: "/minLength",
                      keyword: "minimum",
                      message: "instance is less than the minimum 0"
                    }
                  ]
                }}
    end

    test "a pattern that needs backtracking is unsupported" do
      assert SchemaValidator.compile(%{"type" => "string", "pattern" => "(a)\\1"}, []) ==
               {:unsupported,
                %CompileError{
                  reason: :pattern,
                  message:
                    ~S|pattern "(a)\\1" at "/pattern" is not supported: it needs backtracking | <>
                      "(a backreference or lookaround), which linear-time matching cannot run",
                  pointer: "/pattern",
                  uri: nil,
                  failures: []
                }}

      assert {:unsupported, %CompileError{reason: :pattern, pointer: "/properties/a/pattern"}} =
               SchemaValidator.compile(%{"properties" => %{"a" => %{"pattern" => "^(?=a)"}}}, [])

      # Not ECMAScript: patterns should be, so the schema is still valid.
      assert {:unsupported, %CompileError{reason: :pattern}} =
               SchemaValidator.compile(%{"pattern" => "["}, [])
    end

    test "a reference that resolves nowhere is unsupported (nothing is fetched)" do
      uri = "https://example.com/missing.json"

      assert SchemaValidator.compile(%{"$ref" => uri}, []) ==
               {:unsupported,
                %CompileError{
                  reason: :unresolved_reference,
                  message:
                    "reference #{uri} resolves to nothing in the schema, its resources " <>
                      "or the built-in metaschemas",
                  pointer: "/$ref",
                  uri: uri,
                  failures: []
                }}

      # Given as a resource, or by a loader, it resolves.
      compiled = compiled!(%{"$ref" => uri}, resources: %{uri => %{"type" => "integer"}})
      assert SchemaValidator.validate(compiled, 1, []) == :ok

      loader = fn ^uri -> {:ok, %{"type" => "integer"}} end
      compiled = compiled!(%{"$ref" => uri}, loader: loader)
      assert {:error, [%{keyword: "type"}]} = SchemaValidator.validate(compiled, "1", [])

      assert {:unsupported, %CompileError{reason: :load, uri: ^uri}} =
               SchemaValidator.compile(%{"$ref" => uri}, loader: fn _ -> raise "down" end)

      assert {:unsupported, %CompileError{reason: :unknown_metaschema}} =
               SchemaValidator.compile(%{"$schema" => "https://example.com/meta"}, [])
    end

    test "a schema past the compile limits, or not JSON, is an error" do
      deep = Enum.reduce(1..200, %{}, fn _, inner -> %{"items" => inner} end)
      assert {:error, %CompileError{reason: :too_deep}} = SchemaValidator.compile(deep, [])

      assert SchemaValidator.compile(%{"const" => {1}}, []) ==
               {:error,
                %CompileError{
                  reason: :not_json,
                  message: ~s(schema is not JSON at "/const"),
                  pointer: "/const",
                  uri: nil,
                  failures: []
                }}
    end

    test "a $schema of draft 7 is honoured: items as a list" do
      schema = %{
        "$schema" => @draft7,
        "type" => "array",
        "items" => [%{"type" => "string"}, %{"type" => "integer"}],
        "additionalItems" => false
      }

      compiled = compiled!(schema)
      assert SchemaValidator.validate(compiled, ["a", 1], []) == :ok

      assert SchemaValidator.validate(compiled, ["a", 1, 2], []) ==
               {:error,
                [
                  %{
                    path: [2],
                    message: @false_schema,
                    keyword: "additionalItems",
                    instance_location: "/2",
                    keyword_location: "/additionalItems",
                    absolute_keyword_location: nil
                  }
                ]}

      assert {:error, [%{path: [0], message: "instance is not of type string"}, %{path: [1]}]} =
               SchemaValidator.validate(compiled, [1, "a"], [])

      # The same list under Draft 2020-12, the default, fails its metaschema.
      assert {:error, %CompileError{reason: :metaschema, pointer: "/items"}} =
               SchemaValidator.compile(Map.delete(schema, "$schema"), [])

      # The dialect: option chooses for a schema without $schema.
      assert {:ok, %Compiled{}} =
               SchemaValidator.compile(Map.delete(schema, "$schema"), dialect: :draft7)
    end
  end

  describe "validate/3" do
    setup do
      schema = %{
        "type" => "object",
        "properties" => %{
          "a" => %{
            "type" => "array",
            "items" => %{"type" => "object", "properties" => %{"b" => %{"type" => "integer"}}}
          }
        }
      }

      %{nested: compiled!(schema)}
    end

    test "a valid value is :ok", %{nested: compiled} do
      assert SchemaValidator.validate(compiled, %{"a" => [%{"b" => 1}, %{}]}, []) == :ok
      assert SchemaValidator.validate(compiled, %{a: [%{b: 1}]}, []) == :ok
    end

    test "an error's path is the instance location, keys and indices", %{nested: compiled} do
      expected =
        {:error,
         [
           %{
             path: ["a", 0, "b"],
             message: "instance is not of type integer",
             keyword: "type",
             instance_location: "/a/0/b",
             keyword_location: "/properties/a/items/properties/b/type",
             absolute_keyword_location: nil
           }
         ]}

      assert SchemaValidator.validate(compiled, %{"a" => [%{"b" => "x"}]}, []) == expected
      # Atom keys are read, and named, by their names.
      assert SchemaValidator.validate(compiled, %{a: [%{b: "x"}]}, []) == expected
    end

    test "keys with / and ~ are decoded; a key of digits stays a key" do
      schema = %{
        "properties" => %{
          "a/b" => %{"properties" => %{"~c" => %{"maximum" => 3}}},
          "0" => %{"items" => %{"minimum" => 10}},
          "~01" => %{"type" => "null"}
        }
      }

      compiled = compiled!(schema)

      assert SchemaValidator.validate(compiled, %{"a/b" => %{"~c" => 4}}, []) ==
               {:error,
                [
                  %{
                    path: ["a/b", "~c"],
                    message: "instance is greater than the maximum 3",
                    keyword: "maximum",
                    instance_location: "/a~1b/~0c",
                    keyword_location: "/properties/a~1b/properties/~0c/maximum",
                    absolute_keyword_location: nil
                  }
                ]}

      assert {:error, [%{path: ["0", 0], instance_location: "/0/0"}]} =
               SchemaValidator.validate(compiled, %{"0" => [5]}, [])

      assert {:error, [%{path: ["~01"], instance_location: "/~001"}]} =
               SchemaValidator.validate(compiled, %{"~01" => 1}, [])
    end

    test "a value that is not JSON is an error at its place, never :ok" do
      compiled = compiled!(%{})

      # The standard entry point passes a term no keyword reads; the
      # adapter does not.
      assert JSONSchema.validate(compiled, self()) == :ok

      cases = [
        {self(), failure("instance is a pid, not a JSON value")},
        {{1, 2}, failure("instance is a tuple, not a JSON value")},
        {:ok, failure("instance is an atom, not a JSON value")},
        {make_ref(), failure("instance is a reference, not a JSON value")},
        {&Kernel.+/2, failure("instance is a function, not a JSON value")},
        {<<1::3>>, failure("instance is a bitstring, not a JSON value")},
        {<<0xFF>>, failure("instance is a binary that is not UTF-8, not a JSON string")},
        {[1 | 2], failure("instance is an improper list, not a JSON array")},
        {~D[2024-01-01], failure("instance is a struct, not a JSON object")},
        {%{1 => 2}, failure("object has a key that is not a string")},
        {%{<<0xFF>> => 2}, failure("object has a key that is not a string")},
        {%{"a" => 1, a: 2}, failure(~s(object has an atom key and a string key named "a"))},
        {%{"a" => [1, self()]}, failure("instance is a pid, not a JSON value", ["a", 1], "/a/1")},
        {%{"x/y" => %{z: {:t}}},
         failure("instance is a tuple, not a JSON value", ["x/y", "z"], "/x~1y/z")}
      ]

      for {value, error} <- cases do
        assert SchemaValidator.validate(compiled, value, []) == {:error, [error]}
      end

      # Each place, in order, at most 64.
      assert {:error, [%{path: [0]}, %{path: [2]}]} =
               SchemaValidator.validate(compiled, [:a, 1, :b], [])

      assert {:error, errors} = SchemaValidator.validate(compiled, List.duplicate({}, 100), [])
      assert Enum.map(errors, & &1.path) == Enum.map(0..63, &[&1])

      # JSON everywhere: integers of any size, floats, nil, booleans.
      assert SchemaValidator.validate(compiled, [2 ** 100, 1.5, nil, true, "é", %{}], []) == :ok
    end

    test "a compiled schema that is not this module's is an error" do
      message =
        "compiled schema is not one that Backplane.JSONSchema.SchemaValidator.compile/2 made"

      for compiled <- [nil, %{}, :compiled, {:ok, %{}}, %{"type" => "object"}, ~D[2024-01-01]] do
        assert SchemaValidator.validate(compiled, %{}, []) == {:error, [failure(message)]}
      end

      # A struct whose graph is not this node's and that has no schema.
      assert SchemaValidator.validate(%Compiled{resource: make_ref()}, %{}, []) ==
               {:error,
                [
                  failure(
                    "compiled schema cannot be used on this node and carries no schema to compile again"
                  )
                ]}

      # One that carries its schema is compiled again.
      compiled = compiled!(%{"type" => "integer"})
      moved = Map.put(compiled, :resource, make_ref())
      assert SchemaValidator.validate(moved, 1, []) == :ok
      assert {:error, [%{keyword: "type"}]} = SchemaValidator.validate(moved, "1", [])
    end

    test "options: a keyword list, entries ignored; anything else is an error" do
      compiled = compiled!(%{"type" => "integer"})
      assert SchemaValidator.validate(compiled, 1, dialect: :draft7, whatever: 1) == :ok

      for opts <- [nil, :x, [1], %{}, [{"a", 1}]] do
        assert SchemaValidator.validate(compiled, 1, opts) ==
                 {:error, [failure("validation options must be a keyword list")]}
      end
    end

    test "a validation past a limit is an error, never a verdict" do
      compiled = compiled!(%{"properties" => %{"a" => %{"$ref" => "#"}}})
      deep = Enum.reduce(1..600, 1, fn _, inner -> %{"a" => inner} end)

      assert SchemaValidator.validate(compiled, deep, []) ==
               {:error, [failure("validation nesting exceeds the supported depth")]}
    end

    test "additionalProperties: false, $ref and $defs, oneOf, minItems, format" do
      closed = compiled!(%{"type" => "object", "additionalProperties" => false})
      assert SchemaValidator.validate(closed, %{}, []) == :ok

      assert SchemaValidator.validate(closed, %{"x" => 1}, []) ==
               {:error,
                [
                  %{
                    path: ["x"],
                    message: @false_schema,
                    keyword: "additionalProperties",
                    instance_location: "/x",
                    keyword_location: "/additionalProperties",
                    absolute_keyword_location: nil
                  }
                ]}

      referred =
        compiled!(%{
          "$defs" => %{"id" => %{"type" => "string", "minLength" => 1}},
          "properties" => %{"id" => %{"$ref" => "#/$defs/id"}}
        })

      assert SchemaValidator.validate(referred, %{"id" => "x"}, []) == :ok

      assert SchemaValidator.validate(referred, %{"id" => ""}, []) ==
               {:error,
                [
                  %{
                    path: ["id"],
                    message: "string is shorter than 1 characters",
                    keyword: "minLength",
                    instance_location: "/id",
                    keyword_location: "/properties/id/$ref/minLength",
                    absolute_keyword_location: nil
                  }
                ]}

      one = compiled!(%{"oneOf" => [%{"type" => "string"}, %{"type" => "integer"}]})
      assert SchemaValidator.validate(one, 1, []) == :ok

      assert {:error,
              [
                %{
                  path: [],
                  keyword: "oneOf",
                  message: "instance is not valid against any schema of oneOf"
                }
              ]} = SchemaValidator.validate(one, 1.5, [])

      both = compiled!(%{"oneOf" => [%{"type" => "integer"}, %{"minimum" => 0}]})

      assert {:error,
              [
                %{
                  message:
                    "instance is valid against more than one schema of oneOf (indexes 0 and 1)"
                }
              ]} = SchemaValidator.validate(both, 1, [])

      items = compiled!(%{"type" => "array", "minItems" => 2})
      assert SchemaValidator.validate(items, [1, 2], []) == :ok

      assert {:error, [%{path: [], keyword: "minItems", message: "array has fewer than 2 items"}]} =
               SchemaValidator.validate(items, [1], [])

      # format: an annotation by default, asserted with formats: :assert.
      email = %{"properties" => %{"to" => %{"type" => "string", "format" => "email"}}}
      assert SchemaValidator.validate(compiled!(email), %{"to" => "nope"}, []) == :ok

      asserted = compiled!(email, formats: :assert)
      assert SchemaValidator.validate(asserted, %{"to" => "a@example.com"}, []) == :ok

      assert {:error,
              [%{path: ["to"], keyword: "format", message: "string is not a valid email"}]} =
               SchemaValidator.validate(asserted, %{"to" => "nope"}, [])
    end

    test "errors come in the library's order, with its messages" do
      compiled =
        compiled!(%{
          "required" => ["id", "name"],
          "properties" => %{"tags" => %{"items" => %{"type" => "string"}}}
        })

      assert {:error, errors} = SchemaValidator.validate(compiled, %{"tags" => ["a", 1, 2]}, [])
      assert {:error, units} = JSONSchema.validate(compiled, %{"tags" => ["a", 1, 2]})
      assert Enum.map(errors, & &1.message) == Enum.map(units, & &1.message)
      assert Enum.map(errors, & &1.path) == [["tags", 1], ["tags", 2], [], []]
    end
  end

  describe "the fixtures' tool schemas" do
    defp fixture_schemas do
      for file <- ["mcp_catalog.json", "extended_catalog.json", "coding_tools.json"],
          tool <-
            (case Fixtures.load!(file) do
               %{"tools" => tools} -> tools
               tools -> tools
             end),
          key <- ["inputSchema", "outputSchema"],
          Map.has_key?(tool, key),
          do: {"#{file} #{tool["name"]} #{key}", tool[key]}
    end

    test "the rule function reads the old adapter's rules" do
      assert old_rules_decline?(%{"properties" => %{"a" => %{"format" => "uri"}}})
      assert old_rules_decline?(%{"items" => %{"minItems" => 1}})
      assert old_rules_decline?(%{"additionalProperties" => false})
      assert old_rules_decline?(%{"items" => [%{"$ref" => "#"}]})
      refute old_rules_decline?(%{"properties" => %{"format" => %{"type" => "string"}}})
      refute old_rules_decline?(%{"additionalProperties" => true, "enum" => [%{"$ref" => 1}]})
      refute old_rules_decline?(%{"type" => "object", "required" => ["a"]})
    end

    test "every schema the standard entry point compiles compiles here" do
      schemas = fixture_schemas()
      assert length(schemas) > 60

      results =
        for {name, schema} <- schemas do
          adapter = SchemaValidator.compile(schema, [])

          case {JSONSchema.compile(schema), adapter} do
            {{:ok, _}, {:ok, %Compiled{}}} -> :ok
            {{:error, error}, {tag, error}} when tag in [:error, :unsupported] -> :ok
            {library, adapter} -> flunk("#{name}: #{inspect(library)} but #{inspect(adapter)}")
          end

          {adapter, old_rules_decline?(schema)}
        end

      compiled = Enum.count(results, &match?({{:ok, _}, _}, &1))
      declined = Enum.count(results, &elem(&1, 1))
      declined_compiled = Enum.count(results, &match?({{:ok, _}, true}, &1))

      IO.puts(
        "fixture tool schemas: #{length(results)}, compiled by the adapter #{compiled}, " <>
          "declined under the old adapter's rules #{declined} (#{declined_compiled} of them compiled here)"
      )

      assert declined_compiled == declined
      assert declined > 0
    end

    test "the sample calls: the adapter's verdict and messages are the library's" do
      tools =
        for file <- ["mcp_catalog.json", "extended_catalog.json", "coding_tools.json"],
            {name, schema} <- Fixtures.tools!(file),
            into: %{},
            do: {name, schema}

      calls =
        for file <- ["calls.jsonl", "coding_calls.jsonl"],
            line <- file |> Fixtures.path() |> File.read!() |> String.split("\n", trim: true),
            {:ok, call} <- [Backplane.AgentRuntime.InputSchema.JSON.decode(line)],
            do: call

      # The recorded calls of the catalogs' tools (some name tools of
      # other servers).
      calls = for %{"name" => name} = call <- calls, Map.has_key?(tools, name), do: call
      assert length(calls) > 20

      for %{"name" => name, "arguments" => arguments} <- calls do
        schema = Map.fetch!(tools, name)
        {:ok, compiled} = SchemaValidator.compile(schema, [])

        case {SchemaValidator.validate(compiled, arguments, []),
              JSONSchema.validate(compiled, arguments)} do
          {:ok, :ok} ->
            :ok

          {{:error, errors}, {:error, units}} ->
            assert Enum.map(errors, &{&1.message, &1.instance_location}) ==
                     Enum.map(units, &{&1.message, &1.instance_location})

          other ->
            flunk("#{name}: #{inspect(other)}")
        end
      end
    end
  end

  describe "never raises" do
    @compile_opts [
      [],
      [dialect: :draft7],
      [formats: :assert],
      [dialect: :nope],
      [resources: 5],
      [resources: %{1 => 2}],
      [loader: 5],
      [loader: :bad],
      [formats: :assert, formats: :annotate],
      [unknown: true],
      :bad,
      [1],
      %{},
      nil,
      [{:a, 1} | :tail]
    ]

    @validate_opts [[], [output: :basic], [dialect: :draft7], :bad, [1], nil, %{}]

    defp tagged_compile?({:ok, %Compiled{}}), do: true

    defp tagged_compile?({tag, %CompileError{message: m}}) when tag in [:error, :unsupported],
      do: is_binary(m)

    defp tagged_compile?(_), do: false

    defp tagged_validate?(:ok), do: true

    defp tagged_validate?({:error, [_ | _] = errors}) do
      Enum.all?(errors, fn
        %{path: path, message: message, instance_location: location}
        when is_list(path) and is_binary(message) and is_binary(location) ->
          Enum.all?(path, &(is_binary(&1) or (is_integer(&1) and &1 >= 0)))

        _ ->
          false
      end)
    end

    defp tagged_validate?(_), do: false

    test "property: any schema, any value, any options" do
      property =
        :proper.forall(
          {G.any_schema(), G.argument_value(), G.elements(@compile_opts),
           G.elements(@validate_opts)},
          fn {schema, value, compile_opts, validate_opts} ->
            compiled = SchemaValidator.compile(schema, compile_opts)

            tagged_compile?(compiled) and
              case compiled do
                {:ok, compiled} ->
                  tagged_validate?(SchemaValidator.validate(compiled, value, validate_opts))

                _ ->
                  tagged_validate?(SchemaValidator.validate(schema, value, validate_opts))
              end
          end
        )

      result =
        :proper.quickcheck(property, [
          {:numtests, @cases},
          {:max_size, 24},
          {:on_output, fn _, _ -> :ok end}
        ])

      if result == true do
        IO.puts("property schema validator never raises: #{@cases} cases passed")
      else
        flunk("shrunk counterexample: #{inspect(:proper.counterexample(), limit: 60)}")
      end
    end

    test "hostile schemas, values and options" do
      deep_schema = Enum.reduce(1..10_000, %{}, fn _, inner -> %{"items" => inner} end)
      deep_list = Enum.reduce(1..10_000, 1, fn _, inner -> [inner] end)
      deep_map = Enum.reduce(1..10_000, 1, fn _, inner -> %{"a" => inner} end)
      deep_bad = Enum.reduce(1..10_000, self(), fn _, inner -> [inner] end)
      wide_schema = %{"properties" => Map.new(1..100_000, &{"p#{&1}", %{"type" => "string"}})}
      wide_map = Map.new(1..200_000, &{"k#{&1}", &1})
      wide_bad = Map.new(1..200_000, &{"k#{&1}", {&1}})

      hostile = [
        self(),
        make_ref(),
        {1},
        :atom,
        [1 | 2],
        <<0xFF>>,
        <<1::1>>,
        ~D[2024-01-01],
        2 ** 200
      ]

      schemas = [deep_schema, wide_schema, %{"enum" => [deep_map]} | hostile]

      for schema <- schemas, opts <- @compile_opts do
        assert tagged_compile?(SchemaValidator.compile(schema, opts))
      end

      assert {:error, %CompileError{reason: :too_deep}} = SchemaValidator.compile(deep_schema, [])

      recursive =
        compiled!(%{"items" => %{"$ref" => "#"}, "properties" => %{"a" => %{"$ref" => "#"}}})

      open = compiled!(%{})
      typed = compiled!(%{"type" => "object", "additionalProperties" => %{"type" => "integer"}})

      values = [deep_list, deep_map, deep_bad, wide_map, wide_bad | hostile]

      for compiled <- [recursive, open, typed, :nope, %Compiled{resource: :x}],
          value <- values,
          opts <- @validate_opts do
        assert tagged_validate?(SchemaValidator.validate(compiled, value, opts))
      end

      assert SchemaValidator.validate(open, deep_list, []) == :ok
      assert {:error, [%{path: path}]} = SchemaValidator.validate(open, deep_bad, [])
      assert length(path) == 10_000
      assert SchemaValidator.validate(typed, wide_map, []) == :ok
      assert {:error, errors} = SchemaValidator.validate(typed, wide_bad, [])
      assert length(errors) == 64

      assert {:error, [%{message: "validation nesting exceeds the supported depth"}]} =
               SchemaValidator.validate(recursive, deep_list, [])
    end
  end
end
