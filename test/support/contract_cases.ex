defmodule Backplane.AgentRuntime.InputSchema.ContractCases do
  @moduledoc """
  The contract as data: one row per rule of the InputSchema contract, each
  with the exact expected result. The contract tests assert every row
  against schema maps; other suites reuse the rows (compiled schemas,
  determinism, concurrency).

  A preflight row is `{name, schema, expected}` with `expected` either `:ok`
  or `{class, message, details}`. An argument row is
  `{name, schema, arguments, expected}` with `expected` either `:ok` (the
  identical arguments come back) or `{class, message, details}`.
  """

  alias Backplane.AgentRuntime.InputSchema.ContractCases.Section9

  @v :validation
  @u :unsupported_capability
  @x :execution_failure

  @doc "A schema map with one property `a` whose schema is `subschema`."
  def prop(subschema), do: %{"type" => "object", "properties" => %{"a" => subschema}}

  @doc "A list nested `depth` levels deep around `leaf`."
  def nested_list(0, leaf), do: leaf
  def nested_list(depth, leaf), do: nested_list(depth - 1, [leaf])

  @doc "An object schema with `count` properties `p1`.. whose schemas `property.(i)` gives."
  def wide(count, property) do
    %{"type" => "object", "properties" => Map.new(1..count, &{"p#{&1}", property.(&1)})}
  end

  @doc "A schema of `depth` nested `items` around `leaf`."
  def nested_items(0, leaf), do: leaf
  def nested_items(depth, leaf), do: nested_items(depth - 1, %{"items" => leaf})

  @doc """
  A string that makes the lazy DFA build a new state at almost every byte
  (random a/b, so every 21-byte window is new), against `a[ab]{20}c`.
  """
  def match_limit_input do
    {chars, _} =
      Enum.map_reduce(1..300_000, :rand.seed_s(:exsss, {7, 11, 13}), fn _, state ->
        {n, state} = :rand.uniform_s(2, state)
        {if(n == 1, do: ?a, else: ?b), state}
      end)

    List.to_string(chars)
  end

  @match_limit_pattern "a[ab]{20}c"
  def match_limit_pattern, do: @match_limit_pattern

  @doc "Preflight rows: contract section 2, section 6 (schema side), sections 8 and 9."
  def preflight, do: cached(:preflight, fn -> build_preflight() ++ Section9.preflight() end)

  @doc "Argument rows: contract sections 3, 4, 6 (argument side), 8 and 9."
  def arguments, do: cached(:arguments, fn -> build_arguments() ++ Section9.arguments() end)

  @shared_rows_path Path.expand("../../fixtures/contract_rows.json", __DIR__)

  @doc """
  The rows the Rust core's tests run too (`native/input_schema_core/tests/contract.rs`,
  through the `serde_json` backend), as JSON-ready maps:
  `%{"preflight" => [row], "arguments" => [row]}`, a row being
  `%{"name", "schema", "arguments" (argument rows), "expected"}` with
  `"expected"` either `"ok"` or `%{"class", "message", "details"}`.

  A row is shared when JSON carries its terms exactly: decoding their
  encoding gives the identical term, and no map has more than 32 keys (so
  JSON's sorted key order is the map's own order), and its JSON is at most
  64 KiB. Every other row (atom keys, improper lists, structs, invalid
  UTF-8, tuples and other terms only the BEAM has, huge inputs) is
  ExUnit-only.
  """
  def shared_rows do
    %{
      "preflight" =>
        for {name, schema, expected} <- preflight(), shared?([schema]) do
          %{"name" => name, "schema" => schema, "expected" => expected_json(expected)}
        end,
      "arguments" =>
        for {name, schema, arguments, expected} <- arguments(), shared?([schema, arguments]) do
          %{
            "name" => name,
            "schema" => schema,
            "arguments" => arguments,
            "expected" => expected_json(expected)
          }
        end
    }
  end

  @doc "Where the shared rows are written, for the Rust tests to read."
  def shared_rows_path, do: @shared_rows_path

  @doc "Writes the shared rows (`scripts/contract_rows` calls this)."
  def write_shared_rows! do
    {:ok, text} = Backplane.AgentRuntime.InputSchema.JSON.encode(shared_rows())
    File.write!(@shared_rows_path, text <> "\n")
  end

  defp shared?(terms) do
    Enum.all?(terms, &small_maps?/1) and
      case Backplane.AgentRuntime.InputSchema.JSON.encode(terms) do
        {:ok, text} ->
          byte_size(text) <= 64 * 1024 and
            Backplane.AgentRuntime.InputSchema.JSON.decode(text) === {:ok, terms}

        {:error, _} ->
          false
      end
  end

  defp small_maps?(%_{}), do: false

  defp small_maps?(map) when is_map(map),
    do: map_size(map) <= 32 and Enum.all?(map, fn {k, v} -> small_maps?(k) and small_maps?(v) end)

  defp small_maps?([head | tail]), do: small_maps?(head) and small_maps?(tail)
  defp small_maps?(_), do: true

  defp expected_json(:ok), do: "ok"

  defp expected_json({class, message, details}) do
    %{
      "class" => Atom.to_string(class),
      "message" => message,
      "details" =>
        Map.new(details, fn {key, value} -> {Atom.to_string(key), detail_json(value)} end)
    }
  end

  # Atoms in details are reasons (`:match_limit`, `:patterns`, `:work`);
  # JSON carries them as strings.
  defp detail_json(value) when is_atom(value) and value not in [nil, true, false],
    do: Atom.to_string(value)

  defp detail_json(value), do: value

  @doc "One row by name."
  def preflight(name), do: Enum.find(preflight(), &(elem(&1, 0) == name))
  def arguments(name), do: Enum.find(arguments(), &(elem(&1, 0) == name))

  # Some rows hold large inputs (a 300 KB string, a list nested a million
  # deep): build them once per VM.
  defp cached(key, build) do
    case :persistent_term.get({__MODULE__, key}, nil) do
      nil ->
        value = build.()
        :persistent_term.put({__MODULE__, key}, value)
        value

      value ->
        value
    end
  end

  defp build_preflight do
    type_list_msg = "schema type must be a supported type or non-empty unique list"
    enum_msg = "schema enum must be a list of JSON values"
    kw = "schema keyword is unsupported"
    budget_msg = "tool schema exceeds the supported compile budget"

    [
      # Root
      {"root type absent", %{}, :ok},
      {"root type string object", %{"type" => "object"}, :ok},
      {"root type atom object", %{type: :object}, :ok},
      {"root type [object]", %{"type" => ["object"]}, :ok},
      {"root type [:object]", %{"type" => [:object]}, :ok},
      {"root type string", %{"type" => "string"},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type union with object", %{"type" => ["object", "null"]},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type malformed", %{"type" => 1},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type atom wins", %{:type => "object", "type" => "string"}, :ok},
      {"root type atom wins against object string", %{:type => "string", "type" => "object"},
       {@u, "only object tool schemas are supported", %{}}},
      # The root's type is the very first check, before checks 0-1 and the rest.
      {"root type before an unsupported keyword",
       %{"type" => "integer", "patternProperties" => "x"},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type before a key that is not a keyword", %{"type" => "string", 1 => 1},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type before a malformed $ref", %{"type" => ["object", "null"], "$ref" => 1},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type (atom form) before an unsupported atom keyword", %{:type => :array, :foo => 1},
       {@u, "only object tool schemas are supported", %{}}},
      {"root type before a malformed annotation", %{"type" => "array", "description" => 1},
       {@u, "only object tool schemas are supported", %{}}},
      {"root object type, then the unsupported keyword",
       %{"type" => "object", "patternProperties" => "x"},
       {@u, kw, %{keyword: "patternProperties"}}},

      # Check 0
      {"property schema not a map", prop(1), {@v, "property schema must be a map", %{}}},
      {"oneOf branch not a map", %{"oneOf" => [%{}, "x"]},
       {@v, "property schema must be a map", %{}}},
      {"anyOf branch not a map", %{"anyOf" => [[]]}, {@v, "property schema must be a map", %{}}},

      # Check 1
      {"unsupported string keyword", %{"$ref" => "#/a"}, {@u, kw, %{keyword: "$ref"}}},
      {"unsupported atom keyword", %{foo: 1}, {@u, kw, %{keyword: :foo}}},
      {"unsupported tuple key", %{{1, 2} => 1}, {@u, kw, %{keyword: {1, 2}}}},
      {"unsupported integer key", %{1 => 1}, {@u, kw, %{keyword: 1}}},
      {"first unsupported in map order", %{"then" => [], "contains" => %{}},
       {@u, kw, %{keyword: "contains"}}},
      {"atom keys come first in map order", %{:zzz => 1, "aaa" => 1}, {@u, kw, %{keyword: :zzz}}},
      {"unsupported before malformed", %{"const2" => 1, "description" => 1},
       {@u, kw, %{keyword: "const2"}}},
      {"every supported keyword in string form",
       %{
         "type" => "object",
         "properties" => %{},
         "required" => [],
         "additionalProperties" => true,
         "description" => "d",
         "default" => %{},
         "enum" => [%{}],
         "minimum" => 0,
         "maximum" => 1,
         "minLength" => 0,
         "minItems" => 0,
         "maxItems" => 1,
         "pattern" => "x",
         "items" => %{},
         "oneOf" => [%{}],
         "not" => %{"type" => "null"},
         "format" => "f",
         "contentEncoding" => "base64",
         "$schema" => "s",
         "x-mcp-header" => "h"
       }, :ok},
      {"every supported keyword in atom form",
       %{
         :type => :object,
         :properties => %{},
         :required => [],
         :additional_properties => true,
         :description => "d",
         :default => 1,
         :enum => [%{}],
         :minimum => 0,
         :maximum => 1,
         :minLength => 0,
         :minItems => 0,
         :maxItems => 1,
         :pattern => "x",
         :items => %{},
         :anyOf => [%{}],
         :not => %{},
         :format => "f",
         :contentEncoding => "c",
         :"$schema" => "s",
         :"x-mcp-header" => "h"
       }, :ok},

      # Check 2
      {"description not a string", %{"description" => 1},
       {@v, "schema description must be a string", %{}}},
      {"format not a string", prop(%{"format" => :date}),
       {@v, "schema format must be a string", %{}}},
      {"contentEncoding not a string", prop(%{"contentEncoding" => nil}),
       {@v, "schema contentEncoding must be a string", %{}}},
      {"$schema not a string", %{"$schema" => 7}, {@v, "schema $schema must be a string", %{}}},
      {"x-mcp-header not a string", prop(%{"x-mcp-header" => ["a"]}),
       {@v, "schema x-mcp-header must be a string", %{}}},
      {"annotation order description first", %{"x-mcp-header" => 1, "description" => 1},
       {@v, "schema description must be a string", %{}}},
      {"annotation order format before $schema", %{"$schema" => 1, "format" => 1},
       {@v, "schema format must be a string", %{}}},
      {"annotation before type", prop(%{"type" => "date", "format" => 1}),
       {@v, "schema format must be a string", %{}}},

      # Check 3
      {"type name unsupported", prop(%{"type" => "date"}),
       {@u, "property schema type is unsupported", %{type: "date"}}},
      {"type atom unsupported", prop(%{"type" => :date}),
       {@u, "property schema type is unsupported", %{type: :date}}},
      {"type nil", prop(%{"type" => nil}),
       {@u, "property schema type is unsupported", %{type: nil}}},
      {"type true", prop(%{"type" => true}),
       {@u, "property schema type is unsupported", %{type: true}}},
      {"type atom null is supported", prop(%{"type" => :null}), :ok},
      {"every type name",
       prop(%{
         "anyOf" =>
           Enum.map(~w(object array string integer number boolean null), &%{"type" => &1})
       }), :ok},

      # Check 3b
      {"type list with unsupported name", prop(%{"type" => ["string", "date"]}),
       {@v, type_list_msg, %{}}},
      {"type list empty", prop(%{"type" => []}), {@v, type_list_msg, %{}}},
      {"type list duplicate by name", prop(%{"type" => ["string", :string]}),
       {@v, type_list_msg, %{}}},
      {"type list improper", prop(%{"type" => ["string" | "null"]}), {@v, type_list_msg, %{}}},
      {"type list with number", prop(%{"type" => ["string", 1]}), {@v, type_list_msg, %{}}},
      {"type number", prop(%{"type" => 1}), {@v, type_list_msg, %{}}},
      {"type map", prop(%{"type" => %{}}), {@v, type_list_msg, %{}}},
      {"type list mixed forms", prop(%{"type" => ["string", :null]}), :ok},

      # Check 4
      {"enum not a list", prop(%{"enum" => "a"}), {@v, enum_msg, %{}}},
      {"enum improper list", prop(%{"enum" => ["a" | "b"]}), {@v, enum_msg, %{}}},
      {"enum with atom", prop(%{"enum" => ["a", :b]}), {@v, enum_msg, %{}}},
      {"enum with tuple", prop(%{"enum" => [{1, 2}]}), {@v, enum_msg, %{}}},
      {"enum with struct", prop(%{"enum" => [~D[2024-01-01]]}), {@v, enum_msg, %{}}},
      {"enum with atom-keyed map", prop(%{"enum" => [%{a: 1}]}), {@v, enum_msg, %{}}},
      {"enum with nested improper list", prop(%{"enum" => [[1 | 2]]}), {@v, enum_msg, %{}}},
      {"enum with JSON values",
       prop(%{"enum" => ["a", 1, 1.5, true, false, nil, [1, [2]], %{"k" => %{"j" => [nil]}}]}),
       :ok},
      {"enum empty", prop(%{"enum" => []}), :ok},
      {"enum before minimum", prop(%{"minimum" => "x", "enum" => 1}), {@v, enum_msg, %{}}},

      # Check 5
      {"minimum not a number", prop(%{"minimum" => "1"}),
       {@v, "schema minimum must be a number", %{}}},
      {"maximum not a number", prop(%{"maximum" => nil}),
       {@v, "schema maximum must be a number", %{}}},
      {"bignum and float bounds", prop(%{"minimum" => -(2 ** 100), "maximum" => 1.5e300}), :ok},
      {"minimum before maximum", prop(%{"maximum" => "x", "minimum" => "y"}),
       {@v, "schema minimum must be a number", %{}}},

      # Check 6
      {"minLength negative", prop(%{"minLength" => -1}),
       {@v, "schema minLength must be a non-negative integer", %{}}},
      # Both forms of a keyword below the root: the atom form wins, and the
      # string form is not read.
      {"atom form wins below the root, the string form unread",
       prop(%{:minLength => 1, "minLength" => -1}), :ok},
      {"atom form wins below the root, the atom form checked",
       prop(%{:minLength => -1, "minLength" => 1}),
       {@v, "schema minLength must be a non-negative integer", %{}}},
      {"minLength float", prop(%{"minLength" => 1.0}),
       {@v, "schema minLength must be a non-negative integer", %{}}},
      {"minItems string", prop(%{"minItems" => "1"}),
       {@v, "schema minItems must be a non-negative integer", %{}}},
      {"maxItems negative", prop(%{"maxItems" => -5}),
       {@v, "schema maxItems must be a non-negative integer", %{}}},
      {"bignum counts", prop(%{"minLength" => 2 ** 80, "maxItems" => 2 ** 70}), :ok},
      {"numbers before counts", prop(%{"minLength" => -1, "maximum" => "x"}),
       {@v, "schema maximum must be a number", %{}}},
      {"minLength before minItems", prop(%{"minItems" => -1, "minLength" => -1}),
       {@v, "schema minLength must be a non-negative integer", %{}}},
      {"minItems before maxItems", prop(%{"maxItems" => -1, "minItems" => -1}),
       {@v, "schema minItems must be a non-negative integer", %{}}},

      # Check 7
      {"pattern not a string", prop(%{"pattern" => 1}),
       {@v, "schema pattern must be a string", %{}}},
      {"pattern too long", prop(%{"pattern" => String.duplicate("a", 1025)}),
       {@v, "schema pattern exceeds the supported size", %{}}},
      {"pattern at the byte limit", prop(%{"pattern" => String.duplicate("é", 512)}), :ok},
      {"pattern over the byte limit in bytes", prop(%{"pattern" => String.duplicate("é", 513)}),
       {@v, "schema pattern exceeds the supported size", %{}}},
      {"pattern unsupported", prop(%{"pattern" => "(?=a)"}),
       {@v, "schema pattern uses unsupported syntax", %{}}},
      {"pattern invalid", prop(%{"pattern" => "a{2,1}"}),
       {@v, "schema pattern must be a valid regular expression", %{}}},
      {"pattern invalid UTF-8", prop(%{"pattern" => <<0xFF>>}),
       {@v, "schema pattern must be a valid regular expression", %{}}},
      {"pattern automaton over the size cap", prop(%{"pattern" => "((a{1000}){1000})"}),
       {@v, "schema pattern exceeds the supported size", %{}}},
      {"counts before pattern", prop(%{"pattern" => 1, "maxItems" => -1}),
       {@v, "schema maxItems must be a non-negative integer", %{}}},

      # Check 8
      {"properties not a map", %{"properties" => []},
       {@v, "schema properties must be a map", %{}}},
      {"property name not string or atom", %{"properties" => %{1 => %{}}},
       {@v, "schema property names must be strings or atoms", %{}}},
      {"property names checked before values", %{"properties" => %{"a" => 1, {:b} => %{}}},
       {@v, "schema property names must be strings or atoms", %{}}},
      {"properties checked in map order",
       %{"properties" => %{"a" => %{"type" => "date"}, "b" => %{"$ref" => "x"}}},
       {@u, "property schema type is unsupported", %{type: "date"}}},
      {"pattern before properties", %{"properties" => 1, "pattern" => 2},
       {@v, "schema pattern must be a string", %{}}},

      # Check 9
      {"required not a list", %{"required" => "a"},
       {@v, "schema required must be a list of property names", %{}}},
      {"required with atoms", %{"required" => [:a]},
       {@v, "schema required must be a list of property names", %{}}},
      {"required improper", %{"required" => ["a" | "b"]},
       {@v, "schema required must be a list of property names", %{}}},
      {"properties before required", %{"required" => 1, "properties" => 1},
       {@v, "schema properties must be a map", %{}}},

      # Check 10
      {"additionalProperties malformed", %{"additionalProperties" => "no"},
       {@v, "schema additionalProperties must be a boolean or schema", %{}}},
      {"additional_properties malformed", %{additional_properties: 1},
       {@v, "schema additionalProperties must be a boolean or schema", %{}}},
      {"additionalProperties wins over additional_properties",
       %{"additionalProperties" => true, :additional_properties => 1}, :ok},
      {"additionalProperties schema checked", %{"additionalProperties" => %{"type" => "date"}},
       {@u, "property schema type is unsupported", %{type: "date"}}},
      {"required before additionalProperties", %{"additionalProperties" => 1, "required" => 1},
       {@v, "schema required must be a list of property names", %{}}},

      # Check 11
      {"items tuple entry not a schema", prop(%{"items" => [%{}, 1]}),
       {@v, "property schema must be a map", %{}}},
      {"items string", prop(%{"items" => "x"}), {@v, "schema items must be a schema map", %{}}},
      {"additionalProperties before items", %{"items" => 1, "additionalProperties" => 1},
       {@v, "schema additionalProperties must be a boolean or schema", %{}}},

      # Check 12
      {"not malformed", prop(%{"not" => 1}), {@v, "schema not must be a schema map", %{}}},
      {"items before not", prop(%{"not" => 1, "items" => 1}),
       {@v, "schema items must be a schema map", %{}}},

      # Check 13 / 14 / 15
      {"oneOf empty", prop(%{"oneOf" => []}), {@v, "schema oneOf must be a non-empty list", %{}}},
      {"oneOf improper", prop(%{"oneOf" => [%{} | %{}]}),
       {@v, "schema oneOf must be a non-empty list", %{}}},
      {"oneOf map", prop(%{"oneOf" => %{}}), {@v, "schema oneOf must be a non-empty list", %{}}},
      {"anyOf empty", prop(%{"anyOf" => []}), {@v, "schema anyOf must be a non-empty list", %{}}},
      {"anyOf improper", prop(%{"anyOf" => [%{} | 1]}),
       {@v, "schema anyOf must be a non-empty list", %{}}},
      {"not before oneOf", prop(%{"oneOf" => [], "not" => 1}),
       {@v, "schema not must be a schema map", %{}}},
      {"oneOf before anyOf", prop(%{"anyOf" => [], "oneOf" => []}),
       {@v, "schema oneOf must be a non-empty list", %{}}},
      {"anyOf checked before combination", prop(%{"oneOf" => [%{}], "anyOf" => []}),
       {@v, "schema anyOf must be a non-empty list", %{}}},
      {"combining compositions", prop(%{"oneOf" => [%{}], "anyOf" => [%{}]}),
       {@u, "combining schema compositions is unsupported", %{}}},
      {"branches checked before combination", %{"oneOf" => [%{"if" => %{}}], "anyOf" => [%{}]},
       {@u, kw, %{keyword: "if"}}},

      # The whole schema is checked
      {"unsupported in an unused oneOf branch",
       prop(%{"oneOf" => [%{"type" => "string"}, %{"if" => %{}}]}), {@u, kw, %{keyword: "if"}}},
      {"unsupported in an absent property", %{"properties" => %{"never" => %{"const2" => 1}}},
       {@u, kw, %{keyword: "const2"}}},
      {"unsupported in items", prop(%{"items" => %{"contains" => %{}}}),
       {@u, kw, %{keyword: "contains"}}},
      {"unsupported in not", prop(%{"not" => %{"$ref" => "#/nope"}}),
       {@u, kw, %{keyword: "$ref"}}},
      {"unsupported in additionalProperties",
       %{"additionalProperties" => %{"patternProperties" => %{}}},
       {@u, kw, %{keyword: "patternProperties"}}},
      {"unsupported in anyOf", prop(%{"anyOf" => [%{}, %{"if" => %{}}]}),
       {@u, kw, %{keyword: "if"}}},

      # Not checked
      {"minItems above maxItems", prop(%{"minItems" => 5, "maxItems" => 1}), :ok},
      {"required names outside properties", %{"required" => ["x"], "properties" => %{"y" => %{}}},
       :ok},
      {"default of any value", prop(%{"default" => {1, self()}}), :ok},

      # Section 6, schema side
      {"schema nested too deep", prop(nested_items(200, %{})),
       {@v, "tool schema nesting exceeds the supported depth", %{}}},
      {"enum nested too deep", prop(%{"enum" => [nested_list(200, 1)]}),
       {@v, "tool schema nesting exceeds the supported depth", %{}}},

      # The compile budget: every schema's compile is bounded in work and
      # in pattern automata, whether its patterns were built before or not.
      {"compile budget: pattern automata",
       wide(400, &%{"type" => "string", "pattern" => "^[a-z0-9]{1,#{20_000 - &1}}$"}),
       {@v, budget_msg, %{reason: :patterns}}},
      {"compile budget: keyword work", wide(100_000, fn _ -> %{"description" => "d"} end),
       {@v, budget_msg, %{reason: :work}}},
      {"an earlier check before the compile budget",
       Map.put(wide(100_000, fn _ -> %{"description" => "d"} end), "description", 1),
       {@v, "schema description must be a string", %{}}},
      {"a schema within the compile budget",
       wide(3, &%{"type" => "string", "pattern" => "^[a-z0-9]{1,#{20_000 - &1}}$"}), :ok},

      # Section 9, annotations: checked for their JSON type only; `$id` at
      # the root only.
      {"annotations in string form",
       %{
         "$id" => "https://example.com/tool",
         "$comment" => "c",
         "properties" => %{
           "a" => %{
             "$comment" => "c",
             "examples" => ["x", 1, nil, %{"k" => [true]}],
             "deprecated" => true,
             "readOnly" => false,
             "writeOnly" => false
           }
         }
       }, :ok},
      {"annotations in atom form",
       %{
         "$id": "urn:tool",
         "$comment": "c",
         examples: [],
         deprecated: false,
         readOnly: true,
         writeOnly: true
       }, :ok},
      {"$comment not a string", prop(%{"$comment" => 1}),
       {@v, "schema $comment must be a string", %{}}},
      {"$id not a string", %{"$id" => %{}}, {@v, "schema $id must be a string", %{}}},
      {"$id below the root", prop(%{"$id" => "#a"}), {@u, kw, %{keyword: "$id"}}},
      {"$id (atom form) below the root", prop(%{"$id": "#a"}), {@u, kw, %{keyword: :"$id"}}},
      {"$id below the root, an unsupported key like any other",
       prop(%{"$id" => 1, "description" => 1}), {@u, kw, %{keyword: "$id"}}},
      {"examples not a list", prop(%{"examples" => "x"}),
       {@v, "schema examples must be a list", %{}}},
      {"examples improper", prop(%{"examples" => [1 | 2]}),
       {@v, "schema examples must be a list", %{}}},
      {"deprecated not a boolean", prop(%{"deprecated" => "yes"}),
       {@v, "schema deprecated must be a boolean", %{}}},
      {"readOnly not a boolean", prop(%{"readOnly" => nil}),
       {@v, "schema readOnly must be a boolean", %{}}},
      {"writeOnly not a boolean", prop(%{"writeOnly" => 1}),
       {@v, "schema writeOnly must be a boolean", %{}}},
      {"x-mcp-header before $comment", prop(%{"$comment" => 1, "x-mcp-header" => 1}),
       {@v, "schema x-mcp-header must be a string", %{}}},
      {"$comment before $id", %{"$id" => 1, "$comment" => 1},
       {@v, "schema $comment must be a string", %{}}},
      {"$id before examples", %{"examples" => 1, "$id" => 1},
       {@v, "schema $id must be a string", %{}}},
      {"examples before deprecated", prop(%{"deprecated" => 1, "examples" => 1}),
       {@v, "schema examples must be a list", %{}}},
      {"deprecated before readOnly", prop(%{"readOnly" => 1, "deprecated" => 1}),
       {@v, "schema deprecated must be a boolean", %{}}},
      {"readOnly before writeOnly", prop(%{"writeOnly" => 1, "readOnly" => 1}),
       {@v, "schema readOnly must be a boolean", %{}}},
      {"writeOnly before type", prop(%{"type" => "date", "writeOnly" => 1}),
       {@v, "schema writeOnly must be a boolean", %{}}},

      # Section 8
      {"title not a string", %{"title" => 1}, {@v, "schema title must be a string", %{}}},
      {"title after description", %{"title" => 1, "description" => 1},
       {@v, "schema description must be a string", %{}}},
      {"title before format", prop(%{"title" => 1, "format" => 1}),
       {@v, "schema title must be a string", %{}}},
      {"exclusiveMinimum string", prop(%{"exclusiveMinimum" => "1"}),
       {@v, "schema exclusiveMinimum must be a number", %{}}},
      {"exclusiveMaximum string", prop(%{"exclusiveMaximum" => "1"}),
       {@v, "schema exclusiveMaximum must be a number", %{}}},
      {"maximum before exclusiveMinimum", prop(%{"exclusiveMinimum" => "x", "maximum" => "x"}),
       {@v, "schema maximum must be a number", %{}}},
      {"exclusiveMinimum before exclusiveMaximum",
       prop(%{"exclusiveMaximum" => nil, "exclusiveMinimum" => [1]}),
       {@v, "schema exclusiveMinimum must be a number", %{}}},
      {"maxLength negative", prop(%{"maxLength" => -1}),
       {@v, "schema maxLength must be a non-negative integer", %{}}},
      {"minLength before maxLength", prop(%{"maxLength" => -1, "minLength" => -1}),
       {@v, "schema minLength must be a non-negative integer", %{}}},
      {"maxLength before minItems", prop(%{"minItems" => -1, "maxLength" => -1}),
       {@v, "schema maxLength must be a non-negative integer", %{}}},
      {"const tuple", prop(%{"const" => {1, 2}}), {@v, "schema const must be a JSON value", %{}}},
      {"const atom", prop(%{"const" => :a}), {@v, "schema const must be a JSON value", %{}}},
      {"enum before const", prop(%{"const" => {1}, "enum" => 1}), {@v, enum_msg, %{}}},
      {"const before minimum", prop(%{"minimum" => "x", "const" => {1}}),
       {@v, "schema const must be a JSON value", %{}}},
      {"const JSON values", prop(%{"anyOf" => [%{"const" => nil}, %{"const" => %{"a" => [1]}}]}),
       :ok},
      {"extensions accepted",
       prop(%{
         "title" => "T",
         "maxLength" => 3,
         "exclusiveMinimum" => 0,
         "exclusiveMaximum" => 2 ** 70,
         "const" => "x"
       }), :ok},
      {"still unsupported: dependentSchemas", %{"dependentSchemas" => %{}},
       {@u, kw, %{keyword: "dependentSchemas"}}},
      {"still unsupported: patternProperties", %{"patternProperties" => %{}},
       {@u, kw, %{keyword: "patternProperties"}}},
      {"still unsupported: maxProperties", %{"maxProperties" => 1},
       {@u, kw, %{keyword: "maxProperties"}}}
    ]
  end

  defp build_arguments do
    t = "tool argument has the wrong type"

    [
      # Step 1: type
      {"string accepted", prop(%{"type" => "string"}), %{"a" => "x"}, :ok},
      {"string refused", prop(%{"type" => "string"}), %{"a" => 1},
       {@v, t, %{path: "$arguments.a", type: "string"}}},
      {"atom type reported as atom", prop(%{type: :string}), %{"a" => 1},
       {@v, t, %{path: "$arguments.a", type: :string}}},
      {"type list reported as written", prop(%{"type" => ["string", :null]}), %{"a" => 1},
       {@v, t, %{path: "$arguments.a", type: ["string", :null]}}},
      {"type list accepts nil", prop(%{"type" => ["string", :null]}), %{"a" => nil}, :ok},
      {"integer refuses 1.0", prop(%{"type" => "integer"}), %{"a" => 1.0},
       {@v, t, %{path: "$arguments.a", type: "integer"}}},
      {"integer accepts bignum", prop(%{"type" => "integer"}), %{"a" => 2 ** 200}, :ok},
      {"number accepts integer", prop(%{"type" => "number"}), %{"a" => 3}, :ok},
      {"number accepts float", prop(%{"type" => "number"}), %{"a" => 3.5}, :ok},
      {"number refuses string", prop(%{"type" => "number"}), %{"a" => "3"},
       {@v, t, %{path: "$arguments.a", type: "number"}}},
      {"boolean", prop(%{"type" => "boolean"}), %{"a" => false}, :ok},
      {"boolean refuses nil", prop(%{"type" => "boolean"}), %{"a" => nil},
       {@v, t, %{path: "$arguments.a", type: "boolean"}}},
      {"null accepts nil", prop(%{"type" => "null"}), %{"a" => nil}, :ok},
      {"null refuses :null", prop(%{"type" => "null"}), %{"a" => :null},
       {@v, t, %{path: "$arguments.a", type: "null"}}},
      {"object accepts map", prop(%{"type" => "object"}), %{"a" => %{}}, :ok},
      {"array accepts list", prop(%{"type" => "array"}), %{"a" => []}, :ok},
      {"array refuses tuple", prop(%{"type" => "array"}), %{"a" => {1}},
       {@v, t, %{path: "$arguments.a", type: "array"}}},
      {"string refuses atom", prop(%{"type" => "string"}), %{"a" => :x},
       {@v, t, %{path: "$arguments.a", type: "string"}}},
      {"type before enum", prop(%{"type" => "string", "enum" => ["x"]}), %{"a" => 1},
       {@v, t, %{path: "$arguments.a", type: "string"}}},

      # Step 2: enum
      {"enum member", prop(%{"enum" => ["x", "y"]}), %{"a" => "y"}, :ok},
      {"enum non-member", prop(%{"enum" => ["x", "y"]}), %{"a" => "z"},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"enum is case-sensitive", prop(%{"enum" => ["x"]}), %{"a" => "X"},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"enum before bounds", prop(%{"enum" => [5], "minimum" => 10}), %{"a" => 6},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"enum narrows the type", prop(%{"type" => "integer", "enum" => [1, "1"]}), %{"a" => "1"},
       {@v, t, %{path: "$arguments.a", type: "integer"}}},
      {"enum on the root", %{"enum" => [%{"k" => 1}]}, %{"k" => 1.0}, :ok},
      {"enum on the root refuses", %{"enum" => [%{"k" => 1}]}, %{"k" => 2},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments"}}},

      # Section 4: equality
      {"1 equals 1.0", prop(%{"enum" => [1]}), %{"a" => 1.0}, :ok},
      {"1.0 equals 1", prop(%{"enum" => [1.0]}), %{"a" => 1}, :ok},
      {"lists element by element", prop(%{"enum" => [[1, "a"]]}), %{"a" => [1.0, "a"]}, :ok},
      {"lists of other length", prop(%{"enum" => [[1, "a"]]}), %{"a" => [1]},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"maps with the same keys", prop(%{"enum" => [%{"x" => [1], "y" => nil}]}),
       %{"a" => %{"y" => nil, "x" => [1.0]}}, :ok},
      {"maps with extra keys", prop(%{"enum" => [%{"x" => 1}]}), %{"a" => %{"x" => 1, "y" => 2}},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"maps with atom keys", prop(%{"enum" => [%{"x" => 1}]}), %{"a" => %{x: 1}},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"true is not 1", prop(%{"enum" => [1]}), %{"a" => true},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"nil is only nil", prop(%{"enum" => [nil]}), %{"a" => nil}, :ok},
      {"false is not nil", prop(%{"enum" => [nil]}), %{"a" => false},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"atom is not a string", prop(%{"enum" => ["x"]}), %{"a" => :x},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"empty enum rejects everything", prop(%{"enum" => []}), %{"a" => nil},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"repeated choices", prop(%{"enum" => ["x", "x"]}), %{"a" => "x"}, :ok},
      {"bignum enum", prop(%{"enum" => [2 ** 100]}), %{"a" => 2 ** 100 * 1.0}, :ok},
      {"binaries byte for byte", prop(%{"enum" => ["é"]}), %{"a" => "e\u0301"},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},

      # Step 3: numbers
      {"minimum inclusive", prop(%{"minimum" => 1}), %{"a" => 1}, :ok},
      {"below minimum", prop(%{"minimum" => 1}), %{"a" => 0},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a", minimum: 1}}},
      {"minimum float as written", prop(%{"minimum" => 1.5}), %{"a" => 1},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a", minimum: 1.5}}},
      {"minimum 1.0 stays a float", prop(%{"minimum" => 1.0}), %{"a" => 0},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a", minimum: 1.0}}},
      {"maximum inclusive", prop(%{"maximum" => 10}), %{"a" => 10.0}, :ok},
      {"above maximum", prop(%{"maximum" => 10}), %{"a" => 10.5},
       {@v, "tool argument is above the maximum", %{path: "$arguments.a", maximum: 10}}},
      {"minimum before maximum", prop(%{"minimum" => 5, "maximum" => 1}), %{"a" => 3},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a", minimum: 5}}},
      {"bignum argument above a float maximum", prop(%{"maximum" => 1.0e20}), %{"a" => 10 ** 21},
       {@v, "tool argument is above the maximum", %{path: "$arguments.a", maximum: 1.0e20}}},
      {"bignum bound compared exactly", prop(%{"maximum" => 2 ** 64}), %{"a" => 2 ** 64 + 1},
       {@v, "tool argument is above the maximum", %{path: "$arguments.a", maximum: 2 ** 64}}},
      {"bignum bound not lossy", prop(%{"minimum" => 2 ** 53 + 1}), %{"a" => 2 ** 53 * 1.0},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a", minimum: 2 ** 53 + 1}}},
      {"bounds do not apply to strings", prop(%{"minimum" => 10}), %{"a" => "1"}, :ok},

      # Step 4: strings
      {"minLength counts code points", prop(%{"minLength" => 2}), %{"a" => "e\u0301"}, :ok},
      {"shorter than minLength", prop(%{"minLength" => 2}), %{"a" => "😀"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 2}}},
      {"atom form of minLength wins below the root", prop(%{:minLength => 3, "minLength" => 1}),
       %{"a" => "ab"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 3}}},
      {"pattern search", prop(%{"pattern" => "b"}), %{"a" => "abc"}, :ok},
      {"pattern mismatch", prop(%{"pattern" => "^b"}), %{"a" => "abc"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"minLength before pattern", prop(%{"minLength" => 5, "pattern" => "^z"}), %{"a" => "abc"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 5}}},
      {"string checks do not apply to numbers", prop(%{"minLength" => 5, "pattern" => "x"}),
       %{"a" => 1}, :ok},
      {"dot excludes LF", prop(%{"pattern" => "^a.b$"}), %{"a" => "a\nb"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"dot excludes CR", prop(%{"pattern" => "^a.b$"}), %{"a" => "a\rb"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"dot excludes U+2028", prop(%{"pattern" => "^a.b$"}), %{"a" => "a\u2028b"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"dot excludes U+2029", prop(%{"pattern" => "^a.b$"}), %{"a" => "a\u2029b"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"dot matches U+0085", prop(%{"pattern" => "^a.b$"}), %{"a" => "a\u0085b"}, :ok},
      {"dollar is the absolute end", prop(%{"pattern" => "^a$"}), %{"a" => "a\n"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"dollar in a class is literal", prop(%{"pattern" => "^[$]$"}), %{"a" => "$"}, :ok},
      {"exponential backtracking pattern is linear here", prop(%{"pattern" => "(a+)+$"}),
       %{"a" => String.duplicate("a", 1000) <> "X"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"pattern work limit", prop(%{"pattern" => @match_limit_pattern}),
       %{"a" => match_limit_input()},
       {@x, "schema pattern evaluation failed", %{path: "$arguments.a", reason: :match_limit}}},

      # Step 5: lists
      {"minItems", prop(%{"minItems" => 2}), %{"a" => [1]},
       {@v, "tool argument has too few items", %{path: "$arguments.a", minItems: 2}}},
      {"maxItems", prop(%{"maxItems" => 1}), %{"a" => [1, 2]},
       {@v, "tool argument has too many items", %{path: "$arguments.a", maxItems: 1}}},
      {"minItems before maxItems", prop(%{"minItems" => 3, "maxItems" => 1}), %{"a" => [1, 2]},
       {@v, "tool argument has too few items", %{path: "$arguments.a", minItems: 3}}},
      {"maxItems before items", prop(%{"maxItems" => 1, "items" => %{"type" => "string"}}),
       %{"a" => [1, 2]},
       {@v, "tool argument has too many items", %{path: "$arguments.a", maxItems: 1}}},
      {"items in order with index paths", prop(%{"items" => %{"type" => "string"}}),
       %{"a" => ["x", 2, 3]}, {@v, t, %{path: "$arguments.a[1]", type: "string"}}},
      {"nested items paths", prop(%{"items" => %{"items" => %{"minimum" => 0}}}),
       %{"a" => [[0], [1, -1]]},
       {@v, "tool argument is below the minimum", %{path: "$arguments.a[1][1]", minimum: 0}}},
      {"array checks do not apply to maps", prop(%{"minItems" => 3}), %{"a" => %{}}, :ok},

      # Step 6: maps
      {"required in list order", %{"required" => ["b", "a"]}, %{},
       {@v, "required tool argument is missing", %{path: "$arguments", property: "b"}}},
      {"required before properties",
       %{"required" => ["b"], "properties" => %{"a" => %{"type" => "string"}}}, %{"a" => 1},
       {@v, "required tool argument is missing", %{path: "$arguments", property: "b"}}},
      {"required accepts nil values", %{"required" => ["a"]}, %{"a" => nil}, :ok},
      {"properties in map order",
       %{"properties" => %{"a" => %{"type" => "string"}, "b" => %{"type" => "string"}}},
       %{"b" => 1, "a" => 1}, {@v, t, %{path: "$arguments.a", type: "string"}}},
      {"properties before additionalProperties",
       %{"properties" => %{"b" => %{"type" => "string"}}, "additionalProperties" => false},
       %{"a" => 1, "b" => 1}, {@v, t, %{path: "$arguments.b", type: "string"}}},
      {"additionalProperties false",
       %{"properties" => %{"a" => %{}}, "additionalProperties" => false}, %{"a" => 1, "z" => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "z"}}},
      {"additional key reported as written", %{"additionalProperties" => false}, %{z: 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: :z}}},
      {"additional_properties false", %{additional_properties: false}, %{"z" => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "z"}}},
      {"first additional key in argument order", %{"additionalProperties" => false},
       %{"y" => 1, "x" => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "x"}}},
      {"additionalProperties schema", %{"additionalProperties" => %{"type" => "integer"}},
       %{"n" => 1, "s" => "x"}, {@v, t, %{path: "$arguments.s", type: "integer"}}},
      {"additional integer key path", %{"additionalProperties" => %{"type" => "integer"}},
       %{7 => "x"}, {@v, t, %{path: "$arguments.7", type: "integer"}}},
      {"additional bignum key path", %{"additionalProperties" => %{"type" => "integer"}},
       %{18_446_744_073_709_551_616 => "x"},
       {@v, t, %{path: "$arguments.18446744073709551616", type: "integer"}}},
      {"additional atom key path", %{"additionalProperties" => %{"type" => "integer"}}, %{k: "x"},
       {@v, t, %{path: "$arguments.k", type: "integer"}}},
      {"nested object constraints",
       prop(%{
         "type" => "object",
         "required" => ["b"],
         "properties" => %{"b" => %{"type" => "object", "additionalProperties" => false}}
       }), %{"a" => %{"b" => %{"c" => 1}}},
       {@v, "additional tool argument is not allowed", %{path: "$arguments.a.b", property: "c"}}},
      {"nested required", prop(%{"required" => ["b"]}), %{"a" => %{}},
       {@v, "required tool argument is missing", %{path: "$arguments.a", property: "b"}}},
      {"object checks do not apply to scalars", prop(%{"required" => ["b"]}), %{"a" => 3}, :ok},

      # Keys
      {"atom-keyed schema finds string keys",
       %{properties: %{kind: %{type: :string}}, required: ["kind"]}, %{"kind" => 1},
       {@v, t, %{path: "$arguments.kind", type: :string}}},
      {"atom-keyed schema finds atom keys first", %{properties: %{kind: %{type: :string}}},
       %{:kind => 1, "kind" => "x"}, {@v, t, %{path: "$arguments.kind", type: :string}}},
      {"string-keyed schema does not find atom keys",
       %{"properties" => %{"kind" => %{"type" => "string"}}}, %{kind: 1}, :ok},
      {"string-keyed required does not find atom keys", %{"required" => ["kind"]}, %{kind: "x"},
       {@v, "required tool argument is missing", %{path: "$arguments", property: "kind"}}},
      {"atom-keyed required list of strings", %{required: ["kind"]}, %{kind: "x"},
       {@v, "required tool argument is missing", %{path: "$arguments", property: "kind"}}},
      {"atom key named by a string property is not additional",
       %{"properties" => %{"kind" => %{}}, "additionalProperties" => false}, %{kind: 1}, :ok},
      {"atom key named by a string property is not reported beside a real extra",
       %{"properties" => %{"kind" => %{}}, "additionalProperties" => false},
       %{:kind => 1, "other" => 2},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "other"}}},
      {"string key named by an atom property is not additional",
       %{properties: %{kind: %{}}, additionalProperties: false}, %{"kind" => 1}, :ok},
      {"integer keys are always additional",
       %{"properties" => %{"1" => %{}}, "additionalProperties" => false}, %{1 => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: 1}}},

      # Steps 7-9: compositions
      {"anyOf first branch", prop(%{"anyOf" => [%{"type" => "string"}, %{"type" => "integer"}]}),
       %{"a" => "x"}, :ok},
      {"anyOf second branch", prop(%{"anyOf" => [%{"type" => "string"}, %{"type" => "integer"}]}),
       %{"a" => 1}, :ok},
      {"anyOf no branch", prop(%{"anyOf" => [%{"type" => "string"}, %{"type" => "integer"}]}),
       %{"a" => 1.5},
       {@v, "tool argument must match at least one anyOf branch", %{path: "$arguments.a"}}},
      {"oneOf exactly one", prop(%{"oneOf" => [%{"type" => "integer"}, %{"type" => "string"}]}),
       %{"a" => 1}, :ok},
      {"oneOf two match", prop(%{"oneOf" => [%{"type" => "integer"}, %{"type" => "number"}]}),
       %{"a" => 1},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments.a"}}},
      {"oneOf none match", prop(%{"oneOf" => [%{"type" => "integer"}, %{"type" => "string"}]}),
       %{"a" => nil},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments.a"}}},
      {"not rejects a match", prop(%{"not" => %{"type" => "string"}}), %{"a" => "x"},
       {@v, "tool argument must not match the negated schema", %{path: "$arguments.a"}}},
      {"not accepts a mismatch", prop(%{"not" => %{"type" => "string"}}), %{"a" => 1}, :ok},
      {"own checks before anyOf", prop(%{"type" => "integer", "anyOf" => [%{"minimum" => 5}]}),
       %{"a" => "x"}, {@v, t, %{path: "$arguments.a", type: "integer"}}},
      {"oneOf before not",
       prop(%{"oneOf" => [%{"type" => "string"}], "not" => %{"type" => "integer"}}), %{"a" => 1},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments.a"}}},
      {"object siblings with oneOf at the root",
       %{
         "properties" => %{"kind" => %{"type" => "string"}},
         "required" => ["kind"],
         "oneOf" => [
           %{"properties" => %{"kind" => %{"enum" => ["file"]}}, "required" => ["path"]},
           %{"properties" => %{"kind" => %{"enum" => ["url"]}}, "required" => ["url"]}
         ]
       }, %{"kind" => "url", "url" => "https://example.org"}, :ok},
      {"root siblings fail first",
       %{
         "properties" => %{"kind" => %{"type" => "string"}},
         "required" => ["kind"],
         "oneOf" => [%{"required" => ["path"]}, %{"required" => ["url"]}]
       }, %{"path" => "/x"},
       {@v, "required tool argument is missing", %{path: "$arguments", property: "kind"}}},
      {"root oneOf fails",
       %{
         "properties" => %{"kind" => %{"type" => "string"}},
         "oneOf" => [%{"required" => ["path"]}, %{"required" => ["url"]}]
       }, %{"path" => "/x", "url" => "u"},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments"}}},
      {"object siblings with oneOf in a nested property",
       prop(%{
         "type" => "object",
         "properties" => %{"n" => %{"type" => "integer"}},
         "oneOf" => [%{"required" => ["x"]}, %{"required" => ["y"]}]
       }), %{"a" => %{"n" => 1, "x" => 1, "y" => 2}},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments.a"}}},
      {"object siblings with anyOf in array items",
       prop(%{
         "type" => "array",
         "items" => %{
           "type" => "object",
           "additionalProperties" => %{"type" => "string"},
           "anyOf" => [%{"required" => ["x"]}, %{"required" => ["y"]}]
         }
       }), %{"a" => [%{"x" => "1"}, %{"z" => "2"}]},
       {@v, "tool argument must match at least one anyOf branch", %{path: "$arguments.a[1]"}}},
      {"scalar or object oneOf in items",
       prop(%{
         "items" => %{
           "oneOf" => [%{"type" => "string"}, %{"type" => "object", "required" => ["label"]}]
         }
       }), %{"a" => ["x", %{"label" => "y"}]}, :ok},
      {"required-only branch lets scalars pass",
       prop(%{"oneOf" => [%{"required" => ["x"]}, %{"type" => "object"}]}), %{"a" => 3}, :ok},
      {"enum alongside a composition",
       prop(%{"enum" => [1, 2], "oneOf" => [%{"minimum" => 2}, %{"maximum" => 1}]}), %{"a" => 3},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"empty schema accepts anything", prop(%{}), %{"a" => [%{"x" => {1, 2}}]}, :ok},
      {"annotations never modify arguments", prop(%{"default" => 5, "description" => "d"}), %{},
       :ok},

      # Aborting errors propagate through compositions
      {"work limit through not", prop(%{"not" => %{"pattern" => @match_limit_pattern}}),
       %{"a" => match_limit_input()},
       {@x, "schema pattern evaluation failed", %{path: "$arguments.a", reason: :match_limit}}},
      {"work limit through oneOf",
       prop(%{"oneOf" => [%{"type" => "integer"}, %{"pattern" => @match_limit_pattern}]}),
       %{"a" => match_limit_input()},
       {@x, "schema pattern evaluation failed", %{path: "$arguments.a", reason: :match_limit}}},
      {"work limit through anyOf",
       prop(%{"anyOf" => [%{"type" => "integer"}, %{"pattern" => @match_limit_pattern}]}),
       %{"a" => match_limit_input()},
       {@x, "schema pattern evaluation failed", %{path: "$arguments.a", reason: :match_limit}}},
      {"improper list through not", prop(%{"not" => %{"items" => %{}}}), %{"a" => [1 | 2]},
       {@v, "tool argument is not a proper list", %{path: "$arguments.a"}}},
      {"invalid UTF-8 through anyOf",
       prop(%{"anyOf" => [%{"type" => "integer"}, %{"type" => "string"}]}), %{"a" => <<0xFF>>},
       {@v, "tool argument is not valid UTF-8", %{path: "$arguments.a"}}},
      {"struct through oneOf", prop(%{"oneOf" => [%{"type" => "string"}, %{"type" => "object"}]}),
       %{"a" => ~D[2024-01-01]},
       {@v, "tool argument must be a plain map", %{path: "$arguments.a"}}},

      # Section 6: hostile input
      {"improper list", prop(%{"type" => "array"}), %{"a" => [1, 2 | 3]},
       {@v, "tool argument is not a proper list", %{path: "$arguments.a"}}},
      {"improper list before minItems", prop(%{"minItems" => 5}), %{"a" => [1 | 2]},
       {@v, "tool argument is not a proper list", %{path: "$arguments.a"}}},
      {"improper list under an empty schema", prop(%{}), %{"a" => [1 | 2]}, :ok},
      # Only the array step reads a list's cells, only the object step a
      # map's struct tag: a schema with neither (here a string keyword)
      # leaves them unread.
      {"improper list where no array step applies", prop(%{"minLength" => 1}), %{"a" => [1 | 2]},
       :ok},
      {"struct where no object step applies", prop(%{"minLength" => 1}), %{"a" => ~D[2024-01-01]},
       :ok},
      {"invalid UTF-8 under an empty schema", prop(%{}), %{"a" => <<0xC3, 0x28>>},
       {@v, "tool argument is not valid UTF-8", %{path: "$arguments.a"}}},
      # A bitstring (bits not a whole number of bytes) is no JSON value: not
      # a string to the string steps, and left alone where nothing reads it.
      {"bitstring is not a string", prop(%{"type" => "string"}), %{"a" => <<1::3>>},
       {@v, t, %{path: "$arguments.a", type: "string"}}},
      {"bitstring under an empty schema", prop(%{}), %{"a" => <<1::3>>}, :ok},
      {"bitstring under string keywords", prop(%{"minLength" => 1}), %{"a" => <<1::3>>}, :ok},
      {"invalid UTF-8 in items", prop(%{"items" => %{}}), %{"a" => ["ok", <<0xFF>>]},
       {@v, "tool argument is not valid UTF-8", %{path: "$arguments.a[1]"}}},
      {"enum compares invalid UTF-8 first", prop(%{"enum" => ["x"]}), %{"a" => <<0xFF>>},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"struct as the root arguments", %{}, ~D[2024-01-01],
       {@v, "tool argument must be a plain map", %{path: "$arguments"}}},
      {"MapSet as the root arguments", %{"properties" => %{}}, MapSet.new([1]),
       {@v, "tool argument must be a plain map", %{path: "$arguments"}}},
      {"struct under an object type", prop(%{"type" => "object"}),
       %{"a" => URI.parse("http://x")},
       {@v, "tool argument must be a plain map", %{path: "$arguments.a"}}},
      {"struct under an empty schema", prop(%{}), %{"a" => ~D[2024-01-01]}, :ok},
      {"tuple key against additionalProperties schema", %{"additionalProperties" => %{}},
       %{{1} => 1}, {@v, "tool argument keys must be strings", %{path: "$arguments"}}},
      {"float key against additionalProperties schema", prop(%{"additionalProperties" => %{}}),
       %{"a" => %{1.5 => 1}},
       {@v, "tool argument keys must be strings", %{path: "$arguments.a"}}},
      {"tuple key with additionalProperties false", %{"additionalProperties" => false},
       %{{1} => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: {1}}}},
      {"tuple key allowed", %{}, %{{1} => 1}, :ok},
      {"arguments nested too deep", prop(nested_items(90, %{})), %{"a" => nested_list(100, 1)},
       {@x, "tool argument nesting exceeds the supported depth",
        %{path: "$arguments.a" <> String.duplicate("[0]", 64)}}},
      {"deep arguments under an empty schema", prop(%{}), %{"a" => nested_list(1_000_000, 1)},
       :ok},
      {"values outside JSON where nothing applies", %{},
       %{"pid" => self(), "t" => {1}, "atom" => :x}, :ok},
      {"pid under an unconstrained key", %{"properties" => %{"a" => %{}}}, %{"b" => self()}, :ok},

      # Section 8
      {"const equal", prop(%{"const" => "x"}), %{"a" => "x"}, :ok},
      {"const 1 equals 1.0", prop(%{"const" => 1}), %{"a" => 1.0}, :ok},
      {"const differs", prop(%{"const" => "x"}), %{"a" => "y"},
       {@v, "tool argument is not the allowed constant value", %{path: "$arguments.a"}}},
      {"const object", prop(%{"const" => %{"k" => [1, 2]}}), %{"a" => %{"k" => [1.0, 2]}}, :ok},
      {"const array differs", prop(%{"const" => [1, 2]}), %{"a" => [2, 1]},
       {@v, "tool argument is not the allowed constant value", %{path: "$arguments.a"}}},
      {"const nil", prop(%{"const" => nil}), %{"a" => false},
       {@v, "tool argument is not the allowed constant value", %{path: "$arguments.a"}}},
      {"enum before const", prop(%{"enum" => ["x"], "const" => "y"}), %{"a" => "y"},
       {@v, "tool argument is not an allowed enum value", %{path: "$arguments.a"}}},
      {"const before minimum", prop(%{"const" => 1, "minimum" => 5}), %{"a" => 2},
       {@v, "tool argument is not the allowed constant value", %{path: "$arguments.a"}}},
      {"exclusiveMinimum", prop(%{"exclusiveMinimum" => 0}), %{"a" => 0},
       {@v, "tool argument is not above the exclusive minimum",
        %{path: "$arguments.a", exclusiveMinimum: 0}}},
      {"exclusiveMinimum float", prop(%{"exclusiveMinimum" => 0.5}), %{"a" => 0.5},
       {@v, "tool argument is not above the exclusive minimum",
        %{path: "$arguments.a", exclusiveMinimum: 0.5}}},
      {"exclusiveMinimum passes", prop(%{"exclusiveMinimum" => 0}), %{"a" => 1.0e-300}, :ok},
      {"exclusiveMaximum", prop(%{"exclusiveMaximum" => 2 ** 70}), %{"a" => 2 ** 70},
       {@v, "tool argument is not below the exclusive maximum",
        %{path: "$arguments.a", exclusiveMaximum: 2 ** 70}}},
      {"exclusiveMaximum passes", prop(%{"exclusiveMaximum" => 2 ** 70}), %{"a" => 2 ** 70 - 1},
       :ok},
      {"maximum before exclusiveMinimum", prop(%{"maximum" => 1, "exclusiveMinimum" => 5}),
       %{"a" => 3},
       {@v, "tool argument is above the maximum", %{path: "$arguments.a", maximum: 1}}},
      {"exclusiveMinimum before exclusiveMaximum",
       prop(%{"exclusiveMinimum" => 5, "exclusiveMaximum" => 1}), %{"a" => 3},
       {@v, "tool argument is not above the exclusive minimum",
        %{path: "$arguments.a", exclusiveMinimum: 5}}},
      {"maxLength counts code points", prop(%{"maxLength" => 2}), %{"a" => "e\u0301"}, :ok},
      {"maxLength non-BMP is one", prop(%{"maxLength" => 1}), %{"a" => "😀"}, :ok},
      {"longer than maxLength", prop(%{"maxLength" => 1}), %{"a" => "e\u0301"},
       {@v, "tool argument is longer than the maximum length",
        %{path: "$arguments.a", maxLength: 1}}},
      {"minLength before maxLength", prop(%{"minLength" => 3, "maxLength" => 1}), %{"a" => "ab"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 3}}},
      {"maxLength before pattern", prop(%{"maxLength" => 1, "pattern" => "^z"}), %{"a" => "ab"},
       {@v, "tool argument is longer than the maximum length",
        %{path: "$arguments.a", maxLength: 1}}},
      {"digit escape", prop(%{"pattern" => "^\\d{3}$"}), %{"a" => "123"}, :ok},
      {"digit escape is ASCII", prop(%{"pattern" => "^\\d$"}), %{"a" => "٣"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}}
    ]
  end
end
