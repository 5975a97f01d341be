defmodule Backplane.AgentRuntime.InputSchema.Catalog do
  @moduledoc """
  Answers "which tools of this MCP server will the gateway accept, and why
  not?" and "why was this call rejected, completely?": reads a catalog and
  recorded calls from JSON, checks them with `InputSchema`, and renders a
  report as a table or as JSON. `mix input_schema.check` is its command line.

  A catalog is an MCP `tools/list` result (`{"tools": [...]}`), a JSON array
  of tools, or JSON lines with one tool per line; each tool has `name` and
  `inputSchema`. Calls are JSON lines of `{"name": ..., "arguments": ...}`.
  """

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.JSON

  @typedoc "One tool's verdict."
  @type tool_result :: %{
          required(:name) => String.t(),
          required(:status) => :supported | :unsupported | :malformed,
          optional(:class) => atom(),
          optional(:message) => String.t(),
          optional(:pointer) => String.t(),
          optional(:keyword) => term(),
          optional(:type) => term()
        }

  @typedoc "One recorded call's verdict."
  @type call_result :: %{
          required(:line) => pos_integer(),
          required(:name) => term(),
          required(:status) => :accepted | :rejected | :unknown_tool | :unsupported_tool,
          required(:errors) => [map()]
        }

  @typedoc "A whole report."
  @type report :: %{
          catalog: String.t(),
          tools: [tool_result()],
          calls: [call_result()] | nil,
          summary: map()
        }

  @doc """
  Reads the tools of a catalog file. Errors name the file, line and column.
  """
  @spec load_tools(Path.t()) :: {:ok, [map()]} | {:error, String.t()}
  def load_tools(path) do
    with {:ok, text} <- read(path) do
      case JSON.decode(text) do
        {:ok, %{"tools" => tools}} when is_list(tools) ->
          {:ok, tools}

        {:ok, tools} when is_list(tools) ->
          {:ok, tools}

        {:ok, %{"name" => _} = tool} ->
          {:ok, [tool]}

        {:ok, _} ->
          {:error, "#{path}: expected {\"tools\": [...]}, a JSON array of tools, or JSON lines"}

        {:error, %{details: %{reason: "trailing characters"}}} ->
          json_lines(path, text)

        {:error, error} ->
          {:error, location(path, error.details)}
      end
    end
  end

  @doc "Reads JSON lines of recorded calls, each `{\"name\": ..., \"arguments\": ...}`."
  @spec load_calls(Path.t()) :: {:ok, [{pos_integer(), term()}]} | {:error, String.t()}
  def load_calls(path) do
    with {:ok, text} <- read(path), do: numbered_json_lines(path, text)
  end

  @doc "Checks every tool's `inputSchema`, in catalog order."
  @spec check_tools([term()]) :: [tool_result()]
  def check_tools(tools) do
    tools
    |> Enum.with_index()
    |> Enum.map(fn {tool, index} -> check_tool(tool, index) end)
  end

  defp check_tool(%{"name" => name, "inputSchema" => schema}, _index) when is_binary(name) do
    case InputSchema.locate_schema_error(schema) do
      :ok ->
        %{name: name, status: :supported}

      {:error, error, pointer} ->
        status = if error.class == :unsupported_capability, do: :unsupported, else: :malformed

        %{
          name: name,
          status: status,
          class: error.class,
          message: error.message,
          pointer: pointer
        }
        |> Map.merge(Map.take(error.details, [:keyword, :type]))
    end
  end

  defp check_tool(tool, index) do
    name = if is_map(tool) and is_binary(tool["name"]), do: tool["name"], else: "##{index}"

    %{
      name: name,
      status: :malformed,
      class: :validation,
      message: "tool entry must be an object with a string name and an inputSchema"
    }
  end

  @doc """
  Validates recorded calls against the catalog's tools, reporting every
  failure of each rejected call.
  """
  @spec check_calls([{pos_integer(), term()}], [term()], [tool_result()]) :: [call_result()]
  def check_calls(calls, tools, results) do
    supported =
      for {tool, %{status: :supported, name: name}} <- Enum.zip(tools, results), into: %{} do
        {:ok, compiled} = InputSchema.compile(tool["inputSchema"])
        {name, compiled}
      end

    known = MapSet.new(results, & &1.name)

    Enum.map(calls, fn {line, call} ->
      name = if is_map(call), do: call["name"], else: nil
      arguments = if is_map(call), do: Map.get(call, "arguments", %{}), else: nil

      cond do
        Map.has_key?(supported, name) ->
          case InputSchema.validate(supported[name], arguments, errors: :all) do
            {:ok, _} -> %{line: line, name: name, status: :accepted, errors: []}
            {:error, error} -> %{line: line, name: name, status: :rejected, errors: listed(error)}
          end

        MapSet.member?(known, name) ->
          %{line: line, name: name, status: :unsupported_tool, errors: []}

        true ->
          %{line: line, name: name, status: :unknown_tool, errors: []}
      end
    end)
  end

  defp listed(%{details: %{errors: errors}}), do: errors
  defp listed(error), do: [%{class: error.class, message: error.message, details: error.details}]

  @doc "Builds the report: tool results, call results and a summary."
  @spec report(String.t(), [tool_result()], [call_result()] | nil) :: report()
  def report(catalog, tools, calls) do
    counts = Enum.frequencies_by(tools, & &1.status)

    summary = %{
      tools: length(tools),
      supported: Map.get(counts, :supported, 0),
      unsupported: Map.get(counts, :unsupported, 0),
      malformed: Map.get(counts, :malformed, 0)
    }

    summary =
      if calls do
        call_counts = Enum.frequencies_by(calls, & &1.status)

        Map.merge(summary, %{
          calls: length(calls),
          accepted: Map.get(call_counts, :accepted, 0),
          rejected: length(calls) - Map.get(call_counts, :accepted, 0)
        })
      else
        summary
      end

    %{catalog: catalog, tools: tools, calls: calls, summary: summary}
  end

  @doc "Whether every tool is supported."
  @spec all_supported?(report()) :: boolean()
  def all_supported?(%{summary: summary}), do: summary.supported == summary.tools

  @doc "The report as a table for a terminal."
  @spec render_text(report()) :: String.t()
  def render_text(report) do
    width = report.tools |> Enum.map(&String.length(&1.name)) |> Enum.max(fn -> 4 end) |> max(4)

    tool_rows =
      Enum.map(report.tools, fn tool ->
        [
          pad(tool.name, width),
          "  ",
          pad(Atom.to_string(tool.status), 11),
          "  ",
          tool_detail(tool)
        ]
        |> IO.iodata_to_binary()
        |> String.trim_trailing()
      end)

    s = report.summary

    summary =
      "#{s.tools} tools: #{s.supported} supported, #{s.unsupported} unsupported, #{s.malformed} malformed"

    lines = [pad("TOOL", width) <> "  STATUS       DETAIL" | tool_rows] ++ ["", summary]
    lines = if report.calls, do: lines ++ ["" | call_lines(report)], else: lines
    Enum.join(lines, "\n") <> "\n"
  end

  defp tool_detail(%{status: :supported}), do: ""

  defp tool_detail(%{keyword: keyword, pointer: pointer}),
    do: "keyword #{inspect(keyword)} at #{pointer_text(pointer)}"

  defp tool_detail(%{type: type, pointer: pointer}),
    do: "type #{inspect(type)} at #{pointer_text(pointer)}"

  defp tool_detail(%{message: message, pointer: pointer}),
    do: "#{message} at #{pointer_text(pointer)}"

  defp tool_detail(%{message: message}), do: message

  defp pointer_text(""), do: "the schema root"
  defp pointer_text(pointer), do: pointer

  defp call_lines(report) do
    rows =
      Enum.flat_map(report.calls, fn call ->
        head = "line #{call.line}  #{display_name(call.name)}  #{call.status}"

        details =
          Enum.map(call.errors, fn error ->
            "    #{Map.get(error.details, :path, "")}: #{error.message}#{extra(error.details)}"
          end)

        [head | details]
      end)

    s = report.summary
    ["CALLS" | rows] ++ ["", "#{s.calls} calls: #{s.accepted} accepted, #{s.rejected} rejected"]
  end

  defp display_name(name) when is_binary(name), do: name
  defp display_name(name), do: inspect(name)

  defp extra(details) do
    case Map.drop(details, [:path]) do
      empty when map_size(empty) == 0 ->
        ""

      rest ->
        " (" <>
          Enum.map_join(Enum.sort(rest), ", ", fn {k, v} -> "#{k}: #{inspect(v)}" end) <> ")"
    end
  end

  defp pad(text, width), do: String.pad_trailing(text, width)

  @doc "The report as JSON text, for CI pipelines."
  @spec render_json(report()) :: String.t()
  def render_json(report) do
    {:ok, text} = JSON.encode(report)
    text <> "\n"
  end

  defp read(path) do
    case File.read(path) do
      {:ok, text} -> {:ok, text}
      {:error, reason} -> {:error, "#{path}: #{:file.format_error(reason)}"}
    end
  end

  defp json_lines(path, text) do
    with {:ok, numbered} <- numbered_json_lines(path, text) do
      {:ok, Enum.map(numbered, &elem(&1, 1))}
    end
  end

  defp numbered_json_lines(path, text) do
    text
    |> String.split("\n")
    |> Enum.with_index(1)
    |> Enum.reject(fn {line, _} -> String.trim(line) == "" end)
    |> Enum.reduce_while({:ok, []}, fn {line, number}, {:ok, acc} ->
      case JSON.decode(line) do
        {:ok, value} ->
          {:cont, {:ok, [{number, value} | acc]}}

        {:error, error} ->
          {:halt, {:error, location(path, %{error.details | line: number})}}
      end
    end)
    |> case do
      {:ok, rows} -> {:ok, Enum.reverse(rows)}
      error -> error
    end
  end

  defp location(path, %{line: line, column: column, reason: reason}),
    do: "#{path}:#{line}:#{column}: invalid JSON: #{reason}"
end
