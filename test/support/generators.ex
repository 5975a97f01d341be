defmodule Backplane.AgentRuntime.InputSchema.Generators do
  @moduledoc """
  PropEr generators for InputSchema: schemas across the whole subset,
  arguments in and outside the JSON domain, and schema/value pairs built
  together so that the value satisfies the schema, with the single mutations
  that break exactly one constraint.

  PropEr generators are Erlang terms built with `:proper_types`; `let/2` is
  PropEr's `?LET` and `sized/1` its `?SIZED`.
  """

  @t :proper_types

  def let(gen, fun), do: @t.bind(gen, fun, false)
  def sized(fun), do: @t.sized(fun)
  def oneof(gens), do: @t.oneof(gens)
  def elements(list), do: @t.elements(list)
  def frequency(pairs), do: @t.frequency(pairs)
  # Short lists: nested schemas multiply, and PropEr's default sizes make
  # lists of dozens of elements.
  def list(gen), do: @t.resize(4, @t.list(gen))
  def boolean, do: @t.boolean()
  def integer, do: @t.integer()
  def integer(low, high), do: @t.integer(low, high)
  def float, do: @t.float()
  def exactly(term), do: @t.exactly(term)

  # Generators are built eagerly; recursion must be lazy or every level
  # builds every alternative of the next.
  defmacrop lazy(gen) do
    quote do: :proper_types.lazy(fn -> unquote(gen) end)
  end

  @names ["a", "b", "name", "path", "kind", "é", "x-y", "1"]
  @patterns [
    "^[a-z]*$",
    "b",
    "^a.c$",
    "\\d{2,}",
    "[^\\s]+",
    "^(ab|cd)?$",
    "\\bword\\b",
    "é|😀",
    "^\\w+$",
    "a{2}",
    "[(?]",
    "\\u00e9",
    "^$"
  ]

  @doc "A short string: ASCII, non-ASCII, line terminators."
  def text do
    oneof([
      elements(["", "a", "abc", "word", "é", "😀", "a\nb", "x\u2028", "e\u0301", "12", " ", "name"]),
      let(list(elements([?a, ?b, ?c, ?1, ?\s, ?é, ?\n])), &List.to_string/1)
    ])
  end

  @doc "A number: small and big integers, floats."
  def number do
    oneof([
      integer(-5, 5),
      integer(),
      float(),
      elements([0.0, 1.0, -1.5, 2 ** 70, -(2 ** 70), 1.0e300]),
      # Where float and integer precision part: 2^53 and 2^63, each side.
      elements([
        2 ** 53,
        2 ** 53 + 1,
        -(2 ** 53) - 1,
        9_007_199_254_740_992.0,
        2 ** 63 - 1,
        2 ** 63,
        -(2 ** 63),
        -(2 ** 63) - 1,
        9.223372036854776e18,
        1.8446744073709552e19
      ])
    ])
  end

  @doc "A JSON value (the Elixir form: string keys, nil, booleans)."
  def json_value, do: sized(&json_value/1)

  def json_value(size) when size <= 1 do
    oneof([text(), number(), boolean(), exactly(nil)])
  end

  def json_value(size) do
    frequency([
      {4, json_value(0)},
      {1, lazy(let(list(json_value(div(size, 3))), & &1))},
      {1, lazy(let(list({elements(@names), json_value(div(size, 3))}), &Map.new/1))}
    ])
  end

  @doc "A term outside the JSON domain."
  def hostile do
    oneof([
      exactly([1 | 2]),
      exactly(["a", "b" | :tail]),
      exactly(<<0xFF, 0xFE>>),
      exactly(<<"ok", 0xC3>>),
      exactly(~D[2024-01-01]),
      exactly(MapSet.new([1])),
      exactly({1, 2}),
      exactly(:atom),
      exactly(:null),
      exactly(self()),
      exactly(make_ref()),
      exactly(&Kernel.+/2),
      exactly(<<1::3>>),
      let(integer(), &(&1 + 2 ** 100)),
      exactly(%{{:t} => 1, 1.5 => 2, 3 => 4}),
      # Maps with keys of every other kind, generated.
      let(
        list(
          {oneof([
             integer(),
             float(),
             exactly({:t, 1}),
             exactly(make_ref()),
             exactly(self()),
             exactly([1]),
             exactly(%{}),
             exactly(nil),
             exactly(true),
             let(integer(), &(&1 + 2 ** 64))
           ]), json_value(0)}
        ),
        &Map.new/1
      ),
      exactly(%{a: 1, b: [nil]}),
      let(exactly(2_000), fn depth -> Enum.reduce(1..depth, "deep", fn _, acc -> [acc] end) end)
    ])
  end

  @doc "Any argument value: mostly JSON, sometimes hostile, possibly nested."
  def argument_value, do: sized(&argument_value/1)

  def argument_value(size) when size <= 1, do: frequency([{5, json_value(0)}, {1, hostile()}])

  def argument_value(size) do
    frequency([
      {4, argument_value(0)},
      {1, let(list(argument_value(div(size, 3))), & &1)},
      {1,
       let(
         list({argument_key(), argument_value(div(size, 3))}),
         &Map.new/1
       )}
    ])
  end

  @doc "A key of an argument map: mostly names, sometimes atoms, integers, bignums or odd terms."
  def argument_key do
    frequency([
      {12, elements(@names)},
      {1, exactly(:kind)},
      {1, let(elements(@names), &String.to_atom/1)},
      {1, integer()},
      {1, let(integer(), &(&1 + 2 ** 64))},
      {1, oneof([float(), exactly({:t}), exactly(make_ref()), exactly([1])])}
    ])
  end

  @doc "Arguments for a tool call: usually a map, sometimes anything."
  def arguments do
    frequency([
      {8, let(list({argument_key(), argument_value()}), &Map.new/1)},
      {1, argument_value()}
    ])
  end

  # Keywords as written: strings, atoms, or both forms of some keywords in
  # one map (the atom form wins), at the root and in every subschema. Property
  # names become atoms with the keywords when `mode` is `:atoms`.
  @subschema_keywords ~w(items not additionalProperties additionalItems propertyNames)
  @branch_keywords ~w(oneOf anyOf allOf prefixItems)

  defp keyed(schema, :strings), do: schema

  defp keyed(schema, mode) when is_map(schema) do
    Enum.reduce(schema, %{}, fn {keyword, value}, acc ->
      value = keyed_value(keyword, value, mode)
      atom = String.to_atom(keyword)

      case mode do
        :atoms -> Map.put(acc, atom, value)
        # Both forms: the string form keeps the value, the atom form (which
        # wins) gets one that differs for keywords where a difference shows.
        :both -> acc |> Map.put(keyword, value) |> Map.put(atom, both_value(keyword, value))
      end
    end)
  end

  defp keyed(other, _mode), do: other

  defp keyed_value("$defs", defs, mode) when is_map(defs),
    do: Map.new(defs, fn {name, sub} -> {name, keyed(sub, mode)} end)

  defp keyed_value("properties", props, mode) when is_map(props) do
    Map.new(props, fn {name, sub} ->
      {if(mode == :atoms, do: String.to_atom(name), else: name), keyed(sub, mode)}
    end)
  end

  defp keyed_value(keyword, sub, mode) when keyword in @subschema_keywords, do: keyed(sub, mode)

  defp keyed_value(keyword, branches, mode)
       when keyword in @branch_keywords and is_list(branches),
       do: Enum.map(branches, &keyed(&1, mode))

  defp keyed_value(_keyword, value, _mode), do: value

  defp both_value(keyword, value)
       when keyword in ["minimum", "maximum", "minLength", "maxLength"],
       do: if(is_integer(value), do: value + 1, else: value)

  defp both_value(_keyword, value), do: value

  @doc "A schema across the whole subset (a root object schema when `root`)."
  def schema, do: sized(&schema/1)

  def schema(size) do
    let(
      {schema_node(size),
       frequency([{3, exactly(:strings)}, {2, exactly(:atoms)}, {1, exactly(:both)}])},
      fn {node, mode} -> keyed(node, mode) end
    )
  end

  defp schema_node(size) when size <= 1 do
    let(list(scalar_keyword()), &Map.new/1)
  end

  defp schema_node(size) do
    sub = div(size, 3)

    let({list(scalar_keyword()), lazy(list(structural_keyword(sub)))}, fn {scalars, structurals} ->
      Map.new(scalars ++ structurals)
    end)
  end

  defp type_name, do: elements(~w(object array string integer number boolean null))

  defp scalar_keyword do
    oneof([
      {exactly("type"), oneof([type_name(), let(list(type_name()), &Enum.uniq/1)])},
      {exactly("enum"), list(json_value(2))},
      {exactly("const"), json_value(2)},
      {exactly("minimum"), number()},
      {exactly("maximum"), number()},
      {exactly("exclusiveMinimum"), oneof([number(), boolean()])},
      {exactly("exclusiveMaximum"), oneof([number(), boolean()])},
      {exactly("uniqueItems"), boolean()},
      {exactly("dependentRequired"),
       let(list({elements(@names), list(elements(@names))}), &Map.new/1)},
      {exactly("$ref"), elements(["#", "#/$defs/a", "#/$defs/b", "#/properties/a", "#/nope"])},
      {exactly("minLength"), integer(0, 4)},
      {exactly("maxLength"), integer(0, 6)},
      {exactly("minItems"), integer(0, 3)},
      {exactly("maxItems"), integer(0, 4)},
      {exactly("pattern"), elements(@patterns)},
      {exactly("required"), list(elements(@names))},
      {exactly("additionalProperties"), boolean()},
      {exactly("description"), text()},
      {exactly("title"), text()},
      {exactly("default"), argument_value(2)},
      {exactly("format"), elements(["uri", "date-time"])},
      {exactly("contentEncoding"), elements(["base64", "7bit"])},
      {exactly("$schema"), elements(["https://json-schema.org/draft/2020-12/schema"])},
      {exactly("x-mcp-header"), text()},
      {exactly("additional_properties"), boolean()},
      {exactly("$comment"), text()},
      {exactly("examples"), list(argument_value(1))},
      {exactly("deprecated"), boolean()},
      {exactly("readOnly"), boolean()},
      {exactly("writeOnly"), boolean()}
    ])
  end

  # Each alternative is lazy: built eagerly, every level would build every
  # alternative of the next.
  defp structural_keyword(size) do
    oneof([
      {exactly("properties"), lazy(let(list({elements(@names), sub_node(size)}), &Map.new/1))},
      {exactly("items"), lazy(oneof([sub_node(size), non_empty(size)]))},
      {exactly("not"), lazy(sub_node(size))},
      {exactly("additionalProperties"), lazy(schema_node(size))},
      {exactly("oneOf"), lazy(non_empty(size))},
      {exactly("anyOf"), lazy(non_empty(size))},
      {exactly("allOf"), lazy(non_empty(size))},
      {exactly("prefixItems"), lazy(non_empty(size))},
      {exactly("additionalItems"), lazy(sub_node(size))},
      {exactly("propertyNames"), lazy(sub_node(size))},
      {exactly("$defs"), lazy(let(list({elements(["a", "b"]), sub_node(size)}), &Map.new/1))}
    ])
  end

  # A subschema: a map, sometimes the boolean schema `true` or `false`.
  defp sub_node(size), do: frequency([{6, schema_node(size)}, {1, boolean()}])

  defp non_empty(size),
    do: let({sub_node(size), list(sub_node(size))}, fn {a, rest} -> [a | rest] end)

  @doc "A schema that may also be malformed or unsupported somewhere."
  def any_schema do
    frequency([
      {6, schema()},
      {1,
       let(
         {schema(), elements(["$anchor", "contains", :foo, {1}, "if"]), argument_value(1)},
         fn {s, k, v} ->
           Map.put(s, k, v)
         end
       )},
      {1,
       let(
         {schema(),
          elements([
            "type",
            "enum",
            "minimum",
            "minLength",
            "pattern",
            "items",
            "oneOf",
            "required",
            "properties",
            "not",
            "$ref",
            "allOf",
            "prefixItems",
            "uniqueItems",
            "propertyNames",
            "dependentRequired",
            "$defs"
          ]), argument_value(1)},
         fn {s, k, v} -> Map.put(s, k, v) end
       )},
      {1, argument_value(1)}
    ])
  end

  @doc """
  `{schema, value, breaks}`: a root object schema, arguments that satisfy
  it, and single mutations `{arguments, message, path}` that each break one
  constraint and give that error at that path.
  """
  def valid_pair do
    let({sized(fn size -> object_pair(max(size, 2), "$arguments") end), boolean()}, fn
      {{schema, value, breaks}, true} -> {lift_to_defs(schema), value, breaks}
      {pair, false} -> pair
    end)
  end

  # Moves every property schema into the root's `$defs` and points at it
  # with a `$ref`, as Pydantic writes nested models: results and paths stay
  # the same.
  defp lift_to_defs(schema) do
    {schema, defs} = lift(schema, %{})
    Map.put(schema, "$defs", defs)
  end

  defp lift(%{"properties" => properties} = schema, defs) do
    {properties, defs} =
      Enum.reduce(properties, {%{}, defs}, fn {name, sub}, {acc, defs} ->
        {sub, defs} = lift(sub, defs)
        key = "m#{map_size(defs)}"
        {Map.put(acc, name, %{"$ref" => "#/$defs/#{key}"}), Map.put(defs, key, sub)}
      end)

    {Map.put(schema, "properties", properties), defs}
  end

  defp lift(%{"items" => items} = schema, defs) when is_map(items) do
    {items, defs} = lift(items, defs)
    {Map.put(schema, "items", items), defs}
  end

  defp lift(%{"prefixItems" => [first | rest]} = schema, defs) do
    {first, defs} = lift(first, defs)
    {Map.put(schema, "prefixItems", [first | rest]), defs}
  end

  defp lift(schema, defs), do: {schema, defs}

  defp object_pair(size, path) do
    sub = div(size, 2)

    let({list({elements(@names), boolean()}), boolean()}, fn {names, closed} ->
      names = names |> Enum.uniq_by(&elem(&1, 0)) |> Enum.take(4)

      children =
        Enum.map(names, fn {name, required} ->
          {name, required, value_pair(sub, "#{path}.#{name}")}
        end)

      let(fixed_list(Enum.map(children, fn {_, _, gen} -> gen end)), fn pairs ->
        combine_object(Enum.zip(children, pairs), closed, path)
      end)
    end)
  end

  defp fixed_list(gens), do: @t.fixed_list(gens)

  defp combine_object(children, closed, path) do
    properties = Map.new(children, fn {{name, _, _}, {schema, _, _}} -> {name, schema} end)
    value = Map.new(children, fn {{name, _, _}, {_, v, _}} -> {name, v} end)
    required = for {{name, true, _}, _} <- children, do: name
    optional = for {{name, false, _}, _} <- children, do: name

    # An optional name required by another present one (`dependentRequired`),
    # and, on open objects, names of at most eight characters (`propertyNames`).
    dependent =
      case {Map.keys(value) -- optional, optional} do
        {[trigger | _], [dependent | _]} -> %{trigger => [dependent]}
        _ -> %{}
      end

    schema =
      %{"type" => "object", "properties" => properties, "required" => required}
      |> then(&if closed, do: Map.put(&1, "additionalProperties", false), else: &1)
      |> then(&if dependent != %{}, do: Map.put(&1, "dependentRequired", dependent), else: &1)
      |> then(&if closed, do: &1, else: Map.put(&1, "propertyNames", %{"maxLength" => 8}))

    dependent_missing =
      for {_, [name]} <- dependent,
          do: {Map.delete(value, name), "required tool argument is missing", path}

    long_name =
      if closed,
        do: [],
        else: [
          {Map.put(value, "longer_than_8", 1), "tool argument property name is not allowed", path}
        ]

    lifted =
      for {{name, _, _}, {_, _, breaks}} <- children, {broken, message, at} <- breaks do
        {Map.put(value, name, broken), message, at}
      end

    missing =
      for name <- required,
          do: {Map.delete(value, name), "required tool argument is missing", path}

    extra =
      if closed,
        do: [{Map.put(value, "zz_extra", 1), "additional tool argument is not allowed", path}],
        else: []

    # The root arguments must be a map before any check: no type mutation there.
    wrong_type =
      if path == "$arguments",
        do: [],
        else: [{"not an object", "tool argument has the wrong type", path}]

    {schema, value, lifted ++ missing ++ dependent_missing ++ extra ++ long_name ++ wrong_type}
  end

  defp value_pair(size, path) when size <= 1, do: scalar_pair(path)

  defp value_pair(size, path) do
    frequency([
      {3, scalar_pair(path)},
      {1, lazy(object_pair(size, path))},
      {1, lazy(array_pair(size, path))},
      {1, lazy(tuple_pair(size, path))},
      {1, unique_pair(path)}
    ])
  end

  # `prefixItems` then `items: false`: one item of a generated pair, then an
  # integer, and nothing after.
  defp tuple_pair(size, path) do
    let(value_pair(div(size, 2), "#{path}[0]"), fn {item_schema, item, breaks} ->
      schema = %{
        "type" => "array",
        "prefixItems" => [item_schema, %{"type" => "integer"}],
        "items" => false
      }

      value = [item, 7]
      lifted = for {broken, message, at} <- breaks, do: {[broken, 7], message, at}

      {schema, value,
       lifted ++
         [
           {[item, "7"], "tool argument has the wrong type", "#{path}[1]"},
           {[item, 7, 8], "tool argument is not allowed", "#{path}[2]"}
         ]}
    end)
  end

  # `uniqueItems` over distinct integers; a repeat (also as a float) breaks it.
  defp unique_pair(path) do
    let({integer(-50, 50), integer(1, 4)}, fn {start, n} ->
      value = Enum.to_list(start..(start + n - 1))
      schema = %{"type" => "array", "uniqueItems" => true, "items" => %{"type" => "number"}}

      {schema, value,
       [
         {value ++ [start], "tool argument has duplicate items", path},
         {value ++ [start * 1.0], "tool argument has duplicate items", path},
         {value ++ ["x"], "tool argument has the wrong type", "#{path}[#{n}]"}
       ]}
    end)
  end

  defp array_pair(size, path) do
    let({value_pair(div(size, 2), "#{path}[0]"), integer(1, 3)}, fn {{item_schema, item, breaks},
                                                                     n} ->
      schema = %{"type" => "array", "items" => item_schema, "minItems" => 1, "maxItems" => n}
      value = List.duplicate(item, n)
      lifted = for {broken, message, at} <- breaks, do: {[broken | tl(value)], message, at}

      {schema, value,
       lifted ++
         [
           {[], "tool argument has too few items", path},
           {List.duplicate(item, n + 1), "tool argument has too many items", path},
           {%{}, "tool argument has the wrong type", path}
         ]}
    end)
  end

  defp scalar_pair(path) do
    oneof([
      let({integer(-100, 100), integer(0, 5), integer(0, 5)}, fn {v, below, above} ->
        {%{"type" => "integer", "minimum" => v - below, "maximum" => v + above}, v,
         [
           {v - below - 1, "tool argument is below the minimum", path},
           {v + above + 1, "tool argument is above the maximum", path},
           {v + 0.5, "tool argument has the wrong type", path}
         ]}
      end),
      let({@t.float(-1.0e6, 1.0e6), integer(1, 5)}, fn {v, d} ->
        {%{"type" => "number", "exclusiveMinimum" => v - d, "exclusiveMaximum" => v + d}, v,
         [
           {v - d, "tool argument is not above the exclusive minimum", path},
           {v + d, "tool argument is not below the exclusive maximum", path},
           {"1", "tool argument has the wrong type", path}
         ]}
      end),
      let(let(list(elements([?a, ?b, ?z])), &List.to_string/1), fn v ->
        n = String.length(v)

        {%{"type" => "string", "minLength" => n, "maxLength" => n + 2, "pattern" => "^[a-z]*$"},
         v,
         [
           {String.duplicate("a", n + 3), "tool argument is longer than the maximum length",
            path},
           {v <> "1", "tool argument does not match the pattern", path},
           {nil, "tool argument has the wrong type", path}
         ] ++
           if(n > 0,
             do: [
               {String.slice(v, 1..-1//1), "tool argument is shorter than the minimum length",
                path}
             ],
             else: []
           )}
      end),
      let({elements(["red", "green", "blue"]), boolean()}, fn {v, flag} ->
        {%{"enum" => ["red", "green", "blue"], "description" => "color"}, v,
         [
           {if(flag, do: "RED", else: "purple"), "tool argument is not an allowed enum value",
            path}
         ]}
      end),
      let(json_value(2), fn v ->
        {%{"const" => v}, v,
         [{{:not_json}, "tool argument is not the allowed constant value", path}]}
      end),
      let(boolean(), fn v ->
        {%{"type" => ["boolean", "null"]}, v,
         [{"true", "tool argument has the wrong type", path}]}
      end),
      let(text(), fn v ->
        {%{"anyOf" => [%{"type" => "string"}, %{"type" => "integer"}]}, v,
         [{1.5, "tool argument must match at least one anyOf branch", path}]}
      end),
      let(integer(0, 10), fn v ->
        {%{"oneOf" => [%{"type" => "integer", "minimum" => 0}, %{"type" => "string"}]}, v,
         [{-1, "tool argument must match exactly one oneOf branch", path}]}
      end),
      let(integer(1, 10), fn v ->
        {%{"not" => %{"const" => 0}}, v,
         [{0, "tool argument must not match the negated schema", path}]}
      end),
      let(integer(-20, 20), fn v ->
        {%{"allOf" => [%{"type" => "integer"}, %{"minimum" => v - 1}, true]}, v,
         [
           {v - 2, "tool argument is below the minimum", path},
           {"x", "tool argument has the wrong type", path}
         ]}
      end),
      let(integer(0, 9), fn v ->
        {%{"minimum" => 0, "exclusiveMaximum" => true, "maximum" => 10}, v,
         [{10, "tool argument is not below the exclusive maximum", path}]}
      end)
    ])
  end
end
