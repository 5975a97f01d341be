# Backplane.JSONSchema on the eight shapes of the standard-schema target,
# each with a valid and an invalid instance: `validate/2` and `valid?/2`
# on a compiled schema, and compile + validate cold (a schema map, compiled
# for the call; the entry point has no compiled-schema cache). Medians and
# 99th percentiles of batch means, in nanoseconds per call, beside
# JSONSchex 0.9.2's medians on this machine class (Elixir 1.14 / OTP 25) and
# the ratio to them (the target: at most 1/3, i.e. a ratio <= 0.33).
#
#   mix run bench/json_schema.exs
#
# Public API only.

Code.require_file("support.exs", __DIR__)

alias Backplane.JSONSchema

defmodule StandardShapes do
  def tree(0), do: %{"name" => "leaf"}

  def tree(depth),
    do: %{"name" => "n#{depth}", "children" => [tree(depth - 1), tree(depth - 1)]}

  def bad_tree(0), do: %{"name" => 7}

  def bad_tree(depth),
    do: %{"name" => "n#{depth}", "children" => [tree(depth - 1), bad_tree(depth - 1)]}

  def shapes do
    item = fn i -> %{"sku" => "sku-#{i}", "qty" => i, "tags" => ["a", "b"]} end
    rows = for i <- 1..100, do: %{"id" => i, "name" => "row #{i}", "active" => rem(i, 2) == 0}

    wide =
      Map.new(
        for(i <- 1..8, do: {"str_#{i}", "v#{i}"}) ++
          for(i <- 1..7, do: {"num_#{i}", i * 1.5}) ++ for(i <- 1..7, do: {"flag_#{i}", true})
      )

    shape = fn kind, props, required ->
      %{
        "type" => "object",
        "properties" => Map.put(props, "kind", %{"const" => kind}),
        "required" => ["kind" | required]
      }
    end

    [
      {"string: minLength, maxLength, pattern",
       %{
         "type" => "string",
         "minLength" => 3,
         "maxLength" => 64,
         "pattern" => "^[a-z][a-z0-9_-]*$"
       }, "hello_world", "A!", {641, 687, 4640}},
      {"nested object: properties, required, enum, minimum, arrays",
       %{
         "type" => "object",
         "required" => ["id", "status", "items"],
         "properties" => %{
           "id" => %{"type" => "integer", "minimum" => 1},
           "status" => %{"enum" => ["open", "closed", "pending"]},
           "items" => %{
             "type" => "array",
             "items" => %{
               "type" => "object",
               "required" => ["sku", "qty"],
               "properties" => %{
                 "sku" => %{"type" => "string"},
                 "qty" => %{"type" => "integer", "minimum" => 1},
                 "tags" => %{"type" => "array", "items" => %{"type" => "string"}}
               }
             }
           }
         }
       }, %{"id" => 7, "status" => "open", "items" => Enum.map(1..3, item)},
       %{"id" => 7, "status" => "bogus", "items" => [%{"sku" => "x", "qty" => 0}]},
       {976, 851, 14_650}},
      {"recursive tree through $id and relative $ref",
       %{
         "$id" => "https://example.com/tree.json",
         "$defs" => %{
           "node" => %{
             "$id" => "node.json",
             "type" => "object",
             "required" => ["name"],
             "properties" => %{
               "name" => %{"type" => "string"},
               "children" => %{"type" => "array", "items" => %{"$ref" => "node.json"}}
             }
           }
         },
         "$ref" => "node.json"
       }, tree(3), bad_tree(3), {3150, 1020, 47_300}},
      {"array of 100 objects",
       %{
         "type" => "array",
         "items" => %{
           "type" => "object",
           "required" => ["id", "name"],
           "properties" => %{
             "id" => %{"type" => "integer"},
             "name" => %{"type" => "string"},
             "active" => %{"type" => "boolean"}
           }
         }
       }, rows, List.replace_at(rows, 50, %{"id" => "x", "name" => "row"}),
       {36_100, 28_300, 44_400}},
      {"oneOf of 4 object branches with const tags",
       %{
         "oneOf" => [
           shape.("circle", %{"r" => %{"type" => "number"}}, ["r"]),
           shape.("square", %{"side" => %{"type" => "number"}}, ["side"]),
           shape.("rect", %{"w" => %{"type" => "number"}, "h" => %{"type" => "number"}}, [
             "w",
             "h"
           ]),
           shape.(
             "triangle",
             %{
               "a" => %{"type" => "number"},
               "b" => %{"type" => "number"},
               "c" => %{"type" => "number"}
             },
             ["a", "b", "c"]
           )
         ]
       }, %{"kind" => "rect", "w" => 1, "h" => 2}, %{"kind" => "hexagon"}, {1120, 1230, 19_400}},
      {"if/then/else with patterns",
       %{
         "type" => "object",
         "properties" => %{"country" => %{"type" => "string"}, "postal" => %{"type" => "string"}},
         "if" => %{"properties" => %{"country" => %{"const" => "US"}}},
         "then" => %{"properties" => %{"postal" => %{"pattern" => "^[0-9]{5}(-[0-9]{4})?$"}}},
         "else" => %{"properties" => %{"postal" => %{"pattern" => "^[A-Z0-9 ]{3,10}$"}}}
       }, %{"country" => "US", "postal" => "12345-6789"}, %{"country" => "US", "postal" => "ABC"},
       {1140, 1000, 18_800}},
      {"unevaluatedProperties: false over an allOf",
       %{
         "allOf" => [
           %{"properties" => %{"a" => %{"type" => "string"}}},
           %{"properties" => %{"b" => %{"type" => "integer"}}}
         ],
         "unevaluatedProperties" => false
       }, %{"a" => "x", "b" => 1}, %{"a" => "x", "b" => 1, "c" => true}, {680, 659, 9170}},
      {"22-key object: patternProperties + additionalProperties: false",
       %{
         "type" => "object",
         "patternProperties" => %{
           "^str_" => %{"type" => "string"},
           "^num_" => %{"type" => "number"},
           "^flag_" => %{"type" => "boolean"}
         },
         "additionalProperties" => false
       }, wide, Map.put(wide, "other", 1), {31_900, 4460, 45_200}}
    ]
  end
