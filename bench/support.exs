# What the benchmarks share: the timing loop, medians and percentiles of
# batch means, and the fixtures' coding-tool calls. Each bench loads it with
# `Code.require_file("support.exs", __DIR__)`. Public API only, so that a
# bench and this file copied into an older checkout measure it too.

defmodule BenchSupport do
  alias Backplane.AgentRuntime.InputSchema.JSON

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

  def percentile(sorted, q), do: Enum.at(sorted, round((length(sorted) - 1) * q))

  # Nanoseconds for a table: "812 ns", "3.14 µs", "24.41 ms".
  def human(ns) when ns >= 1_000_000, do: fixed(ns / 1_000_000) <> " ms"
  def human(ns) when ns >= 1_000, do: fixed(ns / 1_000) <> " µs"
  def human(ns), do: "#{round(ns)} ns"

  def fixed(x, decimals \\ 2), do: :erlang.float_to_binary(x / 1, decimals: decimals)

  # The VM's resident memory (`VmRSS`) or its peak (`VmHWM`), in KiB; 0
  # where /proc is not there.
  def rss_kib(field) do
    case File.read("/proc/self/status") do
      {:ok, status} ->
        [_, kib] = Regex.run(~r/#{field}:\s+(\d+) kB/, status)
        String.to_integer(kib)

      _ ->
        0
    end
  end

  # Starts a new peak (`VmHWM`) from the current resident memory.
  def reset_peak, do: File.write("/proc/self/clear_refs", "5")

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

  # The recorded coding-tool calls, each as {schema, arguments}.
  def coding_calls do
    tools = Map.new(read_json!("fixtures/coding_tools.json"), &{&1["name"], &1["inputSchema"]})

    for call <- read_lines!("fixtures/coding_calls.jsonl"),
        do: {Map.fetch!(tools, call["name"]), call["arguments"]}
  end

  # The keywords of the second extension: the MCP sample leaves out the
  # tools that use them (bench/references.exs measures those), so that it
  # stays the same workload from one version to the next.
  @section9 ~w($ref $defs definitions allOf prefixItems additionalItems uniqueItems propertyNames dependentRequired)

  # The MCP sample: the recorded calls of the catalog's other tools, each
  # as {schema, arguments}.
  def mcp_calls do
    tools =
      read_json!("fixtures/mcp_catalog.json")["tools"]
      |> Enum.reject(fn tool ->
        {:ok, text} = JSON.encode(tool["inputSchema"])
        Enum.any?(@section9, &String.contains?(text, ~s("#{&1}")))
      end)
      |> Map.new(&{&1["name"], &1["inputSchema"]})

    for call <- read_lines!("fixtures/calls.jsonl"),
        Map.has_key?(tools, call["name"]),
        do: {tools[call["name"]], call["arguments"]}
  end
end
