# BEAM-side benchmark: per-call latency of the public API beside the floor of
# an empty NIF call, large arguments, and scheduler health under load.
#
#   mix run bench/beam.exs
#
# Each latency is the per-call time of a batch, over many batches; the table
# gives the median and the 99th percentile of those, and the median's ratio
# to the empty normal NIF call measured in the same run.

alias Backplane.AgentRuntime.InputSchema
alias Backplane.AgentRuntime.InputSchema.{JSON, Native}

defmodule Bench do
  def loop(0, _fun), do: :ok

  def loop(n, fun) do
    fun.()
    loop(n - 1, fun)
  end

  # {median, p99} per-call nanoseconds over `samples` batches of `batch` runs
  # of `fun`, where each run makes `per_run` calls.
  def measure(fun, batch, samples, per_run \\ 1) do
    loop(max(div(batch, 4), 1), fun)

    times =
      for _ <- 1..samples do
        start = System.monotonic_time(:nanosecond)
        loop(batch, fun)
        (System.monotonic_time(:nanosecond) - start) / (batch * per_run)
      end
      |> Enum.sort()

    {percentile(times, 0.5), percentile(times, 0.99)}
  end

  def fixed(x), do: :erlang.float_to_binary(x / 1, decimals: 2)

  def percentile(sorted, q), do: Enum.at(sorted, round((length(sorted) - 1) * q))

  def human(ns) when ns >= 1_000_000, do: fixed(ns / 1_000_000) <> " ms"

  def human(ns) when ns >= 1_000, do: fixed(ns / 1_000) <> " µs"
  def human(ns), do: "#{round(ns)} ns"

  def row(name, {median, p99}, floor) do
    IO.puts(
      "| #{name} | #{human(median)} | #{human(p99)} | #{:erlang.float_to_binary(median / floor, decimals: 1)} |"
    )
  end

  def read_json!(path) do
    {:ok, value} = path |> File.read!() |> JSON.decode()
    value
  end

  def read_lines!(path) do
    path
    |> File.read!()
    |> String.split("\n", trim: true)
    |> Enum.map(fn line ->
      {:ok, value} = JSON.decode(line)
      value
    end)
  end

  # Worst and 99th-percentile lateness, in µs, of a process on a normal
  # scheduler that sets an absolute timer 2 ms ahead, again and again, for
  # `ms` milliseconds: how long after its timer fires it gets to run.
  # The probe runs in a fresh process, so that no large heap of its own
  # (this script holds the large arguments) is collected during it.
  def probe(ms) do
    task =
      Task.async(fn ->
        deadline = System.monotonic_time(:millisecond) + ms
        sorted = Enum.sort(probe_loop(deadline, []))
        {List.last(sorted), percentile(sorted, 0.99), length(sorted)}
      end)

    Task.await(task, ms + 5_000)
  end

  defp probe_loop(deadline, acc) do
    now = System.monotonic_time(:millisecond)

    if now >= deadline do
      acc
    else
      at = now + 2
      ref = :erlang.start_timer(at, self(), :tick, abs: true)

      receive do
        {:timeout, ^ref, :tick} -> :ok
      end

      late = System.monotonic_time(:microsecond) - at * 1_000
      probe_loop(deadline, [max(late, 0) | acc])
    end
  end
end

coding = Map.new(Bench.read_json!("fixtures/coding_tools.json"), &{&1["name"], &1["inputSchema"]})

coding_calls =
  Bench.read_lines!("fixtures/coding_calls.jsonl")
  |> Enum.map(&{coding[&1["name"]], &1["arguments"]})

catalog = Bench.read_json!("fixtures/mcp_catalog.json")["tools"]
catalog_by_name = Map.new(catalog, &{&1["name"], &1["inputSchema"]})

catalog_calls =
  Bench.read_lines!("fixtures/calls.jsonl")
  |> Enum.filter(&Map.has_key?(catalog_by_name, &1["name"]))
  |> Enum.map(&{catalog_by_name[&1["name"]], &1["arguments"]})

