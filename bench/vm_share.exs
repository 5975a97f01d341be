# The driver of bench/vm_share: the standard entry point's forty cells
# (fixtures/standard_shapes.json: eight shapes, each through valid?/2 and
# validate/2 on its valid and invalid instance with a compiled schema, and
# validate/2 with the schema map on its valid instance, compiled for the
# call), each as two phases under callgrind: a warm-up of 200 calls, then
# 1,000 measured calls. `Native.noop/0` ends each phase (callgrind dumps
# before its marker), so every other dump is one cell's measured calls;
# the lines printed say which.
#
#   bench/vm_share        (runs this under callgrind and splits the counts)
#
# The calls run in a process whose heap never needs collecting (see
# bench/beam_instructions.exs for why).

Code.require_file("support.exs", __DIR__)

defmodule VmShare do
  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema

  @heap 8_000_000
  @warm 200
  @calls 1_000

  def run do
    {pid, ref} = :erlang.spawn_opt(fn -> measure() end, [:monitor, {:min_heap_size, @heap}])

    receive do
      {:DOWN, ^ref, :process, ^pid, :normal} -> :ok
      {:DOWN, ^ref, :process, ^pid, reason} -> exit(reason)
    end
  end

  defp measure do
    for shape <- BenchSupport.read_json!("fixtures/standard_shapes.json") do
      %{"name" => name, "schema" => schema, "valid" => valid, "invalid" => invalid} = shape
      {:ok, compiled} = JSONSchema.compile(schema)

      cells = [
        {"validate/2, valid", fn -> JSONSchema.validate(compiled, valid) end},
        {"validate/2, invalid", fn -> JSONSchema.validate(compiled, invalid) end},
        {"valid?/2, valid", fn -> JSONSchema.valid?(compiled, valid) end},
        {"valid?/2, invalid", fn -> JSONSchema.valid?(compiled, invalid) end},
        {"compile + validate, valid (cold)", fn -> JSONSchema.validate(schema, valid) end}
      ]

      for {call, fun} <- cells do
        repeat(fun, @warm)
        Native.noop()
        repeat(fun, @calls)
        Native.noop()
        IO.puts("cell\t#{@calls}\t#{name}\t#{call}")
      end
    end
  end

  defp repeat(_fun, 0), do: :ok

  defp repeat(fun, n) do
    fun.()
    repeat(fun, n - 1)
  end
end

VmShare.run()
