defmodule Backplane.JSONSchemaTest do
  # The standard entry point's own contract: return shapes, errors, options
  # and limits. The official test suite (official_suite_test.exs) covers
  # the semantics of every keyword in every dialect.
  use ExUnit.Case, async: true

  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, Compiled, LimitError, ValidationError}

  doctest Backplane.JSONSchema

  @schema %{
    "$id" => "https://example.com/order.json",
    "type" => "object",
    "properties" => %{
      "id" => %{"type" => "string", "minLength" => 3},
      "items" => %{"type" => "array", "items" => %{"$ref" => "#/$defs/item"}}
    },
    "required" => ["id"],
    "$defs" => %{"item" => %{"type" => "integer", "minimum" => 0}}
  }

  describe "validate/3 output units" do
    test "every failure carries the specification's locations" do
      {:ok, compiled} = JSONSchema.compile(@schema)

      assert {:error, [first, second]} =
               JSONSchema.validate(compiled, %{"id" => "ab", "items" => [1, -1]})

      assert first == %ValidationError{
               keyword: "minLength",
               keyword_location: "/properties/id/minLength",
               absolute_keyword_location:
                 "https://example.com/order.json#/properties/id/minLength",
               instance_location: "/id",
               message: "string is shorter than 3 characters"
             }

      assert second == %ValidationError{
               keyword: "minimum",
               keyword_location: "/properties/items/items/$ref/minimum",
               absolute_keyword_location: "https://example.com/order.json#/$defs/item/minimum",
               instance_location: "/items/1",
               message: "instance is less than the minimum 0"
             }
    end

    test "a valid instance is :ok and valid? agrees" do
      {:ok, compiled} = JSONSchema.compile(@schema)
      assert JSONSchema.validate(compiled, %{"id" => "abc", "items" => [0, 7]}) == :ok
      assert JSONSchema.valid?(compiled, %{"id" => "abc"})
      refute JSONSchema.valid?(compiled, %{"items" => []})
    end

    test "output: :basic is the specification's basic format" do
      assert JSONSchema.validate(@schema, %{"id" => 1}, output: :basic) ==
               {:error,
                %{
                  "valid" => false,
                  "errors" => [
                    %{
                      "keywordLocation" => "/properties/id/type",
                      "absoluteKeywordLocation" =>
                        "https://example.com/order.json#/properties/id/type",
                      "instanceLocation" => "/id",
                      "error" => "instance is not of type string"
                    }
                  ]
                }}
    end

    test "failures are bounded at 64" do
      schema = %{"items" => %{"type" => "string"}}
      {:error, errors} = JSONSchema.validate(schema, Enum.to_list(1..500))
      assert length(errors) == 64
      assert List.last(errors).instance_location == "/63"
    end

    test "a schema map is taken in place of a compiled schema; a boolean schema works" do
      assert JSONSchema.validate(true, %{"anything" => [1]}) == :ok

      assert {:error, [%ValidationError{keyword: "false", instance_location: ""}]} =
               JSONSchema.validate(false, 1)
    end
  end

  describe "the specification's semantics, not the gateway's" do
    test "1.0 is an integer and a non-object root is fine" do
      assert JSONSchema.valid?(%{"type" => "integer"}, 1.0)
      refute JSONSchema.valid?(%{"type" => "integer"}, 1.5)
      # Draft 4: an integer is written without a fraction.
      {:ok, draft4} = JSONSchema.compile(%{"type" => "integer"}, dialect: :draft4)
      refute JSONSchema.valid?(draft4, 1.0)
      assert JSONSchema.valid?(draft4, 1)
    end

    test "if/then/else, patternProperties and unevaluatedProperties run" do
      schema = %{
        "patternProperties" => %{"^x-" => %{"type" => "string"}},
        "if" => %{"required" => ["kind"]},
        "then" => %{"properties" => %{"kind" => %{"const" => "a"}}},
        "unevaluatedProperties" => false
      }

      assert JSONSchema.valid?(schema, %{"x-a" => "s", "kind" => "a"})
      refute JSONSchema.valid?(schema, %{"x-a" => "s", "kind" => "a", "other" => 1})
      refute JSONSchema.valid?(schema, %{"kind" => "b"})
    end

    test "number beside integer allows the integers, through every walk" do
      for schema <- [
            %{"type" => "number", "allOf" => [%{"type" => "integer"}]},
            %{
              "allOf" => [%{"type" => "number"}, %{"$ref" => "#/$defs/int"}],
              "$defs" => %{"int" => %{"type" => "integer"}}
            }
          ] do
        {:ok, compiled} = JSONSchema.compile(schema)

        for instance <- [0, 42, 2.0] do
          assert JSONSchema.valid?(compiled, instance), inspect({schema, instance})
          assert JSONSchema.validate(compiled, instance) == :ok
        end

        refute JSONSchema.valid?(compiled, 1.5)

        assert {:error,
                [%ValidationError{keyword: "type", message: "instance is not of type integer"}]} =
                 JSONSchema.validate(compiled, 1.5)
      end
    end

    test "dependencies is checked in every dialect, as the later metaschemas keep it" do
      schema = %{
        "dependencies" => %{"card" => ["billing"], "vip" => %{"required" => ["tier"]}}
      }

      for dialect <- [:draft4, :draft7, :draft2019_09, :draft2020_12] do
        {:ok, compiled} = JSONSchema.compile(schema, dialect: dialect)

        assert JSONSchema.validate(compiled, %{"card" => 1, "vip" => true}) ==
                 {:error,
                  [
                    %ValidationError{
                      keyword: "dependencies",
                      keyword_location: "/dependencies",
                      absolute_keyword_location: nil,
                      instance_location: "",
                      message: ~s(property "billing" is required when "card" is present)
                    },
                    %ValidationError{
                      keyword: "required",
                      keyword_location: "/dependencies/vip/required",
                      absolute_keyword_location: nil,
                      instance_location: "",
                      message: ~s(required property "tier" is missing)
                    }
                  ]},
               "#{dialect}"

        refute JSONSchema.valid?(compiled, %{"card" => 1})
        assert JSONSchema.valid?(compiled, %{"card" => 1, "billing" => 2, "other" => 3})
      end
    end

    test "atom keys are read by their names" do
      assert JSONSchema.valid?(%{type: "object", required: ["a"]}, %{"a" => 1})
    end

    test "terms that are not JSON fail the keywords that read them" do
      assert {:error, [%ValidationError{message: "instance is a struct, not a JSON object"}]} =
               JSONSchema.validate(%{"required" => ["a"]}, MapSet.new())

      refute JSONSchema.valid?(%{"type" => "string"}, <<0xFF>>)
      refute JSONSchema.valid?(%{"type" => "array"}, [1 | 2])
      assert JSONSchema.valid?(%{}, {:tuple})
    end
  end

  describe "compile/2 errors" do
    test "a schema that fails its metaschema names where and why" do
      assert {:error, %CompileError{reason: :metaschema, pointer: "/properties/a/type"} = error} =
               JSONSchema.compile(%{"properties" => %{"a" => %{"type" => "strung"}}})

      assert error.uri == "https://json-schema.org/draft/2020-12/schema"
      assert [%{pointer: "/properties/a/type"} | _] = error.failures
    end

    test "a reference to anything not given is refused with its URI" do
      assert {:error, %CompileError{reason: :unresolved_reference, uri: uri, pointer: "/$ref"}} =
               JSONSchema.compile(%{"$ref" => "https://example.com/elsewhere.json"})

      assert uri == "https://example.com/elsewhere.json"
    end

    test "resources: and the built-in metaschemas resolve" do
      resources = %{"https://example.com/name.json" => %{"type" => "string"}}
      schema = %{"properties" => %{"n" => %{"$ref" => "https://example.com/name.json"}}}
      {:ok, compiled} = JSONSchema.compile(schema, resources: resources)
      refute JSONSchema.valid?(compiled, %{"n" => 1})

      {:ok, meta} =
        JSONSchema.compile(%{"$ref" => "https://json-schema.org/draft/2020-12/schema"})

      assert JSONSchema.valid?(meta, %{"type" => "string"})
      refute JSONSchema.valid?(meta, %{"type" => 12})
    end

    test "a pattern that needs backtracking is refused, naming it" do
      assert {:error, %CompileError{reason: :pattern, pointer: "/pattern", message: message}} =
               JSONSchema.compile(%{"pattern" => "(a)\\1"})

      assert message =~ "(a)\\\\1"
      assert message =~ "needs backtracking"
    end

    test "an escape of punctuation is the character; an escape of a letter with no meaning is refused" do
      # Azure Pipelines' and AWS's CloudFormation schemas write `\\:`, `\\-`
      # or `\\_`: Unicode mode refuses them, the mode without the `u` flag
      # (and every other engine) reads the character.
      for {source, text} <- [
            {"^a\\:b$", "a:b"},
            {"^[^\\/~\\^\\: ]+$", "main"},
            {"^\\#\\@\\=$", "#@="},
            {"^[a-z\\_\\-]+$", "a_b-c"},
            {"^arn:aws:timestream\\-influxdb$", "arn:aws:timestream-influxdb"}
          ] do
        {:ok, compiled} = JSONSchema.compile(%{"pattern" => source})
        assert JSONSchema.valid?(compiled, text), source
        refute JSONSchema.valid?(compiled, text <> ":"), source
      end

      {:ok, azure} = JSONSchema.compile(%{"pattern" => "^[^\\/~\\^\\: \\[\\]\\\\]+$"})
      refute JSONSchema.valid?(azure, "a:b")

      for source <- ["\\a", "\\e", "x\\é"] do
        schema = %{"properties" => %{"p" => %{"pattern" => source}}}
        escaped = String.replace(source, "\\", "\\\\")

        assert JSONSchema.compile(schema) ==
                 {:error,
                  %CompileError{
                    reason: :pattern,
                    pointer: "/properties/p/pattern",
                    uri: nil,
                    failures: [],
                    message:
                      "pattern \"#{escaped}\" at \"/properties/p/pattern\" is not supported: " <>
                        "it is not a valid ECMAScript regular expression"
                  }}
      end
    end

    test "a term that is not JSON is refused with its place" do
      assert {:error, %CompileError{reason: :not_json, pointer: "/enum/0"}} =
               JSONSchema.compile(%{"enum" => [{:a}]})
    end

    test "formats are annotations unless asserted; an unknown format stays one" do
      schema = %{"format" => "email"}
      assert JSONSchema.valid?(schema, "bob at example")
      {:ok, asserted} = JSONSchema.compile(schema, formats: :assert)
      refute JSONSchema.valid?(asserted, "bob at example")
      assert JSONSchema.valid?(asserted, "bob@example.com")

      assert {:error,
              [%ValidationError{keyword: "format", message: "string is not a valid email"}]} =
               JSONSchema.validate(asserted, "bob at example")

      {:ok, unknown} = JSONSchema.compile(%{"format" => "no-such-format"}, formats: :assert)
      assert JSONSchema.valid?(unknown, "anything")
      # Each dialect checks its own list: `duration` is not a draft-7 format.
      {:ok, draft7} =
        JSONSchema.compile(%{"format" => "duration"}, formats: :assert, dialect: :draft7)

      assert JSONSchema.valid?(draft7, "not a duration")
    end

    test "valid? answers false for a schema that does not compile" do
      refute JSONSchema.valid?(%{"$ref" => "https://example.com/x"}, 1)
    end

    test "the dialect option and $schema choose the dialect" do
      draft4 = %{"maximum" => 5, "exclusiveMaximum" => true}
      {:ok, compiled} = JSONSchema.compile(draft4, dialect: :draft4)
      refute JSONSchema.valid?(compiled, 5)

      {:ok, compiled} =
        JSONSchema.compile(Map.put(draft4, "$schema", "http://json-schema.org/draft-04/schema#"))

      refute JSONSchema.valid?(compiled, 5)
      # In 2020-12 a boolean exclusiveMaximum fails the metaschema.
      assert {:error, %CompileError{reason: :metaschema}} = JSONSchema.compile(draft4)
    end
  end

  describe "options are checked" do
    test "an unknown key, a wrong value or a non-list is an ArgumentError naming it" do
      assert_raise ArgumentError,
                   "unknown option :dialects of compile/2 (known: :dialect, :resources, :loader, :formats, :content)",
                   fn ->
                     JSONSchema.compile(%{}, dialects: :draft7)
                   end

      assert_raise ArgumentError,
                   "unknown option :errors of validate/3 (known: :dialect, :resources, :loader, :formats, :content, :output)",
                   fn -> JSONSchema.validate(%{}, 1, errors: :all) end

      assert_raise ArgumentError,
                   "invalid value for :dialect: expected :draft2020_12, :draft2019_09, :draft7, :draft6 or :draft4, got :draft3",
                   fn -> JSONSchema.compile(%{}, dialect: :draft3) end

      assert_raise ArgumentError,
                   "invalid options of compile/2: expected a keyword list, got :all",
                   fn ->
                     JSONSchema.compile(%{}, :all)
                   end

      assert_raise ArgumentError,
                   "invalid options of validate/3: expected a keyword list, got [{:loader, 1} | :x]",
                   fn -> JSONSchema.validate(%{}, 1, [{:loader, 1} | :x]) end

      assert_raise ArgumentError,
                   "invalid value for :resources: expected a map from URI strings to schemas, got [1]",
                   fn -> JSONSchema.compile(%{}, resources: [1]) end

      assert_raise ArgumentError,
                   "invalid value for :output: expected :units or :basic, got :verbose",
                   fn ->
                     JSONSchema.validate(%{}, 1, output: :verbose)
                   end
    end
  end

  describe "limits" do
    test "a validation past the depth limit is a LimitError, never a verdict" do
      deep = Enum.reduce(1..3000, 1, fn _, acc -> [acc] end)
      schema = %{"items" => %{"$ref" => "#"}}

      assert {:error, %LimitError{reason: :depth}} = JSONSchema.validate(schema, deep)
      refute JSONSchema.valid?(schema, deep)
    end

    test "every walk meets the depth limit at the same nesting, the steps it folds counted" do
      # The root, then two nested evaluations per level of "a": its `$ref`
      # (which the fast path folds into one pass) and the schema it leads
      # to. 1 + 2 * 511 fits in 1,024; 1 + 2 * 512 does not.
      {:ok, compiled} =
        JSONSchema.compile(%{
          "properties" => %{"a" => %{"$ref" => "#", "type" => ["object", "integer"]}}
        })

      nested = fn levels, leaf ->
        Enum.reduce(1..levels, leaf, fn _, inner -> %{"a" => inner} end)
      end

      too_deep = %LimitError{
        reason: :depth,
        message: "validation nesting exceeds the supported depth"
      }

      assert JSONSchema.validate(compiled, nested.(511, 1)) == :ok
      assert JSONSchema.valid?(compiled, nested.(511, 1))

      assert {:error, [%ValidationError{keyword: "type", instance_location: location}]} =
               JSONSchema.validate(compiled, nested.(511, "x"))

      assert location == String.duplicate("/a", 511)
      refute JSONSchema.valid?(compiled, nested.(511, "x"))

      for leaf <- [1, "x"] do
        assert JSONSchema.validate(compiled, nested.(512, leaf)) == {:error, too_deep}
        refute JSONSchema.valid?(compiled, nested.(512, leaf))
      end
    end

    test "a struct whose graph this node did not make is compiled again from its schema" do
      {:ok, compiled} = JSONSchema.compile(@schema)
      # As a struct from another node, or from another build, arrives: its
      # resource is a reference this library did not make.
      foreign = %{compiled | resource: make_ref()}
      invalid = %{"id" => "ab", "items" => [1, -1]}

      assert JSONSchema.validate(foreign, invalid) == JSONSchema.validate(compiled, invalid)
      assert JSONSchema.valid?(foreign, %{"id" => "abc"})
      refute JSONSchema.valid?(foreign, invalid)

      assert JSONSchema.validate(%{foreign | schema: nil}, invalid) ==
               {:error,
                %CompileError{
                  reason: :foreign,
                  message:
                    "compiled schema cannot be used on this node and carries no schema to compile again"
                }}

      refute JSONSchema.valid?(%{foreign | schema: nil}, %{"id" => "abc"})
    end

    test "a compiled schema is a struct with its dialect" do
      assert {:ok, %Compiled{dialect: :draft7, formats: :annotate}} =
               JSONSchema.compile(%{}, dialect: :draft7)
    end
  end
end
