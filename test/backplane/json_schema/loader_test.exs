defmodule Backplane.JSONSchema.LoaderTest do
  # `loader:` (docs/behaviour.md, "References and metaschemas"): asked at
  # compile only, once for each document that neither the schema, the
  # `resources:` nor the built-in metaschemas hold, and for the documents
  # its answers name; a failure of any kind is a CompileError naming the
  # document.
  use ExUnit.Case, async: true

  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, ValidationError}

  @schema %{
    "properties" => %{
      "a" => %{"$ref" => "a.json"},
      "a2" => %{"$ref" => "a.json#/$defs/x"},
      "b" => %{"$ref" => "https://example.com/b.json#/$defs/n"}
    }
  }

  defp recording(answers) do
    {:ok, asked} = Agent.start_link(fn -> [] end)

    loader = fn uri ->
      Agent.update(asked, &[uri | &1])
      Map.fetch!(answers, uri)
    end

    {loader, fn -> Agent.get(asked, &Enum.reverse/1) end}
  end

  @answers %{
    "a.json" =>
      {:ok, %{"type" => "string", "minLength" => 2, "$defs" => %{"x" => %{"$ref" => "c.json"}}}},
    "https://example.com/b.json" => {:ok, %{"$defs" => %{"n" => %{"type" => "integer"}}}},
    "c.json" => {:ok, %{"const" => "c"}}
  }

  test "each document is asked for once, at compile, and the answers' references too" do
    {loader, asked} = recording(@answers)
    assert {:ok, compiled} = JSONSchema.compile(@schema, loader: loader)
    assert asked.() == ["a.json", "https://example.com/b.json", "c.json"]

    assert JSONSchema.validate(compiled, %{"a" => "xy", "a2" => "c", "b" => 1}) == :ok

    assert {:error, [%ValidationError{} = short, %ValidationError{} = not_c]} =
             JSONSchema.validate(compiled, %{"a" => "x", "a2" => "d"})

    assert {short.keyword, short.instance_location, short.message} ==
             {"minLength", "/a", "string is shorter than 2 characters"}

    assert {not_c.keyword, not_c.instance_location} == {"const", "/a2"}
    # Validation never asks.
    assert length(asked.()) == 3
    # The compiled schema keeps what was loaded, for a node that compiles
    # it again.
    assert Map.keys(compiled.resources) |> Enum.sort() ==
             ["https://example.com/b.json", "json-schema:///a.json", "json-schema:///c.json"]
  end

  test "what the schema or resources: hold is not asked for" do
    {loader, asked} = recording(@answers)
    resources = %{"https://example.com/b.json" => %{"$defs" => %{"n" => true}}}
    held = Map.put(@schema, "$defs", %{"inner" => %{"$id" => "https://example.com/inner.json"}})

    schema = put_in(held, ["properties", "i"], %{"$ref" => "https://example.com/inner.json"})

    assert {:ok, _} = JSONSchema.compile(schema, loader: loader, resources: resources)
    assert asked.() == ["a.json", "c.json"]

    assert {:ok, _} =
             JSONSchema.compile(%{"$ref" => "https://json-schema.org/draft/2020-12/schema"},
               loader: loader
             )

    assert asked.() == ["a.json", "c.json"]
  end

  test "a schema map given to validate/3 with a loader" do
    {loader, _asked} = recording(@answers)
    assert JSONSchema.validate(@schema, %{"b" => 2}, loader: loader) == :ok

    assert {:error, [%ValidationError{keyword: "type"}]} =
             JSONSchema.validate(@schema, %{"b" => "x"}, loader: loader)
  end

  test "a loader that fails, in any way" do
    for {answer, message} <- [
          {fn _ -> {:error, :nope} end, "loading a.json failed: :nope"},
          {fn _ -> raise "boom" end, ~s(loading a.json failed: %RuntimeError{message: "boom"})},
          {fn _ -> throw(:x) end, "loading a.json failed: {:throw, :x}"},
          {fn _ -> exit(:gone) end, "loading a.json failed: {:exit, :gone}"},
          {fn _ -> :what end, "loading a.json failed: {:invalid_loader_response, :what}"},
          {fn _ -> {:ok, 5} end, "the loader's answer for a.json, 5, is not a schema"}
        ] do
      assert JSONSchema.compile(@schema, loader: answer) ==
               {:error, %CompileError{reason: :load, uri: "a.json", message: message}}
    end
  end

  test "without a loader, a document nothing holds is an unresolved reference" do
    assert {:error, %CompileError{reason: :unresolved_reference, uri: "json-schema:///a.json"}} =
             JSONSchema.compile(@schema)
  end

  test "the option is checked" do
    assert_raise ArgumentError,
                 "invalid value for :loader of compile/2: expected a function of one argument, got :x",
                 fn -> JSONSchema.compile(%{}, loader: :x) end

    assert_raise ArgumentError, "option :loader of compile/2 is given more than once", fn ->
      JSONSchema.compile(%{}, loader: & &1, loader: & &1)
    end

    {:ok, compiled} = JSONSchema.compile(%{})

    assert_raise ArgumentError,
                 "compile options of validate/3 apply to a schema, not to a compiled one",
                 fn -> JSONSchema.validate(compiled, 1, loader: & &1) end
  end
end
