defmodule Backplane.AgentRuntime.InputSchema.Catalog do
  @moduledoc false
  # Internal (docs/adoption.md, "What the library defines"): callers use
  # `mix input_schema.check` (docs/checker.md).
  #
  # Answers "which tools of this MCP server will the gateway accept, and why
  # not?" and "why was this call rejected, completely?": reads a catalog and
  # recorded calls from JSON, checks them with `InputSchema`, and renders a
  # report as a table or as JSON. `mix input_schema.check` is its command line.
  #
  # A catalog is an MCP `tools/list` result (`{"tools": [...]}`), a JSON array
  # of tools, or JSON lines with one tool per line; each tool has `name` and
  # `inputSchema`. Calls are JSON lines of `{"name": ..., "arguments": ...}`.
  #
  # Beside the gateway's verdict, the report can carry what the standard entry
  # point, `Backplane.JSONSchema`, makes of each tool (`standard_schemas/2`,
  # `with_standard/2`, `with_standard_calls/3`): whether its `inputSchema`
  # compiles in a given dialect, and whether each call is valid against it.
  # The gateway's verdict alone decides `all_supported?/1`.

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, Compiled}

  @dialects [:draft2020_12, :draft2019_09, :draft7, :draft6, :draft4]

  @typedoc "One tool's verdict."
  @type tool_result :: %{
          required(:name) => String.t(),
          required(:status) => :supported | :unsupported | :malformed,
          optional(:class) => atom(),
          optional(:message) => String.t(),
          optional(:pointer) => String.t(),
          optional(:keyword) => term(),
          optional(:type) => term(),
          optional(:standard) => standard_verdict()
        }

  @typedoc """
  What the standard entry point makes of a tool's `inputSchema`: it
  compiles, or the `Backplane.JSONSchema.CompileError`'s reason, pointer
  (`nil` if none) and message. A tool entry without an `inputSchema` has
  the reason `:no_input_schema`.
  """
  @type standard_verdict ::
          %{required(:compiles) => true}
          | %{
              required(:compiles) => false,
              required(:reason) => atom(),
              required(:pointer) => String.t() | nil,
              required(:message) => String.t()
            }

  @typedoc "A dialect of the standard entry point."
  @type dialect :: :draft2020_12 | :draft2019_09 | :draft7 | :draft6 | :draft4

  @typedoc """
  Each tool's `inputSchema` compiled by the standard entry point, in
  catalog order: the compiled schema, the compile error, or
  `:no_input_schema` for an entry without one.
  """
  @type standard_schema ::
          {String.t() | nil, {:ok, Compiled.t()} | {:error, CompileError.t()} | :no_input_schema}

  @typedoc "One recorded call's verdict."
  @type call_result :: %{
          required(:line) => pos_integer(),
          required(:name) => term(),
          required(:status) => :accepted | :rejected | :unknown_tool | :unsupported_tool,
          required(:errors) => [map()],
          optional(:standard) => :valid | :invalid | :not_compiled | :unknown_tool
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

  @doc """
  The dialect a `--dialect` value names (`"draft2020_12"`, `"draft2019_09"`,
  `"draft7"`, `"draft6"`, `"draft4"`), or a message that lists them.
  """
  @spec parse_dialect(String.t()) :: {:ok, dialect()} | {:error, String.t()}
  def parse_dialect(text) do
    case Enum.find(@dialects, &(Atom.to_string(&1) == text)) do
      nil -> {:error, "--dialect must be #{Enum.join(dialect_names(), ", ")}"}
      dialect -> {:ok, dialect}
    end
  end

  @doc "The dialects of the standard entry point, as `--dialect` spells them."
  @spec dialect_names() :: [String.t()]
  def dialect_names, do: Enum.map(@dialects, &Atom.to_string/1)

  @doc """
  Compiles every tool's `inputSchema` with the standard entry point,
  `Backplane.JSONSchema`, in `dialect` (a `$schema` in the schema wins), in
  catalog order. Each element pairs the tool's name (`nil` if it has none)
  with the outcome.
  """
  @spec standard_schemas([term()], dialect()) :: [standard_schema()]
  def standard_schemas(tools, dialect) when dialect in @dialects do
    Enum.map(tools, fn
      %{"inputSchema" => schema} = tool ->
        {string_name(tool), JSONSchema.compile(schema, dialect: dialect)}

      tool ->
        {string_name(tool), :no_input_schema}
    end)
  end

  defp string_name(%{"name" => name}) when is_binary(name), do: name
  defp string_name(_tool), do: nil

  @doc """
  Adds the standard entry point's verdict (`t:standard_verdict/0`) to each
  tool result, under `:standard`. `schemas` is `standard_schemas/2` of the
  same tools.
  """
  @spec with_standard([tool_result()], [standard_schema()]) :: [tool_result()]
  def with_standard(results, schemas) do
    Enum.zip_with(results, schemas, fn result, {_name, outcome} ->
      Map.put(result, :standard, standard_verdict(outcome))
    end)
  end

  defp standard_verdict({:ok, %Compiled{}}), do: %{compiles: true}

  defp standard_verdict({:error, %CompileError{} = error}),
    do: %{compiles: false, reason: error.reason, pointer: error.pointer, message: error.message}

  defp standard_verdict(:no_input_schema) do
    %{
      compiles: false,
      reason: :no_input_schema,
      pointer: nil,
      message: "tool entry has no inputSchema"
    }
  end

  @doc """
  Adds to each call result, under `:standard`, whether the call's arguments
  are valid against its tool's schema as the standard entry point compiled
  it (`Backplane.JSONSchema.valid?/2`): `:valid`, `:invalid`,
  `:not_compiled` (the tool's schema does not compile) or `:unknown_tool`.
  `calls` are the calls `call_results` were made from, and `schemas` is
  `standard_schemas/2` of the catalog's tools.
  """
  @spec with_standard_calls([call_result()], [{pos_integer(), term()}], [standard_schema()]) ::
          [call_result()]
  def with_standard_calls(call_results, calls, schemas) do
    by_name = for {name, outcome} <- schemas, is_binary(name), into: %{}, do: {name, outcome}

    Enum.zip_with(call_results, calls, fn result, {_line, call} ->
      name = if is_map(call), do: call["name"], else: nil
      arguments = if is_map(call), do: Map.get(call, "arguments", %{}), else: nil

      verdict =
        case Map.fetch(by_name, name) do
          {:ok, {:ok, compiled}} ->
            if JSONSchema.valid?(compiled, arguments), do: :valid, else: :invalid

          {:ok, _not_compiled} ->
            :not_compiled

          :error ->
            :unknown_tool
        end

      Map.put(result, :standard, verdict)
    end)
  end

  @doc """
  Builds the report: tool results, call results and a summary. With
  `standard: dialect` (the results carry the standard entry point's
  verdicts, `with_standard/2`), the summary also counts them under
  `:standard`: the dialect, how many tools compile and, with calls, how many
  are valid.
  """
  @spec report(String.t(), [tool_result()], [call_result()] | nil, keyword()) :: report()
  def report(catalog, tools, calls, opts \\ []) do
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

    summary =
      case Keyword.fetch(opts, :standard) do
        {:ok, dialect} -> Map.put(summary, :standard, standard_summary(dialect, tools, calls))
        :error -> summary
      end

    %{catalog: catalog, tools: tools, calls: calls, summary: summary}
  end

  defp standard_summary(dialect, tools, calls) do
    counts = %{dialect: dialect, compiles: Enum.count(tools, & &1.standard.compiles)}

    if calls do
      Map.put(counts, :valid, Enum.count(calls, &(&1.standard == :valid)))
    else
      counts
    end
  end

  @doc "Whether every tool is supported."
  @spec all_supported?(report()) :: boolean()
  def all_supported?(%{summary: summary}), do: summary.supported == summary.tools

  @doc "The report as a table for a terminal."
  @spec render_text(report()) :: String.t()
  def render_text(report) do
    width = report.tools |> Enum.map(&String.length(&1.name)) |> Enum.max(fn -> 4 end) |> max(4)
    standard = Map.get(report.summary, :standard)

    tool_rows =
      Enum.map(report.tools, fn tool ->
        [
          pad(tool.name, width),
          "  ",
          pad(Atom.to_string(tool.status), 11),
          "  ",
          if(standard, do: [pad(standard_column(tool.standard), 8), "  "], else: []),
          detail(tool, standard)
        ]
        |> IO.iodata_to_binary()
        |> String.trim_trailing()
      end)

    s = report.summary

    summary =
      "#{s.tools} tools: #{s.supported} supported, #{s.unsupported} unsupported, #{s.malformed} malformed" <>
        if(standard,
          do: "; standard: #{standard.compiles} of #{s.tools} compile (#{standard.dialect})",
          else: ""
        )

    header =
      if standard,
        do: "  STATUS       STANDARD  DETAIL",
        else: "  STATUS       DETAIL"

    lines = [pad("TOOL", width) <> header | tool_rows] ++ ["", summary]
    lines = if report.calls, do: lines ++ ["" | call_lines(report)], else: lines
    Enum.join(lines, "\n") <> "\n"
  end

  defp standard_column(%{compiles: true}), do: "compiles"
  defp standard_column(%{compiles: false}), do: "fails"

  defp detail(tool, nil), do: tool_detail(tool)

  defp detail(tool, _standard) do
    [tool_detail(tool), standard_detail(tool.standard)]
    |> Enum.reject(&(&1 == ""))
    |> Enum.join("; ")
  end

  defp standard_detail(%{compiles: true}), do: ""

  defp standard_detail(%{reason: reason, pointer: nil, message: message}),
    do: "standard: #{reason}: #{message}"

  defp standard_detail(%{reason: reason, pointer: pointer, message: message}),
    do: "standard: #{reason} at #{pointer_text(pointer)}: #{message}"

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
        head =
          "line #{call.line}  #{display_name(call.name)}  #{call.status}" <>
            case Map.fetch(call, :standard) do
              {:ok, verdict} -> "  standard: #{verdict}"
              :error -> ""
            end

        details =
          Enum.map(call.errors, fn error ->
            "    #{Map.get(error.details, :path, "")}: #{error.message}#{extra(error.details)}"
          end)

        [head | details]
      end)

    s = report.summary

    standard =
      case Map.fetch(s, :standard) do
        {:ok, %{valid: valid}} -> "; standard: #{valid} of #{s.calls} valid"
        :error -> ""
      end

    ["CALLS" | rows] ++
      ["", "#{s.calls} calls: #{s.accepted} accepted, #{s.rejected} rejected" <> standard]
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
