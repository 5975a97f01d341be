# The BEAM-side workloads of the speed guard (scripts/speed_guard): the
# coding-tool and MCP sample calls through validate(compiled, args) and
# through validate(schema_map, args) on a cache hit, made from Elixir as a
# runtime makes them. Run under callgrind (`--dump-before` the marker below),
# each workload is two phases: a warm-up (compiles, fills the cache and
# this scheduler's front), then ROUNDS passes over its calls. `Native.noop/0`
# ends each phase, so every other dump is one workload's measured pass; the
# lines printed say which, and how many calls it made.
#
#   mix run bench/beam_instructions.exs [ROUNDS]

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema
alias Backplane.AgentRuntime.InputSchema.Native

rounds = String.to_integer(List.first(System.argv()) || "20")
compile = fn calls -> Enum.map(calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end) end
coding = BenchSupport.coding_calls()
mcp = BenchSupport.mcp_calls()

workloads = [
  {"beam_compiled_coding", compile.(coding)},
  {"beam_hit_coding", coding},
  {"beam_compiled_mcp", compile.(mcp)},
  {"beam_hit_mcp", mcp}
]

InputSchema.configure_cache(enabled: true)

for {name, calls} <- workloads do
  pass = fn -> Enum.each(calls, fn {s, a} -> InputSchema.validate(s, a) end) end
  pass.()
  pass.()
  Native.noop()
  BenchSupport.loop(rounds, pass)
  Native.noop()
  IO.puts("workload #{name} #{rounds * length(calls)}")
end
