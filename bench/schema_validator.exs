# Backplane.JSONSchema.SchemaValidator, the MCP protocol layer's validator
# callbacks, on the fixtures' tool schemas (fixtures/mcp_catalog.json,
# extended_catalog.json, coding_tools.json: each tool's inputSchema and
# outputSchema) and, when REAL_SCHEMAS_CORPUS names one, on the real-schema
# corpus scripts/real_schemas makes (its "schemas").
#
#   mix run bench/schema_validator.exs
#   REAL_SCHEMAS_CORPUS=_build/real_schemas/0.39.0-0.9.0/corpus.json mix run bench/schema_validator.exs
#
# Prints, as Markdown tables, for each set of schemas: how many there are,
# how many the adapter compiles ({:ok, _}), declines ({:unsupported, _}) or
# refuses ({:error, _}), and how many the runtime's old Peri-based adapter
# declined: under the rules it is known by ($ref, $defs or definitions,
# allOf, anyOf, oneOf, not, if/then/else, minItems, any format, or
# additionalProperties: false, anywhere in the schema tree), and under its
# whole preflight, which also refused pattern, minLength and maxLength, any
# keyword outside its short list, enum or const beside another assertion,
# a keyword without the matching "type", a non-map properties, items or
# additionalProperties, and trees deeper than 64 or of more than 1,000
# schemas. Then validate/3 on the fixtures' recorded calls (their
# arguments against the tools' inputSchema: the fixtures hold no result
# samples), beside Backplane.JSONSchema.validate/2 on the same compiled
# schemas: median and 99th percentile of batch means, per call, over all
# the calls, the valid ones and the invalid ones.
#
# Public API only.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema.JSON
alias Backplane.JSONSchema
alias Backplane.JSONSchema.SchemaValidator

defmodule OldRules do
  # The rules the old adapter is known by.
  @listed ~w($ref $defs definitions allOf anyOf oneOf not if then else minItems format)

  # Where subschemas sit: a map of them, one, or a list of them.
  @schema_maps ~w(properties patternProperties $defs definitions dependentSchemas)
  @schema_values ~w(items additionalProperties additionalItems contains propertyNames
                    unevaluatedItems unevaluatedProperties not if then else)
  @schema_lists ~w(allOf anyOf oneOf prefixItems)

  def listed?(schema) when is_map(schema) do
    Enum.any?(schema, fn
      {keyword, _} when keyword in @listed -> true
      {"additionalProperties", false} -> true
      {keyword, value} -> Enum.any?(subschemas(keyword, value), &listed?/1)
    end)
  end

  def listed?(_schema), do: false

  defp subschemas(keyword, value) when keyword in @schema_maps and is_map(value),
    do: Map.values(value)

  defp subschemas(keyword, value) when keyword in @schema_values and is_list(value), do: value
  defp subschemas(keyword, value) when keyword in @schema_values, do: [value]
  defp subschemas(keyword, value) when keyword in @schema_lists and is_list(value), do: value
  defp subschemas(_keyword, _value), do: []

  # The whole preflight: a subschema may hold only these keywords, and of
  # the assertions only these pass.
  @annotations ~w($schema title description default examples deprecated readOnly writeOnly)
  @passing ~w(type properties required items additionalProperties enum const
              minimum maximum exclusiveMinimum exclusiveMaximum)
  @refused ~w(pattern format minLength maxLength)
  @beside_enum ~w(properties required items additionalProperties minLength maxLength pattern
                  format minimum maximum exclusiveMinimum exclusiveMaximum)
  @needs_type [
    {~w(properties required additionalProperties), ["object"]},
    {~w(items), ["array"]},
    {~w(minLength maxLength pattern format), ["string"]},
    {~w(minimum maximum exclusiveMinimum exclusiveMaximum), ["integer", "number"]}
  ]

  def whole?(schema), do: whole?(schema, 64) or count(schema) > 1_000

  defp whole?(_schema, depth) when depth < 0, do: true

  defp whole?(schema, depth) when is_map(schema) do
    Enum.any?(schema, fn {keyword, _} ->
      keyword not in @annotations and (keyword not in @passing or keyword in @refused)
    end) or
      ((Map.has_key?(schema, "enum") or Map.has_key?(schema, "const")) and
         Enum.any?(@beside_enum, &Map.has_key?(schema, &1))) or
      Enum.any?(@needs_type, fn {keywords, types} ->
        Enum.any?(keywords, &Map.has_key?(schema, &1)) and schema["type"] not in types
      end) or
      Enum.any?(~w(properties items additionalProperties), fn keyword ->
        case Map.fetch(schema, keyword) do
          :error ->
            false

          {:ok, value} when keyword == "properties" and is_map(value) ->
            Enum.any?(Map.values(value), &whole?(&1, depth - 1))

          {:ok, value} when keyword != "properties" and is_map(value) ->
            whole?(value, depth - 1)

          {:ok, _other} ->
            true
        end
      end)
  end

  defp whole?(_schema, _depth), do: true

  # Schemas in the tree it walked: the root, properties' values, a map
  # items and a map additionalProperties.
  defp count(schema) when is_map(schema) do
    nested =
      case schema do
        %{"properties" => properties} when is_map(properties) -> Map.values(properties)
        _ -> []
      end ++
        for(key <- ~w(items additionalProperties), is_map(schema[key]), do: schema[key])

    1 + Enum.sum(Enum.map(nested, &count/1))
  end

  defp count(_schema), do: 1
