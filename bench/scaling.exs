# Throughput of the two call paths a runtime makes, with 1, 2 and 4
# processes validating the coding-tool calls in a loop at once, and the
# ratio to one process. On this 2-core machine, 2 processes is the number
# that can scale (4 shows the same two cores shared). Each point is the
# median of 5 runs of 400 ms.
#
#   mix run bench/scaling.exs
#
# For comparison, two pure-BEAM loops on the same machine: `==` of each
# schema with a copy of itself, and term_to_binary of each schema.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema

calls = BenchSupport.coding_calls()
compiled = Enum.map(calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end)
copies = Enum.map(calls, fn {s, _} -> {s, :erlang.binary_to_term(:erlang.term_to_binary(s))} end)
InputSchema.configure_cache(enabled: true)

defmodule Scaling do
  # Calls made by `procs` processes in `ms` milliseconds, each running
  # `work` (a function of no arguments that makes `per` calls) in a loop.
  def run(procs, ms, per, work) do
    parent = self()
    deadline = System.monotonic_time(:millisecond) + ms

    pids =
      for _ <- 1..procs do
        spawn_link(fn ->
          receive do: (:go -> :ok)
          send(parent, {:done, loop(deadline, work, 0) * per})
        end)
      end

    Enum.each(pids, &send(&1, :go))
    Enum.sum(for _ <- pids, do: receive(do: ({:done, n} -> n)))
  end

  defp loop(deadline, work, n) do
    if System.monotonic_time(:millisecond) >= deadline do
      n
    else
      work.()
      loop(deadline, work, n + 1)
    end
  end

  def median(list), do: list |> Enum.sort() |> Enum.at(div(length(list), 2))
end

paths = [
  {"validate(compiled, args)",
   fn -> Enum.each(compiled, fn {c, a} -> InputSchema.validate(c, a) end) end},
  {"validate(schema_map, args), cache hit",
   fn -> Enum.each(calls, fn {s, a} -> InputSchema.validate(s, a) end) end},
  {"pure BEAM: schema == its copy", fn -> Enum.each(copies, fn {a, b} -> a == b end) end},
  {"pure BEAM: term_to_binary(schema)",
   fn -> Enum.each(calls, fn {s, _} -> :erlang.term_to_binary(s) end) end}
]

IO.puts(
  "OTP #{System.otp_release()}, #{System.schedulers_online()} schedulers; calls per second (ratio to 1 process)\n"
)

IO.puts("| path | 1 process | 2 processes | 4 processes |\n| --- | --- | --- | --- |")

for {name, work} <- paths do
  Scaling.run(1, 100, length(calls), work)

  rates =
    for procs <- [1, 2, 4] do
      Scaling.median(for _ <- 1..5, do: Scaling.run(procs, 400, length(calls), work)) / 0.4
    end

  [one | _] = rates

  cells =
    Enum.map(rates, fn rate ->
      "#{Float.round(rate / 1_000_000, 2)} M (#{:erlang.float_to_binary(rate / one, decimals: 2)}x)"
    end)

  IO.puts("| #{name} | #{Enum.join(cells, " | ")} |")
end
