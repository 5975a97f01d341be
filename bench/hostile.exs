# Hostile schemas: what one bad schema from an untrusted server costs the
# node, and what a large cached schema costs other callers.
#
#   mix run bench/hostile.exs
#
# Part 1, for each shape (a fresh schema each run, so its patterns are
# built, not found): the preflight's time and result; how long a legitimate
# validation of a 1 MiB argument, issued by another process 2 ms after the
# preflight began, waited beyond its own time alone; and how much the VM's
# peak resident memory rose during the preflight (the peak is reset before
# each run through /proc/self/clear_refs). Median and worst of the runs.
#
# Part 2: one process validates against a large cached schema in a loop
# while another makes 20,000 small cached calls; the table gives the small
# calls' latency (worst, p99.9, p99) beside the same calls alone.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema

defmodule Hostile do
  def wide(count, property) do
    %{"type" => "object", "properties" => Map.new(1..count, &{"p#{&1}", property.(&1)})}
  end

  def deep_wide(depth, width) do
    Enum.reduce(1..depth, %{"type" => "integer"}, fn _, inner ->
      siblings = Map.new(1..width, &{"s#{&1}", %{"type" => "string"}})
      %{"type" => "object", "properties" => Map.put(siblings, "next", inner)}
    end)
  end

  def shapes do
    [
      {"400 properties, distinct patterns like ^[a-z0-9]{1,20000}$",
       fn seed ->
         wide(400, &%{"type" => "string", "pattern" => "^[a-z0-9]{1,#{20_000 - &1}}$#{seed}"})
       end},
      {"2,000 distinct medium patterns (^(?:[a-f]{2,40}\\.){1,50}x7$ style)",
       fn seed ->
         wide(
           2_000,
           &%{"pattern" => "^(?:[a-f]{2,#{10 + rem(&1, 31)}}\\.){1,#{20 + div(&1, 31)}}x#{seed}$"}
         )
       end},
      {"10,000 properties, small distinct patterns",
       fn seed ->
         wide(10_000, &%{"type" => "string", "pattern" => "^item#{&1}x#{seed}[0-9]{3}-abc$"})
       end},
      {"100,000 properties",
       fn seed -> wide(100_000, fn _ -> %{"type" => "integer", "title" => "#{seed}"} end) end},
      {"100,000-choice enum",
       fn seed -> wide(1, fn _ -> %{"enum" => Enum.map(1..100_000, &"c#{&1}-#{seed}")} end) end},
      {"100,000-element const",
       fn seed -> wide(1, fn _ -> %{"const" => Enum.to_list(seed..(seed + 99_999))} end) end},
      {"deepest nesting (45 properties levels) x 3,000 siblings each",
       fn seed -> Map.put(deep_wide(45, 3_000), "title", "#{seed}") end},
      {"deepest nesting (45 properties levels) x 100 siblings each",
       fn seed -> Map.put(deep_wide(45, 100), "title", "#{seed}") end},
      {"a chain of 30,000 $refs through $defs",
       fn seed -> Map.put(chain(30_000), "title", "#{seed}") end},
      {"20 definitions that each refer twice to the next",
       fn seed -> Map.put(doubling(20), "title", "#{seed}") end},
      {"10,000 definitions, each an allOf of $refs to the next 8",
       fn seed -> Map.put(fan(10_000, 8), "title", "#{seed}") end},
      {"a same-value $ref cycle through 5,000 definitions",
       fn seed -> Map.put(chain(5_000, "#/$defs/d0"), "title", "#{seed}") end}
    ]
  end

  @doc "d0 -> d1 -> ... -> dn, each a bare $ref; dn is a string schema or, with `last`, a $ref."
  def chain(n, last \\ nil) do
    defs =
      Map.new(0..(n - 1), fn i -> {"d#{i}", %{"$ref" => "#/$defs/d#{i + 1}"}} end)
      |> Map.put("d#{n}", if(last, do: %{"$ref" => last}, else: %{"type" => "string"}))

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

  def fan(n, width) do
    defs =
      Map.new(0..(n - 1), fn i ->
        refs = for k <- 1..width, i + k <= n, do: %{"$ref" => "#/$defs/d#{i + k}"}
        {"d#{i}", %{"allOf" => refs}}
      end)
      |> Map.put("d#{n}", %{"type" => "integer"})

    %{"type" => "object", "properties" => %{"a" => %{"$ref" => "#/$defs/d0"}}, "$defs" => defs}
  end

  def ms(ns), do: :erlang.float_to_binary(ns / 1_000_000, decimals: 1) <> " ms"

  def percentile(sorted, q), do: Enum.at(sorted, round((length(sorted) - 1) * q))

  def time(fun) do
    start = System.monotonic_time(:nanosecond)
    result = fun.()
    {System.monotonic_time(:nanosecond) - start, result}
  end

  def outcome(:ok), do: "accepted"
  def outcome({:error, e}), do: "rejected: #{e.message} #{inspect(e.details)}"