end

defmodule AdapterBench do
  def tools(file) do
    case BenchSupport.read_json!(file) do
      %{"tools" => tools} -> tools
      tools -> tools
    end
  end

  def schemas(file) do
    for tool <- tools(file),
        key <- ["inputSchema", "outputSchema"],
        Map.has_key?(tool, key),
        do: tool[key]
  end

  def counts(label, schemas) do
    outcomes = Enum.map(schemas, &elem(SchemaValidator.compile(&1, []), 0))
    count = &Enum.count(outcomes, fn outcome -> outcome == &1 end)

    IO.puts(
      "| #{label} | #{length(schemas)} | #{count.(:ok)} | #{count.(:unsupported)} | " <>
        "#{count.(:error)} | #{Enum.count(schemas, &OldRules.listed?/1)} | " <>
        "#{Enum.count(schemas, &OldRules.whole?/1)} |"
    )
  end
end

IO.puts(
  "Backplane.JSONSchema.SchemaValidator, OTP #{System.otp_release()}, Elixir #{System.version()}\n"
)

IO.puts(
  "| schemas | total | adapter compiles | unsupported | error | old rules decline | " <>
    "old preflight declines |"
)

IO.puts("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")

files = [
  "fixtures/mcp_catalog.json",
  "fixtures/extended_catalog.json",
  "fixtures/coding_tools.json"
]

for file <- files, do: AdapterBench.counts(Path.basename(file), AdapterBench.schemas(file))
AdapterBench.counts("fixtures, all", Enum.flat_map(files, &AdapterBench.schemas/1))

case System.get_env("REAL_SCHEMAS_CORPUS") do
  path when path in [nil, ""] ->
    IO.puts("| real-schema corpus | (REAL_SCHEMAS_CORPUS not set) | | | | | |")

  path ->
    {:ok, %{"schemas" => schemas}} = JSON.decode(File.read!(path))
    AdapterBench.counts("real-schema corpus", schemas |> Enum.sort() |> Enum.map(&elem(&1, 1)))
end

# The recorded calls of the fixtures' tools, each as {compiled, arguments}.
tools =
  for file <- files,
      tool <- AdapterBench.tools(file),
      into: %{},
      do: {tool["name"], tool["inputSchema"]}

calls =
  for file <- ["fixtures/calls.jsonl", "fixtures/coding_calls.jsonl"],
      call <- BenchSupport.read_lines!(file),
      schema = tools[call["name"]],
      schema != nil do
    {:ok, compiled} = SchemaValidator.compile(schema, [])
    {compiled, call["arguments"]}
  end

{valid, invalid} =
  Enum.split_with(calls, fn {compiled, arguments} ->
    SchemaValidator.validate(compiled, arguments, []) == :ok
  end)

IO.puts(
  "\n#{length(calls)} recorded calls (#{length(valid)} valid), ns per call: " <>
    "median / p99 of batch means\n"
)

IO.puts("| calls | SchemaValidator.validate/3 | p99 | JSONSchema.validate/2 | p99 |")
IO.puts("| --- | ---: | ---: | ---: | ---: |")

for {label, set} <- [{"all", calls}, {"valid", valid}, {"invalid", invalid}] do
  adapter = fn ->
    for {compiled, arguments} <- set, do: SchemaValidator.validate(compiled, arguments, [])
  end

  library = fn ->
    for {compiled, arguments} <- set, do: JSONSchema.validate(compiled, arguments)
  end

  {a_median, a_p99} = BenchSupport.measure(adapter, 2_000, 25, length(set))
  {l_median, l_p99} = BenchSupport.measure(library, 2_000, 25, length(set))

  IO.puts(
    "| #{label} (#{length(set)}) | #{BenchSupport.human(a_median)} | #{BenchSupport.human(a_p99)} | " <>
      "#{BenchSupport.human(l_median)} | #{BenchSupport.human(l_p99)} |"
  )
end
