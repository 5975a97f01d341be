defmodule Mix.Tasks.InputSchema.CheckTest do
  use ExUnit.Case, async: false

  import ExUnit.CaptureIO

  alias Backplane.AgentRuntime.InputSchema.JSON

  @fixtures Path.expand("../../../fixtures", __DIR__)

  defp fixture(name), do: Path.join(@fixtures, name)

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

  @mixed_rows [
    "ok_tool      supported",
    "ref_tool     unsupported  keyword \"$ref\" at /properties/a/$ref",
    "date_tool    unsupported  type \"date\" at /properties/when/type",
    "bad_min      malformed    schema minimum must be a number at /properties/n/minimum",
    "null_schema  malformed    tool schema must be a map at the schema root",
    "#5           malformed    tool entry must be an object with a string name and an inputSchema"
  ]

  test "each catalog shape gives the same table and exit status 1" do
    for name <- ["checker/mixed.json", "checker/mixed_array.json", "checker/mixed.jsonl"] do
      {status, stdout, ""} = run([fixture(name)])
      assert status == 1, name
      lines = String.split(stdout, "\n")
      assert hd(lines) == "TOOL         STATUS       DETAIL"
      assert Enum.slice(lines, 1, 6) == @mixed_rows
      assert stdout =~ "\n6 tools: 1 supported, 2 unsupported, 3 malformed\n"
    end
  end

  test "a fully supported catalog exits 0" do
    {0, stdout, ""} = run([fixture("checker/supported.json")])
    assert stdout =~ "1 tools: 1 supported, 0 unsupported, 0 malformed"

    {0, stdout, ""} = run([fixture("mcp_catalog.json")])
    assert stdout =~ "54 tools: 54 supported, 0 unsupported, 0 malformed"
  end

  test "--format json parses back with every verdict and the calls" do
    {1, stdout, ""} =
      run([
        fixture("checker/mixed.json"),
        "--format",
        "json",
        "--calls",
        fixture("checker/calls.jsonl")
      ])

    {:ok, report} = JSON.decode(stdout)

    assert report["summary"] == %{
             "tools" => 6,
             "supported" => 1,
             "unsupported" => 2,
             "malformed" => 3,
             "calls" => 4,
             "accepted" => 1,
             "rejected" => 3
           }

    assert Enum.at(report["tools"], 1) == %{
             "name" => "ref_tool",
             "status" => "unsupported",
             "class" => "unsupported_capability",
             "message" => "schema keyword is unsupported",
             "keyword" => "$ref",
             "pointer" => "/properties/a/$ref"
           }

    assert Enum.at(report["tools"], 3)["pointer"] == "/properties/n/minimum"

    assert Enum.map(report["calls"], &{&1["line"], &1["name"], &1["status"]}) == [
             {1, "ok_tool", "accepted"},
             {2, "ok_tool", "rejected"},
             {3, "ref_tool", "unsupported_tool"},
             {4, "nope", "unknown_tool"}
           ]

    assert Enum.at(report["calls"], 1)["errors"] == [
             %{
               "class" => "validation",
               "message" => "tool argument has the wrong type",
               "details" => %{"path" => "$arguments.q", "type" => "string"}
             }
           ]
  end

  test "recorded calls list every failure of a rejected call" do
    {0, stdout, ""} = run([fixture("mcp_catalog.json"), "--calls", fixture("calls.jsonl")])

    assert stdout =~ """
           line 4  convert_time  rejected
               $arguments: required tool argument is missing (property: "target_timezone")
               $arguments.time: tool argument does not match the pattern
           """

    assert stdout =~ "19 calls: 8 accepted, 11 rejected"
  end

  test "invalid JSON names the line and column, without a stack trace" do
    assert {2, "", stderr} = run([fixture("checker/invalid.json")])
    assert stderr =~ "checker/invalid.json:3:41: invalid JSON: expected value\n"

    assert {2, "", stderr} = run([fixture("checker/invalid.jsonl")])
    assert stderr =~ "checker/invalid.jsonl:3:31: invalid JSON: key must be a string\n"

    assert {2, "", stderr} =
             run([
               fixture("checker/supported.json"),
               "--calls",
               fixture("checker/calls_invalid.jsonl")
             ])

    assert stderr =~
             "checker/calls_invalid.jsonl:2:41: invalid JSON: EOF while parsing an object\n"
  end

  test "usage errors and missing files" do
    assert {2, "", stderr} = run([])
    assert stderr =~ "usage: mix input_schema.check CATALOG"
    assert {2, "", stderr} = run([fixture("nope.json")])
    assert stderr =~ "nope.json: no such file or directory"
    assert {2, "", stderr} = run([fixture("checker/supported.json"), "--format", "yaml"])
    assert stderr =~ "--format must be text or json"
  end
end
