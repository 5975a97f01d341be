# Benchmark of the second extension: `$ref` schemas, `uniqueItems`, and the
# catalog's tools in the shapes generators emit (Pydantic, zod, draft-07).
#
#   mix run bench/references.exs
#
# Per-call times as in bench/beam.exs (median and 99th percentile of batch
# means), and the time per node, item or reference, which stays flat when
# the work is linear (n log n for `uniqueItems`).

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema

defmodule RefBench do
  defdelegate loop(n, fun), to: BenchSupport
  def measure(fun, batch, samples), do: BenchSupport.measure(fun, batch, samples)

  defdelegate human(ns), to: BenchSupport

  def row(name, {median, p99}, per \\ nil) do
    per_cell =
      case per do
        {n, unit} -> "#{human(median / n)} per #{unit}"
        nil -> ""
      end

    IO.puts("| #{name} | #{human(median)} | #{human(p99)} | #{per_cell} |")
  end

  # A complete tree of fan-out 4 with `count` nodes, zod's mind-map shape.
  def tree(count) do
    build = fn build, i ->
      children = for k <- 1..4, c = 4 * i + k, c < count, do: build.(build, c)
      %{"text" => "node #{i}", "children" => children}
    end

    build.(build, 0)
  end

  def chain(n) do
    defs =
      Map.new(0..(n - 1), fn i -> {"d#{i}", %{"$ref" => "#/$defs/d#{i + 1}"}} end)
      |> Map.put("d#{n}", %{"type" => "string"})

    %{"type" => "object", "properties" => %{"a" => %{"$ref" => "#/$defs/d0"}}, "$defs" => defs}
  end

  def doubling(levels) do
    defs =
      Map.new(0..(levels - 1), fn i ->
        next = %{"$ref" => "#/$defs/d#{i + 1}"}
        {"d#{i}", %{"allOf" => [next, next]}}
      end)
      |> Map.put("d#{levels}", %{"type" => "integer"})

    %{"type" => "object", "properties" => %{"a" => %{"$ref" => "#/$defs/d0"}}, "$defs" => defs}
  end
end

catalog = BenchSupport.read_json!("fixtures/mcp_catalog.json")
tools = Map.new(catalog["tools"], &{&1["name"], &1["inputSchema"]})
calls = BenchSupport.read_lines!("fixtures/calls.jsonl")

IO.puts(
  "OTP #{System.otp_release()}, Elixir #{System.version()}, #{System.schedulers_online()} schedulers\n"
)

IO.puts("| workload | median | p99 | per unit |")
IO.puts("|---|---|---|---|")

for name <- ~w(create_order update_mind_map set_viewport deploy_service label_resources) do
  schema = tools[name]
  {:ok, compiled} = InputSchema.compile(schema)
  [accepted | _] = for %{"name" => ^name, "arguments" => a} <- calls, do: a

  RefBench.row(
    "#{name}: validate(compiled, accepted call)",
    RefBench.measure(fn -> InputSchema.validate(compiled, accepted) end, 2_000, 100)
  )

  InputSchema.configure_cache(enabled: false)

  RefBench.row(
    "#{name}: compile",
    RefBench.measure(fn -> InputSchema.compile(schema) end, 200, 100)
  )

  InputSchema.configure_cache(enabled: true)
end

{:ok, tree_schema} = InputSchema.compile(tools["update_mind_map"])

for count <- [1_000, 10_000, 100_000] do
  arguments = %{"title" => "t", "root" => RefBench.tree(count)}
  {:ok, _} = InputSchema.validate(tree_schema, arguments)

  RefBench.row(
    "recursive tree (zod $ref), #{count} nodes",
    RefBench.measure(
      fn -> InputSchema.validate(tree_schema, arguments) end,
      max(div(200_000, count), 1),
      40
    ),
    {count, "node"}
  )
end

{:ok, unique_schema} = InputSchema.compile(%{"properties" => %{"a" => %{"uniqueItems" => true}}})

for count <- [1_000, 10_000, 100_000] do
  arguments = %{"a" => Enum.map(1..count, &"item-#{&1}")}
  {:ok, _} = InputSchema.validate(unique_schema, arguments)

  RefBench.row(
    "uniqueItems, #{count} distinct strings",
    RefBench.measure(
      fn -> InputSchema.validate(unique_schema, arguments) end,
      max(div(100_000, count), 1),
      40
    ),
    {count, "item"}
  )
end

InputSchema.configure_cache(enabled: false)

for n <- [100, 1_000, 5_000] do
  schema = RefBench.chain(n)
  {:ok, _} = InputSchema.compile(schema)

  RefBench.row(
    "compile a chain of #{n} $refs through $defs",
    RefBench.measure(fn -> InputSchema.compile(schema) end, max(div(2_000, n), 1), 40),
    {n, "ref"}
  )
end

for levels <- [5, 10] do
  schema = RefBench.doubling(levels)
  {:ok, compiled} = InputSchema.compile(schema)

  RefBench.row(
    "compile #{levels} definitions that each refer twice to the next",
    RefBench.measure(fn -> InputSchema.compile(schema) end, 200, 40)
  )

  RefBench.row(
    "validate one value through them (#{Integer.pow(2, levels)} paths)",
    RefBench.measure(fn -> InputSchema.validate(compiled, %{"a" => 1}) end, 50, 40)
  )
end
