# What asserting formats costs: `Backplane.JSONSchema.validate/2` on the
# MCP sample with its schemas compiled `formats: :annotate` and
# `formats: :assert` (per tool with a format, and overall), the same for
# the gateway's `Backplane.AgentRuntime.InputSchema` where this build has
# the option, and each format's check through the NIF (`valid?/2` on
# `{"format": F}`), on a typical string and on a 1 MiB one (which goes to
# the dirty scheduler); and how long the host-name checks of a call within
# the inline budget take (whether the NIF's inline half decided is read
# from the NIF itself).
#
#   MIX_ENV=test mix run bench/formats.exs
#
# Per-call times as in bench/beam.exs (median and 99th percentile of batch
# means). The two sides of a comparison run in alternating batches, so
# that a drift of the machine's speed hits both. Each 1 MiB string is one
# of the slowest shapes native/input_schema_core/benches/formats.rs finds
# for its format (which of those is slowest changes from run to run).

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema
alias Backplane.AgentRuntime.InputSchema.Native
alias Backplane.JSONSchema

defmodule FormatsBench do
  defdelegate human(ns), to: BenchSupport
  defdelegate fixed(x, decimals \\ 2), to: BenchSupport

  # {{median, p99} of `a`, {median, p99} of `b`}: per-call nanoseconds over
  # `samples` batches of `batch` runs of each, where a run makes `per_run`
  # calls; the sides' batches alternate, and which goes first alternates
  # too.
  def measure_pair(a, b, batch, samples, per_run \\ 1) do
    BenchSupport.loop(max(div(batch, 4), 1), a)
    BenchSupport.loop(max(div(batch, 4), 1), b)

    time = fn fun ->
      start = System.monotonic_time(:nanosecond)
      BenchSupport.loop(batch, fun)
      (System.monotonic_time(:nanosecond) - start) / (batch * per_run)
    end

    {as, bs} =
      Enum.unzip(
        for i <- 1..samples do
          if rem(i, 2) == 0 do
            {time.(a), time.(b)}
          else
            b_time = time.(b)
            {time.(a), b_time}
          end
        end
      )

    {figures(as), figures(bs)}
  end

  defp figures(times) do
    sorted = Enum.sort(times)
    {BenchSupport.percentile(sorted, 0.5), BenchSupport.percentile(sorted, 0.99)}
  end

  # One row per tool with a format field, then one for every call:
  # `validate.(compiled_schema, arguments)` with the schema compiled to
  # annotate (element 2 of each call) against to assert (element 3).
  def ratio_rows(compiled, validate, all_label) do
    compiled
    |> Enum.filter(fn {_, schema, _, _, _} -> has_format?(schema) end)
    |> Enum.group_by(&elem(&1, 0))
    |> Enum.sort()
    |> Enum.each(fn {name, tool_calls} ->
      pair_row(
        name,
        length(tool_calls),
        measure_calls(tool_calls, validate, div(400, length(tool_calls)))
      )
    end)

    n = length(compiled)
    pair_row(all_label, n, measure_calls(compiled, validate, max(div(400, n), 20)))
  end

  defp measure_calls(calls, validate, batch) do
    measure_pair(
      fn -> Enum.each(calls, &validate.(elem(&1, 2), elem(&1, 4))) end,
      fn -> Enum.each(calls, &validate.(elem(&1, 3), elem(&1, 4))) end,
      batch,
      300,
      length(calls)
    )
  end

  def pair_row(name, calls, {{a_median, a_p99}, {b_median, b_p99}}) do
    IO.puts(
      "| #{name} | #{calls} | #{human(a_median)} | #{human(a_p99)} | #{human(b_median)} | #{human(b_p99)} | #{fixed(b_median / a_median, 3)} |"
    )
  end

  def has_format?(schema) do
    {:ok, text} = InputSchema.JSON.encode(schema)
    String.contains?(text, ~s("format"))
  end

  # The string `unit` repeated between `before` and `after`, 1 MiB at most
  # and within one unit of it (as the Rust bench builds them).
  def mib(before, unit, after_) do
    count = div(1_048_576 - byte_size(before) - byte_size(after_), byte_size(unit))
    before <> String.duplicate(unit, count) <> after_
  end

  # Per format: a typical valid string, and one of the 1 MiB shapes the
  # Rust bench finds slowest (for the formats with a length limit, any
  # 1 MiB string: it is refused on its length).
  def strings do
    [
      {"date-time", "2024-05-01T12:30:00Z", mib("2024-05-01T12:30:00.", "1", "Z")},
      {"date", "2024-05-01", mib("", "2024-05-01", "")},
      {"time", "12:30:00.250+02:00", mib("12:30:00.", "1", "Z")},
      {"duration", "P1DT12H30M", mib("PT", "9", "S")},
      {"email", "user@example.com", mib("", "a", "@example.com")},
      {"idn-email", "jürgen@bücher.example", mib("", "a", "@example.com")},
      {"hostname", "build-cache-01.eu.example.com", mib("", "a.", "a")},
      {"idn-hostname", "xn--bcher-kva.example", mib("", "a.", "a")},
      {"idn-hostname", "bücher.example", nil},
      {"ipv4", "192.168.10.254", mib("", "1.", "1")},
      {"ipv6", "2001:db8:85a3::8a2e:370:7334", mib("", "1:", "1")},
      {"uri", "https://api.example.com/v1/users?id=42&fields=name,email",
       mib("https://", "a", "/")},
      {"uri-reference", "../v1/users/42?fields=name#top", mib("https://", "a:", "@example.com/")},
      {"iri", "https://bücher.example/straße?q=café",
       mib("https://example.com/?", "\u{E000}", "")},
      {"iri-reference", "/straße/über?q=café", mib("https://example.com/?", "\u{E000}", "")},
      {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", mib("", "0-", "")},
      {"uri-template", "/users/{id}{?fields*}", mib("", "é", "")},
      {"json-pointer", "/properties/user~1name/items/0", mib("", "/", "")},
      {"relative-json-pointer", "1/properties/name", mib("0", "/a~0", "")},
      {"regex", "^[a-z0-9_-]{3,16}$",
       String.duplicate("(", 524_288) <> String.duplicate(")", 524_288)}
    ]
  end
end

IO.puts("Formats, OTP #{System.otp_release()}, Elixir #{System.version()}")

{load, _} = System.cmd("cat", ["/proc/loadavg"])
IO.puts("load average at start: #{String.trim(load)}\n")

# --- The MCP sample and the catalog's tools with a format -----------------

catalog = BenchSupport.read_json!("fixtures/mcp_catalog.json")["tools"]
name_of = Map.new(catalog, &{&1["inputSchema"], &1["name"]})
schema_of = Map.new(catalog, &{&1["name"], &1["inputSchema"]})

every_call =
  for call <- BenchSupport.read_lines!("fixtures/calls.jsonl"),
      Map.has_key?(schema_of, call["name"]),
      do: {schema_of[call["name"]], call["arguments"]}

# One call for each of the catalog's tools with a format, with every format
# field filled (the recorded calls fill one: fetch's url).
filled =
  [
    {"list_issues",
     %{"owner" => "octo", "repo" => "hello-world", "since" => "2024-05-01T12:30:00Z"}},
    {"add_days", %{"date" => "2024-05-01", "days" => 30}},
    {"date_diff", %{"from" => "2024-01-01", "to" => "2024-05-01", "unit" => "days"}},
    {"fetch", %{"url" => "https://example.org/docs/page?lang=en", "max_length" => 5000}},
    {"fetch_with_headers",
     %{
       "url" => "https://api.example.com/v1/items",
       "headers" => %{"Accept" => "application/json"}
     }},
    {"http_request", %{"url" => "https://api.example.com/v1/items/42", "method" => "GET"}},
    {"authenticated_fetch", %{"url" => "https://api.example.com/me", "token" => "Bearer abc"}},
    {"schedule_event",
     %{
       "title" => "Sync",
       "start" => "2024-05-01T09:00:00Z",
       "end" => "2024-05-01T09:30:00+02:00",
       "attendees" => ["ada@example.com", "grace@example.org"]
     }},
    {"create_order",
     %{
       "customer" => %{
         "name" => "Ada",
         "email" => "ada@example.com",
         "address" => %{"street" => "1 Main St", "city" => "Springfield", "zip" => "12345"}
       },
       "items" => [%{"sku" => "A-1", "quantity" => 2}]
     }}
  ]
  |> Enum.map(fn {name, arguments} -> {schema_of[name], arguments} end)

sets = [
  {"MCP sample (bench/beam.exs's: the recorded calls of the tools without $ref, allOf, ...)",
   BenchSupport.mcp_calls()},
  {"every recorded call of a catalog tool (fixtures/calls.jsonl)", every_call},
  {"the catalog's tools with a format, one call each with every format field filled (written for this bench)",
   filled}
]

IO.puts("""
## Backplane.JSONSchema.validate/2: formats: :annotate against formats: :assert

ns per call, median / p99 of batch means; the ratio is assert / annotate of the medians.
""")

header = """
| calls of | calls | annotate median | annotate p99 | assert median | assert p99 | assert / annotate |
|---|---:|---:|---:|---:|---:|---:|\
"""

for {title, calls} <- sets do
  IO.puts("### #{title}\n")
  IO.puts(header)

  compiled =
    for {schema, arguments} <- calls do
      {:ok, annotate} = JSONSchema.compile(schema, formats: :annotate)
      {:ok, assert} = JSONSchema.compile(schema, formats: :assert)
      # Every call of these sets has the same verdict both ways.
      verdict = JSONSchema.valid?(annotate, arguments)
      ^verdict = JSONSchema.valid?(assert, arguments)
      {name_of[schema], schema, annotate, assert, arguments}
    end

  FormatsBench.ratio_rows(compiled, &JSONSchema.validate/2, "**all**")
  IO.puts("")
end

# --- The gateway -----------------------------------------------------------

IO.puts("""
## The gateway (Backplane.AgentRuntime.InputSchema): compile/1 against compile(schema, formats: :assert), validate/2

ns per call, median / p99 of batch means; the ratio is assert / default of the medians.
""")

for {title, calls} <- sets do
  # The calls whose schema the gateway compiles.
  compiled =
    for {schema, arguments} <- calls,
        {:ok, default} <- [InputSchema.compile(schema)],
        {:ok, assert} <- [InputSchema.compile(schema, formats: :assert)] do
      verdict = elem(InputSchema.validate(default, arguments), 0)
      ^verdict = elem(InputSchema.validate(assert, arguments), 0)
      {name_of[schema], schema, default, assert, arguments}
    end

  IO.puts("### #{title}: #{length(compiled)} of #{length(calls)} calls compile\n")
  IO.puts(String.replace(header, "annotate", "default"))

  FormatsBench.ratio_rows(compiled, &InputSchema.validate/2, "**all**, compiled")
  n = length(compiled)

  pair =
    FormatsBench.measure_pair(
      fn ->
        Enum.each(compiled, &InputSchema.validate(elem(&1, 1), elem(&1, 4), formats: :annotate))
      end,
      fn ->
        Enum.each(compiled, &InputSchema.validate(elem(&1, 1), elem(&1, 4), formats: :assert))
      end,
      max(div(400, n), 20),
      300,
      n
    )

  FormatsBench.pair_row("**all**, schema maps (validate/3, formats: :annotate)", n, pair)
  IO.puts("")
end

# --- Each format through the NIF ------------------------------------------

IO.puts("""
## Each format through the NIF: valid?/2 on {"format": F}

Medians / p99 of batch means; "annotate" is the same call on the schema
compiled `formats: :annotate`, which does not read the string, and "over
annotate" the difference of the medians: for a typical string, the check
and its charge; for a 1 MiB string, also its UTF-8 check and the hop to a
dirty scheduler (its charge is over the inline budget). "1 MiB inline
half" is how long the NIF's inline half holds the calling scheduler before
it answers `:dirty` (median of 21).

| format | string | assert median | assert p99 | annotate median | over annotate | 1 MiB assert median | 1 MiB assert p99 | 1 MiB annotate median | 1 MiB over annotate | ns/byte over annotate | 1 MiB valid | 1 MiB inline half |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\
""")

for {format, typical, large} <- FormatsBench.strings() do
  schema = %{"format" => format}
  {:ok, assert} = JSONSchema.compile(schema, formats: :assert)
  {:ok, annotate} = JSONSchema.compile(schema, formats: :annotate)
  true = JSONSchema.valid?(assert, typical)

  {{a_median, _}, {b_median, b_p99}} =
    FormatsBench.measure_pair(
      fn -> JSONSchema.valid?(annotate, typical) end,
      fn -> JSONSchema.valid?(assert, typical) end,
      1000,
      200
    )

  large_cells =
    case large do
      nil ->
        "| | | | | | | |"

      large ->
        valid = JSONSchema.valid?(assert, large)

        {{la_median, _}, {lb_median, lb_p99}} =
          FormatsBench.measure_pair(
            fn -> JSONSchema.valid?(annotate, large) end,
            fn -> JSONSchema.valid?(assert, large) end,
            1,
            if(format == "regex", do: 15, else: 61)
          )

        per_byte = FormatsBench.fixed(max(lb_median - la_median, 0) / byte_size(large))

        # The inline half alone: how long the call holds the calling
        # scheduler before it answers `:dirty`.
        :dirty = Native.json_schema_validate(assert.resource, large, :valid)

        {inline_median, _} =
          BenchSupport.measure(
            fn -> Native.json_schema_validate(assert.resource, large, :valid) end,
            1,
            21
          )

        "| #{FormatsBench.human(lb_median)} | #{FormatsBench.human(lb_p99)} | #{FormatsBench.human(la_median)} | #{FormatsBench.human(lb_median - la_median)} | #{per_byte} | #{if valid, do: "yes", else: "no"} | #{FormatsBench.human(inline_median)} |"
    end

  shown = if String.length(typical) > 60, do: "#{byte_size(typical)} bytes", else: "`#{typical}`"

  IO.puts(
    "| #{format} | #{shown} | #{FormatsBench.human(b_median)} | #{FormatsBench.human(b_p99)} | #{FormatsBench.human(a_median)} | #{FormatsBench.human(b_median - a_median)} #{large_cells}"
  )
end

# --- Within the inline budget ----------------------------------------------

# Host names of three A-labels of 57 code points (191 bytes): among the
# `hostname` strings the Rust bench finds slowest per byte. How many of
# them fit in the inline budget of 1,000 units depends on what the walk
# charges for each (`Format::units`): the table shows where the inline
# half stops deciding.
label = "xn--ngbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
host = Enum.join([label, label, label], ".")

hosts_schema = %{
  "type" => "object",
  "properties" => %{
    "hosts" => %{"type" => "array", "items" => %{"type" => "string", "format" => "hostname"}}
  }
}

{:ok, standard} = JSONSchema.compile(hosts_schema, formats: :assert)

gateway =
  if function_exported?(InputSchema, :compile, 2) do
    {:ok, gateway} = InputSchema.compile(hosts_schema, formats: :assert)
    gateway
  end

IO.puts("""

## Within the inline budget: host names of 57-code-point A-labels

`#{byte_size(host)}`-byte host names (three A-labels of 57 code points each) under
`"format": "hostname"`, asserted. "inline half" is what the NIF's inline
half answers for `valid?/2` (a verdict: decided on the calling scheduler;
`:dirty`: handed to a dirty scheduler). Medians / p99 of batch means.

| host names | inline half | valid?/2 median | valid?/2 p99 | gateway validate/2 median |
|---:|---|---:|---:|---:|\
""")

for n <- [1, 2, 3, 10, 40, 70, 75] do
  arguments = %{"hosts" => List.duplicate(host, n)}
  inline = Native.json_schema_validate(standard.resource, arguments, :valid)
  batch = max(div(200, n), 2)

  {median, p99} =
    BenchSupport.measure(fn -> JSONSchema.valid?(standard, arguments) end, batch, 30)

  gateway_cell =
    case gateway do
      nil ->
        "option not available"

      gateway ->
        {:ok, _} = InputSchema.validate(gateway, arguments)

        {g_median, _} =
          BenchSupport.measure(fn -> InputSchema.validate(gateway, arguments) end, batch, 30)

        FormatsBench.human(g_median)
    end

  IO.puts(
    "| #{n} | #{inspect(inline)} | #{FormatsBench.human(median)} | #{FormatsBench.human(p99)} | #{gateway_cell} |"
  )
end
