defmodule Backplane.AgentRuntime.InputSchema.ScaleTest do
  @moduledoc """
  Scale and fault tests, sized for CI; `SOAK=1` multiplies the loops by ten.
  Each asserts an outcome, never a time.
  """
  # Measures VM-wide memory and the atom table: runs alone.
  use ExUnit.Case, async: false

  import Backplane.AgentRuntime.InputSchema.Memory

  alias Backplane.AgentRuntime.InputSchema

  @soak if System.get_env("SOAK") in [nil, "", "0"], do: 1, else: 10
  @moduletag timeout: 600_000 * @soak

  @schema %{
    "type" => "object",
    "required" => ["path"],
    "properties" => %{
      "path" => %{"type" => "string", "pattern" => "^[a-z/._-]+$"},
      "limit" => %{"type" => "integer", "minimum" => 1},
      "tags" => %{"type" => "array", "items" => %{"enum" => ["a", "b", "c"]}}
    },
    "additionalProperties" => %{"type" => "string"}
  }

  defp rss_kib do
    case File.read("/proc/self/status") do
      {:ok, status} ->
        [_, kib] = Regex.run(~r/VmRSS:\s+(\d+) kB/, status)
        String.to_integer(kib)

      {:error, _} ->
        0
    end
  end

  test "1,000 processes validate concurrently against shared compiled schemas" do
    {:ok, compiled} = InputSchema.compile(@schema)

    results =
      1..(1_000 * @soak)
      |> Enum.map(fn i ->
        Task.async(fn ->
          ok = %{
            "path" => "lib/#{<<?a + rem(i, 7)>>}.ex",
            "limit" => i,
            "tags" => ["a"],
            "note" => "n"
          }

          bad = %{"path" => "Lib", "limit" => 0}

          {InputSchema.validate(compiled, ok), InputSchema.validate(@schema, bad, errors: :all),
           ok}
        end)
      end)
      |> Enum.map(&Task.await(&1, 60_000))

    for {good, bad, arguments} <- results do
      assert good == {:ok, arguments}
      assert {:error, error} = bad

      assert Enum.map(error.details.errors, & &1.details.path) == [
               "$arguments.limit",
               "$arguments.path"
             ]
    end
  end

  test "compile-and-drop cycles return BEAM memory and process RSS to baseline" do
    # Patterns are shared by source, so the cycles build no new automata:
    # what is measured is the compiled trees and their resources. A first,
    # short run absorbs what warming up costs once (allocator carriers,
    # caches); the growth over a second, longer run is then what a cycle
    # leaks, which a constant offset cannot hide.
    cycle = fn i ->
      {:ok, _dropped} =
        InputSchema.compile(%{"properties" => %{"n" => %{"maximum" => rem(i, 1000)}}})
    end

    short = 200_000 * @soak
    long = 1_000_000 * @soak
    settle()
    {beam_start, rss_start} = {:erlang.memory(:total), rss_kib()}
    Enum.each(1..short, cycle)
    settle()
    {beam_short, rss_short} = {:erlang.memory(:total), rss_kib()}
    Enum.each(1..long, cycle)
    settle()
    {beam_long, rss_long} = {:erlang.memory(:total), rss_kib()}

    beam_per_cycle = (beam_long - beam_short) / long
    rss_per_cycle = (rss_long - rss_short) * 1024 / long

    IO.puts(
      "compile-and-drop x#{short} then x#{long}: BEAM #{beam_start} -> #{beam_short} -> #{beam_long} bytes, " <>
        "RSS #{rss_start} -> #{rss_short} -> #{rss_long} KiB; over the long run " <>
        "#{Float.round(beam_per_cycle, 2)} BEAM bytes and #{Float.round(rss_per_cycle, 2)} RSS bytes a cycle"
    )

    # Resources are freed when their terms are collected. Over the long run:
    # under 8 BEAM bytes a cycle (the VM counts exactly), and under 16 RSS
    # bytes a cycle (RSS moves by a few MiB on its own; a leak of even one
    # small native allocation a cycle, 32 bytes or more with its header,
    # fails); and within a few MiB of the start overall.
    assert beam_per_cycle < 8
    assert rss_per_cycle < 16
    assert beam_long - beam_start < 16 * 1024 * 1024
    assert rss_long - rss_start < 64 * 1024
  end

  test "validations of arguments with random string keys leave the atom table unchanged" do
    {:ok, compiled} = InputSchema.compile(@schema)

    validate_random_keys = fn count ->
      Enum.each(1..count, fn i ->
        key = "k#{i}-#{:erlang.unique_integer([:positive])}"
        {:ok, _} = InputSchema.validate(compiled, %{"path" => "a", key => "v"})
      end)
    end

    # Warm up: loading the code this loop runs may create atoms of its own.
    validate_random_keys.(1_000)
    atoms_before = :erlang.system_info(:atom_count)
    validate_random_keys.(1_000_000 * @soak)

    # Errors name keys as written, never as new atoms.
    {:error, error} =
      InputSchema.validate(compiled, %{
        "path" => "a",
        "fresh-key-#{:erlang.unique_integer()}" => 1
      })

    assert is_binary(error.details.path)

    assert :erlang.system_info(:atom_count) == atoms_before
  end
end
