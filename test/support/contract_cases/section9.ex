defmodule Backplane.AgentRuntime.InputSchema.ContractCases.Section9 do
  @moduledoc """
  Contract rows for the second extension (docs/behaviour.md, section 9):
  `$ref` with `$defs`/`definitions`, `allOf`, boolean subschemas,
  `prefixItems`, tuple `items` with `additionalItems`, `uniqueItems`,
  `propertyNames`, `dependentRequired` and the draft-04 boolean exclusive
  bounds. Rows have the shapes of `ContractCases.preflight/0` and
  `ContractCases.arguments/0`, which include them.
  """

  import Backplane.AgentRuntime.InputSchema.ContractCases, only: [prop: 1]

  @v :validation
  @u :unsupported_capability

  @kw "schema keyword is unsupported"
  @t "tool argument has the wrong type"
  @missing "required tool argument is missing"
  @not_allowed "tool argument is not allowed"
  @duplicates "tool argument has duplicate items"
  @cycle "schema $ref cycle does not descend into the arguments"
  @expansion "schema references expand beyond the supported size"

  @doc "Definitions `d0`..`d{levels}`: each `allOf` refers twice to the next."
  def doubling(levels) do
    defs =
      Map.new(0..(levels - 1), fn i ->
        next = %{"$ref" => "#/$defs/d#{i + 1}"}
        {"d#{i}", %{"allOf" => [next, next]}}
      end)
      |> Map.put("d#{levels}", %{"type" => "integer"})

    %{"type" => "object", "properties" => %{"a" => %{"$ref" => "#/$defs/d0"}}, "$defs" => defs}
  end

  @doc "A Pydantic model: a nested model under `$defs`, required and optional."
  def pydantic do
    %{
      "type" => "object",
      "title" => "create_orderArguments",
      "properties" => %{
        "customer" => %{"$ref" => "#/$defs/Customer"},
        "shipping" => %{
          "anyOf" => [%{"$ref" => "#/$defs/Address"}, %{"type" => "null"}],
          "default" => nil
        }
      },
      "required" => ["customer"],
      "$defs" => %{
        "Address" => %{
          "type" => "object",
          "title" => "Address",
          "properties" => %{
            "street" => %{"type" => "string", "title" => "Street"},
            "zip" => %{"type" => "string", "pattern" => "^[0-9]{5}$", "title" => "Zip"}
          },
          "required" => ["street", "zip"]
        },
        "Customer" => %{
          "type" => "object",
          "title" => "Customer",
          "properties" => %{
            "name" => %{"type" => "string", "title" => "Name"},
            "address" => %{"$ref" => "#/$defs/Address"}
          },
          "required" => ["name"]
        }
      }
    }
  end

  @doc "A zod-to-json-schema recursive tree: a JSON Pointer to an earlier subschema."
  def zod_tree do
    %{
      "type" => "object",
      "properties" => %{
        "root" => %{
          "type" => "object",
          "properties" => %{
            "name" => %{"type" => "string"},
            "children" => %{"type" => "array", "items" => %{"$ref" => "#/properties/root"}}
          },
          "required" => ["name"],
          "additionalProperties" => false
        }
      },
      "required" => ["root"],
      "additionalProperties" => false,
      "$schema" => "http://json-schema.org/draft-07/schema#"
    }
  end

  @doc "Preflight rows of section 9."
  def preflight do
    defs = fn defs, properties ->
      %{"type" => "object", "properties" => properties, "$defs" => defs}
    end

    unresolved = fn ref ->
      {"$ref #{inspect(ref)} unsupported", prop(%{"$ref" => ref}), {@u, @kw, %{keyword: "$ref"}}}
    end

    [
      {"$ref to $defs",
       defs.(%{"A" => %{"type" => "string"}}, %{"a" => %{"$ref" => "#/$defs/A"}}), :ok},
      {"$ref to definitions",
       %{
         "properties" => %{"a" => %{"$ref" => "#/definitions/A"}},
         "definitions" => %{"A" => %{"type" => "string"}}
       }, :ok},
      {"$ref to the root through a property", %{"properties" => %{"next" => %{"$ref" => "#"}}},
       :ok},
      {"$ref JSON Pointer to an earlier subschema", zod_tree(), :ok},
      {"$ref with ~0, ~1 and %25",
       defs.(%{"a/b~c%d" => %{"type" => "integer"}}, %{
         "a" => %{"$ref" => "#/$defs/a~1b~0c%25d"}
       }), :ok},
      {"$ref to a ref to a ref",
       defs.(
         %{
           "a" => %{"$ref" => "#/$defs/b"},
           "b" => %{"$ref" => "#/$defs/c"},
           "c" => %{"type" => "integer"}
         },
         %{"x" => %{"$ref" => "#/$defs/a"}}
       ), :ok},
      {"$ref to a tuple entry and to prefixItems",
       %{
         "properties" => %{
           "t" => %{"items" => [%{"type" => "string"}]},
           "p" => %{"prefixItems" => [%{"type" => "integer"}]},
           "u" => %{"$ref" => "#/properties/t/items/0"},
           "v" => %{"$ref" => "#/properties/p/prefixItems/0"}
         }
       }, :ok},
      {"$ref to a boolean schema", defs.(%{"no" => false}, %{"a" => %{"$ref" => "#/$defs/no"}}),
       :ok},
      {"$ref recursion through items",
       defs.(
         %{"node" => %{"type" => "array", "items" => %{"$ref" => "#/$defs/node"}}},
         %{"t" => %{"$ref" => "#/$defs/node"}}
       ), :ok},
      {"ten doubling definitions are compiled once", doubling(10), :ok},
      {"draft-04 exclusive bounds",
       prop(%{
         "minimum" => 1,
         "exclusiveMinimum" => true,
         "maximum" => 9,
         "exclusiveMaximum" => false
       }), :ok},
      {"boolean subschemas wherever a subschema goes",
       %{
         "properties" => %{"a" => true, "b" => false},
         "additionalProperties" => false,
         "propertyNames" => true,
         "$defs" => %{"t" => true},
         "allOf" => [true],
         "anyOf" => [false, true],
         "not" => false,
         "items" => true,
         "prefixItems" => [true, false],
         "dependentRequired" => %{"a" => ["b"]},
         "uniqueItems" => false
       }, :ok},
      {"draft-07 tuple forms",
       prop(%{"items" => [%{"type" => "string"}, false], "additionalItems" => false}), :ok},
      {"allOf beside anyOf and object keywords",
       %{
         "properties" => %{"a" => %{}},
         "required" => ["a"],
         "allOf" => [%{"required" => ["b"]}],
         "anyOf" => [%{}]
       }, :ok},
      unresolved.("https://example.com/a.json"),
      unresolved.("other.json#/a"),
      unresolved.("#node"),
      unresolved.("#/$defs/x"),
      unresolved.("#/properties"),
      unresolved.("#/properties/a/enum/0"),
      unresolved.("#/properties/a~2"),
      unresolved.("#/properties/a%2"),
      {"$ref index with a leading zero",
       %{
         "properties" => %{
           "a" => %{"anyOf" => [%{}, %{}]},
           "b" => %{"$ref" => "#/properties/a/anyOf/01"}
         }
       }, {@u, @kw, %{keyword: "$ref"}}},
      {"$ref to a list entry, an items schema, a not schema and through them",
       %{
         "properties" => %{
           "a" => %{"anyOf" => [%{}, %{"type" => "string"}]},
           "t" => %{"items" => %{"properties" => %{"n" => %{"type" => "integer"}}}},
           "u" => %{"not" => %{"type" => "null"}},
           "r1" => %{"$ref" => "#/properties/a/anyOf/1"},
           "r2" => %{"$ref" => "#/properties/t/items"},
           "r3" => %{"$ref" => "#/properties/t/items/properties/n"},
           "r4" => %{"$ref" => "#/properties/u/not"}
         },
         "additionalProperties" => false
       }, :ok},
      {"$ref into an improper list is unresolved",
       %{"anyOf" => [%{} | %{}], "properties" => %{"b" => %{"$ref" => "#/anyOf/0"}}},
       {@u, @kw, %{keyword: "$ref"}}},
      {"$ref not a string", prop(%{"$ref" => 1}), {@u, @kw, %{keyword: "$ref"}}},
      {"$ref atom key as written", prop(%{:"$ref" => "#/nope"}), {@u, @kw, %{keyword: :"$ref"}}},
      {"unresolved $ref before a malformed annotation",
       prop(%{"$ref" => "#/x", "description" => 1}), {@u, @kw, %{keyword: "$ref"}}},
      {"unresolved $ref before a later unsupported key", prop(%{"$ref" => "#/x", "if" => 1}),
       {@u, @kw, %{keyword: "$ref"}}},
      {"unresolved $ref in an unused definition",
       %{"$defs" => %{"unused" => %{"$ref" => "#/nope"}}}, {@u, @kw, %{keyword: "$ref"}}},
      {"$ref cycle at the root", %{"$ref" => "#"}, {@v, @cycle, %{}}},
      {"$ref cycle through allOf and anyOf in unused definitions",
       %{
         "$defs" => %{
           "a" => %{"allOf" => [%{"$ref" => "#/$defs/b"}]},
           "b" => %{"anyOf" => [%{"$ref" => "#/$defs/a"}]}
         }
       }, {@v, @cycle, %{}}},
      {"$ref cycle through not",
       %{"properties" => %{"a" => %{"not" => %{"$ref" => "#/properties/a"}}}}, {@v, @cycle, %{}}},
      {"$ref cycle of one definition", defs.(%{"self" => %{"$ref" => "#/$defs/self"}}, %{}),
       {@v, @cycle, %{}}},
      {"twenty doubling definitions expand too far", doubling(20), {@v, @expansion, %{}}},
      {"$defs not a map", %{"$defs" => []}, {@v, "schema $defs must be a map of schemas", %{}}},
      {"definitions not a map", %{"definitions" => 1},
       {@v, "schema definitions must be a map of schemas", %{}}},
      {"$defs entry not a schema", %{"$defs" => %{"a" => 1}},
       {@v, "property schema must be a map", %{}}},
      {"$defs entry checked when unused", %{"$defs" => %{"a" => %{"type" => "date"}}},
       {@u, "property schema type is unsupported", %{type: "date"}}},
      {"allOf before $defs", %{"allOf" => [], "$defs" => 1},
       {@v, "schema allOf must be a non-empty list", %{}}},
      {"$defs before definitions", %{"definitions" => 1, "$defs" => 1},
       {@v, "schema $defs must be a map of schemas", %{}}},
      {"allOf empty", prop(%{"allOf" => []}), {@v, "schema allOf must be a non-empty list", %{}}},
      {"allOf not a list", prop(%{"allOf" => %{}}),
       {@v, "schema allOf must be a non-empty list", %{}}},
      {"allOf entry not a schema", prop(%{"allOf" => [%{}, "x"]}),
       {@v, "property schema must be a map", %{}}},
      {"anyOf and oneOf combination before allOf",
       prop(%{"anyOf" => [%{}], "oneOf" => [%{}], "allOf" => []}),
       {@u, "combining schema compositions is unsupported", %{}}},
      {"not before allOf", prop(%{"not" => 1, "allOf" => []}),
       {@v, "schema not must be a schema map", %{}}},
      {"prefixItems empty", prop(%{"prefixItems" => []}),
       {@v, "schema prefixItems must be a non-empty list", %{}}},
      {"prefixItems entry not a schema", prop(%{"prefixItems" => [1]}),
       {@v, "property schema must be a map", %{}}},
      {"items list beside prefixItems", prop(%{"prefixItems" => [%{}], "items" => [%{}]}),
       {@v, "schema items must not be a list beside prefixItems", %{}}},
      {"prefixItems before items", prop(%{"prefixItems" => [], "items" => 1}),
       {@v, "schema prefixItems must be a non-empty list", %{}}},
      {"additionalItems malformed", prop(%{"additionalItems" => 1}),
       {@v, "schema additionalItems must be a boolean or schema", %{}}},
      {"items before additionalItems", prop(%{"items" => 1, "additionalItems" => 1}),
       {@v, "schema items must be a schema map", %{}}},
      {"additionalItems checked without a list items",
       prop(%{"items" => %{}, "additionalItems" => %{"type" => "date"}}),
       {@u, "property schema type is unsupported", %{type: "date"}}},
      {"additionalItems before not", prop(%{"additionalItems" => 1, "not" => 1}),
       {@v, "schema additionalItems must be a boolean or schema", %{}}},
      {"uniqueItems not a boolean", prop(%{"uniqueItems" => 1}),
       {@v, "schema uniqueItems must be a boolean", %{}}},
      {"maxItems before uniqueItems", prop(%{"maxItems" => -1, "uniqueItems" => 1}),
       {@v, "schema maxItems must be a non-negative integer", %{}}},
      {"uniqueItems before pattern", prop(%{"uniqueItems" => "yes", "pattern" => 1}),
       {@v, "schema uniqueItems must be a boolean", %{}}},
      {"propertyNames malformed", prop(%{"propertyNames" => []}),
       {@v, "schema propertyNames must be a boolean or schema", %{}}},
      {"propertyNames checked", prop(%{"propertyNames" => %{"maxLength" => -1}}),
       {@v, "schema maxLength must be a non-negative integer", %{}}},
      {"additionalProperties before propertyNames",
       prop(%{"additionalProperties" => 1, "propertyNames" => 1}),
       {@v, "schema additionalProperties must be a boolean or schema", %{}}},
      {"propertyNames before prefixItems", prop(%{"propertyNames" => 1, "prefixItems" => 1}),
       {@v, "schema propertyNames must be a boolean or schema", %{}}},
      {"dependentRequired not a map", prop(%{"dependentRequired" => ["a"]}),
       {@v, "schema dependentRequired must be a map of property name lists", %{}}},
      {"dependentRequired value not a list", prop(%{"dependentRequired" => %{"a" => "b"}}),
       {@v, "schema dependentRequired must be a map of property name lists", %{}}},
      {"dependentRequired names are binaries", prop(%{"dependentRequired" => %{"a" => [:b]}}),
       {@v, "schema dependentRequired must be a map of property name lists", %{}}},
      {"required before dependentRequired", prop(%{"required" => "a", "dependentRequired" => 1}),
       {@v, "schema required must be a list of property names", %{}}},
      {"dependentRequired before additionalProperties",
       prop(%{"dependentRequired" => 1, "additionalProperties" => 1}),
       {@v, "schema dependentRequired must be a map of property name lists", %{}}},
      {"exclusiveMinimum neither number nor boolean", prop(%{"exclusiveMinimum" => nil}),
       {@v, "schema exclusiveMinimum must be a number", %{}}},
      {"still unsupported: $anchor", %{"$anchor" => "a"}, {@u, @kw, %{keyword: "$anchor"}}},
      {"still unsupported: $dynamicRef", %{"$dynamicRef" => "#a"},
       {@u, @kw, %{keyword: "$dynamicRef"}}},
      {"still unsupported: contains", prop(%{"contains" => %{}}),
       {@u, @kw, %{keyword: "contains"}}},
      {"still unsupported: unevaluatedProperties", %{"unevaluatedProperties" => false},
       {@u, @kw, %{keyword: "unevaluatedProperties"}}},
      {"still unsupported inside $defs", %{"$defs" => %{"a" => %{"if" => %{}}}},
       {@u, @kw, %{keyword: "if"}}},
      {"still unsupported inside a boolean-sibling allOf",
       prop(%{"allOf" => [true, %{"then" => 1}]}), {@u, @kw, %{keyword: "then"}}}
    ]
  end

  @doc "Argument rows of section 9."
  def arguments do
    tree = fn children, name -> %{"name" => name, "children" => children} end

    draft04 =
      prop(%{
        "minimum" => 5,
        "exclusiveMinimum" => true,
        "maximum" => 9,
        "exclusiveMaximum" => true
      })

    sibling = %{
      "type" => "object",
      "properties" => %{"a" => %{"$ref" => "#/$defs/S", "pattern" => "^z"}},
      "$defs" => %{"S" => %{"type" => "string", "minLength" => 2}}
    }

    next = %{
      "type" => "object",
      "properties" => %{"next" => %{"$ref" => "#"}, "v" => %{"type" => "integer"}}
    }

    chain = %{
      "type" => "object",
      "properties" => %{"a" => %{"$ref" => "#/$defs/a"}},
      "$defs" => %{
        "a" => %{"$ref" => "#/definitions/b"},
        "c" => %{"type" => "integer"}
      },
      "definitions" => %{"b" => %{"$ref" => "#/$defs/c"}}
    }

    escaped = %{
      "type" => "object",
      "properties" => %{"a" => %{"$ref" => "#/$defs/a~1b~0c%25d"}},
      "$defs" => %{"a/b~c%d" => %{"type" => "integer"}}
    }

    all_of = prop(%{"allOf" => [%{"type" => "string"}, %{"minLength" => 2}]})

    object_all_of = %{
      "type" => "object",
      "properties" => %{"a" => %{"type" => "integer"}},
      "allOf" => [%{"required" => ["b"]}]
    }

    prefix = prop(%{"prefixItems" => [%{"type" => "string"}, %{"type" => "integer"}]})
    prefix_closed = prop(%{"prefixItems" => [%{"type" => "string"}], "items" => false})

    prefix_rest =
      prop(%{"prefixItems" => [%{"type" => "string"}], "items" => %{"type" => "integer"}})

    tuple = prop(%{"items" => [%{"type" => "string"}], "additionalItems" => false})

    tuple_rest =
      prop(%{"items" => [%{"type" => "string"}], "additionalItems" => %{"type" => "integer"}})

    unique = prop(%{"uniqueItems" => true})
    names = %{"type" => "object", "propertyNames" => %{"pattern" => "^[a-z]+$", "maxLength" => 8}}
    dependent = %{"type" => "object", "dependentRequired" => %{"card" => ["billing", "zip"]}}

    [
      # $ref and $defs
      {"pydantic nested model accepted", pydantic(),
       %{"customer" => %{"name" => "Ada", "address" => %{"street" => "Main", "zip" => "12345"}}},
       :ok},
      {"pydantic optional model null", pydantic(),
       %{"customer" => %{"name" => "Ada"}, "shipping" => nil}, :ok},
      {"pydantic nested field type", pydantic(), %{"customer" => %{"name" => 1}},
       {@v, @t, %{path: "$arguments.customer.name", type: "string"}}},
      {"pydantic nested required", pydantic(), %{"customer" => %{"address" => %{}}},
       {@v, @missing, %{path: "$arguments.customer", property: "name"}}},
      {"pydantic model twice removed", pydantic(),
       %{"customer" => %{"name" => "Ada", "address" => %{"street" => "Main", "zip" => "1"}}},
       {@v, "tool argument does not match the pattern",
        %{path: "$arguments.customer.address.zip"}}},
      {"pydantic optional model wrong", pydantic(),
       %{"customer" => %{"name" => "A"}, "shipping" => "x"},
       {@v, "tool argument must match at least one anyOf branch", %{path: "$arguments.shipping"}}},
      {"zod tree accepted", zod_tree(),
       %{"root" => tree.([tree.([tree.([], "c")], "b"), tree.([], "d")], "a")}, :ok},
      {"zod tree deep field", zod_tree(), %{"root" => tree.([tree.([%{"name" => 1}], "b")], "a")},
       {@v, @t, %{path: "$arguments.root.children[0].children[0].name", type: "string"}}},
      {"zod tree deep required", zod_tree(),
       %{"root" => tree.([tree.([], "b"), %{"children" => []}], "a")},
       {@v, @missing, %{path: "$arguments.root.children[1]", property: "name"}}},
      {"zod tree deep additional", zod_tree(),
       %{"root" => tree.([%{"name" => "b", "extra" => 1}], "a")},
       {@v, "additional tool argument is not allowed",
        %{path: "$arguments.root.children[0]", property: "extra"}}},
      {"$ref to the root", next, %{"next" => %{"next" => %{"v" => 1}}}, :ok},
      {"$ref to the root, deep", next, %{"next" => %{"next" => %{"v" => "x"}}},
       {@v, @t, %{path: "$arguments.next.next.v", type: "integer"}}},
      {"$ref to a ref to a ref", chain, %{"a" => "x"},
       {@v, @t, %{path: "$arguments.a", type: "integer"}}},
      {"$ref escaped pointer", escaped, %{"a" => "x"},
       {@v, @t, %{path: "$arguments.a", type: "integer"}}},
      {"$ref siblings apply", sibling, %{"a" => "zz"}, :ok},
      {"$ref target applies", sibling, %{"a" => "z"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 2}}},
      {"$ref siblings before the target", sibling, %{"a" => "a"},
       {@v, "tool argument does not match the pattern", %{path: "$arguments.a"}}},
      {"$ref to a false schema",
       %{"properties" => %{"a" => %{"$ref" => "#/$defs/no"}}, "$defs" => %{"no" => false}},
       %{"a" => 1}, {@v, @not_allowed, %{path: "$arguments.a"}}},
      {"$ref with atom keywords and names",
       %{
         type: :object,
         properties: %{a: %{"$ref": "#/$defs/A"}},
         "$defs": %{A: %{type: :integer}}
       }, %{"a" => "x"}, {@v, @t, %{path: "$arguments.a", type: :integer}}},
      {"doubling definitions validate", doubling(10), %{"a" => 3}, :ok},
      {"doubling definitions refuse", doubling(10), %{"a" => "x"},
       {@v, @t, %{path: "$arguments.a", type: "integer"}}},

      # allOf
      {"allOf accepted", all_of, %{"a" => "xy"}, :ok},
      {"allOf first entry", all_of, %{"a" => 1},
       {@v, @t, %{path: "$arguments.a", type: "string"}}},
      {"allOf second entry", all_of, %{"a" => "x"},
       {@v, "tool argument is shorter than the minimum length",
        %{path: "$arguments.a", minLength: 2}}},
      {"allOf with an object sibling", object_all_of, %{"a" => 1},
       {@v, @missing, %{path: "$arguments", property: "b"}}},
      {"object siblings before allOf", object_all_of, %{"a" => "x"},
       {@v, @t, %{path: "$arguments.a", type: "integer"}}},
      {"not before allOf",
       prop(%{"not" => %{"type" => "integer"}, "allOf" => [%{"type" => "string"}]}), %{"a" => 1},
       {@v, "tool argument must not match the negated schema", %{path: "$arguments.a"}}},
      {"anyOf before allOf",
       prop(%{"anyOf" => [%{"type" => "string"}], "allOf" => [%{"type" => "string"}]}),
       %{"a" => 1},
       {@v, "tool argument must match at least one anyOf branch", %{path: "$arguments.a"}}},

      # Boolean subschemas
      {"false property present", prop(false), %{"a" => 1},
       {@v, @not_allowed, %{path: "$arguments.a"}}},
      {"false property absent", prop(false), %{}, :ok},
      {"true property", prop(true), %{"a" => [1, %{}]}, :ok},
      {"items false", prop(%{"items" => false}), %{"a" => [1]},
       {@v, @not_allowed, %{path: "$arguments.a[0]"}}},
      {"items false, empty list", prop(%{"items" => false}), %{"a" => []}, :ok},
      {"not true", prop(%{"not" => true}), %{"a" => 1},
       {@v, "tool argument must not match the negated schema", %{path: "$arguments.a"}}},
      {"not false", prop(%{"not" => false}), %{"a" => 1}, :ok},
      {"anyOf false and true", prop(%{"anyOf" => [false, true]}), %{"a" => 1}, :ok},
      {"oneOf true twice", prop(%{"oneOf" => [true, true]}), %{"a" => 1},
       {@v, "tool argument must match exactly one oneOf branch", %{path: "$arguments.a"}}},
      {"allOf with false", prop(%{"allOf" => [true, false]}), %{"a" => 1},
       {@v, @not_allowed, %{path: "$arguments.a"}}},
      {"additionalProperties false as a schema", %{"additionalProperties" => false}, %{"x" => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "x"}}},
      {"propertyNames false", %{"propertyNames" => false}, %{"x" => 1},
       {@v, "tool argument property name is not allowed", %{path: "$arguments", property: "x"}}},
      {"propertyNames false, empty map", %{"propertyNames" => false}, %{}, :ok},

      # prefixItems, tuple items, additionalItems
      {"prefixItems exact", prefix, %{"a" => ["x", 1]}, :ok},
      {"prefixItems false entry", prop(%{"prefixItems" => [true, false]}), %{"a" => [1, 2]},
       {@v, @not_allowed, %{path: "$arguments.a[1]"}}},
      {"prefixItems false entry, shorter array", prop(%{"prefixItems" => [true, false]}),
       %{"a" => [1]}, :ok},
      {"prefixItems shorter array", prefix, %{"a" => ["x"]}, :ok},
      {"prefixItems longer array", prefix, %{"a" => ["x", 1, nil]}, :ok},
      {"prefixItems first", prefix, %{"a" => [1, 1]},
       {@v, @t, %{path: "$arguments.a[0]", type: "string"}}},
      {"prefixItems second", prefix, %{"a" => ["x", "y"]},
       {@v, @t, %{path: "$arguments.a[1]", type: "integer"}}},
      {"items false after prefixItems", prefix_closed, %{"a" => ["x", 1]},
       {@v, @not_allowed, %{path: "$arguments.a[1]"}}},
      {"items false after prefixItems, within", prefix_closed, %{"a" => ["x"]}, :ok},
      {"items after prefixItems", prefix_rest, %{"a" => ["x", 1, "y"]},
       {@v, @t, %{path: "$arguments.a[2]", type: "integer"}}},
      {"draft-07 tuple", tuple, %{"a" => ["x"]}, :ok},
      {"draft-07 tuple, empty", tuple, %{"a" => []}, :ok},
      {"draft-07 tuple entry", tuple, %{"a" => [1]},
       {@v, @t, %{path: "$arguments.a[0]", type: "string"}}},
      {"draft-07 additionalItems false", tuple, %{"a" => ["x", 1]},
       {@v, @not_allowed, %{path: "$arguments.a[1]"}}},
      {"draft-07 additionalItems schema", tuple_rest, %{"a" => ["x", 1, 2.5]},
       {@v, @t, %{path: "$arguments.a[2]", type: "integer"}}},
      {"additionalItems ignored without a list items",
       prop(%{"items" => %{"type" => "integer"}, "additionalItems" => false}), %{"a" => [1, 2]},
       :ok},
      {"maxItems before prefixItems",
       prop(%{"maxItems" => 1, "prefixItems" => [%{"type" => "string"}]}), %{"a" => [1, 2]},
       {@v, "tool argument has too many items", %{path: "$arguments.a", maxItems: 1}}},

      # uniqueItems
      {"uniqueItems distinct", unique,
       %{"a" => [1, "1", true, nil, false, [1, 2], [2, 1], %{"a" => 1}]}, :ok},
      {"uniqueItems 1 and 1.0", unique, %{"a" => [1, 1.0]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems 0 and -0.0", unique, %{"a" => [0, -0.0]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems objects in another key order", unique,
       %{"a" => [%{"x" => 1, "y" => [2]}, %{"y" => [2.0], "x" => 1}]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems lists", unique, %{"a" => [[1, [2]], [1, [2]]]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems bignum and its float", unique, %{"a" => [2 ** 64, 2 ** 64 * 1.0]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems past 2^53", unique, %{"a" => [2 ** 53 + 1, 2 ** 53 * 1.0]}, :ok},
      {"uniqueItems true is not 1", unique, %{"a" => [true, 1, "true"]}, :ok},
      {"uniqueItems maps with other keys", unique, %{"a" => [%{"x" => 1}, %{"y" => 1}]}, :ok},
      {"uniqueItems maps with atom keys", unique, %{"a" => [%{x: 1}, %{y: 1}]}, :ok},
      {"uniqueItems maps with the same atom keys", unique, %{"a" => [%{x: 1}, %{x: 1.0}]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems maps with integer and float keys", unique,
       %{"a" => [%{1 => "v"}, %{2 => "v"}, %{1.0 => "v"}, %{2.5 => "v"}]}, :ok},
      {"uniqueItems maps with the same integer key", unique, %{"a" => [%{1 => 1}, %{1 => 1.0}]},
       {@v, @duplicates, %{path: "$arguments.a"}}},
      {"uniqueItems false allows duplicates", prop(%{"uniqueItems" => false}), %{"a" => [1, 1]},
       :ok},
      {"maxItems before uniqueItems", prop(%{"maxItems" => 1, "uniqueItems" => true}),
       %{"a" => [1, 1]},
       {@v, "tool argument has too many items", %{path: "$arguments.a", maxItems: 1}}},
      {"uniqueItems before items",
       prop(%{"uniqueItems" => true, "items" => %{"type" => "string"}}), %{"a" => [1, 1]},
       {@v, @duplicates, %{path: "$arguments.a"}}},

      # propertyNames
      {"propertyNames accepted", names, %{"ok" => 1, "fine" => 2}, :ok},
      {"propertyNames refused", names, %{"ok" => 1, "Bad" => 2},
       {@v, "tool argument property name is not allowed", %{path: "$arguments", property: "Bad"}}},
      {"propertyNames maxLength", names, %{"waytoolong" => 1},
       {@v, "tool argument property name is not allowed",
        %{path: "$arguments", property: "waytoolong"}}},
      {"propertyNames atom key by its name", names, %{ok: 1}, :ok},
      {"propertyNames integer key by its decimal form", %{"propertyNames" => %{"maxLength" => 1}},
       %{7 => 1}, :ok},
      {"propertyNames integer key reported as written", %{"propertyNames" => %{"maxLength" => 1}},
       %{12 => 1},
       {@v, "tool argument property name is not allowed", %{path: "$arguments", property: 12}}},
      {"propertyNames bignum key by its decimal form",
       %{"propertyNames" => %{"pattern" => "^[0-9]{20}$"}}, %{18_446_744_073_709_551_616 => 1},
       :ok},
      {"propertyNames atom key reported as written", names, %{Bad: 1},
       {@v, "tool argument property name is not allowed", %{path: "$arguments", property: :Bad}}},
      {"propertyNames nested", prop(names), %{"a" => %{"X" => 1}},
       {@v, "tool argument property name is not allowed", %{path: "$arguments.a", property: "X"}}},
      {"additionalProperties before propertyNames",
       %{"additionalProperties" => false, "propertyNames" => %{"maxLength" => 1}}, %{"long" => 1},
       {@v, "additional tool argument is not allowed", %{path: "$arguments", property: "long"}}},

      # dependentRequired
      {"dependentRequired trigger absent", dependent, %{"billing" => 1}, :ok},
      {"dependentRequired satisfied", dependent, %{"card" => 1, "billing" => 2, "zip" => 3}, :ok},
      {"dependentRequired missing", dependent, %{"card" => 1, "zip" => 3},
       {@v, @missing, %{path: "$arguments", property: "billing"}}},
      {"dependentRequired in list order", dependent, %{"card" => 1},
       {@v, @missing, %{path: "$arguments", property: "billing"}}},
      {"dependentRequired name also missing from required",
       %{"type" => "object", "required" => ["card"], "dependentRequired" => %{"card" => ["zip"]}},
       %{"card" => 1}, {@v, @missing, %{path: "$arguments", property: "zip"}}},
      {"required before dependentRequired",
       %{"type" => "object", "required" => ["x"], "dependentRequired" => %{"card" => ["zip"]}},
       %{"card" => 1}, {@v, @missing, %{path: "$arguments", property: "x"}}},
      {"dependentRequired before properties",
       %{
         "type" => "object",
         "properties" => %{"card" => %{"type" => "string"}},
         "dependentRequired" => %{"card" => ["zip"]}
       }, %{"card" => 1}, {@v, @missing, %{path: "$arguments", property: "zip"}}},
      {"dependentRequired names are binary keys", dependent, %{card: 1}, :ok},
      {"dependentRequired written with an atom name",
       %{"type" => "object", "dependentRequired" => %{card: ["zip"]}}, %{"card" => 1},
       {@v, @missing, %{path: "$arguments", property: "zip"}}},

      # Draft-04 boolean exclusive bounds
      {"draft-04 exclusiveMinimum", draft04, %{"a" => 5},
       {@v, "tool argument is not above the exclusive minimum",
        %{path: "$arguments.a", exclusiveMinimum: 5}}},
      {"draft-04 exclusiveMaximum", draft04, %{"a" => 9},
       {@v, "tool argument is not below the exclusive maximum",
        %{path: "$arguments.a", exclusiveMaximum: 9}}},
      {"draft-04 exclusive bounds inside", draft04, %{"a" => 7}, :ok},
      {"draft-04 false keeps the bound inclusive",
       prop(%{"minimum" => 5, "exclusiveMinimum" => false}), %{"a" => 5}, :ok},
      {"draft-04 true alone changes nothing", prop(%{"exclusiveMinimum" => true}), %{"a" => -1},
       :ok}
    ]
  end
end
