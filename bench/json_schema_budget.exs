# Calibrates the standard entry point's inline compile budget: for each
# kind of schema, the largest one whose compile the NIF still decides on
# the calling scheduler (found by bisection on its size), and how long
# that inline call holds the scheduler; and how long the inline half of
# the next size up holds it before it hands the call over to a dirty
# scheduler (having spent the whole budget). The budget is right when the
# slowest kind stays near 100 µs, the bound every inline call keeps.
#
#   mix run bench/json_schema_budget.exs
#
# Patterns are built (on a dirty scheduler) before the inline calls are
# timed, as a compile on a normal scheduler only ever finds them built.

defmodule JSONSchemaBudgetBench do
  alias Backplane.AgentRuntime.InputSchema.Native

  def inline?(schema) do
    match?({:ok, _}, Native.json_schema_compile(schema, :draft2020_12, [], :annotate, :annotate))
  end

  # The largest n in 1..limit whose schema compiles inline (0 if none).
  def largest(kind, limit) do
    if inline?(kind.(1)), do: search(kind, 1, limit + 1), else: 0
  end

  defp search(_kind, low, high) when high - low <= 1, do: low

  defp search(kind, low, high) do
    middle = div(low + high, 2)
    if inline?(kind.(middle)), do: search(kind, middle, high), else: search(kind, low, middle)
  end

  def time(schema, expected, runs) do
    times =
      for _ <- 1..runs do
        start = System.monotonic_time(:nanosecond)
        answer = Native.json_schema_compile(schema, :draft2020_12, [], :annotate, :annotate)
        elapsed = System.monotonic_time(:nanosecond) - start
        ^expected = if answer == :dirty, do: :dirty, else: elem(answer, 0)
        elapsed
      end
      |> Enum.sort()

    {Enum.at(times, div(runs, 2)), Enum.at(times, div(runs * 99, 100))}
  end
end

nested = fn n ->
  Enum.reduce(1..n, %{"type" => "string"}, fn _, inner -> %{"properties" => %{"a" => inner}} end)
end

kinds = [
  {"flat properties",
   fn n -> %{"properties" => Map.new(1..n, &{"p#{&1}", %{"type" => "string"}})} end, 2_000},
  {"nested properties", nested, 127},
  {"references to one definition",
   fn n ->
     %{
       "$defs" => %{"d" => %{"type" => "integer"}},
       "properties" => Map.new(1..n, &{"p#{&1}", %{"$ref" => "#/$defs/d"}})
     }
   end, 2_000},
  {"enum of strings", fn n -> %{"enum" => Enum.map(1..n, &"value number #{&1}")} end, 50_000},
  {"const of objects", fn n -> %{"const" => Enum.map(1..n, &%{"k" => &1, "v" => [&1, "x"]})} end,
   20_000},
  {"anyOf of tagged branches",
   fn n ->
     %{
       "anyOf" =>
         Enum.map(
           1..n,
           &%{"properties" => %{"kind" => %{"const" => "k#{&1}"}}, "required" => ["kind"]}
         )
     }
   end, 2_000},
  {"embedded $id resources",
   fn n ->
     %{
       "$defs" =>
         Map.new(1..n, &{"r#{&1}", %{"$id" => "https://example.com/r/#{&1}", "type" => "object"}})
     }
   end, 2_000},
  {"anchors",
   fn n ->
     %{"$defs" => Map.new(1..n, &{"a#{&1}", %{"$anchor" => "a#{&1}", "type" => "string"}})}
   end, 2_000},
  {"if/then/else chain",
   fn n ->
     Enum.reduce(1..n, true, fn i, inner ->
       %{"if" => %{"required" => ["f#{i}"]}, "then" => %{"minProperties" => i}, "else" => inner}
     end)
   end, 120},
  {"patternProperties, built",
   fn n ->
     %{"patternProperties" => Map.new(1..n, &{"^field_#{&1}_[a-z]+$", %{"type" => "string"}})}
   end, 2_000},
  {"long description", fn n -> %{"description" => String.duplicate("x", n)} end, 10_000_000},
  {"long $id", fn n -> %{"$id" => "https://example.com/" <> String.duplicate("a", n)} end,
   10_000_000}
]

IO.puts("Backplane.JSONSchema inline compile, OTP #{System.otp_release()}")

IO.puts(
  "| schema | largest size decided inline | median | p99 | next size: handed over after (median) |"
)

IO.puts("| --- | ---: | ---: | ---: | ---: |")

for {name, kind, limit} <- kinds do
  # Build any pattern the kind uses (the dirty compile builds them; a
  # compile over its budget stops before its later patterns, hence sizes
  # up from small).
  for size <- [1, 10, 30, 100, 300, 1_000],
      size <= limit,
      do: Backplane.JSONSchema.compile(kind.(size))

  n = JSONSchemaBudgetBench.largest(kind, limit)

  if n == 0 do
    IO.puts("| #{name} | none | | | |")
  else
    {median, p99} = JSONSchemaBudgetBench.time(kind.(n), :ok, 300)
    {over, _} = JSONSchemaBudgetBench.time(kind.(n + 1), :dirty, 300)
    us = &:erlang.float_to_binary(&1 / 1000, decimals: 1)
    IO.puts("| #{name} | #{n} | #{us.(median)} µs | #{us.(p99)} µs | #{us.(over)} µs |")
  end
end
