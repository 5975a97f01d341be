# Excluded unless asked for:
#
#   :host, :prebuilt  the host scenarios and the prebuilt-NIF rows
#                     (scripts/suite runs them with --only)
#   :fetched          tests reading material a script fetches: the official
#                     JSON-Schema-Test-Suite (fetched: :json_schema_suite,
#                     scripts/json_schema_suite) and the real-schema corpus
#                     (fetched: :real_schemas, scripts/real_schemas). Each is
#                     included by `mix test --include fetched`, or by setting
#                     its variable, JSON_SCHEMA_SUITE or REAL_SCHEMAS_CORPUS
#   :bowtie           the Bowtie harness (`mix test --include bowtie`)
#
# INPUT_SCHEMA_TEST_INCLUDE, a comma-separated list of those tags, includes
# them too; scripts/test sets it to fetched on every platform and runs the
# Bowtie harness once, with --only bowtie.
included =
  (System.get_env("INPUT_SCHEMA_TEST_INCLUDE") || "")
  |> String.split(",", trim: true)
  |> Enum.map(&String.trim/1)

set? = fn name -> System.get_env(name) not in [nil, ""] end

optional =
  [
    {:fetched, :json_schema_suite, set?.("JSON_SCHEMA_SUITE")},
    {:fetched, :real_schemas, set?.("REAL_SCHEMAS_CORPUS")},
    {:bowtie, nil, false}
  ]
  |> Enum.reject(fn {tag, _, set} -> set or Atom.to_string(tag) in included end)
  |> Enum.map(fn
    {tag, nil, _} -> tag
    {tag, value, _} -> {tag, value}
  end)

if optional != [] do
  IO.puts(
    "Not run unless included: #{inspect(optional)} " <>
      "(mix test --include fetched --include bowtie, or set JSON_SCHEMA_SUITE and " <>
      "REAL_SCHEMAS_CORPUS; scripts/test runs them all)"
  )
end

ExUnit.start(
  exclude: [:host, :prebuilt | optional],
  formatters: [ExUnit.CLIFormatter, Backplane.AgentRuntime.InputSchema.SummaryFormatter]
)
