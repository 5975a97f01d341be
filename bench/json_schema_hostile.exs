# Hostile input against Backplane.JSONSchema: what one bad schema or
# instance costs the node, shape by shape (the shapes of
# test/backplane/json_schema/hostile_test.exs).
#
#   mix run bench/json_schema_hostile.exs
#
# For each shape, the hostile call (a compile of a fresh schema, or a
# validation against a schema compiled beforehand; the instance is built
# beforehand) runs in a process of its own, RUNS times (default 3):
#
#   * decision: how long the call took to return its outcome (median and
#     worst of the runs);
#   * peak memory rise: how much the VM's peak resident memory rose during
#     the call (the peak is reset before each run through
#     /proc/self/clear_refs; median and worst);
#   * small call waited: the worst wait, beyond its time alone, of small
#     `validate/2` calls (a compiled coding-tool schema, decided inline)
#     issued by another process every millisecond while the hostile call
#     ran (worst over the runs);
#   * dirty-lane call waited: how long a legitimate validation that needs
#     the dirty scheduler (20,000 strings), issued 2 ms after the hostile
#     call began, waited beyond its time alone (worst over the runs): the
#     gate gives it the place the hostile call holds once that call ends.
#
# Public API only (BenchSupport for percentiles).

Code.require_file("support.exs", __DIR__)

alias Backplane.JSONSchema

