# The gateway's two contracts and the standard entry point on the same
# calls: the coding-tool workload (10 tools, recorded calls) and the MCP
# sample (recorded calls against real MCP tool schemas), each by schema
# map (through the schema cache) and compiled. The MCP sample's schemas
# name draft-07 in `$schema`, which the Draft 2020-12 contract refuses (as
# the runtime's does); they are measured a second time without it, as a
# runtime would have them once its servers declare 2020-12.
#
#   mix run bench/contracts.exs
#
# Each figure is a per-call time: the median and the 99th percentile over
# 200 batches of every call of the workload; the ratio is to the subset
# contract's figure for the same path.

Code.require_file("support.exs", __DIR__)

alias Backplane.AgentRuntime.InputSchema
alias Backplane.JSONSchema

defmodule ContractsBench do
  def measure(calls, fun) do
    n = length(calls)
    BenchSupport.measure(fn -> Enum.each(calls, fun) end, 50, 200, n)
  end

  def row(name, {median, p99}, {base, _}) do
    IO.puts(
      "| #{name} | #{BenchSupport.human(median)} | #{BenchSupport.human(p99)} | " <>
        "#{BenchSupport.fixed(median / base)} |"
    )
  end

  def under(contract, fun) do
    InputSchema.put_contract(contract)

    try do
      fun.()
    after
      InputSchema.put_contract(:subset)
    end
  end

  # Every call answers alike whichever way it is made, or the figures would
  # compare different work.
  def same!(calls, label, fun) do
    for {schema, arguments} = call <- calls do
      answers = fun.(call)

      if Enum.uniq(answers) |> length() != 1 do
        raise "#{label}: #{inspect(schema, limit: 5)} with #{inspect(arguments, limit: 5)} " <>
                "answered #{inspect(answers, limit: 10)}"
      end
    end
  end
end

IO.puts("OTP #{System.otp_release()}, Elixir #{System.version()}")

without_schema = fn calls -> for {s, a} <- calls, do: {Map.delete(s, "$schema"), a} end

for {workload, calls} <- [
      {"coding-tool calls", BenchSupport.coding_calls()},
      {"MCP sample", BenchSupport.mcp_calls()},
      {"MCP sample without $schema", without_schema.(BenchSupport.mcp_calls())}
    ] do
  subset = for {s, a} <- calls, do: {s, InputSchema.compile(s) |> elem(1), a}

  draft =
    ContractsBench.under(:draft2020_12, fn ->
      for {s, a} <- calls, do: {s, InputSchema.compile(s), a}
    end)

  standard = for {s, a} <- calls, do: {s, JSONSchema.compile(s), a}
  accepted = Enum.count(draft, &match?({_, {:ok, _}, _}, &1))

  draft = for {s, {:ok, c}, a} <- draft, do: {s, c, a}
  standard = for {s, {:ok, c}, a} <- standard, do: {s, c, a}

  ContractsBench.under(:draft2020_12, fn ->
    ContractsBench.same!(Enum.map(draft, fn {s, _, a} -> {s, a} end), "draft2020_12", fn {s, a} ->
      c = Enum.find_value(draft, fn {s2, c, _} -> if s2 == s, do: c end)
      [InputSchema.validate(s, a), InputSchema.validate(c, a)] |> Enum.map(&match?({:ok, _}, &1))
    end)
  end)

  IO.puts(
    "\n#{workload}: #{length(calls)} calls; the Draft 2020-12 contract compiles " <>
      "#{accepted} of their schemas, the standard entry point #{length(standard)}\n"
  )

  IO.puts("| per call | median | p99 | / subset |\n| --- | --- | --- | --- |")
  map_base = ContractsBench.measure(subset, fn {s, _, a} -> InputSchema.validate(s, a) end)
  compiled_base = ContractsBench.measure(subset, fn {_, c, a} -> InputSchema.validate(c, a) end)
  ContractsBench.row("subset, schema map", map_base, map_base)
  ContractsBench.row("subset, compiled", compiled_base, compiled_base)

  ContractsBench.under(:draft2020_12, fn ->
    if draft != [] do
      ContractsBench.row(
        "draft2020_12, schema map",
        ContractsBench.measure(draft, fn {s, _, a} -> InputSchema.validate(s, a) end),
        map_base
      )

      ContractsBench.row(
        "draft2020_12, compiled",
        ContractsBench.measure(draft, fn {_, c, a} -> InputSchema.validate(c, a) end),
        compiled_base
      )
    end
  end)

  ContractsBench.row(
    "Backplane.JSONSchema, schema map",
    ContractsBench.measure(standard, fn {s, _, a} -> JSONSchema.validate(s, a) end),
    map_base
  )

  ContractsBench.row(
    "Backplane.JSONSchema, compiled",
    ContractsBench.measure(standard, fn {_, c, a} -> JSONSchema.validate(c, a) end),
    compiled_base
  )
end
