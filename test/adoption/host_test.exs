defmodule Backplane.AgentRuntime.InputSchema.HostTest do
  # The library taken in by a runtime, as docs/adoption.md tells a runtime
  # team to do it: throwaway hosts scaffolded in a temp dir, built and tested
  # with the `mix` a user runs.
  #
  #   (a) a plain app named like the runtime (`:backplane_agent_runtime`,
  #       with its own `Backplane.AgentRuntime.Application` supervising a
  #       child), depending on the library with `path:`; its own tests, and
  #       the library's contract rows run from inside it;
  #   (b) an umbrella whose runtime app depends on the library with
  #       `in_umbrella: true`, configuring the library from the umbrella's
  #       config;
  #   (c) `MIX_ENV=prod mix release` of (a) without a Rust toolchain (the
  #       prebuilt library from (a)), then `bin/backplane_agent_runtime eval`.
  #
  # Each builds the NIF with cargo from scratch (about half a minute here),
  # so the suite runs them only with `--only host` (scripts/test does).
  use ExUnit.Case, async: false

  @moduletag :host
  @moduletag timeout: 900_000

  @root Path.expand("../..", __DIR__)

  # Every nested mix runs with a clean slate: no target dir or prebuilt
  # library inherited from this project's own test run.
  @clean_env [
    {"CARGO_TARGET_DIR", nil},
    {"BACKPLANE_INPUT_SCHEMA_NIF", nil},
    {"MIX_BUILD_PATH", nil},
    {"MIX_BUILD_ROOT", nil},
    {"INPUT_SCHEMA_SUMMARY", nil},
    {"MIX_DEPS_PATH", nil},
    {"MIX_EXS", nil}
  ]

  setup_all do
    # Fresh whatever an earlier, killed run left behind: a host whose
    # dependency is already fetched would fetch nothing.
    base = Backplane.Test.Scratch.dir!("input_schema_hosts")
    # The hosts hold two cargo builds of the NIF (thousands of files):
    # `rm -rf` removes them in a second where File.rm_rf!/1 can take past
    # ExUnit's minute for an on_exit callback on a loaded machine.
    on_exit(fn -> {_, 0} = System.cmd("rm", ["-rf", base]) end)
    {:ok, base: base}
  end

  test "(a) a plain app with its own Application, then (c) its release built without Rust",
       %{base: base} do
    library = git_repository!(copy_library!(Path.join(base, "library")))
    host = Path.join(base, "host_a")
    write_host!(host, documented_dependency("file://" <> library), [])
    copy_contract_rows!(host)

    fetched = mix!(host, ["deps.get"], "test")
    assert fetched =~ "backplane_input_schema", "deps.get fetched nothing:\n#{fetched}"
    checkout = Path.join(host, "deps/backplane_input_schema")
    assert File.regular?(Path.join(checkout, "mix.exs"))

    compile = mix!(host, ["compile", "--warnings-as-errors"], "test")
    assert compile =~ "Compiling NIF crate input_schema"
    assert_no_warnings(compile, "(a) compile")

    tests = mix!(host, ["test"], "test")
    IO.puts("\n(a) host tests:\n" <> summary(tests))
    assert_all_passed(tests)
    assert tests =~ "host child running under Backplane.AgentRuntime.Supervisor"

    rows = Backplane.AgentRuntime.InputSchema.ContractCases
    assert tests =~ "embedded contract: #{length(rows.preflight())} preflight rows"
    assert tests =~ "embedded contract: #{length(rows.arguments())} argument rows"

    # cargo built under the host's _build; the dependency's source stays clean.
    built = Path.join(host, "_build/test/lib/backplane_input_schema/native/target/release")
    assert File.regular?(Path.join(built, "libinput_schema.so"))
    refute File.exists?(Path.join(checkout, "target"))
    refute File.exists?(Path.join(checkout, "_build"))
    refute File.exists?(Path.join(checkout, "priv/native"))

    prebuilt = Path.join(base, "libinput_schema.so")
    File.cp!(Path.join(built, "libinput_schema.so"), prebuilt)

    # `mix clean --deps` removes the dependency's native build with the rest.
    mix!(host, ["clean", "--deps"], "test")
    refute File.exists?(Path.join(host, "_build/test/lib/backplane_input_schema"))

    # (c) A release image built where no Rust toolchain exists.
    no_rust = [
      {"BACKPLANE_INPUT_SCHEMA_NIF", prebuilt},
      {"PATH", path_without_cargo()},
      {"HOME", Path.join(base, "home_without_rust")}
    ]

    release = mix!(host, ["release", "--overwrite"], "prod", no_rust)
    assert release =~ "Using the prebuilt InputSchema NIF #{prebuilt}"
    refute release =~ "Compiling NIF crate"
    assert_no_warnings(release, "(c) release")

    rel = Path.join(host, "_build/prod/rel/backplane_agent_runtime")

    assert [_] =
             Path.wildcard(
               Path.join(rel, "lib/backplane_input_schema-*/priv/native/libinput_schema.so")
             )

    eval = """
    {:ok, _} = Application.ensure_all_started(:backplane_agent_runtime)
    true = is_pid(Process.whereis(Backplane.AgentRuntime.ToolRegistry))
    IO.puts("priv: " <> List.to_string(:code.priv_dir(:backplane_input_schema)))
    IO.inspect(Backplane.AgentRuntime.Gateway.call("read", %{"path" => "a.txt"}), label: "valid", width: :infinity)
    {:error, e} = Backplane.AgentRuntime.Gateway.call("read", %{"path" => 1})
    IO.inspect({e.class, e.message, e.details}, label: "invalid", width: :infinity)
    # Compared as terms: from OTP 26 on, a small map with atom keys prints
    # in the atom table's order, not alphabetically.
    expected = {:validation, "tool argument has the wrong type", %{path: "$arguments.path", type: "string"}}
    IO.puts("invalid as expected: " <> to_string({e.class, e.message, e.details} == expected))
    """

    {output, status} =
      System.cmd(Path.join(rel, "bin/backplane_agent_runtime"), ["eval", eval],
        env: no_rust,
        stderr_to_stdout: true
      )

    IO.puts("\n(c) release eval:\n" <> output)
    assert status == 0, output
    assert output =~ "priv: #{rel}/lib/backplane_input_schema-"
    assert output =~ ~s(valid: {:ok, %{"path" => "a.txt"}})

    assert output =~ "invalid as expected: true"
  end

  test "(b) an umbrella whose runtime app depends on the library in_umbrella", %{base: base} do
    umbrella = Path.join(base, "umbrella")
    copy_library!(Path.join(umbrella, "apps/backplane_input_schema"))
    app = Path.join(umbrella, "apps/backplane_agent_runtime")

    File.mkdir_p!(Path.join(umbrella, "config"))

    File.write!(Path.join(umbrella, "mix.exs"), """
    defmodule Umbrella.MixProject do
      use Mix.Project

      def project, do: [apps_path: "apps", version: "0.1.0", deps: []]
    end
    """)

    File.write!(Path.join(umbrella, "config/config.exs"), """
    import Config
    config :backplane_input_schema, cache: [max_entries: 77], dirty_concurrency: 1
    """)

    write_host!(app, "{:backplane_input_schema, in_umbrella: true}",
      build_path: "../../_build",
      config_path: "../../config/config.exs",
      deps_path: "../../deps",
      lockfile: "../../mix.lock"
    )

    File.write!(Path.join(app, "test/config_test.exs"), """
    defmodule Backplane.AgentRuntime.ConfigTest do
      use ExUnit.Case

      test "the library reads its configuration under its own app name" do
        assert Backplane.AgentRuntime.InputSchema.cache_info().max_entries == 77
        assert Backplane.AgentRuntime.InputSchema.DirtyGate.limit() == 1
      end
    end
    """)

    compile = mix!(umbrella, ["compile", "--warnings-as-errors"], "test")
    assert compile =~ "Compiling NIF crate input_schema"
    assert_no_warnings(compile, "(b) compile")

    tests = mix!(app, ["test"], "test")
    IO.puts("\n(b) umbrella runtime app tests:\n" <> summary(tests))
    assert_all_passed(tests)
    assert tests =~ "host child running under Backplane.AgentRuntime.Supervisor"

    assert File.regular?(
             Path.join(
               umbrella,
               "_build/test/lib/backplane_input_schema/native/target/release/libinput_schema.so"
             )
           )

    # A second runtime app of the umbrella on the runtime's Draft 2020-12
    # contract, chosen by its own config, sharing the built library.
    draft = Path.join(umbrella, "apps/draft_runtime")
    write_draft_host!(draft)
    draft_tests = mix!(draft, ["test"], "test")
    IO.puts("\n(b) Draft 2020-12 runtime app tests:\n" <> summary(draft_tests))
    assert assert_all_passed(draft_tests) == 4
  end

  # An app configured with `contract: :draft2020_12`, validating tool calls
  # as a runtime on that contract does: a registry for external
  # references, the errors it matches on.
  defp write_draft_host!(dir) do
    for sub <- ["config", "test"], do: File.mkdir_p!(Path.join(dir, sub))

    File.write!(Path.join(dir, "mix.exs"), """
    defmodule DraftRuntime.MixProject do
      use Mix.Project

      def project do
        [
          app: :draft_runtime,
          version: "0.1.0",
          elixir: "~> 1.14",
          build_path: "../../_build",
          config_path: "config/config.exs",
          deps_path: "../../deps",
          lockfile: "../../mix.lock",
          deps: [{:backplane_input_schema, in_umbrella: true}]
        ]
      end

      def application, do: [extra_applications: [:logger]]
    end
    """)

    File.write!(Path.join(dir, "config/config.exs"), """
    import Config
    config :backplane_input_schema, contract: :draft2020_12
    """)

    File.write!(Path.join(dir, "test/test_helper.exs"), "ExUnit.start()\n")

    File.write!(Path.join(dir, "test/draft_test.exs"), """
    defmodule DraftRuntime.DraftTest do
      use ExUnit.Case

      alias Backplane.AgentRuntime.{Error, InputSchema}

      @registry %{
        "https://schemas.example.com/address.json" => %{
          "type" => "object",
          "properties" => %{"city" => %{"type" => "string", "minLength" => 1}},
          "required" => ["city"]
        }
      }

      @tool %{
        "$schema" => "https://json-schema.org/draft/2020-12/schema",
        "type" => "object",
        "properties" => %{
          "to" => %{"$ref" => "https://schemas.example.com/address.json"},
          "express" => %{"type" => "boolean"}
        },
        "required" => ["to"],
        "unevaluatedProperties" => false
      }

      test "the node runs the Draft 2020-12 contract" do
        assert InputSchema.contract() == :draft2020_12
      end

      test "a call validates with a registry, and comes back unchanged" do
        call = %{"to" => %{"city" => "Lyon"}, "express" => true}
        assert InputSchema.validate(@tool, call, schema_registry: @registry) == {:ok, call}
      end

      test "a failure names its path, rule and constraint" do
        assert {:error, %Error{class: :validation, details: details}} =
                 InputSchema.validate(@tool, %{"to" => %{}}, schema_registry: @registry)

        assert details.path == "$arguments.to"
        assert details.property == "city"
        assert [%{path: ["to"], rule: :required}] = details.errors
      end

      test "an external reference without a registry or loader is refused" do
        assert {:error, %Error{class: :validation, message: message, details: details}} =
                 InputSchema.validate(@tool, %{"to" => %{"city" => "Lyon"}})

        assert message == "external schema reference requires an explicit loader"
        assert details == %{reference: "https://schemas.example.com/address.json"}
      end
    end
    """)
  end

  # The dependency line exactly as the README and docs/adoption.md type it,
  # with the repository's URL filled in. Both documents must give the same.
  defp documented_dependency(url) do
    placeholder = "<this repository's URL>"
    line = ~r/\{:backplane_input_schema, git: "#{Regex.escape(placeholder)}"[^}]*\}/

    [readme, adoption] =
      for doc <- ["README.md", "docs/adoption.md"] do
        [found] = Regex.run(line, File.read!(Path.join(@root, doc)))
        found
      end

    assert readme == adoption
    String.replace(readme, placeholder, url)
  end

  # A git repository of `dir` whose branch `main` holds its files, as the
  # project's own repository has them.
  defp git_repository!(dir) do
    git = fn args -> {_, 0} = System.cmd("git", args, cd: dir, stderr_to_stdout: true) end
    git.(["init", "-q", "-b", "main"])
    git.(["add", "-A"])

    git.([
      "-c",
      "user.name=host test",
      "-c",
      "user.email=host@test.invalid",
      "commit",
      "-q",
      "-m",
      "the library"
    ])

    dir
  end

  # ExUnit's closing line says every test passed: "N tests, 0 failures" up
  # to Elixir 1.19; from 1.20 on "Result: N passed" when all did, and
  # "Result: P/N passed (...)" when some did not. Returns how many tests
  # ran, so a caller can also check that none went missing.
  defp assert_all_passed(output) do
    old_form = Regex.run(~r/\n(?:\d+ doctests?, )?(\d+) tests?, (\d+) failures?/, output)
    new_form = Regex.run(~r/\nResult: (\d+)(?:\/(\d+))? passed/, output)

    case {old_form, new_form} do
      {[_, tests, failures], nil} ->
        assert failures == "0", output
        String.to_integer(tests)

      {nil, [_, passed]} ->
        String.to_integer(passed)

      {nil, [_, passed, total]} ->
        assert passed == total, output
        String.to_integer(total)

      _ ->
        flunk("no ExUnit summary found:\n" <> output)
    end
  end

  # The library as a `git:` dependency would have it: the files git tracks.
  # Without the fuzz corpus's seeds (about 16,300 small files of the
  # 16,500 tracked): a host never reads them, and with them the three
  # copies of the library the hosts hold took minutes to copy and to
  # remove on a loaded machine, past ExUnit's minute for an on_exit
  # callback. One tar pipe copies the rest; a tracked file deleted from
  # the working tree is left out.
  defp copy_library!(dest) do
    File.mkdir_p!(dest)

    script = ~S"""
    git ls-files -z -- . ':!:native/input_schema_core/fuzz/corpus' |
      tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$1"
    """

    {output, 0} = System.cmd("sh", ["-c", script, "copy_library", dest], cd: @root)
    assert output == ""
    assert File.regular?(Path.join(dest, "mix.exs"))
    dest
  end

  # A runtime app: its own Application supervising a tool registry, a
  # gateway that validates calls, and tests of its own.
  defp write_host!(dir, dependency, extra_project) do
    for sub <- ["lib/backplane/agent_runtime", "test"], do: File.mkdir_p!(Path.join(dir, sub))

    File.write!(Path.join(dir, "mix.exs"), """
    defmodule Backplane.AgentRuntime.MixProject do
      use Mix.Project

      def project do
        [
          app: :backplane_agent_runtime,
          version: "0.1.0",
          elixir: "~> 1.14",
          elixirc_paths: elixirc_paths(Mix.env()),
          deps: [#{dependency}]
        ] ++ #{inspect(extra_project)}
      end

      def application do
        [extra_applications: [:logger], mod: {Backplane.AgentRuntime.Application, []}]
      end

      defp elixirc_paths(:test), do: ["lib", "test/support"]
      defp elixirc_paths(_), do: ["lib"]
    end
    """)

    File.write!(Path.join(dir, "lib/backplane/agent_runtime/application.ex"), """
    defmodule Backplane.AgentRuntime.Application do
      @moduledoc false
      use Application

      @impl true
      def start(_type, _args) do
        tools = %{
          "read" => %{
            "type" => "object",
            "properties" => %{"path" => %{"type" => "string"}},
            "required" => ["path"]
          }
        }

        Supervisor.start_link([{Backplane.AgentRuntime.ToolRegistry, tools}],
          strategy: :one_for_one,
          name: Backplane.AgentRuntime.Supervisor
        )
      end
    end
    """)

    File.write!(Path.join(dir, "lib/backplane/agent_runtime/tool_registry.ex"), """
    defmodule Backplane.AgentRuntime.ToolRegistry do
      @moduledoc false
      use Agent

      def start_link(tools), do: Agent.start_link(fn -> tools end, name: __MODULE__)
      def schema(name), do: Agent.get(__MODULE__, &Map.fetch(&1, name))
    end
    """)

    File.write!(Path.join(dir, "lib/backplane/agent_runtime/gateway.ex"), """
    defmodule Backplane.AgentRuntime.Gateway do
      @moduledoc false
      alias Backplane.AgentRuntime.{Error, InputSchema, ToolRegistry}

      def call(tool, arguments) do
        case ToolRegistry.schema(tool) do
          {:ok, schema} -> InputSchema.validate(schema, arguments)
          :error -> {:error, Error.new(:not_found, "tool is not registered", details: [tool: tool])}
        end
      end
    end
    """)

    File.write!(Path.join(dir, "test/test_helper.exs"), "ExUnit.start()\n")

    File.write!(Path.join(dir, "test/gateway_test.exs"), """
    defmodule Backplane.AgentRuntime.GatewayTest do
      use ExUnit.Case

      alias Backplane.AgentRuntime.{Error, Gateway}

      test "a valid call comes back unchanged" do
        assert Gateway.call("read", %{"path" => "a.txt"}) == {:ok, %{"path" => "a.txt"}}
      end

      test "an invalid call is the contract's error" do
        assert {:error, %Error{class: :validation, message: "required tool argument is missing"} = e} =
                 Gateway.call("read", %{})

        assert e.details == %{path: "$arguments", property: "path"}
      end

      test "the runtime's own errors keep the runtime's Error semantics" do
        assert {:error, error} = Gateway.call("nope", %{})
        assert error.details == %{tool: "nope"}

        assert Error.to_map(error) ==
                 %{"class" => :not_found, "message" => "tool is not registered", "details" => %{tool: "nope"}}
      end

      test "the host's own supervision tree runs beside the library's" do
        source = to_string(Backplane.AgentRuntime.Application.module_info(:compile)[:source])
        assert source =~ #{inspect(dir)}
        assert is_pid(Process.whereis(Backplane.AgentRuntime.Supervisor))
        assert is_pid(Process.whereis(Backplane.AgentRuntime.ToolRegistry))
        assert is_pid(Process.whereis(Backplane.AgentRuntime.InputSchema.DirtyGate))
        started = for {app, _, _} <- Application.started_applications(), do: app
        assert :backplane_agent_runtime in started
        assert :backplane_input_schema in started
        IO.puts("host child running under Backplane.AgentRuntime.Supervisor")
      end
    end
    """)
  end

  # The library's contract rows, run from inside the host.
  defp copy_contract_rows!(host) do
    File.mkdir_p!(Path.join(host, "test/support/contract_cases"))

    for file <- ["contract_cases.ex", "contract_cases/section9.ex", "contract_assertions.ex"] do
      File.cp!(
        Path.join(@root, "test/support/" <> file),
        Path.join(host, "test/support/" <> file)
      )
    end

    File.write!(Path.join(host, "test/embedded_contract_test.exs"), """
    defmodule Backplane.AgentRuntime.EmbeddedContractTest do
      use ExUnit.Case, async: true

      import Backplane.AgentRuntime.InputSchema.ContractAssertions

      alias Backplane.AgentRuntime.InputSchema
      alias Backplane.AgentRuntime.InputSchema.ContractCases

      test "every preflight row" do
        rows = ContractCases.preflight()

        for {name, schema, expected} <- rows do
          assert_result(InputSchema.validate_schema(schema), expected, :no_arguments, name)
        end

        IO.puts("embedded contract: \#{length(rows)} preflight rows")
      end

      test "every argument row, through the schema map and the compiled schema" do
        rows = ContractCases.arguments()

        for {name, schema, arguments, expected} <- rows do
          assert_result(InputSchema.validate(schema, arguments), expected, arguments, name)

          with {:ok, compiled} <- InputSchema.compile(schema) do
            assert_result(InputSchema.validate(compiled, arguments), expected, arguments, name)
          end
        end

        IO.puts("embedded contract: \#{length(rows)} argument rows")
      end
    end
    """)
  end

  defp mix!(dir, args, env, extra_env \\ []) do
    {output, status} =
      System.cmd("mix", args,
        cd: dir,
        env: [{"MIX_ENV", env} | @clean_env] ++ extra_env,
        stderr_to_stdout: true
      )

    assert status == 0, "mix #{Enum.join(args, " ")} in #{dir} exited #{status}:\n#{output}"
    output
  end

  defp assert_no_warnings(output, label) do
    refute output =~ ~r/warning/i, "#{label} printed a warning:\n#{output}"
  end

  # The PATH without the directories cargo is found in (rustup's), unless
  # Elixir lives there too (a distribution's cargo in /usr/bin): the
  # prebuilt library is what keeps cargo from running either way.
  defp path_without_cargo do
    System.get_env("PATH", "")
    |> String.split(":")
    |> Enum.reject(
      &(File.exists?(Path.join(&1, "cargo")) and not File.exists?(Path.join(&1, "mix")))
    )
    |> Enum.join(":")
  end

  defp summary(output) do
    output
    |> String.split("\n")
    |> Enum.filter(
      &(&1 =~ ~r/tests?, \d+ failures|^Result:|embedded contract|host child|Finished in/)
    )
    |> Enum.join("\n")
  end
end
