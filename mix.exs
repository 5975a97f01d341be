Code.require_file("mix/cargo_compiler.ex", __DIR__)

defmodule Backplane.AgentRuntime.InputSchema.MixProject do
  use Mix.Project

  def project do
    [
      app: :backplane_input_schema,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      compilers: [:input_schema_native | Mix.compilers()],
      elixirc_paths: elixirc_paths(Mix.env()),
      deps: []
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
end
