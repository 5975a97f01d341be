defmodule Mix.Tasks.InputSchema.Check do
  @shortdoc "Checks an MCP tool catalog (and recorded calls) against the InputSchema subset"
  @moduledoc """
  Reports which tools of an MCP catalog the gateway accepts, and why the
  others are refused; optionally validates recorded calls and lists every
  failure of each rejected one.

      mix input_schema.check CATALOG [--calls CALLS] [--format text|json]
                                     [--standard [--dialect DIALECT]]

  `CATALOG` is an MCP `tools/list` result (`{"tools": [...]}`), a JSON array
  of tools, or JSON lines of tools. `CALLS` is JSON lines of
  `{"name": ..., "arguments": ...}`.

  `--standard` also reports each tool as the standard entry point,
  `Backplane.JSONSchema`, sees it: whether its `inputSchema` compiles in
  `DIALECT` (`draft2020_12`, the default, `draft2019_09`, `draft7`,
  `draft6` or `draft4`), or why not; with `--calls`, whether each call is
  valid against it.

  Exit status: 0 when every tool is supported, 1 when some tool is
  unsupported or malformed, 2 when a file cannot be read or is not valid
  JSON (the message names the line and column) or an option is wrong.
  Rejected calls, and the standard entry point's verdicts, are reported but
  do not change the status.
  """
  use Mix.Task

  alias Backplane.AgentRuntime.InputSchema.Catalog

  @switches [calls: :string, format: :string, standard: :boolean, dialect: :string]
  @usage "usage: mix input_schema.check CATALOG [--calls CALLS] [--format text|json] [--standard [--dialect DIALECT]]"

  @impl true
  def run(argv) do
    Mix.Task.run("compile", [])

    case OptionParser.parse(argv, strict: @switches) do
      {opts, [catalog], []} -> check(catalog, opts)
      _ -> fail(2, @usage)
    end
  end

  defp check(catalog, opts) do
    format = Keyword.get(opts, :format, "text")
    format in ["text", "json"] || fail(2, "--format must be text or json")
    dialect = dialect(opts)

    with {:ok, tools} <- Catalog.load_tools(catalog),
         {:ok, calls} <- load_calls(opts[:calls]) do
      results = Catalog.check_tools(tools)
      call_results = calls && Catalog.check_calls(calls, tools, results)
      {results, call_results} = standard(dialect, tools, calls, results, call_results)
      report = Catalog.report(catalog, results, call_results, report_options(dialect))

      output =
        if format == "json", do: Catalog.render_json(report), else: Catalog.render_text(report)

      IO.write(output)
      Catalog.all_supported?(report) || exit({:shutdown, 1})
      :ok
    else
      {:error, message} -> fail(2, message)
    end
  end

  # The standard entry point's dialect, or nil without --standard.
  defp dialect(opts) do
    case {Keyword.get(opts, :standard, false), Keyword.fetch(opts, :dialect)} do
      {false, :error} ->
        nil

      {false, {:ok, _}} ->
        fail(2, "--dialect applies only with --standard\n" <> @usage)

      {true, :error} ->
        :draft2020_12

      {true, {:ok, text}} ->
        case Catalog.parse_dialect(text) do
          {:ok, dialect} -> dialect
          {:error, message} -> fail(2, message <> "\n" <> @usage)
        end
    end
  end

  defp standard(nil, _tools, _calls, results, call_results), do: {results, call_results}

  defp standard(dialect, tools, calls, results, call_results) do
    schemas = Catalog.standard_schemas(tools, dialect)
    results = Catalog.with_standard(results, schemas)
    call_results = call_results && Catalog.with_standard_calls(call_results, calls, schemas)
    {results, call_results}
  end

  defp report_options(nil), do: []
  defp report_options(dialect), do: [standard: dialect]

  defp load_calls(nil), do: {:ok, nil}
  defp load_calls(path), do: Catalog.load_calls(path)

  @spec fail(non_neg_integer(), String.t()) :: no_return()
  defp fail(status, message) do
    Mix.shell().error(message)
    exit({:shutdown, status})
  end
end