end

IO.puts("Backplane.JSONSchema, OTP #{System.otp_release()}, Elixir #{System.version()}")
IO.puts("ns per call: median / p99 of batch means; [x] = median / JSONSchex's median\n")

row = fn label, {median, p99}, reference ->
  ratio =
    if reference, do: " [#{:erlang.float_to_binary(median / reference, decimals: 2)}]", else: ""

  number = &(&1 |> round() |> Integer.to_string() |> String.pad_leading(10))
  IO.puts("  #{String.pad_trailing(label, 34)} #{number.(median)} #{number.(p99)}#{ratio}")
end

for {name, schema, valid, invalid, {ref_valid, ref_invalid, ref_cold}} <- StandardShapes.shapes() do
  {:ok, compiled} = JSONSchema.compile(schema)
  :ok = JSONSchema.validate(compiled, valid)
  {:error, _} = JSONSchema.validate(compiled, invalid)
  true = JSONSchema.valid?(compiled, valid)
  false = JSONSchema.valid?(compiled, invalid)
  :ok = JSONSchema.validate(schema, valid)

  batch = if is_list(valid), do: 200, else: 2000
  IO.puts(name)

  row.(
    "validate/2, valid",
    BenchSupport.measure(fn -> JSONSchema.validate(compiled, valid) end, batch, 30),
    ref_valid
  )

  row.(
    "validate/2, invalid",
    BenchSupport.measure(fn -> JSONSchema.validate(compiled, invalid) end, batch, 30),
    ref_invalid
  )

  row.(
    "valid?/2, valid",
    BenchSupport.measure(fn -> JSONSchema.valid?(compiled, valid) end, batch, 30),
    ref_valid
  )

  row.(
    "valid?/2, invalid",
    BenchSupport.measure(fn -> JSONSchema.valid?(compiled, invalid) end, batch, 30),
    ref_invalid
  )

  row.(
    "compile + validate, valid (cold)",
    BenchSupport.measure(fn -> JSONSchema.validate(schema, valid) end, div(batch, 10), 30),
    ref_cold
  )
end
