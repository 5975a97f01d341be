Code.require_file("mix/cargo_compiler.ex", __DIR__)

defmodule Backplane.AgentRuntime.InputSchema.MixProject do
  use Mix.Project

  @source_url "https://github.com/backplane/backplane_input_schema"

  def project do
    [
      app: :backplane_input_schema,
      version: "0.1.0",
      elixir: "~> 1.14",
      name: "Backplane InputSchema",
      description:
        "Tool-call argument validation for the Backplane agent runtime, and standard " <>
          "JSON Schema (drafts 4, 6, 7, 2019-09, 2020-12), on a Rust NIF",
      source_url: @source_url,
      start_permanent: Mix.env() == :prod,
      compilers: [:input_schema_native | Mix.compilers()],
      elixirc_paths: elixirc_paths(Mix.env()),
      deps: [],
      package: package(),
      docs: docs()
    ]
  end

  def application do
    [
      extra_applications: [:logger | test_applications(Mix.env())],
      mod: {Backplane.AgentRuntime.InputSchema.Application, []}
    ]
  end

  # PropEr (Debian's erlang-proper) drives the property tests. Listing it
  # keeps it on the code path, which Mix prunes to the declared
  # applications from Elixir 1.15 on; only the test environment has it.
  defp test_applications(:test), do: [:proper]
  defp test_applications(_), do: []

  defp elixirc_paths(:test), do: ["lib", "test/support"]
  defp elixirc_paths(_), do: ["lib"]

  # What a package ships: the Elixir sources, the Mix compiler that builds
  # the NIF, and the two crates (sources, manifests, lock file; the core's
  # benches and examples, which its manifest names, its tests, and the
  # fuzz targets without their corpus), never a cargo target directory.
  defp package do
    [
      licenses: ["Apache-2.0"],
      links: %{"Source" => @source_url, "Changelog" => "#{@source_url}/blob/main/CHANGELOG.md"},
      files: [
        "lib",
        "mix",
        "mix.exs",
        "Cargo.toml",
        "Cargo.lock",
        "native/input_schema/Cargo.toml",
        "native/input_schema/src",
        "native/input_schema/tests",
        "native/input_schema_core/Cargo.toml",
        "native/input_schema_core/build.rs",
        "native/input_schema_core/src",
        "native/input_schema_core/benches",
        "native/input_schema_core/examples",
        "native/input_schema_core/tests",
        "native/input_schema_core/fuzz/Cargo.toml",
        "native/input_schema_core/fuzz/Cargo.lock",
        "native/input_schema_core/fuzz/fuzz_targets",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "docs"
      ]
    ]
  end

  defp docs do
    [
      main: "readme",
      source_url: @source_url,
      extras: [
        "README.md",
        "CHANGELOG.md",
        "docs/adoption.md",
        "docs/configuration.md",
        "docs/behaviour.md",
        "docs/architecture.md",
        "docs/checker.md",
        "docs/performance.md",
        "docs/reliability.md",
        "LICENSE"
      ]
    ]
  end
end
