# The BEAM-side workloads of the speed guard (scripts/speed_guard): the
# coding-tool and MCP sample calls through validate(compiled, args) and
# through validate(schema_map, args) on a cache hit, made from Elixir as a
# runtime makes them; and the standard entry point's eight shapes
# (fixtures/standard_shapes.json), each shape's valid and invalid instance,
# through Backplane.JSONSchema.valid?/2 and validate/2 on a compiled schema,
# and each shape's valid instance through validate/2 with the schema map,
# compiled for the call with the cache off (beam_standard_cold) and found
# in the cache (beam_standard_hit). Run under callgrind
# (`--dump-before` the marker below),
# each workload is two phases: a warm-up (compiles, fills the cache and
# this scheduler's front), then ROUNDS passes over its calls. `Native.noop/0`
# ends each phase, so every other dump is one workload's measured pass; the
# lines printed say which, and how many calls it made.
#
#   mix run bench/beam_instructions.exs [ROUNDS]
#
# The calls run in a process whose heap is large enough that it never
# collects garbage, so the counts are the calls' own work wherever a
# collection would have fallen. (Under valgrind the JIT VM of OTP 27 crashes
# in some collections, in any process, also in a script that makes no NIF
# call and never without valgrind; scripts/speed_guard starts every process
# with a large heap, +hms, for that.)

Code.require_file("support.exs", __DIR__)

defmodule BeamInstructions do
  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema

  # Words: 64 MiB, far more than the workloads allocate.
  @heap 8_000_000

  def run(rounds) do
    {pid, ref} = :erlang.spawn_opt(fn -> measure(rounds) end, [:monitor, {:min_heap_size, @heap}])

    receive do
      {:DOWN, ^ref, :process, ^pid, :normal} -> :ok
      {:DOWN, ^ref, :process, ^pid, reason} -> exit(reason)
    end
  end

  defp measure(rounds) do
    coding = BenchSupport.coding_calls()
    mcp = BenchSupport.mcp_calls()

    # Each shape's schema map with its valid instance: compiled for the
    # call (reading the terms, the metaschema check, the compile), then
    # validated, as validate/2 does with a schema it is given.
    cold =
      for shape <- BenchSupport.read_json!("fixtures/standard_shapes.json"),
          do: {shape["schema"], shape["valid"]}

    standard =
      for shape <- BenchSupport.read_json!("fixtures/standard_shapes.json"),
          {:ok, compiled} <- [JSONSchema.compile(shape["schema"])],
          instance <- [shape["valid"], shape["invalid"]],
          do: {compiled, instance}

    workloads = [
      {"beam_compiled_coding", compile(coding)},
      {"beam_hit_coding", coding},
      {"beam_compiled_mcp", compile(mcp)},
      {"beam_hit_mcp", mcp},
      {"beam_standard_valid", {:valid?, standard}},
      {"beam_standard_validate", {:validate, standard}},
      {"beam_standard_cold", {:validate, cold}},
      {"beam_standard_hit", {:validate, cold}}
    ]

    for {name, calls} <- workloads do
      InputSchema.configure_cache(enabled: name != "beam_standard_cold")
      pass(calls)
      pass(calls)
      Native.noop()
      passes(calls, rounds)
      Native.noop()
      IO.puts("workload #{name} #{rounds * count(calls)}")
    end
  end

  defp compile(calls), do: Enum.map(calls, fn {s, a} -> {elem(InputSchema.compile(s), 1), a} end)

  defp count({_function, calls}), do: length(calls)
  defp count(calls), do: length(calls)

  defp pass({:valid?, calls}), do: Enum.each(calls, fn {s, i} -> JSONSchema.valid?(s, i) end)
  defp pass({:validate, calls}), do: Enum.each(calls, fn {s, i} -> JSONSchema.validate(s, i) end)
  defp pass(calls), do: Enum.each(calls, fn {s, a} -> InputSchema.validate(s, a) end)

  defp passes(_calls, 0), do: :ok

  defp passes(calls, n) do
    pass(calls)
    passes(calls, n - 1)
  end
end

BeamInstructions.run(String.to_integer(List.first(System.argv()) || "20"))
