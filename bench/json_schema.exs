# Backplane.JSONSchema on the eight shapes of the standard-schema target
# (fixtures/standard_shapes.json, which the Rust benchmark and the speed
# guard read too), each with a valid and an invalid instance: `validate/2`
# and `valid?/2` on a compiled schema, compile + validate cold (a schema
# map, compiled for the call with the schema cache off), and the same call
# with the cache on (the schema map found there: the compile of a repeated
# schema map is done once). Medians and 99th percentiles of batch means,
# in nanoseconds per call, beside JSONSchex 0.9.2's medians on this
# machine class (Elixir 1.14 / OTP 25) and the ratio to them (the target:
# at most 1/3, i.e. a ratio <= 0.33). The cached row's ratio is to
# JSONSchex's compile + validate, the call a caller with a schema map
# makes there.
#
#   mix run bench/json_schema.exs
#
# Public API only.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema
alias Backplane.JSONSchema

IO.puts("Backplane.JSONSchema, OTP #{System.otp_release()}, Elixir #{System.version()}")
IO.puts("ns per call: median / p99 of batch means; [x] = median / JSONSchex's median\n")

row = fn label, {median, p99}, reference ->
  ratio =
    if reference, do: " [#{:erlang.float_to_binary(median / reference, decimals: 2)}]", else: ""

  number = &(&1 |> round() |> Integer.to_string() |> String.pad_leading(10))
  IO.puts("  #{String.pad_trailing(label, 34)} #{number.(median)} #{number.(p99)}#{ratio}")
end

for shape <- BenchSupport.read_json!("fixtures/standard_shapes.json") do
  %{"name" => name, "schema" => schema, "valid" => valid, "invalid" => invalid} = shape

  %{"valid" => ref_valid, "invalid" => ref_invalid, "compile_validate" => ref_cold} =
    shape["jsonschex_ns"]

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

  InputSchema.configure_cache(enabled: false)

  row.(
    "compile + validate, valid (cold)",
    BenchSupport.measure(fn -> JSONSchema.validate(schema, valid) end, div(batch, 10), 30),
    ref_cold
  )

  InputSchema.configure_cache(enabled: true)

  row.(
    "validate(schema map), valid, cached",
    BenchSupport.measure(fn -> JSONSchema.validate(schema, valid) end, batch, 30),
    ref_cold
  )
end