defmodule JSONSchemaHostile do
  def nest(depth, leaf, wrap), do: Enum.reduce(1..depth//1, leaf, fn _, inner -> wrap.(inner) end)

  def tree do
    %{
      "$id" => "https://example.com/tree",
      "$dynamicAnchor" => "node",
      "type" => "object",
      "properties" => %{
        "value" => %{"type" => "integer"},
        "children" => %{"type" => "array", "items" => %{"$dynamicRef" => "#node"}}
      },
      "required" => ["value"]
    }
  end

  def strict_tree do
    %{
      "$id" => "https://example.com/strict-tree",
      "$dynamicAnchor" => "node",
      "$ref" => "tree",
      "unevaluatedProperties" => false,
      "$defs" => %{"tree" => tree()}
    }
  end

  def doubling(levels) do
    defs =
      Map.new(0..(levels - 1), fn i ->
        next = %{"$ref" => "#/$defs/d#{i + 1}"}
        {"d#{i}", %{"allOf" => [next, next]}}
      end)
      |> Map.put("d#{levels}", %{"type" => "integer"})

    %{"$ref" => "#/$defs/d0", "$defs" => defs}
  end

  def dynamic_scope do
    anchors = Map.new(0..4_999, &{"n#{&1}", %{"$dynamicAnchor" => "n#{&1}"}})

    %{
      "$id" => "https://example.com/root",
      "$ref" => "a",
      "$defs" => %{
        "a" => %{
          "$id" => "a",
          "$defs" => anchors,
          "prefixItems" => [%{"$ref" => "a2"}],
          "items" => %{"$ref" => "b"}
        },
        "a2" => %{"$id" => "a2", "prefixItems" => [%{"$ref" => "a"}], "items" => %{"$ref" => "b"}},
        "b" => %{"$id" => "b", "$dynamicAnchor" => "x", "items" => %{"$dynamicRef" => "#x"}}
      }
    }
  end

  def patterns(count, seed),
    do: Map.new(0..(count - 1), &{"^p#{&1}_[a-z]+x#{seed}$", %{"type" => "integer"}})

  @doc """
  Each shape: {name, kind, prepare}. `prepare.(seed)` returns the hostile
  call as a function (its schema compiled, its instance built).
  """
  def shapes do
    validate = fn schema, instance ->
      {:ok, compiled} = JSONSchema.compile(schema)
      fn -> JSONSchema.validate(compiled, instance) end
    end

    compile = fn schema -> fn -> JSONSchema.compile(schema) end end

    all_of = fn ->
      leaf = %{
        "properties" => %{"id" => %{"type" => "integer"}},
        "patternProperties" => %{"^k" => %{"type" => "integer"}}
      }

      nest(100, leaf, &%{"allOf" => [&1], "unevaluatedProperties" => false})
    end

    k_object = fn count -> Map.new(0..(count - 1), &{"k#{&1}", &1}) |> Map.put("id", 1) end

    [
      {"unevaluatedProperties, 100 levels of allOf, 20,000-key object", :validate,
       fn _ -> validate.(all_of.(), k_object.(20_000)) end},
      {"unevaluatedProperties, 100 levels of allOf, 100,000-key object", :validate,
       fn _ -> validate.(all_of.(), k_object.(100_000)) end},
      {"unevaluatedProperties over an anyOf of 1,000 branches, 10,000 keys", :validate,
       fn _ ->
         branches =
           for i <- 0..999,
               do: %{
                 "properties" => %{"p#{i}" => %{"type" => "integer"}},
                 "required" => ["p#{i}"]
               }

         validate.(
           %{"anyOf" => branches, "unevaluatedProperties" => false},
           Map.new(0..9_999, &{"p#{&1}", &1})
         )
       end},
      {"unevaluatedItems, 100 levels of if/then, 1,000,000 items", :validate,
       fn _ ->
         leaf = %{"prefixItems" => [%{"type" => "string"}], "contains" => %{"type" => "integer"}}

         schema =
           nest(
             100,
             leaf,
             &%{"if" => %{"type" => "array"}, "then" => &1, "unevaluatedItems" => false}
           )

         validate.(schema, ["a" | Enum.to_list(0..999_999)])
       end},
      {"$dynamicRef tree, instance 100,000 levels deep", :validate,
       fn _ ->
         validate.(
           tree(),
           nest(100_000, %{"value" => 0}, &%{"value" => 1, "children" => [&1]})
         )
       end},
      {"$dynamicRef strict tree, 200,000 children", :validate,
       fn _ ->
         validate.(strict_tree(), %{
           "value" => 0,
           "children" => Enum.map(0..199_999, &%{"value" => &1})
         })
       end},
      {"$dynamicRef cycle that never descends", :validate,
       fn _ ->
         validate.(
           %{"$id" => "https://example.com/loop", "$dynamicAnchor" => "a", "$dynamicRef" => "#a"},
           %{"a" => 1}
         )
       end},
      {"$dynamicRef lookups along a 450-level dynamic scope, 100,000 items", :validate,
       fn _ ->
         validate.(dynamic_scope(), nest(450, [0, List.duplicate(0, 100_000)], &[&1]))
       end},
      {"contains + minContains: 2 over 1,000,000 items", :validate,
       fn _ ->
         validate.(
           %{"contains" => %{"const" => 999_999}, "minContains" => 2},
           Enum.to_list(0..999_999)
         )
       end},
      {"contains + maxContains: 999,999 over 1,000,000 items", :validate,
       fn _ ->
         validate.(
           %{"contains" => %{"type" => "integer"}, "maxContains" => 999_999},
           Enum.to_list(0..999_999)
         )
       end},
      {"compile: 5,000 patternProperties", :compile,
       fn seed -> compile.(%{"patternProperties" => patterns(5_000, seed)}) end},
      {"1,000 patternProperties against 20,000 keys", :validate,
       fn seed ->
         validate.(
           %{"patternProperties" => patterns(1_000, seed)},
           Map.new(0..19_999, &{"p#{&1}_abc", &1})
         )
       end},
      {"compile: 10,000 embedded $id resources", :compile,
       fn seed ->
         defs =
           Map.new(0..9_999, fn i ->
             {"r#{i}",
              %{"$id" => "https://example.com/r#{i}", "type" => "integer", "minimum" => i}}
           end)

         compile.(%{
           "$id" => "https://example.com/root-#{seed}",
           "properties" => %{"a" => %{"$ref" => "https://example.com/r9999"}},
           "$defs" => defs
         })
       end},
      {"30 definitions that each refer twice to the next", :validate,
       fn _ -> validate.(doubling(30), 1) end},
      {"$ref to the 2020-12 metaschema, 1,000,000-property instance", :validate,
       fn _ ->
         validate.(
           %{"$ref" => "https://json-schema.org/draft/2020-12/schema"},
           %{
             "type" => "object",
             "properties" =>
               Map.new(0..999_999, &{"p#{&1}", %{"type" => "integer", "minimum" => &1}})
           }
         )
       end},
      {"$ref to the 2020-12 metaschema, instance 100,000 levels deep", :validate,
       fn _ ->
         validate.(
           %{"$ref" => "https://json-schema.org/draft/2020-12/schema"},
           nest(100_000, true, &%{"not" => &1})
         )
       end},
      {"uniqueItems over 1,000,000 items", :validate,
       fn _ -> validate.(%{"uniqueItems" => true}, Enum.to_list(0..999_999)) end},
      {"compile: a schema nested 10,000 levels", :compile,
       fn seed ->
         compile.(nest(10_000, %{"title" => "#{seed}"}, &%{"properties" => %{"a" => &1}}))
       end},
      {"$ref: # cycle", :validate, fn _ -> validate.(%{"$ref" => "#"}, [1]) end},
      {"items: {$ref: #} over 100,000 nested lists", :validate,
       fn _ -> validate.(%{"items" => %{"$ref" => "#"}}, nest(100_000, 1, &[&1])) end},
      {"dependentRequired with 50,000 rules over 100,000 objects", :validate,
       fn _ ->
         validate.(
           %{"items" => %{"dependentRequired" => Map.new(0..49_999, &{"d#{&1}", ["x"]})}},
           List.duplicate(%{"y" => 1}, 100_000)
         )
       end}
    ]
  end

  def time(fun) do
    start = System.monotonic_time(:nanosecond)
    result = fun.()
    {System.monotonic_time(:nanosecond) - start, result}
  end

  def ms(ns), do: :erlang.float_to_binary(ns / 1_000_000, decimals: 1) <> " ms"
  def us(ns), do: :erlang.float_to_binary(ns / 1000, decimals: 0) <> " µs"

  # A peak below the resident size before the call (memory given back by
  # a collection meanwhile) is no rise.
  def mib(kib), do: :erlang.float_to_binary(max(kib, 0) / 1024, decimals: 1) <> " MiB"

  def outcome(:ok), do: "valid"
  def outcome({:ok, %Backplane.JSONSchema.Compiled{}}), do: "compiled"
  def outcome({:error, units}) when is_list(units), do: "invalid (#{length(units)} units)"

  def outcome({:error, %Backplane.JSONSchema.LimitError{reason: r}}),
    do: "LimitError #{inspect(r)}"

  def outcome({:error, %Backplane.JSONSchema.CompileError{reason: r}}),
    do: "CompileError #{inspect(r)}"

  def outcome(other), do: inspect(other, limit: 5)

  # Small calls every millisecond until told to stop; answers the worst.
  def prober(small, instance, alone) do
    fn ->
      loop = fn loop, worst ->
        receive do
          {:stop, from} -> send(from, {:worst, worst})
        after
          1 ->
            {ns, :ok} = time(fn -> JSONSchema.validate(small, instance) end)
            loop.(loop, max(worst, ns - alone))
        end
      end

      loop.(loop, 0)
    end
  end
end

alias JSONSchemaHostile, as: H

{:ok, small} =
  JSONSchema.compile(%{
    "type" => "object",
    "properties" => %{
      "path" => %{"type" => "string"},
      "limit" => %{"type" => "integer", "minimum" => 1}
    },
    "required" => ["path"]
  })

small_instance = %{"path" => "lib/app.ex", "limit" => 20}
{:ok, lane} = JSONSchema.compile(%{"type" => "array", "items" => %{"type" => "string"}})
lane_instance = List.duplicate("abc", 20_000)

median_alone = fn fun ->
  for(_ <- 1..201, do: elem(H.time(fun), 0)) |> Enum.sort() |> BenchSupport.percentile(0.5)
end

small_alone = median_alone.(fn -> :ok = JSONSchema.validate(small, small_instance) end)
lane_alone = median_alone.(fn -> :ok = JSONSchema.validate(lane, lane_instance) end)
runs = String.to_integer(System.get_env("RUNS", "3"))

IO.puts("""
OTP #{System.otp_release()}, Elixir #{System.version()}, #{:erlang.system_info(:schedulers_online)} schedulers, \
#{:erlang.system_info(:dirty_cpu_schedulers_online)} dirty CPU schedulers; #{runs} runs per shape.
Alone, the small call takes #{:erlang.float_to_binary(small_alone / 1000, decimals: 1)} µs and the \
dirty-lane call #{H.ms(lane_alone)} (medians).

| shape | decision (median, worst) | outcome | peak memory rise (median, worst) | small call waited (worst) | dirty-lane call waited (worst) |
|---|---|---|---|---|---|\
""")

for {name, _kind, prepare} <- H.shapes() do
  samples =
    for run <- 1..runs do
      call = prepare.(System.unique_integer([:positive]) * 10 + run)
      main = self()

      # The hostile call's process holds its closure (schema, instance)
      # before the clock and the memory peak start.
      hostile =
        Task.async(fn ->
          send(main, {:ready, self()})

          receive do
            :go -> H.time(call)
          end
        end)

      probe = spawn(H.prober(small, small_instance, small_alone))

      rss_before =
        receive do
          {:ready, pid} ->
            :erlang.garbage_collect()
            Process.sleep(50)
            BenchSupport.reset_peak()
            rss = BenchSupport.rss_kib("VmRSS")
            send(pid, :go)
            rss
        end

      Process.sleep(2)

      {lane_ns, :ok} =
        Task.async(fn -> H.time(fn -> JSONSchema.validate(lane, lane_instance) end) end)
        |> Task.await(:infinity)

      {decision_ns, result} = Task.await(hostile, :infinity)
      peak = BenchSupport.rss_kib("VmHWM") - rss_before
      send(probe, {:stop, self()})

      small_worst =
        receive do
          {:worst, ns} -> ns
        end

      {decision_ns, peak, small_worst, max(lane_ns - lane_alone, 0), result}
    end

  sorted = fn index -> samples |> Enum.map(&elem(&1, index)) |> Enum.sort() end

  stat = fn index, format ->
    "#{format.(BenchSupport.percentile(sorted.(index), 0.5))}, #{format.(List.last(sorted.(index)))}"
  end

  worst = fn index, format -> format.(List.last(sorted.(index))) end

  IO.puts(
    "| #{name} | #{stat.(0, &H.ms/1)} | #{samples |> hd() |> elem(4) |> H.outcome()} | " <>
      "#{stat.(1, &H.mib/1)} | #{worst.(2, &H.us/1)} | #{worst.(3, &H.ms/1)} |"
  )
end
