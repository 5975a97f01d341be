defmodule Mix.Tasks.InputSchema.Check do
  @shortdoc "Checks an MCP tool catalog (and recorded calls) against the InputSchema subset"
  @moduledoc """
  Reports which tools of an MCP catalog the gateway accepts, and why the
  others are refused; optionally validates recorded calls and lists every
  failure of each rejected one.

      mix input_schema.check CATALOG [--calls CALLS] [--format text|json]

  `CATALOG` is an MCP `tools/list` result (`{"tools": [...]}`), a JSON array
  of tools, or JSON lines of tools. `CALLS` is JSON lines of
  `{"name": ..., "arguments": ...}`.

  Exit status: 0 when every tool is supported, 1 when some tool is
  unsupported or malformed, 2 when a file cannot be read or is not valid
  JSON (the message names the line and column). Rejected calls are reported
  but do not change the status.
  """
  use Mix.Task

  alias Backplane.AgentRuntime.InputSchema.Catalog

  @switches [calls: :string, format: :string]

  @impl true
  def run(argv) do
    Mix.Task.run("compile", [])

    case OptionParser.parse(argv, strict: @switches) do
      {opts, [catalog], []} -> check(catalog, opts)
      _ -> fail(2, "usage: mix input_schema.check CATALOG [--calls CALLS] [--format text|json]")
    end
  end

  defp check(catalog, opts) do
    format = Keyword.get(opts, :format, "text")
    format in ["text", "json"] || fail(2, "--format must be text or json")

    with {:ok, tools} <- Catalog.load_tools(catalog),
         {:ok, calls} <- load_calls(opts[:calls]) do
      results = Catalog.check_tools(tools)
      call_results = calls && Catalog.check_calls(calls, tools, results)
      report = Catalog.report(catalog, results, call_results)

      output =
        if format == "json", do: Catalog.render_json(report), else: Catalog.render_text(report)

      IO.write(output)
      Catalog.all_supported?(report) || exit({:shutdown, 1})
      :ok
    else
      {:error, message} -> fail(2, message)
    end
  end

  defp load_calls(nil), do: {:ok, nil}
  defp load_calls(path), do: Catalog.load_calls(path)

  @spec fail(non_neg_integer(), String.t()) :: no_return()
  defp fail(status, message) do
    Mix.shell().error(message)
    exit({:shutdown, status})
  end
end
