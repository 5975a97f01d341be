defmodule Backplane.JSONSchema.OfficialSuiteTest do
  # The official JSON-Schema-Test-Suite through the Elixir API: every
  # required test file of draft 4, 6, 7, 2019-09 and 2020-12 (the .json
  # files directly in each dialect's directory), formats as annotations,
  # each dialect's optional/format files with formats asserted, and its
  # other optional files (directly in optional/), formats and content
  # asserted (draft 7's optional/content.json expects content asserted). The
  # suite is the copy PyPI's jsonschema 4.26.0 carries, fetched, pinned by
  # SHA-256 and extracted into the clone by scripts/json_schema_suite
  # (scripts/test runs it). The directory is JSON_SCHEMA_SUITE when set,
  # else the fixed path the script extracts to, which the chroots see too
  # (the clone is mounted at the same path there).
  #
  # Every file under json/remotes is a resource at
  # http://localhost:1234/<relative path>. A case passes when valid?/2
  # answers the expected verdict and validate/2 returns :ok exactly when the
  # instance is valid. A group whose schema does not compile fails every
  # case, except the groups of @refused_patterns (patterns that need
  # backtracking, refused at compile time by design), where a compile error
  # naming the pattern is the expected outcome. Keep that list the same as
  # REFUSED_PATTERNS in native/input_schema_core/tests/official_suite.rs.
  #
  # The suite's output tests (json/output-tests, 2019-09 and 2020-12) run
  # here only, since the basic output is built on the Elixir side: each
  # case's instance through validate/3 with output: :basic, the result
  # checked against the case's own schema for "basic" (formats asserted),
  # with the suite's output schema as a resource. Two differences, both
  # written in docs/behaviour.md, are adapted exactly: the output schema
  # asks every unit for "valid", which this library's units (like the
  # specification's example of basic output) do not carry, so the check
  # adds "valid" => false to each unit of an invalid instance's output; and
  # a valid instance is :ok, with no annotations, so the cases that expect
  # annotations of a valid instance (@annotation_outputs) must be :ok
  # through both calls, and any other outcome fails.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema

  @moduletag :official_suite
  @moduletag fetched: :json_schema_suite
  @moduletag timeout: 600_000

  @version "4.26.0"
  @fixed_path Path.expand("../../../_build/json_schema_suite/#{@version}/json", __DIR__)
  @remote_base "http://localhost:1234/"
  @max_listed 50

  # {file relative to the dialect's directory, group description}
  @refused_patterns []

  # Output cases that expect the annotations of a valid instance:
  # {dialect directory, file under output-tests/<dialect>, group, case}.
  @annotation_outputs [
    {"draft2019-09", "content/readOnly.json", "readOnly generates its value as an annotation",
     "readOnly is true"},
    {"draft2020-12", "content/readOnly.json", "readOnly generates its value as an annotation",
     "readOnly is true"}
  ]

  @dialects [
    {"draft4", :draft4},
    {"draft6", :draft6},
    {"draft7", :draft7},
    {"draft2019-09", :draft2019_09},
    {"draft2020-12", :draft2020_12}
  ]

  for {dir, dialect} <- @dialects do
    test "#{dir}: every required test file" do
      run(unquote(dir), unquote(dialect), :annotate, "")
    end

    test "#{dir}: optional/format, formats asserted" do
      run(unquote(dir), unquote(dialect), :assert, "optional/format")
    end

    test "#{dir}: the other optional files, formats and content asserted" do
      run(unquote(dir), unquote(dialect), :assert, "optional")
    end
  end

  for dir <- ["draft2019-09", "draft2020-12"] do
    test "#{dir}: the output tests, basic output" do
      run_output_tests(unquote(dir))
    end
  end

  defp run(dir_name, dialect, formats, subdir) do
    root = suite_root!()
    dialect_dir = Path.join([root, "tests", dir_name])
    files = json_files(Path.join(dialect_dir, subdir))
    assert files != [], "no test files in #{Path.join(dialect_dir, subdir)}"
    resources = remotes(root)

    initial = {%{groups: 0, cases: 0, passed: 0, failed: 0, refused: 0}, []}

    {tally, failures} =
      Enum.reduce(files, initial, fn path, acc ->
        file = Path.relative_to(path, dialect_dir)
        groups = decode_file!(path)
        context = {file, dialect, formats, resources}
        Enum.reduce(groups, acc, &run_group(&1, &2, context))
      end)

    failures = Enum.reverse(failures)

    summary =
      "#{dir_name} #{subdir_label(subdir)} (#{formats}): #{length(files)} files, " <>
        "#{tally.groups} groups, #{tally.cases} cases, #{tally.passed} passed, " <>
        "#{tally.failed} failed, #{tally.refused} refused"

    if failures != [] do
      listed =
        failures
        |> Enum.take(@max_listed)
        |> Enum.map_join("\n", fn {file, group, case_name, detail} ->
          "  #{dir_name}/#{file} | #{group} | #{case_name}\n      #{detail}"
        end)

      more =
        if length(failures) > @max_listed,
          do: "\n  ... and #{length(failures) - @max_listed} more",
          else: ""

      flunk(
        "official JSON-Schema-Test-Suite (#{root})\n#{summary}\nfailing cases:\n#{listed}#{more}"
      )
    end

    assert tally.passed + tally.refused == tally.cases, summary
  end

  defp subdir_label(""), do: "required"
  defp subdir_label(subdir), do: subdir

  defp run_group(group, {tally, failures}, {file, dialect, formats, resources}) do
    description = Map.get(group, "description", "?")
    cases = Map.fetch!(group, "tests")
    tally = %{tally | groups: tally.groups + 1, cases: tally.cases + length(cases)}

    fail = fn failures, case_, detail ->
      [{file, description, Map.get(case_, "description", "?"), detail} | failures]
    end

    compiled =
      try do
        JSONSchema.compile(Map.fetch!(group, "schema"),
          dialect: dialect,
          resources: resources,
          formats: formats,
          # The optional files expect content asserted, as they expect
          # formats; the required ones, annotations.
          content: formats
        )
      rescue
        exception -> {:raised, Exception.format(:error, exception, __STACKTRACE__)}
      catch
        kind, reason -> {:raised, Exception.format(kind, reason, __STACKTRACE__)}
      end

    case compiled do
      {:ok, schema} ->
        Enum.reduce(cases, {tally, failures}, fn case_, {tally, failures} ->
          expected = Map.fetch!(case_, "valid")

          case check_case(schema, Map.fetch!(case_, "data"), expected) do
            :ok ->
              {%{tally | passed: tally.passed + 1}, failures}

            {:fail, detail} ->
              {%{tally | failed: tally.failed + 1}, fail.(failures, case_, detail)}
          end
        end)

      {:error, error} ->
        message = inspect(error, limit: 20, printable_limit: 300)

        if Enum.member?(@refused_patterns, {file, description}) and
             error_message(error) =~ "pattern" do
          {%{tally | refused: tally.refused + length(cases)}, failures}
        else
          failures = Enum.reduce(cases, failures, &fail.(&2, &1, "compile error: #{message}"))

          {%{tally | failed: tally.failed + length(cases)}, failures}
        end

      {:raised, text} ->
        failures = Enum.reduce(cases, failures, &fail.(&2, &1, "compile raised: #{text}"))
        {%{tally | failed: tally.failed + length(cases)}, failures}
    end
  end

  defp run_output_tests(dir_name) do
    dir = Path.join([suite_root!(), "output-tests", dir_name])
    files = json_files(Path.join(dir, "content"))
    assert files != [], "no output test files in #{dir}/content"
    output_schema = decode_file!(Path.join(dir, "output-schema.json"))
    resources = %{Map.fetch!(output_schema, "$id") => output_schema}

    outcomes =
      for path <- files,
          file = Path.relative_to(path, dir),
          group <- decode_file!(path),
          case_ <- Map.fetch!(group, "tests") do
        names = {file, Map.fetch!(group, "description"), Map.fetch!(case_, "description")}
        listed = Tuple.insert_at(names, 0, dir_name) in @annotation_outputs
        {names, listed, check_output(group, case_, listed, resources)}
      end

    failures = for {names, _, {:fail, detail}} <- outcomes, do: {names, detail}
    listed = for {_, true, :ok} <- outcomes, do: :listed

    summary =
      "#{dir_name} output tests: #{length(files)} files, #{length(outcomes)} cases, " <>
        "#{length(outcomes) - length(failures) - length(listed)} passed, " <>
        "#{length(failures)} failed, #{length(listed)} annotations not returned (listed)"

    assert failures == [],
           summary <>
             "\n" <>
             Enum.map_join(failures, "\n", fn {{file, group, case_name}, detail} ->
               "  #{dir_name}/#{file} | #{group} | #{case_name}\n      #{detail}"
             end)

    expected_listed = for {^dir_name, _, _, _} <- @annotation_outputs, do: :listed
    assert listed == expected_listed, summary
  end

  defp check_output(group, case_, listed, resources) do
    {:ok, schema} = JSONSchema.compile(Map.fetch!(group, "schema"))
    data = Map.fetch!(case_, "data")
    expected = case_ |> Map.fetch!("output") |> Map.fetch!("basic")

    case {listed, JSONSchema.validate(schema, data, output: :basic)} do
      {true, :ok} ->
        if JSONSchema.valid?(schema, data),
          do: :ok,
          else: {:fail, "validate/3 is :ok but valid?/2 is false"}

      {true, other} ->
        {:fail, "listed as a valid instance, but validate/3 returned #{inspect(other)}"}

      {false, result} ->
        output =
          case result do
            :ok ->
              %{"valid" => true}

            {:error, %{"valid" => false, "errors" => units}} ->
              %{"valid" => false, "errors" => Enum.map(units, &Map.put(&1, "valid", false))}
          end

        {:ok, check} = JSONSchema.compile(expected, resources: resources, formats: :assert)

        case JSONSchema.validate(check, output) do
          :ok ->
            :ok

          {:error, errors} ->
            {:fail, "#{inspect(result)} fails the case's schema: #{inspect(errors)}"}
        end
    end
  end

  # The error's words, as the Rust harness reads CompileError's Display.
  defp error_message(%{message: message}) when is_binary(message), do: message
  defp error_message(error), do: inspect(error)

  defp check_case(schema, data, expected) do
    verdict = JSONSchema.valid?(schema, data)
    result = JSONSchema.validate(schema, data)

    problems =
      [
        if(verdict != expected, do: "valid? = #{inspect(verdict)}, expected #{expected}"),
        case {result, expected} do
          {:ok, true} ->
            nil

          {{:error, errors}, false} when errors != [] ->
            nil

          {{:error, errors}, true} ->
            "validate returned errors for a valid instance: #{inspect(errors, limit: 5, printable_limit: 300)}"

          {other, _} ->
            "validate returned #{inspect(other, limit: 5)}, expected #{if expected, do: ":ok", else: "{:error, errors}"}"
        end
      ]
      |> Enum.reject(&is_nil/1)

    if problems == [], do: :ok, else: {:fail, Enum.join(problems, "; ")}
  rescue
    exception -> {:fail, "raised: " <> Exception.format(:error, exception, __STACKTRACE__)}
  catch
    kind, reason -> {:fail, "#{kind}: #{inspect(reason)}"}
  end

  defp suite_root! do
    from_env = System.get_env("JSON_SCHEMA_SUITE")

    cond do
      from_env not in [nil, ""] and suite_dir?(from_env) ->
        from_env

      suite_dir?(@fixed_path) ->
        @fixed_path

      true ->
        flunk("""
        the official JSON-Schema-Test-Suite is missing: \
        JSON_SCHEMA_SUITE is #{inspect(from_env)} and #{@fixed_path} has no tests/ and remotes/. \
        Run scripts/json_schema_suite (scripts/test runs it), which extracts it to #{@fixed_path}.\
        """)
    end
  end

  defp suite_dir?(dir),
    do: File.dir?(Path.join(dir, "tests")) and File.dir?(Path.join(dir, "remotes"))

  defp json_files(dir) do
    case File.ls(dir) do
      {:ok, names} ->
        names
        |> Enum.filter(&String.ends_with?(&1, ".json"))
        |> Enum.map(&Path.join(dir, &1))
        |> Enum.filter(&File.regular?/1)
        |> Enum.sort()

      {:error, reason} ->
        flunk("cannot list #{dir}: #{:file.format_error(reason)}")
    end
  end

  defp remotes(root) do
    dir = Path.join(root, "remotes")

    Path.join(dir, "**")
    |> Path.wildcard(match_dot: true)
    |> Enum.filter(&File.regular?/1)
    |> Map.new(fn path -> {@remote_base <> Path.relative_to(path, dir), decode_file!(path)} end)
  end

  defp decode_file!(path) do
    case JSON.decode(File.read!(path)) do
      {:ok, term} -> term
      {:error, error} -> flunk("#{path} is not JSON: #{inspect(error)}")
    end
  end
end
