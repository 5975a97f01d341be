defmodule Backplane.AgentRuntime.InputSchema.FixturesTest do
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.ContractAssertions

  alias Backplane.AgentRuntime.Fixtures
  alias Backplane.AgentRuntime.InputSchema

  @coding Fixtures.tools!("coding_tools.json")
  @catalog Fixtures.tools!("mcp_catalog.json")

  test "the ten coding-tool schemas are all present, supported, and describe every property" do
    assert Enum.sort(Map.keys(@coding)) ==
             Enum.sort(~w(read grep bash glob write url_fetch edit ls ask_user_question todo))

    for {name, schema} <- @coding do
      assert InputSchema.validate_schema(schema) == :ok, name

      for {property, subschema} <- schema["properties"] do
        assert is_binary(subschema["description"]), "#{name}.#{property} has no description"
      end
    end
  end

  @accepted [
    {"read", %{"path" => "lib/app.ex"}},
    {"read", %{"path" => "lib/app.ex", "offset" => 1, "limit" => 200}},
    {"grep",
     %{
       "pattern" => "def \\w+",
       "path" => "lib",
       "glob" => "*.ex",
       "ignore_case" => true,
       "context" => 0,
       "limit" => 50
     }},
    {"bash", %{"command" => "mix test", "timeout" => 60_000}},
    {"bash", %{"command" => "ls", "timeout" => -1}},
    {"glob", %{"pattern" => "**/*.rs", "limit" => 10}},
    {"write", %{"path" => "a.txt", "content" => ""}},
    {"url_fetch", %{"url" => "https://hexdocs.pm", "max_length" => 1}},
    {"edit", %{"path" => "a.ex", "content" => "new", "old_content" => "old"}},
    {"ls", %{}},
    {"ls", %{"path" => ".", "limit" => 1}},
    {"ask_user_question", %{"question" => "Proceed?"}},
    {"ask_user_question",
     %{
       "question" => "Pick",
       "options" => ["yes", %{"label" => "No", "value" => "no", "description" => "Stop here"}],
       "allow_freeform" => false,
       "placeholder" => "…",
       "timeout_ms" => 1000
     }},
    {"todo", %{"action" => "add", "content" => "write tests"}},
    {"todo", %{"action" => "update", "id" => "3", "status" => "in_progress"}},
    {"todo", %{"action" => "clear"}}
  ]

  test "realistic coding-tool calls are accepted unchanged" do
    for {tool, arguments} <- @accepted do
      assert_result(InputSchema.validate(@coding[tool], arguments), :ok, arguments, tool)
    end
  end

  @rejected [
    {"read", %{},
     {:validation, "required tool argument is missing", %{path: "$arguments", property: "path"}}},
    {"read", %{"path" => "a", "offset" => 0},
     {:validation, "tool argument is below the minimum", %{path: "$arguments.offset", minimum: 1}}},
    {"read", %{"path" => "a", "limit" => 2.5},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.limit", type: "integer"}}},
    {"grep", %{"pattern" => "x", "context" => -1},
     {:validation, "tool argument is below the minimum",
      %{path: "$arguments.context", minimum: 0}}},
    {"grep", %{"pattern" => "x", "ignore_case" => "yes"},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.ignore_case", type: "boolean"}}},
    {"bash", %{"timeout" => 5},
     {:validation, "required tool argument is missing",
      %{path: "$arguments", property: "command"}}},
    {"glob", %{"pattern" => "*", "limit" => 0},
     {:validation, "tool argument is below the minimum", %{path: "$arguments.limit", minimum: 1}}},
    {"write", %{"path" => "a"},
     {:validation, "required tool argument is missing",
      %{path: "$arguments", property: "content"}}},
    {"url_fetch", %{"url" => "u", "max_length" => 0},
     {:validation, "tool argument is below the minimum",
      %{path: "$arguments.max_length", minimum: 1}}},
    {"edit", %{"path" => "a", "content" => 1},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.content", type: "string"}}},
    {"ls", %{"limit" => 0},
     {:validation, "tool argument is below the minimum", %{path: "$arguments.limit", minimum: 1}}},
    {"ask_user_question", %{"question" => "q", "timeout_ms" => 999},
     {:validation, "tool argument is below the minimum",
      %{path: "$arguments.timeout_ms", minimum: 1000}}},
    {"ask_user_question", %{"question" => "q", "options" => ["a", %{"value" => "b"}]},
     {:validation, "tool argument must match exactly one oneOf branch",
      %{path: "$arguments.options[1]"}}},
    {"ask_user_question", %{"question" => "q", "options" => [1]},
     {:validation, "tool argument must match exactly one oneOf branch",
      %{path: "$arguments.options[0]"}}},
    {"todo", %{"action" => "archive"},
     {:validation, "tool argument is not an allowed enum value", %{path: "$arguments.action"}}},
    {"todo", %{"action" => "update", "status" => "done"},
     {:validation, "tool argument is not an allowed enum value", %{path: "$arguments.status"}}},
    {"todo", %{"action" => :add},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.action", type: "string"}}}
  ]

  test "coding-tool bounds, types, oneOf items and enums are enforced" do
    for {tool, arguments, expected} <- @rejected do
      assert_result(InputSchema.validate(@coding[tool], arguments), expected, arguments, tool)
    end
  end

  test "the MCP catalog fixture is supported in full and uses the published shapes" do
    assert map_size(@catalog) >= 40

    for {name, schema} <- @catalog do
      assert InputSchema.validate_schema(schema) == :ok, name
    end

    text = File.read!(Fixtures.path("mcp_catalog.json"))

    for keyword <-
          ~w($schema x-mcp-header format contentEncoding default enum minimum maximum oneOf anyOf not items additionalProperties pattern minLength minItems maxItems) do
      assert text =~ ~s("#{keyword}"), "catalog does not use #{keyword}"
    end
  end

  @catalog_calls [
    {"create_issue",
     %{"owner" => "elixir-lang", "repo" => "elixir", "title" => "Bug", "labels" => ["bug"]}, :ok},
    {"create_issue", %{"owner" => "elixir lang", "repo" => "elixir", "title" => "Bug"},
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.owner"}}},
    {"create_issue", %{"owner" => "o", "repo" => "r", "title" => "t", "extra" => 1},
     {:validation, "additional tool argument is not allowed",
      %{path: "$arguments", property: "extra"}}},
    {"search_repositories", %{"query" => "rustler", "perPage" => 101},
     {:validation, "tool argument is above the maximum",
      %{path: "$arguments.perPage", maximum: 100}}},
    {"convert_time",
     %{"source_timezone" => "UTC", "time" => "24:00", "target_timezone" => "Europe/Paris"},
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.time"}}},
    {"convert_time",
     %{"source_timezone" => "UTC", "time" => "23:59", "target_timezone" => "Asia/Tokyo"}, :ok},
    {"divide", %{"dividend" => 1, "divisor" => 0.0},
     {:validation, "tool argument must not match the negated schema",
      %{path: "$arguments.divisor"}}},
    {"http_request", %{"url" => "https://x", "method" => "POST", "body" => %{"k" => [1]}}, :ok},
    {"http_request", %{"url" => "https://x", "method" => "POST", "body" => 1},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.body", type: ["string", "object", "array", "null"]}}},
    {"send_notification", %{"target" => %{"channel" => "#ops"}, "text" => "deploy"}, :ok},
    {"send_notification", %{"target" => %{"channel" => "#ops", "user" => "U1"}, "text" => "x"},
     {:validation, "tool argument must match exactly one oneOf branch",
      %{path: "$arguments.target"}}},
    {"schedule_event",
     %{"title" => "t", "start" => "s", "end" => "e", "recurrence" => %{"frequency" => "hourly"}},
     {:validation, "tool argument must match at least one anyOf branch",
      %{path: "$arguments.recurrence"}}},
    {"push_files",
     %{"owner" => "o", "repo" => "r", "branch" => "b", "message" => "m", "files" => []},
     {:validation, "tool argument has too few items", %{path: "$arguments.files", minItems: 1}}},
    {"fetch_with_headers", %{"url" => "u", "headers" => %{"Accept" => 1}},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.headers.Accept", type: "string"}}},
    {"query_database", %{"sql" => "  select 1"}, :ok},
    {"query_database", %{"sql" => "DROP TABLE x"},
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.sql"}}}
  ]

  test "catalog calls are accepted or rejected as their schemas say" do
    for {tool, arguments, expected} <- @catalog_calls do
      assert_result(InputSchema.validate(@catalog[tool], arguments), expected, arguments, tool)
    end
  end
end