compiled_calls = Enum.map(coding_calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end)

compiled_catalog_calls =
  Enum.map(catalog_calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end)

n_coding = length(coding_calls)

IO.puts(
  "OTP #{System.otp_release()}, Elixir #{System.version()}, #{System.schedulers_online()} schedulers, #{:erlang.system_info(:dirty_cpu_schedulers)} dirty CPU schedulers\n"
)

IO.puts("| workload | median | p99 | × empty NIF |")
IO.puts("|---|---|---|---|")

# The first preflight of the catalog in this VM: every pattern is compiled.
cold_start = System.monotonic_time(:nanosecond)
Enum.each(catalog, &InputSchema.validate_schema(&1["inputSchema"]))
cold = System.monotonic_time(:nanosecond) - cold_start

floor = Bench.measure(fn -> Native.noop() end, 10_000, 200)
{floor_median, _} = floor
Bench.row("empty NIF call (floor)", floor, floor_median)

Bench.row(
  "empty dirty-CPU NIF call",
  Bench.measure(fn -> Native.noop_dirty() end, 2_000, 200),
  floor_median
)

each = fn calls, f -> fn -> Enum.each(calls, f) end end

Bench.row(
  "coding-tool call: validate(compiled, args)",
  Bench.measure(
    each.(compiled_calls, fn {s, a} -> InputSchema.validate(s, a) end),
    1_000,
    200,
    n_coding
  ),
  floor_median
)

InputSchema.configure_cache(enabled: true)

Bench.row(
  "coding-tool call: validate(schema_map, args), cache hit",
  Bench.measure(
    each.(coding_calls, fn {s, a} -> InputSchema.validate(s, a) end),
    1_000,
    200,
    n_coding
  ),
  floor_median
)

InputSchema.configure_cache(enabled: false)

Bench.row(
  "coding-tool call: validate(schema_map, args), cache off",
  Bench.measure(
    each.(coding_calls, fn {s, a} -> InputSchema.validate(s, a) end),
    200,
    200,
    n_coding
  ),
  floor_median
)

InputSchema.configure_cache(enabled: true)

Bench.row(
  "coding-tool schema: validate_schema",
  Bench.measure(
    each.(coding_calls, fn {s, _} -> InputSchema.validate_schema(s) end),
    200,
    200,
    n_coding
  ),
  floor_median
)

Bench.row(
  "coding-tool schema: compile",
  Bench.measure(each.(coding_calls, fn {s, _} -> InputSchema.compile(s) end), 200, 200, n_coding),
  floor_median
)

Bench.row(
  "MCP sample call: validate(compiled, args)",
  Bench.measure(
    each.(compiled_catalog_calls, fn {s, a} -> InputSchema.validate(s, a) end),
    1_000,
    200,
    length(compiled_catalog_calls)
  ),
  floor_median
)

Bench.row(
  "MCP sample call: validate(compiled, args, errors: :all)",
  Bench.measure(
    each.(compiled_catalog_calls, fn {s, a} -> InputSchema.validate(s, a, errors: :all) end),
    1_000,
    200,
    length(compiled_catalog_calls)
  ),
  floor_median
)

Bench.row(
  "MCP catalog (#{length(catalog)} tools): validate_schema of every tool",
  Bench.measure(
    fn -> Enum.each(catalog, &InputSchema.validate_schema(&1["inputSchema"])) end,
    5,
    100
  ),
  floor_median
)

IO.puts(
  "| MCP catalog (#{length(catalog)} tools): validate_schema of every tool, first time in the VM | #{Bench.human(cold)} | (one run) | |"
)

Bench.row(
  "MCP catalog (#{length(catalog)} tools): compile every tool",
  Bench.measure(fn -> Enum.each(catalog, &InputSchema.compile(&1["inputSchema"])) end, 5, 100),
  floor_median
)

