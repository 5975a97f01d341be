defmodule Backplane.JSONSchema.SchemaMapTest do
  # `validate/2` and `valid?/2` given a schema map compile it (or find it
  # in the schema cache: json_schema/cache_test.exs) and validate in one
  # NIF call. Past the compile's
  # inline budget both run on a dirty scheduler in one call; past the
  # walk's, the compiled schema comes back for the dirty walk. Every path
  # answers what `compile/2` and the compiled schema answer.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, ValidationError}

  # A compile on a normal scheduler never builds a dialect's metaschema:
  # the first one in a VM goes to a dirty scheduler, which builds it. The
  # paths below are the ones taken once it is built.
  setup_all do
    {:ok, _} = JSONSchema.compile(%{"type" => "string"})
    :ok
  end

  defp one_call(schema, instance, mode),
    do: Native.json_schema_check(schema, instance, mode, :draft2020_12, %{}, :annotate, :annotate)

  test "a small schema and instance: one call answers" do
    schema = %{"type" => "string", "minLength" => 2}

    assert one_call(schema, "ab", :all) == :ok
    assert one_call(schema, "ab", :valid) == true
    assert one_call(schema, "a", :valid) == false

    # The NIF gives each failure as a tuple (keyword, message, keyword
    # location, instance location, absolute location); the entry point
    # makes the struct.
    assert one_call(schema, "a", :all) ==
             {:error,
              [{"minLength", "string is shorter than 2 characters", "/minLength", "", nil}]}

    assert JSONSchema.validate(schema, "a") ==
             {:error,
              [
                %ValidationError{
                  keyword: "minLength",
                  keyword_location: "/minLength",
                  absolute_keyword_location: nil,
                  instance_location: "",
                  message: "string is shorter than 2 characters"
                }
              ]}
  end

  test "a compile over the inline budget compiles and validates on a dirty scheduler" do
    schema = %{
      "properties" => Map.new(0..1999, &{"p#{&1}", %{"type" => "integer"}})
    }

    assert one_call(schema, %{"p7" => "x"}, :all) == :dirty

    expected =
      {:error,
       [
         %ValidationError{
           keyword: "type",
           keyword_location: "/properties/p7/type",
           absolute_keyword_location: nil,
           instance_location: "/p7",
           message: "instance is not of type integer"
         }
       ]}

    assert JSONSchema.validate(schema, %{"p7" => "x"}) == expected
    {:ok, compiled} = JSONSchema.compile(schema)
    assert JSONSchema.validate(compiled, %{"p7" => "x"}) == expected
    assert JSONSchema.validate(schema, %{"p7" => 7}) == :ok
    assert JSONSchema.valid?(schema, %{"p1" => 1})
    refute JSONSchema.valid?(schema, %{"p1" => 1.5})
  end

  test "a walk over the inline budget gets the schema compiled in the call" do
    schema = %{"items" => %{"type" => "integer"}}
    invalid = Enum.to_list(1..5000) ++ ["x"]

    assert {:dirty_validate, compiled} = one_call(schema, invalid, :all)
    assert is_reference(compiled)

    assert JSONSchema.validate(schema, invalid) ==
             {:error,
              [
                %ValidationError{
                  keyword: "type",
                  keyword_location: "/items/type",
                  absolute_keyword_location: nil,
                  instance_location: "/5000",
                  message: "instance is not of type integer"
                }
              ]}

    assert JSONSchema.validate(schema, Enum.to_list(1..5000)) == :ok
    assert JSONSchema.valid?(schema, Enum.to_list(1..5000))
    refute JSONSchema.valid?(schema, invalid)
  end

  test "options reach the one call: a dialect, resources, formats, and the basic output" do
    assert {:error,
            [%ValidationError{keyword: "type", message: "instance is not of type integer"}]} =
             JSONSchema.validate(%{"type" => "integer"}, 1.0, dialect: :draft4)

    assert JSONSchema.validate(%{"type" => "integer"}, 1.0) == :ok

    assert JSONSchema.validate(%{"$ref" => "https://example.com/n.json"}, "x",
             resources: %{"https://example.com/n.json" => %{"type" => "integer"}},
             output: :basic
           ) ==
             {:error,
              %{
                "valid" => false,
                "errors" => [
                  %{
                    "keywordLocation" => "/$ref/type",
                    "absoluteKeywordLocation" => "https://example.com/n.json#/type",
                    "instanceLocation" => "",
                    "error" => "instance is not of type integer"
                  }
                ]
              }}

    assert JSONSchema.validate(%{"format" => "email"}, "nope", formats: :assert) ==
             {:error,
              [
                %ValidationError{
                  keyword: "format",
                  keyword_location: "/format",
                  absolute_keyword_location: nil,
                  instance_location: "",
                  message: "string is not a valid email"
                }
              ]}
  end

  test "a schema that does not compile: the error compile/2 gives, and valid? is false" do
    schema = %{"minLength" => -1}

    {:error, %CompileError{reason: :metaschema, pointer: "/minLength"} = error} =
      JSONSchema.compile(schema)

    assert JSONSchema.validate(schema, "x") == {:error, error}
    refute JSONSchema.valid?(schema, "x")

    # Over the compile's inline budget, the dirty call answers the same.
    large = Map.put(%{"properties" => Map.new(0..1999, &{"p#{&1}", true})}, "minLength", -1)
    assert one_call(large, "x", :all) == :dirty

    assert {:error, %CompileError{reason: :metaschema, pointer: "/minLength"}} =
             JSONSchema.validate(large, "x")

    refute JSONSchema.valid?(large, "x")
  end
end
