defmodule Backplane.JSONSchema.CacheTest do
  # `validate/2,3` and `valid?/2` given a schema map go through the schema
  # cache the gateway's `validate(schema_map, arguments)` uses: one cache,
  # one policy (`InputSchema.configure_cache/1`), one set of counters. An
  # entry is found by the exact term and by what it was compiled as: the
  # standard entry point's dialect and format mode, apart from the
  # gateway's. The cache is shared by the whole VM: these tests run alone.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Native
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, ValidationError}

  setup do
    InputSchema.configure_cache(enabled: true)
    InputSchema.clear_cache()
    on_exit(fn -> InputSchema.configure_cache(enabled: true) end)
  end

  defp failure(keyword, message) do
    {:error,
     [
       %ValidationError{
         keyword: keyword,
         keyword_location: "/" <> keyword,
         absolute_keyword_location: nil,
         instance_location: "",
         message: message
       }
     ]}
  end

  test "a repeated schema map is compiled once, and answers as compiled" do
    schema = %{"type" => "string", "minLength" => 3}
    short = failure("minLength", "string is shorter than 3 characters")

    assert JSONSchema.validate(schema, "ab") == short
    assert %{entries: 1, misses: 1, hits: 0} = InputSchema.cache_info()

    assert JSONSchema.valid?(schema, "abc")
    refute JSONSchema.valid?(schema, "ab")
    assert JSONSchema.validate(schema, "abcd") == :ok
    # A copy of the term (not the same pointer) is found too.
    copy = :erlang.binary_to_term(:erlang.term_to_binary(schema))
    assert JSONSchema.validate(copy, "ab") == short
    assert %{entries: 1, misses: 1, hits: 4} = InputSchema.cache_info()

    # The same answers from the compiled struct.
    {:ok, compiled} = JSONSchema.compile(schema)
    assert JSONSchema.validate(compiled, "ab") == short
  end

  test "the dialect is part of what an entry is found by" do
    # Before 2019-09 a `$ref`'s siblings are ignored: draft 7 takes "abc",
    # 2020-12 applies `maxLength`.
    schema = %{
      "$ref" => "#/$defs/s",
      "$defs" => %{"s" => %{"type" => "string"}},
      "maxLength" => 2
    }

    long = failure("maxLength", "string is longer than 2 characters")

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, "abc", dialect: :draft7) == :ok
      assert JSONSchema.validate(schema, "abc") == long
      assert JSONSchema.validate(schema, "abc", dialect: :draft2020_12) == long
    end

    assert %{entries: 2, misses: 2, hits: 4} = InputSchema.cache_info()
  end

  test "the format mode is part of what an entry is found by" do
    schema = %{"format" => "email"}

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, "x", formats: :assert) ==
               failure("format", "string is not a valid email")

      assert JSONSchema.validate(schema, "x") == :ok
      assert JSONSchema.validate(schema, "x", formats: :annotate) == :ok
    end

    assert %{entries: 2, misses: 2, hits: 4} = InputSchema.cache_info()
  end

  test "the gateway's entry and the standard entry point's for one term stay apart" do
    # The gateway refuses 1.0 for an integer; the specification takes it.
    schema = %{"type" => "object", "properties" => %{"n" => %{"type" => "integer"}}}

    for _ <- 1..2 do
      assert {:error, %{message: "tool argument has the wrong type"}} =
               InputSchema.validate(schema, %{"n" => 1.0})

      assert JSONSchema.validate(schema, %{"n" => 1.0}) == :ok
    end

    assert %{entries: 2, misses: 2, hits: 2} = InputSchema.cache_info()
  end

  test "a call with resources: is compiled for the call alone" do
    schema = %{"$ref" => "https://example.com/name.json"}
    resources = %{"https://example.com/name.json" => %{"type" => "string"}}

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, "x", resources: resources) == :ok

      assert {:error, [%ValidationError{keyword: "type", instance_location: ""}]} =
               JSONSchema.validate(schema, 1, resources: resources)
    end

    assert %{entries: 0, misses: 0, hits: 0} = InputSchema.cache_info()
  end

  test "a schema that does not compile is not filed, and is refused each time" do
    schema = %{"minimum" => "x"}

    for _ <- 1..2 do
      assert {:error, %CompileError{reason: :metaschema, pointer: "/minimum"}} =
               JSONSchema.validate(schema, 1)

      refute JSONSchema.valid?(schema, 1)
    end

    assert %{entries: 0, misses: 0, hits: 0} = InputSchema.cache_info()
  end

  test "with the cache off nothing is filed and the answers are the same" do
    InputSchema.configure_cache(enabled: false)
    schema = %{"type" => "string", "minLength" => 3}

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, "ab") ==
               failure("minLength", "string is shorter than 3 characters")

      assert JSONSchema.valid?(schema, "abc")
    end

    assert %{enabled: false, entries: 0, misses: 0, hits: 0} = InputSchema.cache_info()
  end

  test "clear_cache/0 drops the standard entry point's entries too" do
    schema = %{"type" => "integer"}
    assert JSONSchema.valid?(schema, 1)
    assert %{entries: 1} = InputSchema.cache_info()

    InputSchema.clear_cache()
    assert %{entries: 0, misses: 0, hits: 0} = InputSchema.cache_info()
    refute JSONSchema.valid?(schema, "1")
    assert %{entries: 1, misses: 1, hits: 0} = InputSchema.cache_info()
  end

  test "the entry bound holds across both entry points, oldest first" do
    InputSchema.configure_cache(max_entries: 2)
    first = %{"type" => "string"}
    second = %{"type" => "integer"}
    third = %{"type" => "object", "properties" => %{"n" => %{"type" => "integer"}}}

    assert JSONSchema.valid?(first, "a")
    assert JSONSchema.valid?(second, 1)
    assert {:ok, _} = InputSchema.validate(third, %{"n" => 1})
    assert %{entries: 2, misses: 3} = InputSchema.cache_info()

    # `first` went first: compiled again.
    assert JSONSchema.valid?(first, "a")
    assert %{entries: 2, misses: 4, hits: 0} = InputSchema.cache_info()
  end

  test "concurrent callers of both entry points, evicting each other, get each schema's own answers" do
    InputSchema.configure_cache(max_entries: 4)

    # Schema i takes strings of at least i characters; the gateway's copy of
    # a schema takes an object whose "s" is such a string.
    standard = for i <- 1..12, do: {%{"type" => "string", "minLength" => i}, i}

    gateway =
      for i <- 1..12,
          do: {%{"properties" => %{"s" => %{"type" => "string", "minLength" => i}}}, i}

    tasks =
      for worker <- 1..8 do
        Task.async(fn ->
          for round <- 1..150 do
            {schema, i} = Enum.at(standard, rem(worker * 7 + round, 12))
            {gateway_schema, j} = Enum.at(gateway, rem(worker * 5 + round, 12))
            ok = String.duplicate("a", i)
            short = String.duplicate("a", i - 1)

            JSONSchema.valid?(schema, ok) and not JSONSchema.valid?(schema, short) and
              JSONSchema.validate(schema, short) ==
                failure("minLength", "string is shorter than #{i} characters") and
              match?(
                {:ok, _},
                InputSchema.validate(gateway_schema, %{"s" => String.duplicate("a", j)})
              )
          end
        end)
      end

    assert tasks |> Task.await_many(60_000) |> List.flatten() |> Enum.all?()
    assert %{entries: entries} = InputSchema.cache_info()
    assert entries <= 4
  end

  test "a schema map past the inline bounds is looked up and filed on a dirty scheduler" do
    # More top-level property names than the calling scheduler hashes (256).
    schema = %{"properties" => Map.new(1..300, &{"p#{&1}", %{"type" => "integer"}})}

    for _ <- 1..2 do
      assert Native.json_schema_check(
               schema,
               %{},
               :valid,
               :draft2020_12,
               %{},
               :annotate,
               :annotate
             ) ==
               :dirty

      assert JSONSchema.valid?(schema, %{"p7" => 7})

      assert {:error, [%ValidationError{keyword: "type", instance_location: "/p7"}]} =
               JSONSchema.validate(schema, %{"p7" => "7"})
    end

    assert %{entries: 1, misses: 1, hits: 3} = InputSchema.cache_info()
  end

  test "a schema map larger than the calling scheduler copies is filed by the dirty half" do
    # 40 KB of description: few terms (it compiles within the inline
    # budget), but more than the 32 KiB the calling scheduler copies.
    schema = %{"type" => "integer", "description" => String.duplicate("d", 40_000)}

    for _ <- 1..2 do
      assert Native.json_schema_check(schema, 1, :valid, :draft2020_12, %{}, :annotate, :annotate) ==
               :dirty

      assert JSONSchema.valid?(schema, 1)
      refute JSONSchema.valid?(schema, "1")
    end

    assert %{entries: 1, misses: 1, hits: 3} = InputSchema.cache_info()
  end

  test "a walk past the inline budget on a cached schema finishes on a dirty scheduler" do
    schema = %{"type" => "array", "items" => %{"type" => "integer", "minimum" => 0}}
    long = Enum.to_list(1..20_000)

    for _ <- 1..2 do
      assert JSONSchema.validate(schema, long) == :ok

      assert {:error, [%ValidationError{keyword: "minimum", instance_location: "/19999"}]} =
               JSONSchema.validate(schema, List.replace_at(long, -1, -1))
    end

    # The inline half found the entry and handed its compiled schema over
    # for the dirty walk.
    assert {:dirty_validate, _} =
             Native.json_schema_check(
               schema,
               long,
               :all,
               :draft2020_12,
               %{},
               :annotate,
               :annotate
             )

    assert %{entries: 1, misses: 1, hits: 4} = InputSchema.cache_info()
  end
end
