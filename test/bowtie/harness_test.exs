defmodule Backplane.JSONSchema.BowtieSchemas do
  # Bowtie's own schemas of its harness protocol (scripts/bowtie_schemas
  # fetches them, pinned, and prints the directory; scripts/test exports it
  # as BOWTIE_SCHEMAS), compiled with Backplane.JSONSchema, formats
  # asserted: each command and reply of the tests is checked against them.
  import ExUnit.Assertions

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema

  @ihop "tag:bowtie.report,2023:ihop"

  def dir, do: System.get_env("BOWTIE_SCHEMAS")

  def missing?, do: dir() in [nil, ""]

  @doc "Every schema under the directory that has an $id, by $id."
  def registry do
    root = dir()
    paths = Path.wildcard(Path.join(root, "**/*.json"))
    assert Path.join(root, "io/v1.json") in paths, "#{root} has no io/v1.json"

    for path <- paths,
        schema = decode!(File.read!(path)),
        is_map(schema) and Map.has_key?(schema, "$id"),
        into: %{},
        do: {Map.fetch!(schema, "$id"), schema}
  end

  @doc "Validators: a command, and each command's reply."
  def validators do
    resources = registry()

    compile = fn ref ->
      {:ok, compiled} =
        JSONSchema.compile(%{"$ref" => ref}, resources: resources, formats: :assert)

      compiled
    end

    %{
      command: compile.(@ihop <> "#/$defs/command"),
      start: compile.(@ihop <> ":command:start#response"),
      dialect: compile.(@ihop <> ":command:dialect#response"),
      run: compile.(@ihop <> ":command:run#response")
    }
  end

  def check_command!(validators, command) do
    assert JSONSchema.validate(validators.command, command) == :ok,
           "not a command of the protocol: #{inspect(command, limit: 8)}"
  end

  @doc "A reply line: one line of JSON, valid against `cmd`'s reply schema."
  def check_reply!(validators, cmd, line) do
    assert String.ends_with?(line, "\n") and
             not String.contains?(String.trim_trailing(line, "\n"), "\n"),
           "a reply is not one line: #{inspect(line)}"

    reply = decode!(line)
    validator = Map.fetch!(validators, String.to_existing_atom(cmd))

    assert JSONSchema.validate(validator, reply) == :ok,
           "the #{cmd} reply fails Bowtie's schema: #{line}: " <>
             inspect(JSONSchema.validate(validator, reply))

    reply
  end

  def decode!(text) do
    {:ok, term} = JSON.decode(text)
    term
  end
end

