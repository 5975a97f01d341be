# Real schemas and documents through the standard entry point: the corpus
# scripts/real_schemas makes (SchemaStore configuration schemas, the
# OpenAPI 2.0 to 3.2 schemas, and real OpenAPI descriptions of up to 9 MB
# of YAML).
#
#   scripts/real_schemas && MIX_ENV=test mix run bench/real_schemas.exs
#
# Prints, as Markdown tables: each schema's compile (median and 99th
# percentile of batch means; the metaschema check included, patterns shared
# once built, as in any compile after the first), and valid?/2 and
# validate/2 on each large document as written; each with its count of
# JSON values (every object, array, string, number, boolean and null).

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema.JSON
alias Backplane.JSONSchema

defmodule RealBench do
  defdelegate human(ns), to: BenchSupport

  def values(map) when is_map(map),
    do: Enum.reduce(map, 1, fn {_, value}, n -> n + values(value) end)

  def values(list) when is_list(list), do: Enum.reduce(list, 1, &(&2 + values(&1)))
  def values(_), do: 1

  def count(n), do: n |> Integer.to_string() |> String.replace(~r/\B(?=(\d{3})+$)/, ",")

  # Batches that take about `target` ns each.
  def measure(fun, target \\ 20_000_000) do
    {once, _} = :timer.tc(fun)
    batch = max(div(target, max(once * 1000, 1)), 1)
    BenchSupport.measure(fun, batch, 15)
  end
end

path = System.get_env("REAL_SCHEMAS_CORPUS") || "_build/real_schemas/0.39.0-0.9.0/corpus.json"
{:ok, %{"schemas" => schemas, "cases" => cases}} = JSON.decode(File.read!(path))

IO.puts("| schema | values | compile, median | p99 |")
IO.puts("| --- | ---: | ---: | ---: |")

compiled =
  for {name, schema} <- Enum.sort(schemas),
      {:ok, compiled} <- [JSONSchema.compile(schema)],
      into: %{} do
    {median, p99} = RealBench.measure(fn -> {:ok, _} = JSONSchema.compile(schema) end)
    values = RealBench.count(RealBench.values(schema))
    IO.puts("| #{name} | #{values} | #{RealBench.human(median)} | #{RealBench.human(p99)} |")
    {name, compiled}
  end

IO.puts("")
IO.puts("| document | values | valid | `valid?/2`, median | `validate/2`, median |")
IO.puts("| --- | ---: | --- | ---: | ---: |")

for %{"mutant" => 0, "schema" => name, "source" => source, "instance" => instance} <- cases,
    String.starts_with?(name, "openapi"),
    values = RealBench.values(instance),
    values >= 10_000 do
  schema = Map.fetch!(compiled, name)
  {valid, _} = RealBench.measure(fn -> JSONSchema.valid?(schema, instance) end)
  {validate, _} = RealBench.measure(fn -> JSONSchema.validate(schema, instance) end)

  IO.puts(
    "| #{Path.basename(source)} (#{name}) | #{RealBench.count(values)} | " <>
      "#{JSONSchema.valid?(schema, instance)} | #{RealBench.human(valid)} | #{RealBench.human(validate)} |"
  )
end