big_string = String.duplicate("abc_DEF-123.", div(1_048_576, 12))

{:ok, string_schema} =
  InputSchema.compile(%{
    "properties" => %{"s" => %{"type" => "string", "pattern" => "^[A-Za-z0-9_.-]+$"}}
  })

{:ok, _} = InputSchema.validate(string_schema, %{"s" => big_string})

Bench.row(
  "1 MiB string against ^[A-Za-z0-9_.-]+$",
  Bench.measure(fn -> InputSchema.validate(string_schema, %{"s" => big_string}) end, 5, 60),
  floor_median
)

big_list = Enum.map(1..100_000, &%{"id" => &1, "name" => "item #{&1}"})

{:ok, list_schema} =
  InputSchema.compile(%{
    "properties" => %{
      "items" => %{
        "type" => "array",
        "items" => %{
          "type" => "object",
          "required" => ["id"],
          "properties" => %{
            "id" => %{"type" => "integer", "minimum" => 1},
            "name" => %{"type" => "string"}
          }
        }
      }
    }
  })

{:ok, _} = InputSchema.validate(list_schema, %{"items" => big_list})

Bench.row(
  "100,000-element array of small objects",
  Bench.measure(fn -> InputSchema.validate(list_schema, %{"items" => big_list}) end, 2, 40),
  floor_median
)

big_map = Map.new(1..10_000, &{"key#{&1}", &1})
{:ok, map_schema} = InputSchema.compile(%{"additionalProperties" => %{"type" => "integer"}})
{:ok, _} = InputSchema.validate(map_schema, big_map)

Bench.row(
  "10,000-key map against additionalProperties",
  Bench.measure(fn -> InputSchema.validate(map_schema, big_map) end, 10, 60),
  floor_median
)

IO.puts(
  "\nScheduler health: a process on a normal scheduler sets a timer 2 ms ahead, again and again for 3 s, and records how late it runs after the timer fires.\n"
)

IO.puts("| condition | worst lateness | p99 lateness | wake-ups |")
IO.puts("|---|---|---|---|")
# The loaded probe runs with the dirty gate at its limit (the default,
# `:auto`) and with the gate stopped (every large validation on a dirty
# scheduler at once), alternating, so that both see the same host.
loaded = fn ->
  stop = System.monotonic_time(:millisecond) + 3_500

  workers =
    for {schema, args} <- [
          {string_schema, %{"s" => big_string}},
          {list_schema, %{"items" => big_list}},
          {map_schema, big_map}
        ] do
      spawn_link(fn ->
        Stream.repeatedly(fn -> InputSchema.validate(schema, args) end)
        |> Stream.take_while(fn _ -> System.monotonic_time(:millisecond) < stop end)
        |> Stream.run()
      end)
    end

  Process.sleep(100)
  result = Bench.probe(3_000)
  Enum.each(workers, &Process.unlink/1)
  Process.sleep(max(stop - System.monotonic_time(:millisecond), 0) + 200)
  result
end

supervisor = Backplane.AgentRuntime.Application.Supervisor
gate = Backplane.AgentRuntime.InputSchema.DirtyGate
limit = gate.limit()

for round <- 1..2 do
  {worst, p99, n} = Bench.probe(3_000)
  IO.puts("| idle (round #{round}) | #{worst} µs | #{p99} µs | #{n} |")

  {worst, p99, n} = loaded.()

  IO.puts(
    "| 3 processes validating the large arguments above in a loop, at most #{limit} at once on dirty schedulers (round #{round}) | #{worst} µs | #{p99} µs | #{n} |"
  )

  :ok = Supervisor.terminate_child(supervisor, gate)
  {worst, p99, n} = loaded.()
  {:ok, _} = Supervisor.restart_child(supervisor, gate)

  IO.puts(
    "| the same, every call on a dirty scheduler at once (round #{round}) | #{worst} µs | #{p99} µs | #{n} |"
  )
end
