# The three call paths a runtime makes, on the coding-tool workload (10
# tools, 10 recorded calls) and the MCP sample (the catalog's tools of the
# first extension and their recorded calls), in two modes:
#
#   * per call: each call timed alone; the median and the 99th percentile of
#     those times (a call's own cost, without what its garbage costs later,
#     plus the two clock reads: the "timer floor" row);
#   * batch: 1,000 calls (the workload's calls in turn) timed together; the
#     median and the 99th percentile of their mean over 100 batches (what a
#     busy process sustains, garbage collection included).
#
#   mix run bench/targets.exs
#
# Public API only, so that the same script measures an older build.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema

defmodule Targets do
  # Per-call times (ns) of `rounds` passes over `calls`, each call alone.
  def per_call(calls, f, rounds) do
    Enum.each(calls, f)

    for _ <- 1..rounds, call <- calls do
      start = System.monotonic_time(:nanosecond)
      f.(call)
      System.monotonic_time(:nanosecond) - start
    end
    |> Enum.sort()
    |> stats()
  end

  # Mean per-call times (ns) of `batches` batches of `size` calls.
  def batch(calls, f, size, batches) do
    batch = calls |> Stream.cycle() |> Enum.take(size)
    Enum.each(batch, f)

    for _ <- 1..batches do
      start = System.monotonic_time(:nanosecond)
      Enum.each(batch, f)
      (System.monotonic_time(:nanosecond) - start) / size
    end
    |> Enum.sort()
    |> stats()
  end

  defp stats(sorted),
    do: {BenchSupport.percentile(sorted, 0.5), BenchSupport.percentile(sorted, 0.99)}

  def human(ns) when ns >= 1_000, do: :erlang.float_to_binary(ns / 1_000, decimals: 2) <> " µs"
  def human(ns), do: "#{round(ns)} ns"

  def row(workload, path, {pm, p99}, {bm, b99}),
    do:
      IO.puts(
        "| #{workload} | #{path} | #{human(pm)} | #{human(p99)} | #{human(bm)} | #{human(b99)} |"
      )
end

workloads = [
  {"coding tool", BenchSupport.coding_calls()},
  {"MCP sample", BenchSupport.mcp_calls()}
]

IO.puts(
  "OTP #{System.otp_release()}, Elixir #{System.version()}, #{System.schedulers_online()} schedulers\n"
)

IO.puts("| workload | path | per call median | per call p99 | batch median | batch p99 |")
IO.puts("|---|---|---|---|---|---|")

validate = fn {s, a} -> InputSchema.validate(s, a) end

# What timing each call alone adds (two clock reads): an empty function,
# through the same loops. Subtract it from the per-call column.
noop_calls = List.duplicate({nil, nil}, 10)

Targets.row(
  "-",
  "timer floor: an empty call",
  Targets.per_call(noop_calls, fn _ -> :ok end, 2_000),
  Targets.batch(noop_calls, fn _ -> :ok end, 1_000, 100)
)

for {name, calls} <- workloads do
  compiled = Enum.map(calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end)

  # {path, calls, cache on, per-call rounds, batches}
  paths = [
    {"validate(compiled, args)", compiled, true, 2_000, 100},
    {"validate(schema_map, args), cache hit", calls, true, 2_000, 100},
    {"validate(schema_map, args), cache off", calls, false, 500, 30}
  ]

  for {path, these, cache, rounds, batches} <- paths do
    InputSchema.configure_cache(enabled: cache)

    Targets.row(
      name,
      path,
      Targets.per_call(these, validate, rounds),
      Targets.batch(these, validate, 1_000, batches)
    )
  end

  InputSchema.configure_cache(enabled: true)
end
