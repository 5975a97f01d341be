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
      deps: [],
      # PropEr (Debian's erlang-proper) is used by the test generators only.
      xref: [exclude: [:proper, :proper_types]]
    ]
  end

  def application do
    [
      extra_applications: [:logger],
      mod: {Backplane.AgentRuntime.InputSchema.Application, []}
    ]
  end

  defp elixirc_paths(:test), do: ["lib", "test/support"]
  defp elixirc_paths(_), do: ["lib"]
end