defmodule Backplane.JSONSchema.BowtieHarnessTest do
  # The harness protocol of `mix json_schema.bowtie`
  # (Backplane.JSONSchema.Bowtie), each command through a JSON line and
  # each reply checked against Bowtie's own schemas; then the task itself
  # through a real port, whose stdout must hold the replies and nothing
  # else.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.Bowtie
  alias Backplane.JSONSchema.BowtieSchemas, as: Schemas

  @moduletag :bowtie
  @moduletag timeout: 300_000

  if Schemas.missing?() do
    @moduletag skip: "BOWTIE_SCHEMAS is unset: run scripts/bowtie_schemas and export its output"
  end

  @dialects [
    {"https://json-schema.org/draft/2020-12/schema", :draft2020_12},
    {"https://json-schema.org/draft/2019-09/schema", :draft2019_09},
    {"http://json-schema.org/draft-07/schema#", :draft7},
    {"http://json-schema.org/draft-06/schema#", :draft6},
    {"http://json-schema.org/draft-04/schema#", :draft4}
  ]

  setup_all do
    %{validators: Schemas.validators()}
  end

  # One command through its JSON line: the command checked against the
  # protocol's schema, the reply encoded, one line, checked against its own.
  defp send_command(v, state, command) do
    Schemas.check_command!(v, command)
    {:ok, line} = JSON.encode(command)

    case Bowtie.handle_line(line, state) do
      {:reply, reply, state} ->
        {:ok, text} = Bowtie.encode_line(reply)
        {Schemas.check_reply!(v, command["cmd"], text), state}

      other ->
        other
    end
  end

  defp started(v) do
    {_, state} = send_command(v, Bowtie.new(urls()), %{"cmd" => "start", "version" => 1})
    state
  end

  defp urls do
    %{
      "homepage" => "https://example.com/backplane",
      "source" => "https://example.com/backplane/src",
      "issues" => "https://example.com/backplane/issues"
    }
  end

  defp run_case(v, state, seq, schema, instances, extra \\ %{}) do
    tests =
      for {instance, i} <- Enum.with_index(instances),
          do: %{"description" => "t#{i}", "instance" => instance}

    test_case =
      Map.merge(
        %{"description" => "case #{inspect(seq)}", "schema" => schema, "tests" => tests},
        extra
      )

    {reply, _} = send_command(v, state, %{"cmd" => "run", "seq" => seq, "case" => test_case})
    reply
  end

  test "start: protocol version 1 and the implementation, with the five dialects", %{
    validators: v
  } do
    {reply, state} = send_command(v, Bowtie.new(urls()), %{"cmd" => "start", "version" => 1})
    assert state.started
    assert reply["version"] == 1
    implementation = reply["implementation"]
    assert implementation["dialects"] == Enum.map(@dialects, &elem(&1, 0))
    assert implementation["language"] == "elixir"
    assert implementation["name"] == "backplane_input_schema"

    assert implementation["version"] ==
             List.to_string(Application.spec(:backplane_input_schema, :vsn))

    assert implementation["language_version"] ==
             "#{System.version()} (Erlang/OTP #{:erlang.system_info(:otp_release)})"

    assert Map.take(implementation, ["homepage", "source", "issues"]) == urls()
  end

  test "dialect: each announced dialect is ok and becomes the default", %{validators: v} do
    state = started(v)

    for {uri, atom} <- @dialects do
      assert {%{"ok" => true}, %{dialect: ^atom}} =
               send_command(v, state, %{"cmd" => "dialect", "dialect" => uri})
    end

    assert {%{"ok" => false}, %{dialect: :draft2020_12}} =
             send_command(v, state, %{
               "cmd" => "dialect",
               "dialect" => "http://json-schema.org/draft-03/schema#"
             })
  end

  test "run: verdicts in order, seq echoed unchanged", %{validators: v} do
    state = started(v)
    schema = %{"type" => "integer", "minimum" => 2}

    assert run_case(v, state, 7, schema, [3, 1, "é", 2]) ==
             %{"seq" => 7, "results" => Enum.map([true, false, false, true], &%{"valid" => &1})}

    for seq <- ["a-b", %{"n" => [1, nil]}, 0] do
      assert %{"seq" => ^seq, "results" => [%{"valid" => true}]} =
               run_case(v, state, seq, true, [nil])
    end
  end

  test "run: the default dialect is the one the dialect command set", %{validators: v} do
    # A sibling of $ref is ignored in draft 7 and applies in 2020-12.
    schema = %{
      "$ref" => "#/definitions/a",
      "definitions" => %{"a" => %{"type" => "integer"}},
      "type" => "string"
    }

    state = started(v)

    {_, draft7} =
      send_command(v, state, %{
        "cmd" => "dialect",
        "dialect" => "http://json-schema.org/draft-07/schema#"
      })

    assert run_case(v, draft7, 1, schema, [1])["results"] == [%{"valid" => true}]
    assert run_case(v, state, 2, schema, [1])["results"] == [%{"valid" => false}]
    # $schema wins over the default.
    explicit = Map.put(schema, "$schema", "http://json-schema.org/draft-07/schema#")
    assert run_case(v, state, 3, explicit, [1])["results"] == [%{"valid" => true}]
  end

  test "run: the registry is what references resolve to", %{validators: v} do
    state = started(v)

    registry = %{
      "http://example.com/positive.json" => %{"type" => "number", "exclusiveMinimum" => 0}
    }

    schema = %{"items" => %{"$ref" => "http://example.com/positive.json"}}

    assert run_case(v, state, 1, schema, [[1, 2], [1, -1]], %{"registry" => registry})["results"] ==
             [%{"valid" => true}, %{"valid" => false}]

    {:error, error} = JSONSchema.compile(schema)
    assert error.reason == :unresolved_reference

    assert run_case(v, state, 2, schema, [[1]]) == %{
             "seq" => 2,
             "errored" => true,
             "context" => %{
               "message" => error.message,
               "reason" => "unresolved_reference",
               "uri" => "http://example.com/positive.json",
               "pointer" => error.pointer
             }
           }
  end

  test "run: a schema that does not compile is an errored case with the CompileError message",
       %{validators: v} do
    state = started(v)

    for schema <- [
          %{"minLength" => -1},
          %{"pattern" => "(a)\\1"},
          %{"$schema" => "http://json-schema.org/draft-03/schema#"}
        ] do
      {:error, error} = JSONSchema.compile(schema)
      reply = run_case(v, state, 1, schema, [1, 2])
      assert %{"seq" => 1, "errored" => true, "context" => context} = reply
      assert context["message"] == error.message
      assert context["reason"] == Atom.to_string(error.reason)
    end
  end

  test "run: a case not of the protocol's shape is errored, not a crash", %{validators: v} do
    state = started(v)

    for {test_case, message} <- [
          {%{"description" => "x", "tests" => [%{"description" => "t", "instance" => 1}]},
           "a case needs a schema and a non-empty list of tests"},
          {%{"description" => "x", "schema" => true, "tests" => [%{"description" => "t"}]},
           "every test of a case must be an object with an instance"},
          {%{
             "description" => "x",
             "schema" => true,
             "tests" => [%{"instance" => 1}],
             "registry" => [1]
           }, "the case's registry is not an object"},
          {"a string", "run has no case object"}
        ] do
      {:ok, line} = JSON.encode(%{"cmd" => "run", "seq" => 5, "case" => test_case})
      assert {:reply, reply, ^state} = Bowtie.handle_line(line, state)
      {:ok, text} = Bowtie.encode_line(reply)

      assert Schemas.check_reply!(v, "run", text) ==
               %{"seq" => 5, "errored" => true, "context" => %{"message" => message}}
    end
  end

  test "lines that are not commands stop the harness with status 1 and a message" do
    state = Bowtie.new(urls())
    {:reply, _, started} = Bowtie.handle_line(~s({"cmd":"start","version":1}\n), state)

    for {line, state, message} <- [
          {~s(nope\n), started,
           "a line is not JSON: expected ident at column 2 (line 1 of the text)"},
          {~s([1, 2]), started, "a command must be a JSON object, got [1, 2]"},
          {~s({"cmd":"frobnicate"}), started, ~s(unknown command "frobnicate")},
          {~s({"seq":1}), started, "a command object has no cmd"},
          {~s({"cmd":"run","case":{}}), started, "run has no seq"},
          {~s({"cmd":"run","seq":1,"case":{}}), state, "run before start"},
          {~s({"cmd":"dialect","dialect":"x"}), state, "dialect before start"},
          {~s({"cmd":"start","version":2}), state,
           "this harness speaks protocol version 1, not 2"},
          {~s({"cmd":"start"}), state, "start has no version"},
          {String.duplicate("[", 200) <> String.duplicate("]", 200), started,
           "a line is not JSON: recursion limit exceeded at column 128 (line 1 of the text)"}
        ] do
      assert Bowtie.handle_line(line, state) == {:stop, 1, message}
    end

    assert Bowtie.handle_line(~s({"cmd":"stop"}\n), started) == {:stop, 0, nil}
    assert Bowtie.handle_line("  \n", started) == {:noreply, started}
  end

  describe "mix json_schema.bowtie through a port" do
    @describetag :bowtie_port

    test "stdout carries exactly one line per reply, each valid", %{validators: v} do
      registry = %{"http://example.com/s.json" => %{"enum" => ["ß"]}}

      commands = [
        %{"cmd" => "start", "version" => 1},
        %{"cmd" => "dialect", "dialect" => "http://json-schema.org/draft-04/schema#"},
        %{
          "cmd" => "run",
          "seq" => 1,
          "case" => %{
            "description" => "non-ASCII through the pipe",
            "schema" => %{"$ref" => "http://example.com/s.json"},
            "registry" => registry,
            "tests" => [
              %{"description" => "ß", "instance" => "ß"},
              %{"description" => "ss", "instance" => "ss"}
            ]
          }
        },
        %{
          "cmd" => "run",
          "seq" => 2,
          "case" => %{
            "description" => "does not compile",
            "schema" => %{"minLength" => "é"},
            "tests" => [%{"description" => "x", "instance" => 1}]
          }
        },
        %{"cmd" => "stop"}
      ]

      input = Enum.map_join(commands, fn c -> Schemas.check_command!(v, c) && compact(c) end)
      {stdout, stderr, status} = harness(input)
      assert status == 0, stderr
      lines = String.split(stdout, "\n", trim: true)
      assert length(lines) == 4, "stdout: #{stdout}\nstderr: #{stderr}"

      [start, dialect, run1, run2] =
        Enum.zip_with(
          ["start", "dialect", "run", "run"],
          lines,
          &Schemas.check_reply!(v, &1, &2 <> "\n")
        )

      assert start["implementation"]["name"] == "backplane_input_schema"
      assert dialect == %{"ok" => true}
      assert run1 == %{"seq" => 1, "results" => [%{"valid" => true}, %{"valid" => false}]}
      {:error, error} = JSONSchema.compile(%{"minLength" => "é"}, dialect: :draft4)
      assert %{"seq" => 2, "errored" => true, "context" => %{"message" => message}} = run2
      assert message == error.message
      assert stdout == Enum.map_join(lines, &(&1 <> "\n"))
    end

    test "a malformed line: nothing on stdout, the message on stderr, status 1" do
      {stdout, stderr, status} = harness(~s({"cmd":"start","version":1}\n{"cmd":\n))
      assert status == 1
      assert [_start] = String.split(stdout, "\n", trim: true)
      assert stderr =~ "json_schema.bowtie: a line is not JSON: "
    end

    test "the end of stdin without stop: exit 0, a note on stderr" do
      {stdout, stderr, status} = harness("")
      assert {stdout, status} == {"", 0}
      assert stderr =~ "json_schema.bowtie: stdin closed without stop; exiting"
    end
  end

  defp compact(command) do
    {:ok, line} = Bowtie.encode_line(command)
    line
  end

  # The task in a fresh VM, in this test environment's build (compiled by
  # this run already), stdin from a file, stdout and stderr apart.
  defp harness(input) do
    dir = Path.join(System.tmp_dir!(), "bowtie-#{System.unique_integer([:positive])}")
    File.mkdir_p!(dir)
    in_file = Path.join(dir, "in")
    err_file = Path.join(dir, "err")
    File.write!(in_file, input)

    {stdout, status} =
      System.cmd(
        "sh",
        ["-c", ~s(exec mix json_schema.bowtie <"$1" 2>"$2"), "sh", in_file, err_file],
        cd: File.cwd!(),
        env: [{"MIX_ENV", "test"}]
      )

    stderr = File.read!(err_file)
    File.rm_rf!(dir)
    {stdout, stderr, status}
  end
end

defmodule Backplane.JSONSchema.BowtieSuiteTest do
  # The official JSON-Schema-Test-Suite through the harness protocol, as
  # `bowtie suite` sends it: for each dialect, start and dialect, then one
  # run a group of every required test file (the .json files directly in
  # tests/<dialect>), its tests without their expected verdicts, every file
  # under remotes/ as the registry (at http://localhost:1234/<path>). Each
  # command and reply is checked against Bowtie's schemas, and each verdict
  # against the suite's and against Backplane.JSONSchema.valid?/2 on the
  # same compile. The figures must be those of
  # test/backplane/json_schema/official_suite_test.exs on the same files:
  # every case passed, none failed, none refused (its list of refused
  # groups is empty), and here none errored or skipped.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.Bowtie
  alias Backplane.JSONSchema.BowtieSchemas, as: Schemas

  @moduletag :bowtie
  @moduletag timeout: 600_000

  cond do
    Schemas.missing?() ->
      @moduletag skip: "BOWTIE_SCHEMAS is unset: run scripts/bowtie_schemas and export its output"

    System.get_env("JSON_SCHEMA_SUITE") in [nil, ""] ->
      @moduletag skip:
                   "JSON_SCHEMA_SUITE is unset: run scripts/json_schema_suite and export its output"

    true ->
      :ok
  end

  @remote_base "http://localhost:1234/"

  @dialects [
    {"draft4", "http://json-schema.org/draft-04/schema#"},
    {"draft6", "http://json-schema.org/draft-06/schema#"},
    {"draft7", "http://json-schema.org/draft-07/schema#"},
    {"draft2019-09", "https://json-schema.org/draft/2019-09/schema"},
    {"draft2020-12", "https://json-schema.org/draft/2020-12/schema"}
  ]

  setup_all do
    root = System.get_env("JSON_SCHEMA_SUITE")
    remotes_dir = Path.join(root, "remotes")

    registry =
      Path.join(remotes_dir, "**")
      |> Path.wildcard(match_dot: true)
      |> Enum.filter(&File.regular?/1)
      |> Map.new(fn path ->
        {@remote_base <> Path.relative_to(path, remotes_dir), Schemas.decode!(File.read!(path))}
      end)

    {:ok, registry_json} = JSON.encode(registry)

    %{
      root: root,
      validators: Schemas.validators(),
      registry: registry,
      registry_json: registry_json
    }
  end

  for {dir, uri} <- @dialects do
    test "#{dir}: every required test file through the harness", context do
      run_dialect(unquote(dir), unquote(uri), context)
    end
  end

  defp run_dialect(dir, uri, %{root: root, validators: v} = context) do
    files =
      Path.join([root, "tests", dir, "*.json"])
      |> Path.wildcard()
      |> Enum.filter(&File.regular?/1)
      |> Enum.sort()

    assert files != []

    state =
      Bowtie.new(%{
        "homepage" => "https://example.com",
        "source" => "https://example.com",
        "issues" => "https://example.com"
      })

    {start, state} = line(v, state, %{"cmd" => "start", "version" => 1})
    assert uri in start["implementation"]["dialects"]
    assert {%{"ok" => true}, state} = line(v, state, %{"cmd" => "dialect", "dialect" => uri})

    initial = %{
      files: length(files),
      groups: 0,
      cases: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      skipped: 0
    }

    {tally, failures, _seq} =
      for path <- files, group <- Schemas.decode!(File.read!(path)), reduce: {initial, [], 0} do
        {tally, failures, seq} ->
          seq = seq + 1
          tests = Map.fetch!(group, "tests")
          reply = run_group(v, state, seq, group, context)
          direct = direct_verdicts(group, Bowtie.dialect(uri), context.registry)
          file = Path.basename(path)

          outcomes =
            case reply do
              %{"results" => results} ->
                assert length(results) == length(tests)

                [tests, results, direct]
                |> Enum.zip_with(fn [test, result, direct] ->
                  case result do
                    %{"valid" => valid} when valid != direct ->
                      {:failed,
                       "#{test["description"]}: the harness answers #{valid}, " <>
                         "Backplane.JSONSchema.valid?/2 #{inspect(direct)}"}

                    %{"valid" => valid} when valid == :erlang.map_get("valid", test) ->
                      :passed

                    %{"valid" => _} ->
                      {:failed, test["description"]}

                    %{"skipped" => true} ->
                      {:skipped, test["description"]}

                    %{"errored" => true} ->
                      {:errored, test["description"]}
                  end
                end)

              %{"errored" => true, "context" => error} ->
                Enum.map(tests, fn test ->
                  {:errored, "#{test["description"]}: #{error["message"]}"}
                end)
            end

          tally = %{tally | groups: tally.groups + 1, cases: tally.cases + length(tests)}

          Enum.reduce(outcomes, {tally, failures, seq}, fn
            :passed, {tally, failures, seq} ->
              {%{tally | passed: tally.passed + 1}, failures, seq}

            {kind, detail}, {tally, failures, seq} ->
              {Map.update!(tally, kind, &(&1 + 1)),
               ["#{kind}: #{dir}/#{file} | #{group["description"]} | #{detail}" | failures], seq}
          end)
      end

    assert {:stop, 0, nil} = Bowtie.handle_line(~s({"cmd":"stop"}\n), state)

    IO.puts(
      "\nBowtie harness, #{dir} required: #{tally.files} files, #{tally.groups} groups, " <>
        "#{tally.cases} cases, #{tally.passed} passed, #{tally.failed} failed, " <>
        "#{tally.errored} errored, #{tally.skipped} skipped"
    )

    assert Enum.reverse(failures) == []
    assert tally.passed == tally.cases
  end

  # The verdicts of the Elixir API itself, as the official suite test
  # gets them: compiled with the dialect and the remotes as resources.
  defp direct_verdicts(group, dialect, registry) do
    tests = Map.fetch!(group, "tests")

    case JSONSchema.compile(Map.fetch!(group, "schema"), dialect: dialect, resources: registry) do
      {:ok, compiled} -> Enum.map(tests, &JSONSchema.valid?(compiled, Map.fetch!(&1, "data")))
      {:error, error} -> Enum.map(tests, fn _ -> {:compile_error, error.message} end)
    end
  end

  # The run command as Bowtie sends it, as one line: the registry's JSON
  # (the same for every case) spliced in as text.
  defp run_group(v, state, seq, group, %{registry: registry, registry_json: registry_json}) do
    test_case = %{
      "description" => Map.fetch!(group, "description"),
      "schema" => Map.fetch!(group, "schema"),
      "tests" =>
        Enum.map(Map.fetch!(group, "tests"), fn test ->
          %{
            "description" => Map.fetch!(test, "description"),
            "instance" => Map.fetch!(test, "data")
          }
        end)
    }

    Schemas.check_command!(v, %{
      "cmd" => "run",
      "seq" => seq,
      "case" => Map.put(test_case, "registry", registry)
    })

    {:ok, case_json} = JSON.encode(test_case)
    "}" <> reversed = case_json |> String.trim_trailing() |> String.reverse()

    text =
      ~s({"cmd":"run","seq":#{seq},"case":) <>
        String.reverse(reversed) <> ~s(,"registry":) <> registry_json <> "}}\n"

    {:reply, reply, ^state} = Bowtie.handle_line(text, state)
    {:ok, reply_line} = Bowtie.encode_line(reply)
    Schemas.check_reply!(v, "run", reply_line)
  end

  defp line(v, state, command) do
    Schemas.check_command!(v, command)
    {:ok, text} = JSON.encode(command)
    {:reply, reply, state} = Bowtie.handle_line(text, state)
    {:ok, reply_line} = Bowtie.encode_line(reply)
    {Schemas.check_reply!(v, command["cmd"], reply_line), state}
  end
end
