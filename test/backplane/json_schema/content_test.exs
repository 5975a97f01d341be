defmodule Backplane.JSONSchema.ContentTest do
  # `content: :assert` (docs/behaviour.md, "Content"): `contentEncoding`,
  # `contentMediaType` and `contentSchema` asserted, an unknown encoding or
  # media type an annotation, and annotations by default.
  use ExUnit.Case, async: true

  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{Compiled, ValidationError}

  @schema %{
    "properties" => %{
      "blob" => %{
        "contentEncoding" => "base64",
        "contentMediaType" => "application/json",
        "contentSchema" => %{"type" => "object", "required" => ["id"]}
      }
    }
  }

  defp failure(keyword, keyword_location, instance_location, message) do
    %ValidationError{
      keyword: keyword,
      keyword_location: keyword_location,
      instance_location: instance_location,
      message: message
    }
  end

  test "annotations by default, compiled or as a schema map" do
    {:ok, compiled} = JSONSchema.compile(@schema)
    assert %Compiled{content: :annotate} = compiled
    assert JSONSchema.validate(compiled, %{"blob" => "@@"}) == :ok
    assert JSONSchema.validate(@schema, %{"blob" => "@@"}) == :ok
    assert JSONSchema.validate(@schema, %{"blob" => "@@"}, content: :annotate) == :ok
  end

  test "asserted: decoded, parsed and checked against contentSchema" do
    {:ok, compiled} = JSONSchema.compile(@schema, content: :assert)
    assert %Compiled{content: :assert} = compiled

    # {"id":1}, {} and "[1" in base64.
    assert JSONSchema.validate(compiled, %{"blob" => "eyJpZCI6MX0="}) == :ok

    assert JSONSchema.validate(compiled, %{"blob" => "e30="}) ==
             {:error,
              [
                failure(
                  "required",
                  "/properties/blob/contentSchema/required",
                  "/blob",
                  "required property \"id\" is missing"
                )
              ]}

    assert JSONSchema.validate(compiled, %{"blob" => "WzE="}) ==
             {:error,
              [
                failure(
                  "contentMediaType",
                  "/properties/blob/contentMediaType",
                  "/blob",
                  "string decoded from base64 is not valid JSON"
                )
              ]}

    assert JSONSchema.validate(compiled, %{"blob" => "@@"}) ==
             {:error,
              [
                failure(
                  "contentEncoding",
                  "/properties/blob/contentEncoding",
                  "/blob",
                  "string is not valid base64"
                )
              ]}

    assert JSONSchema.valid?(compiled, %{"blob" => "eyJpZCI6MX0="})
    refute JSONSchema.valid?(compiled, %{"blob" => "e30="})
    # Only strings carry content.
    assert JSONSchema.validate(compiled, %{"blob" => 1}) == :ok
  end

  test "a schema map is asserted as compiled, and filed apart from its annotated twin" do
    schema = Map.put(@schema, "$comment", "content #{System.unique_integer()}")

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, %{"blob" => "@@"}) == :ok

      assert {:error, [%ValidationError{keyword: "contentEncoding"}]} =
               JSONSchema.validate(schema, %{"blob" => "@@"}, content: :assert)
    end
  end

  test "each RFC 4648 encoding, and a media type with parameters" do
    # "foobar" (RFC 4648, section 10) in each encoding; "bnVsbA" is
    # base64url for null, unpadded.
    for {encoding, text} <- [
          {"base64", "Zm9vYmFy"},
          {"base64url", "bnVsbA"},
          {"base32", "MZXW6YTBOI======"},
          {"base16", "666F6F626172"}
        ] do
      {:ok, compiled} = JSONSchema.compile(%{"contentEncoding" => encoding}, content: :assert)
      assert JSONSchema.validate(compiled, text) == :ok, encoding

      assert {:error, [%ValidationError{keyword: "contentEncoding"}]} =
               JSONSchema.validate(compiled, text <> "!")
    end

    {:ok, compiled} =
      JSONSchema.compile(%{"contentMediaType" => "application/json; charset=utf-8"},
        content: :assert
      )

    assert JSONSchema.validate(compiled, "[1, 2]") == :ok

    assert JSONSchema.validate(compiled, "{") ==
             {:error,
              [failure("contentMediaType", "/contentMediaType", "", "string is not valid JSON")]}
  end

  test "an unknown encoding or media type stays an annotation" do
    for schema <- [
          %{"contentEncoding" => "7bit", "contentMediaType" => "application/json"},
          %{"contentMediaType" => "text/html", "contentSchema" => false}
        ] do
      assert JSONSchema.validate(schema, "not JSON {", content: :assert) == :ok
    end
  end

  test "draft 6 and draft 4 have no content keywords" do
    schema = %{"contentMediaType" => "application/json"}
    assert {:error, [_]} = JSONSchema.validate(schema, "{", content: :assert, dialect: :draft7)
    assert JSONSchema.validate(schema, "{", content: :assert, dialect: :draft6) == :ok
    assert JSONSchema.validate(schema, "{", content: :assert, dialect: :draft4) == :ok
  end

  test "the option is checked" do
    assert_raise ArgumentError,
                 "invalid value for :content: expected :annotate or :assert, got :yes",
                 fn -> JSONSchema.compile(@schema, content: :yes) end
  end

  test "a struct from elsewhere is compiled again with its content mode" do
    {:ok, compiled} = JSONSchema.compile(@schema, content: :assert)
    foreign = %{compiled | resource: make_ref()}

    assert {:error, [%ValidationError{keyword: "contentEncoding"}]} =
             JSONSchema.validate(foreign, %{"blob" => "@@"})
  end
end