end

{:ok, legit} =
  InputSchema.compile(%{
    "type" => "object",
    "properties" => %{"s" => %{"type" => "string", "pattern" => "^[A-Za-z0-9_.-]+$"}}
  })

legit_arguments = %{"s" => String.duplicate("a", 1_048_576)}
{:ok, _} = InputSchema.validate(legit, legit_arguments)

alone =
  for(
    _ <- 1..21,
    do: elem(Hostile.time(fn -> InputSchema.validate(legit, legit_arguments) end), 0)
  )
  |> Enum.sort()
  |> Hostile.percentile(0.5)

runs = String.to_integer(System.get_env("RUNS", "3"))

IO.puts("""
OTP #{System.otp_release()}, Elixir #{System.version()}, #{:erlang.system_info(:schedulers_online)} schedulers, \
#{:erlang.system_info(:dirty_cpu_schedulers_online)} dirty CPU schedulers; #{runs} runs per shape, a fresh schema each.
The legitimate 1 MiB validation takes #{Hostile.ms(alone)} alone.

| hostile schema | preflight (median, worst) | result | legitimate call waited (median, worst) | peak memory rise (median, worst) |
|---|---|---|---|---|\
""")

for {name, build} <- Hostile.shapes() do
  samples =
    for run <- 1..runs do
      schema = build.(System.unique_integer([:positive]) * 10 + run)
      main = self()

      # The preflight's process receives its copy of the schema first; the
      # clock and the memory peak start when it is ready.
      preflight =
        Task.async(fn ->
          send(main, {:ready, self()})

          receive do
            :go -> Hostile.time(fn -> InputSchema.validate_schema(schema) end)
          end
        end)

      rss_before =
        receive do
          {:ready, pid} ->
            :erlang.garbage_collect()
            Process.sleep(50)
            BenchSupport.reset_peak()
            rss = BenchSupport.rss_kib("VmRSS")
            send(pid, :go)
            rss
        end

      Process.sleep(2)

      {legit_ns, {:ok, _}} =
        Task.async(fn -> Hostile.time(fn -> InputSchema.validate(legit, legit_arguments) end) end)
        |> Task.await(:infinity)

      {preflight_ns, result} = Task.await(preflight, :infinity)
      peak = BenchSupport.rss_kib("VmHWM") - rss_before
      {preflight_ns, max(legit_ns - alone, 0), peak, result}
    end

  {preflights, waits, peaks, results} =
    Enum.reduce(samples, {[], [], [], []}, fn {p, w, m, r}, {ps, ws, ms, rs} ->
      {[p | ps], [w | ws], [m | ms], [r | rs]}
    end)

  stat = fn list, format ->
    sorted = Enum.sort(list)
    "#{format.(Hostile.percentile(sorted, 0.5))}, #{format.(List.last(sorted))}"
  end

  mib = fn kib -> :erlang.float_to_binary(kib / 1024, decimals: 1) <> " MiB" end

  IO.puts(
    "| #{name} | #{stat.(preflights, &Hostile.ms/1)} | #{results |> hd() |> Hostile.outcome()} | " <>
      "#{stat.(waits, &Hostile.ms/1)} | #{stat.(peaks, mib)} |"
  )
