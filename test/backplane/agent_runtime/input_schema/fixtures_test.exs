defmodule Backplane.AgentRuntime.InputSchema.FixturesTest do
  use ExUnit.Case, async: true

  import Backplane.AgentRuntime.InputSchema.ContractAssertions

  alias Backplane.AgentRuntime.InputSchema.Fixtures
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
          ~w($schema x-mcp-header format contentEncoding default enum minimum maximum oneOf anyOf not items additionalProperties pattern minLength minItems maxItems $ref $defs definitions allOf prefixItems additionalItems uniqueItems propertyNames dependentRequired) do
      assert text =~ ~s("#{keyword}"), "catalog does not use #{keyword}"
    end
  end

  @address %{"street" => "1 Main St", "city" => "Springfield", "zip" => "12345"}

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
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.sql"}}},
    # Section 9 shapes: Pydantic $defs, zod JSON Pointer recursion, draft-07
    # tuples, an allOf wrapper, uniqueItems/propertyNames/dependentRequired.
    {"create_order",
     %{
       "customer" => %{"name" => "Ada", "address" => @address},
       "items" => [%{"sku" => "A-1"}],
       "shipping" => nil
     }, :ok},
    {"create_order",
     %{
       "customer" => %{"name" => "Ada", "address" => @address},
       "items" => [%{"sku" => "A-1"}],
       "shipping" => @address
     }, :ok},
    {"create_order",
     %{
       "customer" => %{"name" => "Ada", "address" => Map.delete(@address, "city")},
       "items" => [%{"sku" => "A"}]
     },
     {:validation, "required tool argument is missing",
      %{path: "$arguments.customer.address", property: "city"}}},
    {"create_order",
     %{
       "customer" => %{"name" => "Ada", "address" => @address},
       "items" => [%{"sku" => "A", "quantity" => 0}]
     },
     {:validation, "tool argument is not above the exclusive minimum",
      %{path: "$arguments.items[0].quantity", exclusiveMinimum: 0}}},
    {"create_order",
     %{
       "customer" => %{"name" => "Ada", "address" => @address},
       "items" => [%{"sku" => "A"}],
       "shipping" => "home"
     },
     {:validation, "tool argument must match at least one anyOf branch",
      %{path: "$arguments.shipping"}}},
    {"update_mind_map",
     %{
       "title" => "t",
       "root" => %{
         "text" => "a",
         "children" => [%{"text" => "b", "children" => [%{"text" => "c"}]}]
       }
     }, :ok},
    {"update_mind_map",
     %{
       "title" => "t",
       "root" => %{
         "text" => "a",
         "children" => [%{"text" => "b", "children" => [%{"text" => 3}]}]
       }
     },
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.root.children[0].children[0].text", type: "string"}}},
    {"update_mind_map",
     %{"title" => "t", "root" => %{"text" => "a", "children" => [%{"note" => "x"}]}},
     {:validation, "required tool argument is missing",
      %{path: "$arguments.root.children[0]", property: "text"}}},
    {"set_viewport", %{"origin" => [0, 0.5], "size" => [1, 1]}, :ok},
    {"set_viewport", %{"origin" => [0]},
     {:validation, "tool argument has too few items", %{path: "$arguments.origin", minItems: 2}}},
    {"set_viewport", %{"origin" => [0, 0, 0]},
     {:validation, "tool argument is not allowed", %{path: "$arguments.origin[2]"}}},
    {"set_viewport", %{"origin" => ["0", 0]},
     {:validation, "tool argument has the wrong type",
      %{path: "$arguments.origin[0]", type: "number"}}},
    {"deploy_service", %{"service" => "api", "config" => %{"image" => "i"}}, :ok},
    {"deploy_service", %{"service" => "api", "config" => %{"image" => "i", "replicas" => 51}},
     {:validation, "tool argument is above the maximum",
      %{path: "$arguments.config.replicas", maximum: 50}}},
    {"deploy_service",
     %{"service" => "api", "config" => %{"image" => "i"}, "environment" => "dev"},
     {:validation, "tool argument is not an allowed enum value",
      %{path: "$arguments.environment"}}},
    {"label_resources",
     %{"ids" => ["a", "b"], "labels" => %{"env" => "prod"}, "position" => [0, 1]}, :ok},
    {"label_resources", %{"ids" => ["a", "a"]},
     {:validation, "tool argument has duplicate items", %{path: "$arguments.ids"}}},
    {"label_resources", %{"ids" => ["a"], "labels" => %{"Env" => "prod"}},
     {:validation, "tool argument property name is not allowed",
      %{path: "$arguments.labels", property: "Env"}}},
    {"label_resources", %{"ids" => ["a"], "notify" => true},
     {:validation, "required tool argument is missing",
      %{path: "$arguments", property: "channel"}}},
    {"label_resources", %{"ids" => ["a"], "position" => [0, 1, 2]},
     {:validation, "tool argument is not allowed", %{path: "$arguments.position[2]"}}}
  ]

  test "catalog calls are accepted or rejected as their schemas say" do
    for {tool, arguments, expected} <- @catalog_calls do
      assert_result(InputSchema.validate(@catalog[tool], arguments), expected, arguments, tool)
    end
  end

  @extended Fixtures.tools!("extended_catalog.json")

  test "the Pydantic, zod-to-json-schema and Go shaped catalog is accepted in full" do
    assert map_size(@extended) == 8

    for {name, schema} <- @extended do
      assert InputSchema.validate_schema(schema) == :ok, name
    end

    text = File.read!(Fixtures.path("extended_catalog.json"))

    for keyword <- ~w(title exclusiveMinimum exclusiveMaximum maxLength const) do
      assert text =~ ~s("#{keyword}"), "catalog does not use #{keyword}"
    end

    assert text =~ ~S("pattern": "^\\d{5})
  end

  @extended_calls [
    {"search_issues", %{"query" => "crash", "limit" => 100, "state" => nil, "labels" => ["bug"]},
     :ok},
    {"search_issues", %{"query" => "crash", "limit" => 0},
     {:validation, "tool argument is not above the exclusive minimum",
      %{path: "$arguments.limit", exclusiveMinimum: 0}}},
    {"search_issues", %{"query" => String.duplicate("é", 257)},
     {:validation, "tool argument is longer than the maximum length",
      %{path: "$arguments.query", maxLength: 256}}},
    {"search_issues", %{"query" => "x", "state" => "merged"},
     {:validation, "tool argument must match at least one anyOf branch",
      %{path: "$arguments.state"}}},
    {"get_weather",
     %{"latitude" => 48.85, "longitude" => 2.35, "units" => "metric", "zip" => "75001-1234"},
     :ok},
    {"get_weather", %{"latitude" => 48.85, "longitude" => 2.35, "units" => "imperial"},
     {:validation, "tool argument is not the allowed constant value", %{path: "$arguments.units"}}},
    {"get_weather", %{"latitude" => 1, "longitude" => 2, "zip" => "٧٥٠٠١"},
     {:validation, "tool argument must match at least one anyOf branch",
      %{path: "$arguments.zip"}}},
    {"create_event",
     %{"title" => "Sync", "date" => "2026-12-01", "duration_minutes" => 30, "kind" => "meeting"},
     :ok},
    {"create_event",
     %{
       "title" => "Sync",
       "date" => "2026-12-01",
       "duration_minutes" => 1440,
       "kind" => "meeting"
     },
     {:validation, "tool argument is not below the exclusive maximum",
      %{path: "$arguments.duration_minutes", exclusiveMaximum: 1440}}},
    {"send_message",
     %{"channel" => "C0123456", "text" => "deploy done", "thread_ts" => "1700000000.000100"},
     :ok},
    {"send_message", %{"channel" => "general", "text" => "hi"},
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.channel"}}},
    {"send_message", %{"channel" => "C0123456", "text" => "hi", "priority" => 0.0},
     {:validation, "tool argument is not above the exclusive minimum",
      %{path: "$arguments.priority", exclusiveMinimum: 0}}},
    {"run_query", %{"mode" => "write", "sql" => "DELETE FROM t"},
     {:validation, "tool argument is not the allowed constant value", %{path: "$arguments.mode"}}},
    {"upload", %{"target" => %{"type" => "folder", "id" => "42"}, "size" => 10}, :ok},
    {"upload", %{"target" => %{"type" => "folder", "id" => "4a"}, "size" => 10},
     {:validation, "tool argument must match at least one anyOf branch",
      %{path: "$arguments.target"}}},
    {"lookup_order", %{"order_id" => "ORD-20261130"}, :ok},
    {"lookup_order", %{"order_id" => "ORD-2026113"},
     {:validation, "tool argument does not match the pattern", %{path: "$arguments.order_id"}}},
    {"set_thermostat", %{"room" => "kitchen", "celsius" => 30},
     {:validation, "tool argument is not below the exclusive maximum",
      %{path: "$arguments.celsius", exclusiveMaximum: 30}}}
  ]

  test "the extended catalog's argument checks are enforced" do
    for {tool, arguments, expected} <- @extended_calls do
      assert_result(InputSchema.validate(@extended[tool], arguments), expected, arguments, tool)
    end
  end
end
