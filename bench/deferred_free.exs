# What freeing a large compiled schema costs a normal scheduler: with one
# normal scheduler online, a probe process yields in a loop and records the
# longest gap between its turns while a process holding the only reference
# to a compiled schema exits (the schema is freed by the destructor of its
# resource, on that scheduler, or left for a dirty call); then one dirty
# call frees whatever was left for it (docs/performance.md, "Freeing a
# large compiled schema").
#
#   mix run bench/deferred_free.exs [RUNS]
#
# Public API, and Native.deferred_held/0 to show what was left.

alias Backplane.AgentRuntime.InputSchema.Native
alias Backplane.JSONSchema

runs = System.argv() |> List.first("5") |> String.to_integer()

defmodule DeferredFreeBench do
  # Yields in a loop until told to stop; answers the longest gap (µs).
  def probe(last, longest) do
    receive do
      {:stop, from} -> send(from, {:longest, longest})
    after
      0 ->
        :erlang.yield()
        now = System.monotonic_time(:microsecond)
        probe(now, max(longest, now - last))
    end
  end

  def longest_gap(action) do
    probe = spawn(fn -> probe(System.monotonic_time(:microsecond), 0) end)
    Process.sleep(5)
    action.()
    Process.sleep(20)
    send(probe, {:stop, self()})
    receive do: ({:longest, gap} -> gap)
  end

  def median(list), do: list |> Enum.sort() |> Enum.at(div(length(list), 2))
end

online = :erlang.system_flag(:schedulers_online, 1)

IO.puts(
  "Freeing a compiled schema, OTP #{System.otp_release()}, one normal scheduler online; median of #{runs}"
)

IO.puts(
  "| schema | longest gap, idle | longest gap while it is freed | left for a dirty call | that dirty call | a dirty call with nothing to free |"
)

IO.puts("| --- | ---: | ---: | ---: | ---: | ---: |")

for n <- [30_000, 100_000, 300_000] do
  schema = %{"enum" => Enum.map(1..n, &"value number #{&1}")}

  rows =
    for _ <- 1..runs do
      Native.check_schema(%{})
      idle = DeferredFreeBench.longest_gap(fn -> :ok end)
      parent = self()

      pid =
        spawn(fn ->
          {:ok, _} = JSONSchema.compile(schema)
          send(parent, :compiled)
          receive do: (:exit -> :ok)
        end)

      receive do: (:compiled -> :ok)
      # A dirty call with nothing to free, after the same idle time as the
      # one below: waking a dirty scheduler costs up to a few milliseconds.
      Process.sleep(25)
      {empty, _} = :timer.tc(fn -> Native.check_schema(%{}) end)
      ref = Process.monitor(pid)

      freed =
        DeferredFreeBench.longest_gap(fn ->
          send(pid, :exit)
          receive do: ({:DOWN, ^ref, _, _, _} -> :ok)
        end)

      # (A build before the deferred frees has no such function: nothing held.)
      {_count, bytes} =
        if function_exported?(Native, :deferred_held, 0), do: Native.deferred_held(), else: {0, 0}

      {drain, _} = :timer.tc(fn -> Native.check_schema(%{}) end)
      {idle, freed, bytes, drain, empty}
    end

  [idle, freed, bytes, drain, empty] =
    for i <- 0..4, do: DeferredFreeBench.median(Enum.map(rows, &elem(&1, i)))

  IO.puts(
    "| enum of #{n} strings | #{idle} µs | #{freed} µs | #{div(bytes, 1024)} KiB | #{drain} µs | #{empty} µs |"
  )
end

:erlang.system_flag(:schedulers_online, online)
