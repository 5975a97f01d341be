defmodule Backplane.JSONSchema.FastPathTest do
  # `valid?/2`, and `validate/3`'s first pass, read the commonest keywords
  # through one plan per schema (`type`, `minLength`, `maxLength`, the
  # numeric bounds, `properties`, `patternProperties`, `required`,
  # `additionalProperties`, `items`): an object in one pass over its
  # entries. The recording walk
  # reads them keyword by keyword. Both must decide every instance alike,
  # the terms JSON has no word for included (atom keys, structs, keys that
  # are not strings, improper lists, bitstrings, bignums): each case below
  # states the verdict docs/behaviour.md gives, and both entry points must
  # give it.
  use ExUnit.Case, async: true

  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.ValidationError

  @property %{"properties" => %{"a" => %{"type" => "integer"}}}
  @patterns %{
    "patternProperties" => %{
      "^a" => %{"type" => "integer"},
      "^x-[0-9]+$" => %{"type" => "string"}
    },
    "additionalProperties" => false
  }

  # A tagged union: the tag ("kind") is read once, and only the branch it
  # names is evaluated.
  @tagged %{
    "oneOf" => [
      %{
        "type" => "object",
        "required" => ["kind"],
        "properties" => %{"kind" => %{"const" => "a"}, "x" => %{"type" => "integer"}}
      },
      %{
        "type" => "object",
        "required" => ["kind"],
        "properties" => %{"kind" => %{"enum" => ["b"]}, "x" => %{"type" => "string"}}
      }
    ]
  }

  # A tagged union whose tags are all `const` strings: the tag's value is
  # compared with each string in place.
  @tagged_texts update_in(@tagged, ["oneOf"], fn [first, second] ->
                  [first, put_in(second, ["properties", "kind"], %{"const" => "é"})]
                end)

  # Forty properties: a map of them all has more than 32 keys, which the VM
  # keeps in hash order, not in the order of the names.
  @forty Map.new(0..39, &{"k#{&1}", %{"type" => "integer"}})
  @forty_map Map.new(0..39, &{"k#{&1}", &1})

  # unevaluatedProperties whose node evaluates properties by folded
  # keywords alone (its properties, patterns and an allOf of properties) is
  # decided by the plan; beside an anyOf it needs the annotations.
  @unevaluated %{
    "allOf" => [%{"properties" => %{"a" => %{"type" => "string"}}}],
    "patternProperties" => %{"^x" => %{"type" => "integer"}},
    "unevaluatedProperties" => %{"type" => "boolean"}
  }
  @unevaluated_annotated Map.put(@unevaluated, "anyOf", [true])
  # a base schema through $ref, folded as an allOf branch is
  @unevaluated_base %{
    "$defs" => %{"base" => %{"properties" => %{"a" => %{"type" => "string"}}}},
    "$ref" => "#/$defs/base",
    "unevaluatedProperties" => false
  }

  @cases [
    # unevaluatedProperties, decided by the plan and by the annotations:
    # an atom key is read by its name, as by the other object keywords; a
    # key that is not text fails it; a struct is no object
    {@unevaluated, %{a: "s", x1: 1, z: true}, true},
    {@unevaluated, %{a: "s", z: 1}, false},
    {@unevaluated, %{"a" => 1}, false},
    {@unevaluated, %{1 => true}, false},
    {@unevaluated, MapSet.new(), false},
    {@unevaluated, "not an object", true},
    {@unevaluated_annotated, %{a: "s", x1: 1, z: true}, true},
    {@unevaluated_annotated, %{a: "s", z: 1}, false},
    {@unevaluated_annotated, %{1 => true}, false},
    {@unevaluated_annotated, MapSet.new(), false},
    {@unevaluated_base, %{a: "s"}, true},
    {@unevaluated_base, %{"a" => "s", b: 1}, false},
    {@unevaluated_base, %{a: 1}, false},
    {%{"unevaluatedProperties" => %{"type" => "integer"}}, %{c: 1}, true},
    {%{"unevaluatedProperties" => %{"type" => "integer"}}, %{c: "x"}, false},
    {%{"unevaluatedProperties" => false}, %{c: 1}, false},
    {%{"unevaluatedProperties" => false}, %{}, true},
    # a tagged union: an atom key is read by its name for the tag too; with
    # both spellings of the tag's name, each must match the branch; an
    # atom is no string; a struct is no object
    {@tagged, %{kind: "a", x: 1}, true},
    {@tagged, %{kind: "b", x: "s"}, true},
    {@tagged, %{kind: "b", x: 1}, false},
    {@tagged, %{kind: "c", x: 1}, false},
    {@tagged, %{x: 1}, false},
    {@tagged, %{kind: :a, x: 1}, false},
    {@tagged, %{"kind" => "a", kind: "a", x: 1}, true},
    {@tagged, %{"kind" => "a", kind: "b", x: 1}, false},
    {@tagged, %{"kind" => "b", kind: "a", x: 1}, false},
    {@tagged, MapSet.new(), false},
    {@tagged, "a", false},
    # a tagged union of const strings: the same bytes match; an atom, other
    # bytes, bytes that are not UTF-8 and a prefix do not
    {@tagged_texts, %{kind: "a", x: 1}, true},
    {@tagged_texts, %{"kind" => "é", "x" => "s"}, true},
    {@tagged_texts, %{kind: "é", x: 1}, false},
    {@tagged_texts, %{kind: :a, x: 1}, false},
    {@tagged_texts, %{kind: <<0xC3>>, x: "s"}, false},
    {@tagged_texts, %{kind: "", x: 1}, false},
    {@tagged_texts, %{kind: 1, x: 1}, false},
    {@tagged_texts, %{kind: ["a"], x: 1}, false},
    # properties of a map whose keys do not come in name order (more than
    # 32 keys, atom keys among binary ones)
    {%{"properties" => @forty}, @forty_map, true},
    {%{"properties" => @forty}, Map.put(@forty_map, "k17", "x"), false},
    {%{"properties" => @forty}, Map.put(@forty_map, "k39", "x"), false},
    {%{"properties" => @forty, "additionalProperties" => false}, Map.put(@forty_map, "k", 1),
     false},
    {%{"properties" => @forty, "required" => ["k0", "k39"]}, Map.delete(@forty_map, "k0"), false},
    {%{"properties" => %{"a" => %{"type" => "integer"}, "b" => %{"type" => "string"}}},
     %{:b => "s", "a" => 1}, true},
    {%{"properties" => %{"a" => %{"type" => "integer"}, "b" => %{"type" => "string"}}},
     %{:b => 1, "a" => 1}, false},
    {%{"properties" => %{"a" => %{"type" => "integer"}, "b" => %{"type" => "string"}}},
     %{:a => "s", "b" => "s"}, false},
    # const: a scalar compared by its value (1.0 is 1); an atom is no
    # string; a list compared item by item; a struct is no object
    {%{"const" => "a"}, "a", true},
    {%{"const" => "a"}, "b", false},
    {%{"const" => "a"}, :a, false},
    {%{"const" => 1}, 1.0, true},
    {%{"const" => 1}, "1", false},
    {%{"const" => nil}, nil, true},
    {%{"const" => true}, true, true},
    {%{"const" => true}, 1, false},
    {%{"const" => [1, "a"]}, [1.0, "a"], true},
    {%{"const" => [1, "a"]}, [1, "a" | "b"], false},
    {%{"const" => %{"a" => 1}}, %{"a" => 1}, true},
    {%{"const" => %{}}, MapSet.new(), false},
    # properties: an atom key is read by its name; both spellings of a
    # name are checked; a key that is not text fails the keyword; a struct
    # is no object; a binary key "__struct__" is only a key.
    {@property, %{a: 1}, true},
    {@property, %{a: "x"}, false},
    {@property, %{"a" => 1, a: "x"}, false},
    {@property, %{"a" => 1, 1 => 2}, false},
    {@property, %{nil => 1}, false},
    {@property, MapSet.new(), false},
    {@property, %{"__struct__" => "x"}, true},
    {@property, %{__struct__: "x"}, false},
    {@property, "not an object", true},
    # required
    {%{"required" => ["a", "b"]}, %{a: 1, b: 2}, true},
    {%{"required" => ["a", "b"]}, %{"a" => 1}, false},
    {%{"required" => ["a"]}, %{"a" => 1, 2 => 3}, false},
    {%{"required" => ["a"]}, [1], true},
    # additionalProperties, with and without properties
    {%{"additionalProperties" => false}, %{}, true},
    {%{"additionalProperties" => false}, %{a: 1}, false},
    {%{"properties" => %{"a" => true}, "additionalProperties" => false}, %{a: 1}, true},
    {%{"properties" => %{"a" => true}, "additionalProperties" => false}, %{"a" => 1, "b" => 2},
     false},
    {%{"properties" => %{"a" => true}, "additionalProperties" => %{"type" => "string"}},
     %{"a" => 1, "b" => "x"}, true},
    {%{"properties" => %{"a" => true}, "additionalProperties" => %{"type" => "string"}},
     %{"a" => 1, "b" => 2}, false},
    # a required name that is not a property is an additional one
    {%{"required" => ["b"], "additionalProperties" => false}, %{"b" => 1}, false},
    # patternProperties, alone and with properties and additionalProperties:
    # every pattern a key matches applies, beside its property's schema;
    # a key that is not UTF-8 fails patternProperties
    {@patterns, %{"ab" => 1, ab: 2}, true},
    {@patterns, %{"ab" => "x"}, false},
    {@patterns, %{"b" => 1}, false},
    {@patterns, %{<<0xFF>> => 1}, false},
    {@patterns, %{"x-12" => "s"}, true},
    {@patterns, %{"x-1a" => "s"}, false},
    {%{
       "properties" => %{"ab" => %{"minimum" => 5}},
       "patternProperties" => %{"^a" => %{"maximum" => 3}}
     }, %{"ab" => 4}, false},
    {%{
       "properties" => %{"ab" => %{"minimum" => 5}},
       "patternProperties" => %{"^a" => %{"maximum" => 3}}
     }, %{"ac" => 2, "b" => 9}, true},
    {%{"patternProperties" => %{"^a" => true}}, %{<<0xFF>> => 1}, false},
    # type with the object keywords: a struct fails both
    {%{"type" => "object", "properties" => %{}}, %{1 => 2}, false},
    {%{"type" => "object"}, %{1 => 2}, true},
    {%{"type" => ["object", "null"], "required" => []}, MapSet.new(), false},
    {%{"type" => ["object", "null"], "required" => []}, nil, true},
    # strings: lengths in characters; bytes that are not UTF-8 are no string
    {%{"minLength" => 2}, <<0xFF, 0xFE>>, true},
    {%{"type" => "string", "maxLength" => 1}, "é", true},
    {%{"type" => "string", "maxLength" => 1}, "éé", false},
    {%{"type" => "string", "maxLength" => 1}, <<0xFF>>, false},
    {%{"type" => "string", "minLength" => 1}, <<1::1>>, false},
    # numbers: floats and bignums against integer bounds
    {%{"minimum" => 1}, 1.0, true},
    {%{"minimum" => 1}, 0.5, false},
    {%{"minimum" => 1}, "x", true},
    {%{"minimum" => 1, "exclusiveMaximum" => 3}, 2, true},
    {%{"minimum" => 1, "exclusiveMaximum" => 3}, 3, false},
    {%{"maximum" => 1}, 1_180_591_620_717_411_303_424, false},
    {%{"type" => "integer", "minimum" => 0}, 1_180_591_620_717_411_303_424, true},
    {%{"type" => "integer"}, 2.0, true},
    {%{"type" => "integer"}, 2.5, false},
    # items: an improper list is no array
    {%{"items" => %{"type" => "integer"}}, [1 | 2], true},
    {%{"type" => "array", "items" => %{"type" => "integer"}}, [1 | 2], false},
    {%{"items" => %{"type" => "integer"}}, [1, 2.0], true},
    {%{"items" => %{"type" => "integer"}}, [1, "x"], false}
  ]

  test "valid?/2 and validate/3 give every case the verdict the docs state" do
    for {schema, instance, expected} <- @cases do
      {:ok, compiled} = JSONSchema.compile(schema)
      label = "#{inspect(schema)} on #{inspect(instance)}"

      assert JSONSchema.valid?(compiled, instance) == expected, "valid?/2: #{label}"
      assert JSONSchema.valid?(schema, instance) == expected, "valid?/2, a schema map: #{label}"

      case JSONSchema.validate(compiled, instance) do
        :ok ->
          assert expected, "validate/3 said :ok: #{label}"

        {:error, [%ValidationError{} | _]} ->
          refute expected, "validate/3 found failures: #{label}"
      end
    end
  end

  test "the failures the recording walk reports for the terms JSON has no word for" do
    units = fn schema, instance ->
      {:error, units} = JSONSchema.validate(schema, instance)
      Enum.map(units, &{&1.keyword, &1.keyword_location, &1.instance_location, &1.message})
    end

    assert units.(@property, %{"a" => 1, 1 => 2}) ==
             [{"properties", "/properties", "", "object has a key that is not a string"}]

    assert units.(@property, MapSet.new()) ==
             [{"properties", "/properties", "", "instance is a struct, not a JSON object"}]

    assert units.(@property, %{a: "x"}) ==
             [{"type", "/properties/a/type", "/a", "instance is not of type integer"}]

    assert units.(%{"required" => ["b"], "additionalProperties" => false}, %{"b" => 1}) ==
             [
               {"additionalProperties", "/additionalProperties", "/b",
                "no value is allowed here (the schema is false)"}
             ]

    # an atom key the annotations do not cover is checked by its name
    assert units.(@unevaluated_annotated, %{a: "s", z: 1}) ==
             [{"type", "/unevaluatedProperties/type", "/z", "instance is not of type boolean"}]

    assert units.(@unevaluated, %{1 => true}) ==
             [
               {"properties", "/allOf/0/properties", "", "object has a key that is not a string"},
               {"patternProperties", "/patternProperties", "",
                "object has a key that is not a string"},
               {"unevaluatedProperties", "/unevaluatedProperties", "",
                "object has a key that is not a string"}
             ]

    assert units.(%{"type" => "string", "maxLength" => 1}, "éé") ==
             [{"maxLength", "/maxLength", "", "string is longer than 1 characters"}]

    assert units.(%{"minimum" => 1, "exclusiveMaximum" => 3}, 3) ==
             [
               {"exclusiveMaximum", "/exclusiveMaximum", "",
                "instance is not less than the exclusive maximum 3"}
             ]

    assert units.(%{"type" => "array", "items" => %{"type" => "integer"}}, [1 | 2]) ==
             [{"type", "/type", "", "instance is not of type array"}]
  end

  test "an invalid instance is walked twice within one work limit; a valid one once" do
    # 100 rows under a plan fit the inline budget (a unit per value and per
    # entry read once); the recording walk of an invalid instance finds
    # every failure after the first pass found one.
    rows = for i <- 1..100, do: %{"id" => i, "name" => "row #{i}"}

    schema = %{
      "type" => "array",
      "items" => %{
        "type" => "object",
        "required" => ["id", "name"],
        "properties" => %{"id" => %{"type" => "integer"}, "name" => %{"type" => "string"}}
      }
    }

    assert JSONSchema.validate(schema, rows) == :ok
    bad = rows |> List.replace_at(3, %{"id" => "x"}) |> List.replace_at(70, %{"name" => 7})
    {:error, units} = JSONSchema.validate(schema, bad)

    # In evaluation order: the items in order, and each item's keywords in
    # the schema map's key order (properties, required, type).
    assert Enum.map(units, &{&1.keyword_location, &1.instance_location, &1.message}) == [
             {"/items/properties/id/type", "/3/id", "instance is not of type integer"},
             {"/items/required", "/3", "required property \"name\" is missing"},
             {"/items/properties/name/type", "/70/name", "instance is not of type string"},
             {"/items/required", "/70", "required property \"id\" is missing"}
           ]
  end

  # The recording walk passes, without a walk, the items of a list that the
  # first pass found valid before the item that stopped it. A list the
  # instance holds twice (one term) is one value: where the schema keeps no
  # dynamic scope, its verdict for the same items schema is the same at
  # both places.
  test "a list the instance holds twice is reported at both places" do
    list = %{"type" => "array", "items" => %{"type" => "string"}}

    schema = %{
      "$defs" => %{"list" => list},
      "properties" => %{"a" => %{"$ref" => "#/$defs/list"}, "b" => %{"$ref" => "#/$defs/list"}}
    }

    # Built at run time: a literal would be two copies.
    shared = Enum.concat(["s", "t"], [1, "u", 2])

    assert {:error, units} = JSONSchema.validate(schema, %{"a" => shared, "b" => shared})

    assert Enum.map(units, &{&1.keyword_location, &1.instance_location}) == [
             {"/properties/a/$ref/items/type", "/a/2"},
             {"/properties/a/$ref/items/type", "/a/4"},
             {"/properties/b/$ref/items/type", "/b/2"},
             {"/properties/b/$ref/items/type", "/b/4"}
           ]
  end

  # With `$dynamicRef`, the same items schema over the same list may decide
  # otherwise at another place: there the first pass's finding passes
  # nothing.
  test "a list the instance holds twice, under two dynamic scopes" do
    schema = %{
      "$id" => "https://example.com/root",
      "properties" => %{
        "a" => %{"$ref" => "strings"},
        "b" => %{"$ref" => "integers"}
      },
      "$defs" => %{
        "list" => %{
          "$id" => "list",
          "$dynamicAnchor" => "element",
          "type" => "array",
          "items" => %{"$dynamicRef" => "#element"}
        },
        "strings" => %{
          "$id" => "strings",
          "$ref" => "list",
          "$defs" => %{"element" => %{"$dynamicAnchor" => "element", "type" => "string"}}
        },
        "integers" => %{
          "$id" => "integers",
          "$ref" => "list",
          "$defs" => %{"element" => %{"$dynamicAnchor" => "element", "type" => "integer"}}
        }
      }
    }

    shared = Enum.concat(["s", "t"], [1])
    units = failures(schema, %{"a" => shared, "b" => shared})

    assert Enum.map(units, &{&1.keyword, &1.instance_location, &1.message}) == [
             {"type", "/a/2", "instance is not of type string"},
             {"type", "/b/0", "instance is not of type integer"},
             {"type", "/b/1", "instance is not of type integer"}
           ]
  end

  # The keys an object's plan passed before the one that failed it are not
  # read again by the recording walk; every failure after them is still
  # reported, in the keywords' order.
  test "an object failing late in its keys reports every failure" do
    schema = %{
      "properties" => %{
        "a" => %{"type" => "integer"},
        "b" => %{"type" => "integer"},
        "m" => %{"type" => "integer"}
      },
      "patternProperties" => %{"^x" => %{"type" => "string"}},
      "additionalProperties" => false
    }

    units = failures(schema, %{"a" => 1, "b" => 2, "m" => "no", "x1" => 3, "z" => 0})

    assert Enum.map(units, &{&1.keyword_location, &1.instance_location, &1.message}) == [
             {"/patternProperties/^x/type", "/x1", "instance is not of type string"},
             {"/properties/m/type", "/m", "instance is not of type integer"},
             {"/additionalProperties", "/z", "no value is allowed here (the schema is false)"}
           ]
  end

  # One map the instance holds twice, under two schemas: the keys one
  # schema passed say nothing for the other.
  test "a map the instance holds twice, under two schemas" do
    schema = %{
      "properties" => %{
        "p" => %{
          "properties" => %{"a" => %{"type" => "integer"}, "b" => %{"type" => "integer"}},
          "minProperties" => 1
        },
        "q" => %{"properties" => %{"a" => %{"type" => "string"}}, "minProperties" => 1}
      }
    }

    # Built at run time: a literal would be two copies.
    shared = Map.new([{"a", 1}, {"b", "x"}])

    assert {:error, units} = JSONSchema.validate(schema, %{"p" => shared, "q" => shared})

    assert Enum.map(units, &{&1.keyword_location, &1.instance_location}) == [
             {"/properties/p/properties/b/type", "/p/b"},
             {"/properties/q/properties/a/type", "/q/a"}
           ]
  end

  # The failures of `instance` against `schema`, compiled once; `valid?/2`
  # agrees that there are some.
  defp failures(schema, instance) do
    {:ok, compiled} = JSONSchema.compile(schema)
    refute JSONSchema.valid?(compiled, instance)
    assert {:error, units} = JSONSchema.validate(compiled, instance)
    units
  end
end
