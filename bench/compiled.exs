# What a %Compiled{} costs to carry: sending one to another process on the
# same node, and validating with it, on the coding-tool workload (10 tools,
# 10 recorded calls). Uses only the public API, so that the same script
# measures an older build for comparison.
#
#   mix run bench/compiled.exs
#
# Each figure is a per-call time: the median and the 99th percentile over
# 200 batches. "send" is a round trip to an echo process carrying the
# compiled schema, minus the same round trip carrying a bare reference: the
# cost of copying the struct into the other process and back.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema

defmodule CompiledBench do
  def row(name, {median, p99}),
    do: IO.puts("| #{name} | #{round(median)} ns | #{round(p99)} ns |")

  def echo do
    receive do
      {from, term} ->
        send(from, {:back, term})
        echo()
    end
  end

  def round_trip(pid, term) do
    send(pid, {self(), term})

    receive do
      {:back, _} -> :ok
    end
  end
end

calls =
  for {schema, arguments} <- BenchSupport.coding_calls() do
    {:ok, compiled} = InputSchema.compile(schema)
    {compiled, arguments}
  end

n = length(calls)
each = fn fun -> fn -> Enum.each(calls, fun) end end
echo = spawn(&CompiledBench.echo/0)
reference = make_ref()

words = Enum.map(calls, fn {c, _} -> :erts_debug.size(c) end)
IO.puts("OTP #{System.otp_release()}, Elixir #{System.version()}; #{n} coding-tool calls")

IO.puts(
  "%Compiled{} on the heap: #{Enum.min(words)}-#{Enum.max(words)} words " <>
    "(fields: #{inspect(Map.keys(elem(hd(calls), 0)) -- [:__struct__])})\n"
)

IO.puts("| per call | median | p99 |\n| --- | --- | --- |")

bare =
  BenchSupport.measure(each.(fn _ -> CompiledBench.round_trip(echo, reference) end), 200, 200, n)

carried =
  BenchSupport.measure(each.(fn {c, _} -> CompiledBench.round_trip(echo, c) end), 200, 200, n)

CompiledBench.row("round trip with a bare reference", bare)
CompiledBench.row("round trip with the %Compiled{}", carried)

IO.puts("| send: the difference (median) | #{round(elem(carried, 0) - elem(bare, 0))} ns | |")

CompiledBench.row(
  "validate(compiled, args)",
  BenchSupport.measure(each.(fn {c, a} -> InputSchema.validate(c, a) end), 200, 200, n)
)

if Map.has_key?(elem(hd(calls), 0), :source) do
  # A struct whose reference this node does not own (as after a transfer
  # from another node): found in the cache by its source.
  foreign = Enum.map(calls, fn {c, a} -> {%{c | resource: make_ref()}, a} end)
  Enum.each(foreign, fn {c, a} -> InputSchema.validate(c, a) end)

  CompiledBench.row(
    "validate(compiled, args), reference foreign to this node",
    BenchSupport.measure(
      fn -> Enum.each(foreign, fn {c, a} -> InputSchema.validate(c, a) end) end,
      200,
      200,
      n
    )
  )
end
