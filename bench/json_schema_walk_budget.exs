# Calibrates the standard entry point's inline validation budget: for each
# kind of instance, the largest one the NIF still decides on the calling
# scheduler (found by bisection on its size), how long that inline call
# holds the scheduler, and how long the inline half of the next size up
# holds it before it hands the call over to a dirty scheduler (having
# spent the whole budget). The budget is right when the slowest kind stays
# near 100 µs, the bound every inline call keeps.
#
#   mix run bench/json_schema_walk_budget.exs
#
# `valid?` kinds run the walk that stops at the first failure; `validate`
# kinds run an invalid instance through both walks, building every output
# unit (up to 64).

defmodule JSONSchemaWalkBudgetBench do
  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema

  def inline?(resource, instance, mode),
    do: Native.json_schema_validate(resource, instance, mode) != :dirty

  # The largest n in 1..limit whose instance is decided inline (0 if none).
  def largest(resource, kind, mode, limit) do
    if inline?(resource, kind.(1), mode), do: search(resource, kind, mode, 1, limit + 1), else: 0
  end

  defp search(_resource, _kind, _mode, low, high) when high - low <= 1, do: low

  defp search(resource, kind, mode, low, high) do
    middle = div(low + high, 2)

    if inline?(resource, kind.(middle), mode),
      do: search(resource, kind, mode, middle, high),
      else: search(resource, kind, mode, low, middle)
  end

  def time(resource, instance, mode, runs) do
    times =
      for _ <- 1..runs do
        start = System.monotonic_time(:nanosecond)
        _ = Native.json_schema_validate(resource, instance, mode)
        System.monotonic_time(:nanosecond) - start
      end
      |> Enum.sort()

    {Enum.at(times, div(runs, 2)), Enum.at(times, div(runs * 99, 100))}
  end

  def compiled!(schema, opts \\ []) do
    {:ok, compiled} = JSONSchema.compile(schema, opts)
    compiled.resource
  end
end

alias JSONSchemaWalkBudgetBench, as: B

object = %{
  "type" => "object",
  "required" => ["id", "name"],
  "properties" => %{
    "id" => %{"type" => "integer", "minimum" => 0},
    "name" => %{"type" => "string", "maxLength" => 20},
    "active" => %{"type" => "boolean"}
  }
}

tree = %{
  "$id" => "https://example.com/tree",
  "type" => "object",
  "properties" => %{"name" => %{"type" => "string"}, "children" => %{"items" => %{"$ref" => "#"}}}
}

nest = fn n ->
  Enum.reduce(1..n, %{"name" => "leaf"}, fn i, inner ->
    %{"name" => "n#{i}", "children" => [inner]}
  end)
end

kinds = [
  {"array of objects", :valid, B.compiled!(%{"items" => object}),
   fn n -> Enum.map(1..n, &%{"id" => &1, "name" => "row #{&1}", "active" => true}) end, 5_000},
  {"array of objects, last invalid", :all, B.compiled!(%{"items" => object}),
   fn n ->
     Enum.map(1..n, &%{"id" => &1, "name" => "row #{&1}"}) ++ [%{"id" => -1, "name" => 5}]
   end, 5_000},
  {"array of objects, every one invalid", :all, B.compiled!(%{"items" => object}),
   fn n -> Enum.map(1..n, &%{"id" => -&1, "name" => &1}) end, 5_000},
  {"wide object, properties", :valid,
   B.compiled!(%{"additionalProperties" => %{"type" => "integer", "minimum" => 0}}),
   fn n -> Map.new(1..n, &{"k#{&1}", &1}) end, 20_000},
  {"patternProperties, three patterns", :valid,
   B.compiled!(%{
     "patternProperties" => %{
       "^str_" => %{"type" => "string"},
       "^num_" => %{"type" => "number"},
       "^flag_" => %{"type" => "boolean"}
     },
     "additionalProperties" => false
   }), fn n -> Map.new(1..n, &{"num_#{&1}", &1}) end, 20_000},
  {"long string, pattern", :valid,
   B.compiled!(%{"type" => "string", "pattern" => "^[a-z0-9_]*$"}),
   fn n -> String.duplicate("abc_1", n) end, 1_000_000},
  {"enum of 200 strings", :valid,
   B.compiled!(%{"items" => %{"enum" => Enum.map(1..200, &"value-#{&1}")}}),
   fn n -> List.duplicate("value-200", n) end, 20_000},
  {"uniqueItems, strings", :valid, B.compiled!(%{"uniqueItems" => true}),
   fn n -> Enum.map(1..n, &"item-#{&1}") end, 100_000},
  {"uniqueItems, objects", :valid, B.compiled!(%{"uniqueItems" => true}),
   fn n -> Enum.map(1..n, &%{"id" => &1, "tags" => ["a", "b"]}) end, 100_000},
  {"tree through $ref", :valid, B.compiled!(tree), nest, 1_000},
  {"anyOf of tagged branches", :valid,
   B.compiled!(%{
     "items" => %{
       "anyOf" =>
         Enum.map(
           1..8,
           &%{"properties" => %{"kind" => %{"const" => "k#{&1}"}}, "required" => ["kind"]}
         )
     }
   }), fn n -> List.duplicate(%{"kind" => "k8"}, n) end, 20_000},
  {"unevaluatedProperties over allOf", :valid,
   B.compiled!(%{
     "items" => %{
       "allOf" => [
         %{"properties" => %{"a" => %{"type" => "string"}}},
         %{"properties" => %{"b" => %{"type" => "integer"}}}
       ],
       "unevaluatedProperties" => false
     }
   }), fn n -> List.duplicate(%{"a" => "x", "b" => 1}, n) end, 20_000},
  {"multipleOf 0.01", :valid, B.compiled!(%{"items" => %{"multipleOf" => 0.01}}),
   fn n -> Enum.map(1..n, &(&1 / 100)) end, 50_000},
  {"format date-time, asserted", :valid,
   B.compiled!(%{"items" => %{"format" => "date-time"}}, formats: :assert),
   fn n -> List.duplicate("2026-12-02T10:00:00.123+01:00", n) end, 50_000},
  {"format idn-hostname, asserted", :valid,
   B.compiled!(%{"items" => %{"format" => "idn-hostname"}}, formats: :assert),
   fn n -> List.duplicate("bücher.例え.テスト", n) end, 50_000}
]

IO.puts("OTP #{System.otp_release()}, Elixir #{System.version()}")

IO.puts(
  "| instance | mode | largest size decided inline | median | p99 | next size, handed over after (median) |"
)

IO.puts("| --- | --- | ---: | ---: | ---: | ---: |")

for {name, mode, resource, kind, limit} <- kinds do
  n = B.largest(resource, kind, mode, limit)
  instance = kind.(n)
  {median, p99} = B.time(resource, instance, mode, 400)
  over = kind.(n + 1)
  {over_median, _} = B.time(resource, over, mode, 400)
  us = fn ns -> "#{:erlang.float_to_binary(ns / 1000, decimals: 1)} µs" end
  label = if mode == :valid, do: "valid?", else: "validate"

  IO.puts("| #{name} | #{label} | #{n} | #{us.(median)} | #{us.(p99)} | #{us.(over_median)} |")
end
