defmodule Mix.Tasks.InputSchema.CheckStandardTest do
  use ExUnit.Case, async: false

  import ExUnit.CaptureIO

  alias Backplane.AgentRuntime.InputSchema.{Catalog, JSON}

  @fixtures Path.expand("../../../fixtures", __DIR__)
  @standard Path.join(@fixtures, "checker/standard.json")
  @usage "usage: mix input_schema.check CATALOG [--calls CALLS] [--format text|json] [--standard [--dialect DIALECT]]\n"

  # Runs the task; returns {exit status, stdout, stderr}.
  defp run(args) do
    Mix.shell(Mix.Shell.IO)
    parent = self()

    stderr =
      capture_io(:stderr, fn ->
        stdout =
          capture_io(fn ->
            status =
              try do
                Mix.Tasks.InputSchema.Check.run(args)
                0
              catch
                :exit, {:shutdown, status} -> status
              end

            send(parent, {:status, status})
          end)

        send(parent, {:stdout, stdout})
      end)

    assert_received {:status, status}
    assert_received {:stdout, stdout}
    {status, stdout, stderr}
  end

  @unresolved "reference https://example.com/schemas/a.json resolves to nothing in the schema, its resources or the built-in metaschemas"

  defp below_zero(metaschema),
    do:
      "schema does not conform to its metaschema #{metaschema}: at \"/properties/q/minLength\": instance is less than the minimum 0"

  test "without --standard the table is the gateway's alone" do
    assert run([@standard]) ==
             {1,
              """
              TOOL        STATUS       DETAIL
              search      supported
              fetch       unsupported  keyword "if" at /if
              remote_ref  unsupported  keyword "$ref" at /properties/a/$ref
              bad_length  malformed    schema minLength must be a non-negative integer at /properties/q/minLength

              4 tools: 1 supported, 2 unsupported, 1 malformed
              """, ""}
  end

  test "--standard adds the standard entry point's verdict to each tool and the summary" do
    assert run([@standard, "--standard"]) ==
             {1,
              """
              TOOL        STATUS       STANDARD  DETAIL
              search      supported    compiles
              fetch       unsupported  compiles  keyword "if" at /if
              remote_ref  unsupported  fails     keyword "$ref" at /properties/a/$ref; standard: unresolved_reference at /properties/a/$ref: #{@unresolved}
              bad_length  malformed    fails     schema minLength must be a non-negative integer at /properties/q/minLength; standard: metaschema at /properties/q/minLength: #{below_zero("https://json-schema.org/draft/2020-12/schema")}

              4 tools: 1 supported, 2 unsupported, 1 malformed; standard: 2 of 4 compile (draft2020_12)
              """, ""}
  end

  test "--dialect chooses the standard entry point's dialect" do
    {1, stdout, ""} = run([@standard, "--standard", "--dialect", "draft7"])

    assert stdout =~
             "; standard: metaschema at /properties/q/minLength: #{below_zero("http://json-schema.org/draft-07/schema")}\n"

    assert stdout =~
             "\n4 tools: 1 supported, 2 unsupported, 1 malformed; standard: 2 of 4 compile (draft7)\n"
  end

  test "--standard --format json carries the verdict in each tool record and the summary" do
    {1, stdout, ""} = run([@standard, "--standard", "--format", "json"])

    assert JSON.decode(stdout) ==
             {:ok,
              %{
                "catalog" => @standard,
                "calls" => nil,
                "summary" => %{
                  "tools" => 4,
                  "supported" => 1,
                  "unsupported" => 2,
                  "malformed" => 1,
                  "standard" => %{"dialect" => "draft2020_12", "compiles" => 2}
                },
                "tools" => [
                  %{
                    "name" => "search",
                    "status" => "supported",
                    "standard" => %{"compiles" => true}
                  },
                  %{
                    "name" => "fetch",
                    "status" => "unsupported",
                    "class" => "unsupported_capability",
                    "message" => "schema keyword is unsupported",
                    "keyword" => "if",
                    "pointer" => "/if",
                    "standard" => %{"compiles" => true}
                  },
                  %{
                    "name" => "remote_ref",
                    "status" => "unsupported",
                    "class" => "unsupported_capability",
                    "message" => "schema keyword is unsupported",
                    "keyword" => "$ref",
                    "pointer" => "/properties/a/$ref",
                    "standard" => %{
                      "compiles" => false,
                      "reason" => "unresolved_reference",
                      "pointer" => "/properties/a/$ref",
                      "message" => @unresolved
                    }
                  },
                  %{
                    "name" => "bad_length",
                    "status" => "malformed",
                    "class" => "validation",
                    "message" => "schema minLength must be a non-negative integer",
                    "pointer" => "/properties/q/minLength",
                    "standard" => %{
                      "compiles" => false,
                      "reason" => "metaschema",
                      "pointer" => "/properties/q/minLength",
                      "message" => below_zero("https://json-schema.org/draft/2020-12/schema")
                    }
                  }
                ]
              }}
  end

  @calls """
  {"name": "search", "arguments": {"q": "x"}}
  {"name": "search", "arguments": {"q": ""}}
  {"name": "fetch", "arguments": {"mode": "url", "url": "https://example.com"}}
  {"name": "fetch", "arguments": {"mode": "url", "path": "a.txt"}}
  {"name": "remote_ref", "arguments": {}}
  {"name": "nope", "arguments": {}}
  """

  test "--standard --calls says whether each call is valid under the standard entry point" do
    calls = Backplane.Test.Scratch.path!("input_schema_check_standard", ".jsonl")

    File.write!(calls, @calls)
    on_exit(fn -> File.rm(calls) end)

    {1, stdout, ""} = run([@standard, "--standard", "--calls", calls])

    assert stdout =~ """
           4 tools: 1 supported, 2 unsupported, 1 malformed; standard: 2 of 4 compile (draft2020_12)

           CALLS
           line 1  search  accepted  standard: valid
           line 2  search  rejected  standard: invalid
               $arguments.q: tool argument is shorter than the minimum length (minLength: 1)
           line 3  fetch  unsupported_tool  standard: valid
           line 4  fetch  unsupported_tool  standard: invalid
           line 5  remote_ref  unsupported_tool  standard: not_compiled
           line 6  nope  unknown_tool  standard: unknown_tool

           6 calls: 1 accepted, 5 rejected; standard: 2 of 6 valid
           """

    {1, stdout, ""} = run([@standard, "--standard", "--calls", calls, "--format", "json"])
    {:ok, report} = JSON.decode(stdout)

    assert Enum.map(report["calls"], &{&1["line"], &1["name"], &1["status"], &1["standard"]}) ==
             [
               {1, "search", "accepted", "valid"},
               {2, "search", "rejected", "invalid"},
               {3, "fetch", "unsupported_tool", "valid"},
               {4, "fetch", "unsupported_tool", "invalid"},
               {5, "remote_ref", "unsupported_tool", "not_compiled"},
               {6, "nope", "unknown_tool", "unknown_tool"}
             ]

    assert report["summary"]["standard"] == %{
             "dialect" => "draft2020_12",
             "compiles" => 2,
             "valid" => 2
           }

    # Without --standard the call records are the gateway's alone.
    {1, stdout, ""} = run([@standard, "--calls", calls, "--format", "json"])
    {:ok, report} = JSON.decode(stdout)
    refute Enum.any?(report["calls"], &Map.has_key?(&1, "standard"))
    refute Map.has_key?(report["summary"], "standard")
  end

  test "the exit status stays the gateway's" do
    assert {0, stdout, ""} = run([Path.join(@fixtures, "checker/supported.json"), "--standard"])
    assert stdout =~ "1 tools: 1 supported, 0 unsupported, 0 malformed; standard: 1 of 1 compile"

    {0, stdout, ""} =
      run([
        Path.join(@fixtures, "mcp_catalog.json"),
        "--standard",
        "--calls",
        Path.join(@fixtures, "calls.jsonl")
      ])

    assert stdout =~
             "54 tools: 54 supported, 0 unsupported, 0 malformed; standard: 54 of 54 compile"

    assert stdout =~ "19 calls: 8 accepted, 11 rejected; standard: 8 of 19 valid"
  end

  test "a tool entry without an inputSchema fails under the standard entry point too" do
    {1, stdout, ""} = run([Path.join(@fixtures, "checker/mixed.json"), "--standard"])

    assert stdout =~
             "\n#5           malformed    fails     tool entry must be an object with a string name and an inputSchema; standard: no_input_schema: tool entry has no inputSchema\n"

    assert stdout =~ "; standard: 1 of 6 compile (draft2020_12)\n"
  end

  test "a wrong --dialect, or --dialect without --standard, is a usage error" do
    assert run([@standard, "--standard", "--dialect", "draft8"]) ==
             {2, "",
              "--dialect must be draft2020_12, draft2019_09, draft7, draft6, draft4\n" <> @usage}

    assert run([@standard, "--dialect", "draft7"]) ==
             {2, "", "--dialect applies only with --standard\n" <> @usage}

    assert {2, "", @usage} = run([@standard, "--standard", "--dialect"])
  end

  test "Catalog.parse_dialect/1 reads the five dialect names and nothing else" do
    for name <- Catalog.dialect_names() do
      assert {:ok, dialect} = Catalog.parse_dialect(name)
      assert Atom.to_string(dialect) == name
    end

    assert Catalog.dialect_names() == [
             "draft2020_12",
             "draft2019_09",
             "draft7",
             "draft6",
             "draft4"
           ]

    message = "--dialect must be draft2020_12, draft2019_09, draft7, draft6, draft4"
    assert Catalog.parse_dialect("Draft7") == {:error, message}
    assert Catalog.parse_dialect("") == {:error, message}
  end
end
