defmodule Backplane.AgentRuntime.InputSchema.Fixtures do
  @moduledoc "Reads the JSON fixtures under fixtures/ with the project's own decoder."

  alias Backplane.AgentRuntime.InputSchema.JSON

  @root Path.expand("../../fixtures", __DIR__)

  def path(name), do: Path.join(@root, name)

  def load!(name) do
    {:ok, value} = name |> path() |> File.read!() |> JSON.decode()
    value
  end

  @doc "The tools of a fixture, as `%{name => input_schema}`."
  def tools!(name) do
    tools =
      case load!(name) do
        %{"tools" => tools} -> tools
        tools when is_list(tools) -> tools
      end

    Map.new(tools, fn %{"name" => n, "inputSchema" => s} -> {n, s} end)
  end
end
