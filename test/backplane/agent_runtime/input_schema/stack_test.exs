defmodule Backplane.AgentRuntime.InputSchema.StackTest do
  # How much of a scheduler's stack each recursive path takes on BEAM terms,
  # at the deepest input the limits allow (docs/configuration.md, "Stack").
  # `Native.stack_use/4` (test builds) paints the free stack below the call
  # and finds the deepest byte the call wrote. Every path must leave at
  # least 32 KiB of the scheduler's stack untouched, whatever the VM's
  # stack flags: scripts/suite runs this suite at the defaults and again
  # with `+sss 20 +sssdcpu 20`, the smallest stacks the VM allows. Where the
  # stack has room for it, the whole depth of each path without moving to a
  # heap segment is measured and printed too.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Native

  @margin 32 * 1024
  @pattern String.duplicate("(?:a", 60) <> "b" <> String.duplicate(")", 60)

  defp nest(n, leaf, wrap),
    do: Enum.reduce(List.duplicate(wrap, n), leaf, fn w, acc -> w.(acc) end)

  # The largest n for which `ok?.(n)` holds, searching down from `from`.
  defp deepest(from, ok?), do: Enum.find(from..1//-1, ok?)

  defp deepest_schema(wrap, leaf) do
    n = deepest(200, &(InputSchema.validate_schema(nest(&1, leaf, wrap)) == :ok))
    {n, nest(n, leaf, wrap)}
  end

  defp leaf, do: %{"type" => "string", "pattern" => @pattern}

  defp ref_chain(n) do
    defs =
      Map.new(0..(n - 1), fn i ->
        {"d#{i}", %{"allOf" => [%{"$ref" => "#/$defs/d#{i + 1}"}]}}
      end)
      |> Map.put("d#{n}", %{"type" => "string"})

    %{"$defs" => defs, "properties" => %{"a" => %{"$ref" => "#/$defs/d0"}}}
  end

  defp paths do
    {items_n, items} = deepest_schema(&%{"items" => &1}, leaf())
    {props_n, props} = deepest_schema(&%{"properties" => %{"a" => &1}}, leaf())
    {add_n, additional} = deepest_schema(&%{"additionalProperties" => &1}, leaf())
    {any_n, any_of} = deepest_schema(&%{"anyOf" => [%{"type" => "integer"}, &1]}, leaf())

    # Arguments as deep as a walk goes, against a matching chain.
    walk = nest(63, %{"type" => "string"}, &%{"items" => &1})

    args_n =
      deepest(
        100,
        &match?({:ok, _}, InputSchema.validate(prop(walk), %{"a" => nest_list(&1, "x")}))
      )

    deep_args = %{"a" => nest_list(args_n, "x")}
    bad_args = %{"a" => nest_list(args_n, 1)}

    refs_n = deepest(200, &match?({:ok, _}, InputSchema.validate(ref_chain(&1), %{"a" => "x"})))

    unique = prop(%{"uniqueItems" => true})
    deep_item = nest_map(60, "x")
    unique_args = %{"a" => [deep_item, Map.put(%{}, "b", deep_item), deep_item]}

    enum_n =
      deepest(200, &(InputSchema.validate_schema(prop(%{"enum" => [nest_list(&1, "x")]})) == :ok))

    choice = nest_list(enum_n, "x")
    enum = prop(%{"enum" => [nest_list(enum_n, "y"), choice]})

    json_n = 127
    json = String.duplicate("[", json_n) <> String.duplicate("]", json_n)

    [
      {"compile: #{items_n} levels of items, a 60-deep pattern at the leaf", :compile, items, nil,
       :ok},
      {"compile: #{props_n} levels of properties", :compile, props, nil, :ok},
      {"compile: #{add_n} levels of additionalProperties", :compile, additional, nil, :ok},
      {"compile: #{any_n} levels of anyOf", :compile, any_of, nil, :ok},
      {"compile through the cache (hash, size, copy, then find, compare)", :cached, items, nil,
       :ok},
      {"drop the #{items_n}-level compiled schema", :drop, items, nil, :ok},
      {"validate: arguments #{args_n} levels deep", :validate, prop(walk), deep_args,
       {:ok, deep_args}},
      {"validate, every error: arguments #{args_n} levels deep", :validate_all, prop(walk),
       bad_args, :error},
      {"validate: #{refs_n} $ref steps on one value", :validate, ref_chain(refs_n), %{"a" => "x"},
       {:ok, %{"a" => "x"}}},
      {"validate: uniqueItems keys of items 60 levels deep", :validate, unique, unique_args,
       :error},
      {"validate: enum equality 93 levels deep", :validate, enum, %{"a" => choice},
       {:ok, %{"a" => choice}}},
      {"JSON decode: #{json_n} levels", :decode_json, json, nil, nest_list(json_n - 1, [])},
      {"JSON encode: 63 levels", :encode_json, nest_map(63, 1), nil, :text}
    ]
  end

  defp prop(schema), do: %{"properties" => %{"a" => schema}}
  defp nest_list(n, leaf), do: nest(n, leaf, &[&1])
  defp nest_map(n, leaf), do: nest(n, leaf, &%{"k" => &1})

  defp check!(name, result, expected) do
    case expected do
      :error -> assert {:error, %{class: :validation}} = result, name
      :text -> assert is_binary(result), name
      expected -> assert result == expected, name
    end
  end

  test "every recursive path leaves room on the scheduler's stack, whatever its size" do
    {_, _, available} = Native.stack_use(:compile, true, %{}, nil)
    # The whole depth is measured only where it fits (a default scheduler).
    whole? = available > 600_000

    IO.puts("\nstack (#{div(available, 1024)} KiB free at NIF entry on a scheduler)")
    IO.puts("| path | whole depth, no segments | on this scheduler's stack |")

    for {name, op, a, b, expected} <- paths() do
      # The cache's own path from a miss: hash, size, copy, then a hit.
      if op == :cached, do: InputSchema.clear_cache()
      {result, used, available} = Native.stack_use(op, true, a, b)
      check!(name, result, expected)
      assert used <= available - @margin, "#{name}: #{used} of #{available} bytes"

      whole =
        if whole? do
          if op == :cached, do: InputSchema.clear_cache()
          {result, whole, _} = Native.stack_use(op, false, a, b)
          check!(name, result, expected)
          "#{div(whole + 1023, 1024)} KiB"
        else
          "(not measured: too small a stack)"
        end

      IO.puts("| #{name} | #{whole} | #{div(used + 1023, 1024)} KiB |")
    end
  end
end