end

# Part 1b: a schema whose references make one value visit many subschemas
# (14 doubling levels: about 65,000 visits per value, under the expansion
# limit), against arguments that multiply it: the validation stops at its
# work limit.
{:ok, doubling} =
  InputSchema.compile(%{
    "type" => "object",
    "properties" => %{"a" => %{"type" => "array", "items" => %{"$ref" => "#/$defs/d0"}}},
    "$defs" => Hostile.doubling(14)["$defs"]
  })

IO.puts("\n| validation through references | time (median, worst) | result |\n|---|---|---|")

for count <- [10, 400] do
  arguments = %{"a" => Enum.to_list(1..count)}

  samples =
    for _ <- 1..runs, do: Hostile.time(fn -> InputSchema.validate(doubling, arguments) end)

  times = samples |> Enum.map(&elem(&1, 0)) |> Enum.sort()

  result =
    case samples |> hd() |> elem(1) do
      {:ok, _} -> "accepted"
      other -> Hostile.outcome(other)
    end

  IO.puts(
    "| 14 doubling levels, #{count} items | #{Hostile.ms(Hostile.percentile(times, 0.5))}, #{Hostile.ms(List.last(times))} | #{result} |"
  )
end

# Part 2: a large cached schema beside small cached calls.
small = %{
  "type" => "object",
  "properties" => %{
    "path" => %{"type" => "string", "description" => "File to read"},
    "limit" => %{"type" => "integer", "minimum" => 1}
  },
  "required" => ["path"]
}

small_arguments = %{"path" => "lib/app.ex", "limit" => 20}

large_schema = fn bytes ->
  count = 200
  text = String.duplicate("d", div(bytes, count))

  %{
    "type" => "object",
    "properties" => Map.new(1..count, &{"p#{&1}", %{"type" => "string", "description" => text}})
  }
end

small_calls = fn ->
  for _ <- 1..20_000 do
    {ns, {:ok, _}} = Hostile.time(fn -> InputSchema.validate(small, small_arguments) end)
    ns
  end
  |> Enum.sort()
end

report = fn name, sorted ->
  us = fn ns -> :erlang.float_to_binary(ns / 1000, decimals: 1) <> " µs" end

  IO.puts(
    "| #{name} | #{us.(List.last(sorted))} | #{us.(Hostile.percentile(sorted, 0.999))} | " <>
      "#{us.(Hostile.percentile(sorted, 0.99))} | #{us.(Hostile.percentile(sorted, 0.5))} |"
  )
end

IO.puts("""

20,000 small cached calls by one process (validate(schema_map, args) of a coding-tool schema):

| beside | worst | p99.9 | p99 | median |
|---|---|---|---|---|\
""")

{:ok, _} = InputSchema.validate(small, small_arguments)
report.("nothing (alone)", small_calls.())

for {label, bytes} <- [{"50 KB", 50_000}, {"1 MB", 1_000_000}, {"80 MB", 80_000_000}] do
  schema = large_schema.(bytes)
  {:ok, _} = InputSchema.validate(schema, %{})
  parent = self()

  looper =
    spawn(fn ->
      loop = fn loop, n ->
        receive do
          :stop -> send(parent, {:loops, n})
        after
          0 ->
            {:ok, _} = InputSchema.validate(schema, %{"p1" => "x"})
            loop.(loop, n + 1)
        end
      end

      loop.(loop, 0)
    end)

  Process.sleep(100)
  sorted = small_calls.()
  send(looper, :stop)

  loops =
    receive do
      {:loops, n} -> n
    end

  report.(
    "a process validating against a #{label} cached schema in a loop (#{loops} calls meanwhile)",
    sorted
  )
end
