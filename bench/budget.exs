# Calibrates the inline work budget: arguments sized to spend nearly all of
# it, validated by the inline half alone (on this scheduler). Prints whether
# the inline half decided or handed over, and how long it held the
# scheduler: the budget is right when the slowest kind stays near 100 µs.
#
#   mix run bench/budget.exs

alias Backplane.AgentRuntime.InputSchema
alias Backplane.AgentRuntime.InputSchema.Native

{:ok, strings} =
  InputSchema.compile(%{"properties" => %{"a" => %{"items" => %{"type" => "string"}}}})

{:ok, map} =
  InputSchema.compile(%{"additionalProperties" => %{"type" => "integer", "minimum" => 0}})

{:ok, objects} =
  InputSchema.compile(%{
    "properties" => %{
      "a" => %{
        "items" => %{"required" => ["id"], "properties" => %{"id" => %{"type" => "integer"}}}
      }
    }
  })

cases = [
  {"850 short strings", strings, %{"a" => List.duplicate("abc", 850)}},
  {"1,000 short strings (over)", strings, %{"a" => List.duplicate("abc", 1_000)}},
  {"490-key map", map, Map.new(1..490, &{"k#{&1}", &1})},
  {"240 small objects", objects, %{"a" => Enum.map(1..240, &%{"id" => &1})}},
  {"15 KB string", strings, %{"a" => [String.duplicate("x", 15_000)]}}
]

IO.puts("| arguments | inline half | median | max |")
IO.puts("|---|---|---|---|")

for {name, compiled, arguments} <- cases do
  verdict =
    if Native.validate_compiled(compiled.resource, arguments, :first) == :dirty,
      do: "handed over",
      else: "decided"

  times =
    for _ <- 1..300 do
      start = System.monotonic_time(:nanosecond)
      Native.validate_compiled(compiled.resource, arguments, :first)
      System.monotonic_time(:nanosecond) - start
    end
    |> Enum.sort()

  median = :erlang.float_to_binary(Enum.at(times, 150) / 1000, decimals: 1)
  max = :erlang.float_to_binary(List.last(times) / 1000, decimals: 1)
  IO.puts("| #{name} | #{verdict} | #{median} µs | #{max} µs |")
end
