# BEAM-side benchmark: per-call latency of the public API beside the floor of
# an empty NIF call, large arguments, and scheduler health under load.
#
#   mix run bench/beam.exs
#
# Each latency is the per-call time of a batch, over many batches; the table
# gives the median and the 99th percentile of those, and the median's ratio
# to the empty normal NIF call measured in the same run. The scheduler-health
# part builds bench/host_probe with cargo and runs it with `taskset` and, when
# allowed (root), `chrt` from util-linux.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema
alias Backplane.AgentRuntime.InputSchema.{JSON, Native}

defmodule Bench do
  defdelegate loop(n, fun), to: BenchSupport
  defdelegate measure(fun, batch, samples, per_run \\ 1), to: BenchSupport
  defdelegate percentile(sorted, q), to: BenchSupport
  defdelegate read_json!(path), to: BenchSupport
  defdelegate read_lines!(path), to: BenchSupport

  defdelegate human(ns), to: BenchSupport

  def row(name, {median, p99}, floor) do
    IO.puts(
      "| #{name} | #{human(median)} | #{human(p99)} | #{:erlang.float_to_binary(median / floor, decimals: 1)} |"
    )
  end

  # The wake-ups of a process on a normal scheduler that sets an absolute
  # timer 2 ms ahead, again and again, for `ms` milliseconds: for each, when
  # the timer fired (µs since the Unix epoch, the host probe's clock) and how
  # late, in µs, the process got to run after it.
  # The probe runs in a fresh process, so that no large heap of its own
  # (this script holds the large arguments) is collected during it.
  def probe(ms) do
    task =
      Task.async(fn ->
        deadline = System.monotonic_time(:millisecond) + ms
        probe_loop(deadline, [])
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

      late = max(System.monotonic_time(:microsecond) - at * 1_000, 0)
      probe_loop(deadline, [{:os.system_time(:microsecond) - late, late} | acc])
    end
  end

  # One row of the scheduler-health table: the probe's wake-ups beside the
  # host stalls that the reference probes saw in the same window. A wake-up
  # that overlaps a host stall is left out of "outside host stalls" only.
  def health_row(name, wakeups, stalls) do
    lates = wakeups |> Enum.map(&elem(&1, 1)) |> Enum.sort()
    clear = for wakeup <- wakeups, not HostProbe.overlaps?(wakeup, stalls), do: elem(wakeup, 1)
    worst_stall = stalls |> Enum.map(&elem(&1, 1)) |> Enum.max(fn -> 0 end)

    IO.puts(
      "| #{name} | #{List.last(lates)} µs | #{Enum.max(clear, fn -> 0 end)} µs (#{length(lates) - length(clear)} left out) | #{percentile(lates, 0.999)} µs | #{percentile(lates, 0.99)} µs | #{Enum.count(lates, &(&1 >= 1_000))} of #{length(lates)} | #{length(stalls)}, worst #{worst_stall} µs |"
    )
  end
end

defmodule HostProbe do
  # The reference for scheduler health: bench/host_probe, one per CPU, pinned
  # and (when allowed) under a real-time policy, so that only the host itself
  # (a hypervisor stall, say) makes it late. It reports each wake-up at least
  # @threshold_us late; it wakes every @period_us, so a stall began at most
  # one period before the wake-up it delayed.
  @period_us 250
  @threshold_us 200

  def threshold_us, do: @threshold_us

  def build! do
    manifest = Path.expand("bench/host_probe/Cargo.toml")

    {_, 0} =
      System.cmd("cargo", ["build", "--release", "--quiet", "--manifest-path", manifest],
        stderr_to_stdout: true
      )

    Path.expand("bench/host_probe/target/release/host_probe")
  end

  def realtime? do
    case System.find_executable("chrt") do
      nil -> false
      chrt -> match?({_, 0}, System.cmd(chrt, ["-f", "50", "true"], stderr_to_stdout: true))
    end
  end

  def start(binary, ms, realtime) do
    for cpu <- cpus() do
      command = ["taskset", "-c", "#{cpu}", binary, "#{ms}", "#{@period_us}", "#{@threshold_us}"]
      [exe | args] = if realtime, do: ["chrt", "-f", "50" | command], else: command
      Task.async(fn -> System.cmd(System.find_executable(exe), args) end)
    end
  end

  # The CPUs this VM may run on ("0-1", "2,5-7", ...).
  defp cpus do
    [list] =
      for line <- File.read!("/proc/self/status") |> String.split("\n"),
          ["Cpus_allowed_list", value] <- [String.split(line, ":\t", parts: 2)],
          do: value

    Enum.flat_map(String.split(list, ","), fn range ->
      case String.split(range, "-") do
        [one] -> [String.to_integer(one)]
        [first, last] -> Enum.to_list(String.to_integer(first)..String.to_integer(last))
      end
    end)
  end

  def stalls(tasks) do
    Enum.flat_map(tasks, fn task ->
      {output, 0} = Task.await(task, :infinity)

      for line <- String.split(output, "\n", trim: true),
          [at, late] <- [String.split(line)],
          at != "wakeups",
          do: {String.to_integer(at), String.to_integer(late)}
    end)
  end

  def overlaps?({fired, late}, stalls) do
    Enum.any?(stalls, fn {at, stall} ->
      at - @period_us <= fired + late and fired <= at + stall
    end)
  end
end

coding = Map.new(Bench.read_json!("fixtures/coding_tools.json"), &{&1["name"], &1["inputSchema"]})

coding_calls =
  Bench.read_lines!("fixtures/coding_calls.jsonl")
  |> Enum.map(&{coding[&1["name"]], &1["arguments"]})

# The catalog's tools that use a keyword of the second extension ($ref,
# allOf, ...) are measured by bench/references.exs: the rows here stay the
# same workload from one version to the next.
section9 =
  ~w($ref $defs definitions allOf prefixItems additionalItems uniqueItems propertyNames dependentRequired)

catalog =
  Bench.read_json!("fixtures/mcp_catalog.json")["tools"]
  |> Enum.reject(fn tool ->
    {:ok, text} = JSON.encode(tool["inputSchema"])
    Enum.any?(section9, &String.contains?(text, ~s("#{&1}")))
  end)

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

realtime = HostProbe.realtime?()
host_probe = HostProbe.build!()

IO.puts("""

Scheduler health: a process on a normal scheduler sets a timer 2 ms ahead, again and again for 10 s, and records how late it runs after the timer fires. Beside it, one reference probe per CPU (bench/host_probe, pinned, #{if realtime, do: "real-time policy", else: "normal policy: not root, so the reference is weaker"}) records the host's own stalls of #{HostProbe.threshold_us()} µs or more; the "outside host stalls" column leaves out the wake-ups that overlap one.
""")

IO.puts(
  "| condition | worst lateness | worst outside host stalls | p99.9 | p99 | wake-ups ≥ 1 ms | host stalls |"
)

IO.puts("|---|---|---|---|---|---|---|")

# The workers live for the whole run and collect their heaps before the
# first probe: the arguments are copied into each at spawn, and collecting
# that copy (on a dirty scheduler, as the BEAM does for large heaps) is
# the benchmark's own doing, not validation's.
running = :atomics.new(1, [])
parent = self()

workers =
  for {schema, args} <- [
        {string_schema, %{"s" => big_string}},
        {list_schema, %{"items" => big_list}},
        {map_schema, big_map}
      ] do
    spawn_link(fn ->
      :erlang.garbage_collect()
      send(parent, {:ready, self()})

      Stream.repeatedly(fn ->
        if :atomics.get(running, 1) == 1,
          do: InputSchema.validate(schema, args),
          else: Process.sleep(10)
      end)
      |> Stream.run()
    end)
  end

for worker <- workers, do: receive(do: ({:ready, ^worker} -> :ok))

probe = fn name, load? ->
  :atomics.put(running, 1, if(load?, do: 1, else: 0))
  Process.sleep(200)
  tasks = HostProbe.start(host_probe, 10_300, realtime)
  Process.sleep(100)
  wakeups = Bench.probe(10_000)
  stalls = HostProbe.stalls(tasks)
  :atomics.put(running, 1, 0)
  Process.sleep(200)
  Bench.health_row(name, wakeups, stalls)
end

# The loaded probe runs with the dirty gate at its limit (the default,
# `:auto`) and with the gate stopped (every large validation on a dirty
# scheduler at once), alternating, so that all three conditions see the
# same host.
supervisor = Backplane.AgentRuntime.InputSchema.Application.Supervisor
gate = Backplane.AgentRuntime.InputSchema.DirtyGate
limit = gate.limit()

for round <- 1..2 do
  probe.("idle (round #{round})", false)

  probe.(
    "3 processes validating the large arguments above in a loop, at most #{limit} at once on dirty schedulers (round #{round})",
    true
  )

  :ok = Supervisor.terminate_child(supervisor, gate)
  probe.("the same, every call on a dirty scheduler at once (round #{round})", true)
  {:ok, _} = Supervisor.restart_child(supervisor, gate)
end

Enum.each(workers, &Process.unlink/1)
Enum.each(workers, &Process.exit(&1, :kill))
