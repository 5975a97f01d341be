defmodule Backplane.AgentRuntime.InputSchema.ReloadTest do
  # Code reloads while calls run: every module of the library loaded again
  # (as a release's hot upgrade or IEx's `r/1` does), the old code purged,
  # loaded again; then the NIF loaded from another file, as a release
  # upgrade's new `priv/` has it. Meanwhile four processes validate in a
  # loop, and every result must be exactly the one computed before.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Native

  @moduletag timeout: 300_000

  @schema %{
    "type" => "object",
    "properties" => %{
      "path" => %{"type" => "string", "pattern" => "^[a-z/._-]+$"},
      "limit" => %{"type" => "integer", "minimum" => 1}
    },
    "required" => ["path"],
    "additionalProperties" => false
  }

  # {arguments, options, expected}: valid, first error, every error.
  defp cases do
    [
      {%{"path" => "lib/a.ex", "limit" => 3}, [], {:ok, %{"path" => "lib/a.ex", "limit" => 3}}},
      {%{"limit" => 0}, [],
       {:error,
        %Error{
          class: :validation,
          message: "required tool argument is missing",
          details: %{path: "$arguments", property: "path"}
        }}},
      {%{"path" => "A", "limit" => 0, "x" => 1}, [errors: :all], :computed}
    ]
  end

  defp modules do
    {:ok, modules} = :application.get_key(:backplane_input_schema, :modules)
    modules
  end

  test "reloads, purges and a new library file never break or change a call" do
    {:ok, compiled} = InputSchema.compile(@schema)
    # The standard entry point's compiled schemas live in a resource type
    # of their own, taken over on reload the same way.
    {:ok, standard} = Backplane.JSONSchema.compile(@schema)
    standard_expected = standard_results(standard)

    expected =
      for {arguments, opts, want} <- cases() do
        result = InputSchema.validate(@schema, arguments, opts)
        if want != :computed, do: assert(result == want)
        assert InputSchema.validate(compiled, arguments, opts) == result
        {arguments, opts, result}
      end

    {:error, all} = elem(List.last(expected), 2)
    assert length(all.details.errors) == 3

    workers =
      for n <- 1..4 do
        spawn_link(fn -> loop(n, compiled, expected, 0, []) end)
      end

    # Six times: every module loaded again (the NIF's upgrade callback
    # runs), then the old code purged before the next load.
    for _round <- 1..6 do
      reload_all()
      wait_for_calls(workers)
      assert standard_results(standard) == standard_expected
      purge_all()
    end

    # A new file of the same library: a separate image, with caches and a
    # resource type of its own. Schemas compiled before are foreign to it.
    ebin = Path.join(List.to_string(:code.lib_dir(:backplane_input_schema)), "ebin")
    copy = copy_application!()

    # A schema map whose walk is over the inline budget comes back compiled
    # for the dirty walk; a new image between the two calls cannot read it,
    # and says so (validate/2 then compiles the map again on the dirty side).
    long = Enum.to_list(1..5000)
    items = %{"items" => %{"type" => "integer"}}

    {:dirty_validate, in_flight} =
      Native.json_schema_check(items, long, :all, :draft2020_12, %{}, :annotate, :annotate)

    true =
      :code.replace_path(:backplane_input_schema, String.to_charlist(Path.join(copy, "ebin")))

    purge_all()
    assert {:module, Native} = :code.load_file(Native)
    assert :code.priv_dir(:backplane_input_schema) == String.to_charlist(Path.join(copy, "priv"))
    wait_for_calls(workers)

    # A schema compiled by the old image validates exactly on the new one.
    for {arguments, opts, result} <- expected do
      assert InputSchema.validate(compiled, arguments, opts) == result
    end

    # So does a standard one (compiled again from the schema it carries).
    assert standard_results(standard) == standard_expected

    assert Native.json_schema_validate_dirty(in_flight, long, :all) == :foreign
    assert Backplane.JSONSchema.validate(items, long) == :ok

    # Back to the build's own file.
    true = :code.replace_path(:backplane_input_schema, String.to_charlist(ebin))
    purge_all()
    assert {:module, Native} = :code.load_file(Native)
    wait_for_calls(workers)

    assert standard_results(standard) == standard_expected
    results = stop(workers)
    calls = Enum.sum(for {_, calls, _} <- results, do: calls)
    bad = Enum.flat_map(results, fn {_, _, bad} -> bad end)
    IO.puts("reload test: #{calls} calls through 8 loads, #{length(bad)} wrong")
    assert bad == []
    assert calls > 1_000

    # Nothing was loaded as a broken stub: the NIF answers.
    assert Native.noop() == :ok
  end

  test "a %Compiled{} made by a version without `source` still validates where it was made" do
    {:ok, compiled} = InputSchema.compile(@schema)
    legacy = Map.delete(compiled, :source)
    arguments = %{"path" => "a"}
    assert InputSchema.validate(legacy, arguments) == {:ok, arguments}
  end

  defp standard_results(compiled) do
    for {arguments, _opts, _want} <- cases() do
      {Backplane.JSONSchema.validate(compiled, arguments),
       Backplane.JSONSchema.valid?(compiled, arguments)}
    end
  end

  defp loop(n, compiled, expected, calls, bad) do
    receive do
      {:stop, from} ->
        send(from, {:stopped, self(), calls, bad})

      {:calls?, from} ->
        send(from, {:calls, self(), calls})
        loop(n, compiled, expected, calls, bad)
    after
      0 ->
        {arguments, opts, want} = Enum.at(expected, rem(calls + n, length(expected)))
        schema = if rem(calls, 2) == 0, do: compiled, else: @schema

        got =
          try do
            InputSchema.validate(schema, arguments, opts)
          catch
            kind, reason -> {:raised, kind, reason}
          end

        bad = if got == want, do: bad, else: [{schema, arguments, got} | bad]
        loop(n, compiled, expected, calls + 1, bad)
    end
  end

  # Each worker has made at least 200 more calls since this was asked.
  defp wait_for_calls(workers) do
    before = calls(workers)

    wait_until(fn ->
      Enum.all?(Enum.zip(before, calls(workers)), fn {a, b} -> b >= a + 200 end)
    end)
  end

  defp calls(workers) do
    for worker <- workers do
      send(worker, {:calls?, self()})

      receive do
        {:calls, ^worker, calls} -> calls
      end
    end
  end

  defp wait_until(fun, tries \\ 500) do
    cond do
      fun.() -> :ok
      tries == 0 -> flunk("the workers stopped making calls")
      true -> Process.sleep(10) && wait_until(fun, tries - 1)
    end
  end

  defp stop(workers) do
    for worker <- workers do
      send(worker, {:stop, self()})

      receive do
        {:stopped, ^worker, calls, bad} -> {worker, calls, bad}
      end
    end
  end

  defp reload_all do
    for module <- modules() do
      assert {:module, ^module} = :code.load_file(module)
    end
  end

  # Old code goes once no process runs it (the workers only pass through).
  defp purge_all do
    for module <- modules() do
      wait_until(fn -> :code.soft_purge(module) end)
    end
  end

  # The application's ebin and priv, copied: a second file of the library.
  defp copy_application! do
    source = List.to_string(:code.lib_dir(:backplane_input_schema))

    base = Backplane.Test.Scratch.path!("input_schema_reload")

    # Named as a release's lib/ names an application's directory.
    dest = Path.join(base, "backplane_input_schema-0.2.0")
    File.mkdir_p!(dest)
    File.cp_r!(Path.join(source, "ebin"), Path.join(dest, "ebin"))
    File.cp_r!(Path.join(source, "priv"), Path.join(dest, "priv"))
    on_exit(fn -> File.rm_rf!(base) end)
    dest
  end
end
