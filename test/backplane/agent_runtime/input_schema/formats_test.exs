defmodule Backplane.AgentRuntime.InputSchema.FormatsTest do
  # `formats: :assert` on the gateway entry point (docs/behaviour.md,
  # section 4, row 4, and section 1.1): the row's exact class, message and details,
  # its place after the other string checks, the default left as it was,
  # the cache and the compiled struct keeping the two apart, and the option
  # checked like every other.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.{Compiled, Native}

  @row {:validation, "tool argument does not match the format"}

  defp failure({:error, %Error{class: class, message: message, details: details}}),
    do: {class, message, details}

  defp schema(property), do: %{"type" => "object", "properties" => %{"v" => property}}

  defp mismatch(path, format),
    do: {:validation, "tool argument does not match the format", %{path: path, format: format}}

  setup do
    InputSchema.configure_cache(enabled: true)
    InputSchema.clear_cache()
    :ok
  end

  describe "the format row" do
    # One valid and one invalid string per format 2020-12 defines.
    @cases [
      {"date-time", "1985-04-12T23:20:50.52Z", "1985-04-12T23:20:50.52"},
      {"date", "2024-02-29", "2023-02-29"},
      {"time", "23:59:60Z", "24:00:00Z"},
      {"duration", "P1Y2M3DT4H5M6S", "P1Y2M3DT"},
      {"email", "joe.bloggs@example.com", "joe.bloggs@@example.com"},
      {"idn-email", "실례@실례.테스트", "실례.테스트"},
      {"hostname", "www.example.com", "-a-host-name-that-starts-with--"},
      {"idn-hostname", "실례.테스트", "〮실례.테스트"},
      {"ipv4", "192.168.0.1", "087.10.0.1"},
      {"ipv6", "::ffff:192.168.0.1", "12345::"},
      {"uri", "http://foo.bar/?baz=qux#quux", "//foo.bar/?baz=qux#quux"},
      {"uri-reference", "/abc", "\\\\WINDOWS\\fileshare"},
      {"iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx", "/abc"},
      {"iri-reference", "#ƒrägmênt", "\\\\WINDOWS\\filëßåré"},
      {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638"},
      {"uri-template", "http://example.com/dictionary/{term:1}/{term}",
       "http://example.com/{term"},
      {"json-pointer", "/foo/bar~0/baz~1/%a", "/foo/bar~"},
      {"relative-json-pointer", "0/foo/bar", "-1/foo/bar"},
      {"regex", "([abc])+\\s+$", "^(abc]"}
    ]

    test "each format: the invalid string is the row, at the string's path; the valid one passes" do
      for {format, valid, invalid} <- @cases do
        compiled_schema = schema(%{"type" => "string", "format" => format})
        {:ok, compiled} = InputSchema.compile(compiled_schema, formats: :assert)

        assert InputSchema.validate(compiled, %{"v" => valid}) == {:ok, %{"v" => valid}},
               "#{format}: #{inspect(valid)}"

        assert failure(InputSchema.validate(compiled, %{"v" => invalid})) ==
                 mismatch("$arguments.v", format),
               "#{format}: #{inspect(invalid)}"

        # The same through a schema map with the option.
        assert failure(InputSchema.validate(compiled_schema, %{"v" => invalid}, formats: :assert)) ==
                 mismatch("$arguments.v", format)
      end
    end

    test "without the option, or with formats: :annotate, format stays an annotation" do
      for {format, _valid, invalid} <- @cases do
        s = schema(%{"type" => "string", "format" => format})
        args = %{"v" => invalid}
        assert InputSchema.validate(s, args) == {:ok, args}
        assert InputSchema.validate(s, args, formats: :annotate) == {:ok, args}
        {:ok, compiled} = InputSchema.compile(s)
        assert InputSchema.validate(compiled, args) == {:ok, args}
        {:ok, compiled} = InputSchema.compile(s, formats: :annotate)
        assert InputSchema.validate(compiled, args) == {:ok, args}
      end
    end

    test "a format 2020-12 does not define stays an annotation when asserted" do
      s = schema(%{"type" => "string", "format" => "color"})

      assert InputSchema.validate(s, %{"v" => "not a colour"}, formats: :assert) ==
               {:ok, %{"v" => "not a colour"}}
    end

    test "only strings are checked: a number, a list or a map under format passes" do
      s = %{"properties" => %{"v" => %{"format" => "date"}}}

      for value <- [1, 1.5, true, nil, [1], %{"a" => 1}] do
        assert InputSchema.validate(s, %{"v" => value}, formats: :assert) ==
                 {:ok, %{"v" => value}}
      end
    end

    test "the details name the format as written in the schema, at nested paths too" do
      s = %{
        "properties" => %{
          "events" => %{
            "type" => "array",
            "items" => %{
              "properties" => %{"at" => %{"type" => "string", "format" => "date-time"}}
            }
          }
        }
      }

      args = %{"events" => [%{"at" => "2024-01-01T00:00:00Z"}, %{"at" => "yesterday"}]}

      assert failure(InputSchema.validate(s, args, formats: :assert)) ==
               mismatch("$arguments.events[1].at", "date-time")
    end
  end

  describe "the format row's place in the check order" do
    @string %{
      "type" => "string",
      "minLength" => 3,
      "maxLength" => 12,
      "pattern" => "^[0-9-]+$",
      "format" => "date"
    }

    test "the type comes before the format" do
      assert failure(
               InputSchema.validate(schema(@string), %{"v" => 20_240_101}, formats: :assert)
             ) ==
               {:validation, "tool argument has the wrong type",
                %{path: "$arguments.v", type: "string"}}
    end

    test "minLength comes before the format" do
      assert failure(InputSchema.validate(schema(@string), %{"v" => "1-"}, formats: :assert)) ==
               {:validation, "tool argument is shorter than the minimum length",
                %{path: "$arguments.v", minLength: 3}}
    end

    test "maxLength comes before the format" do
      assert failure(
               InputSchema.validate(schema(@string), %{"v" => "2024-01-01-01"}, formats: :assert)
             ) ==
               {:validation, "tool argument is longer than the maximum length",
                %{path: "$arguments.v", maxLength: 12}}
    end

    test "pattern comes before the format" do
      assert failure(
               InputSchema.validate(schema(@string), %{"v" => "2024/01/01"}, formats: :assert)
             ) ==
               {:validation, "tool argument does not match the pattern", %{path: "$arguments.v"}}
    end

    test "the format comes last, and errors: :all lists every failure in that order" do
      assert failure(
               InputSchema.validate(schema(@string), %{"v" => "2024-13-01"}, formats: :assert)
             ) ==
               mismatch("$arguments.v", "date")

      {:error, error} =
        InputSchema.validate(schema(@string), %{"v" => "2024/13/01/0000"},
          errors: :all,
          formats: :assert
        )

      assert {error.class, error.message} ==
               {:validation, "tool argument is longer than the maximum length"}

      assert Enum.map(error.details.errors, &{&1.message, &1.details}) == [
               {"tool argument is longer than the maximum length",
                %{path: "$arguments.v", maxLength: 12}},
               {"tool argument does not match the pattern", %{path: "$arguments.v"}},
               {"tool argument does not match the format",
                %{path: "$arguments.v", format: "date"}}
             ]
    end

    test "a string that is not UTF-8 is that failure, never a format verdict" do
      assert failure(
               InputSchema.validate(schema(@string), %{"v" => <<0xFF, "2024">>}, formats: :assert)
             ) ==
               {:validation, "tool argument is not valid UTF-8", %{path: "$arguments.v"}}
    end

    test "inside anyOf, a format failure is a branch that does not match" do
      s = schema(%{"anyOf" => [%{"format" => "ipv4"}, %{"format" => "ipv6"}]})
      assert InputSchema.validate(s, %{"v" => "::1"}, formats: :assert) == {:ok, %{"v" => "::1"}}

      assert failure(InputSchema.validate(s, %{"v" => "localhost"}, formats: :assert)) ==
               {:validation, "tool argument must match at least one anyOf branch",
                %{path: "$arguments.v"}}
    end
  end

  describe "the cache and the compiled struct keep the two modes apart" do
    test "the same schema map, annotated then asserted then annotated, answers each time as asked" do
      s = schema(%{"type" => "string", "format" => "email"})
      args = %{"v" => "nobody"}

      for _ <- 1..3 do
        assert InputSchema.validate(s, args) == {:ok, args}

        assert failure(InputSchema.validate(s, args, formats: :assert)) ==
                 mismatch("$arguments.v", "email")
      end

      # One entry per mode, each found again after the first miss.
      assert %{entries: 2, misses: 2} = InputSchema.cache_info()
    end

    test "a compiled struct says what it was compiled with, and a copy another node made validates the same" do
      s = schema(%{"type" => "string", "format" => "uuid"})
      {:ok, asserting} = InputSchema.compile(s, formats: :assert)
      {:ok, annotating} = InputSchema.compile(s)
      assert {asserting.formats, annotating.formats} == {:assert, :annotate}

      args = %{"v" => "not-a-uuid"}

      # A resource this node did not make: the struct's source is compiled
      # again, with the struct's own mode, whichever mode is cached first.
      for {struct, expected} <- [
            {annotating, {:ok, args}},
            {asserting, {:error, mismatch("$arguments.v", "uuid")}},
            {annotating, {:ok, args}}
          ] do
        foreign = %{struct | resource: make_ref()}

        result =
          case InputSchema.validate(foreign, args) do
            {:ok, _} = ok -> ok
            error -> {:error, failure(error)}
          end

        assert result == expected
        # And with options, through the other clause.
        assert InputSchema.validate(foreign, args, errors: :first) |> normalise() == expected
      end
    end

    test "a struct made before the option existed (no formats key) annotates" do
      s = schema(%{"type" => "string", "format" => "uuid"})
      {:ok, compiled} = InputSchema.compile(s)
      old = Map.delete(compiled, :formats)
      assert InputSchema.validate(old, %{"v" => "x"}) == {:ok, %{"v" => "x"}}

      assert InputSchema.validate(%{old | resource: make_ref()}, %{"v" => "x"}) ==
               {:ok, %{"v" => "x"}}
    end

    defp normalise({:ok, _} = ok), do: ok
    defp normalise(error), do: {:error, failure(error)}
  end

  describe "work: a format check is charged like the other string passes" do
    test "a 1 MiB string under an asserted format leaves the calling scheduler, then is decided" do
      s = schema(%{"type" => "string", "format" => "hostname"})
      large = String.duplicate("a", 1_048_576)
      # Inline, the 1 MiB string is more than the inline budget: handed on.
      assert Native.validate(s, %{"v" => "a"}, :first_asserting) == {:ok, %{"v" => "a"}}
      assert Native.validate(s, %{"v" => large}, :first_asserting) == :dirty

      assert failure(InputSchema.validate(s, %{"v" => large}, formats: :assert)) ==
               mismatch("$arguments.v", "hostname")
    end
  end

  describe "IDNA host names are charged for their work" do
    # A host name with `xn--` labels or non-ASCII costs up to about 150 ns a
    # byte to check (Punycode, NFC, the Bidi rule), so it is charged two
    # units a byte: a call with a couple of them leaves the calling
    # scheduler, where as many plain names stay.
    test "twenty names of A-labels go to the dirty scheduler; twenty plain names do not" do
      s = %{
        "properties" => %{
          "hosts" => %{
            "type" => "array",
            "items" => %{"type" => "string", "format" => "hostname"}
          }
        }
      }

      idna = Enum.join(List.duplicate("xn--bcher-kva", 18), ".")
      plain = Enum.join(List.duplicate("build-cache01", 18), ".")
      assert byte_size(idna) == byte_size(plain)

      assert Native.validate(s, %{"hosts" => List.duplicate(plain, 20)}, :first_asserting) ==
               {:ok, %{"hosts" => List.duplicate(plain, 20)}}

      assert Native.validate(s, %{"hosts" => List.duplicate(idna, 20)}, :first_asserting) ==
               :dirty

      # Decided all the same, on the dirty scheduler.
      assert InputSchema.validate(s, %{"hosts" => List.duplicate(idna, 20)}, formats: :assert) ==
               {:ok, %{"hosts" => List.duplicate(idna, 20)}}
    end
  end

  describe "the option is checked" do
    test "compile/2 refuses an unknown key, a wrong value, a duplicate and a non-list, naming it" do
      s = %{"type" => "object"}

      for {opts, message} <- [
            {[format: :assert], "unknown option :format of compile/2 (known: :formats)"},
            {[formats: "assert"],
             ~s(invalid value for :formats: expected :annotate or :assert, got "assert")},
            {[formats: :assert, formats: :assert],
             "option :formats of compile/2 is given more than once"},
            {:assert, "invalid options of compile/2: expected a keyword list, got :assert"},
            {[errors: :all], "unknown option :errors of compile/2 (known: :formats)"}
          ] do
        assert_raise ArgumentError, message, fn -> InputSchema.compile(s, opts) end
      end
    end

    test "validate/3 refuses a wrong formats value, and the option with a compiled schema" do
      s = %{"type" => "object"}

      assert_raise ArgumentError,
                   "invalid value for :formats: expected :annotate or :assert, got true",
                   fn -> InputSchema.validate(s, %{}, formats: true) end

      {:ok, compiled} = InputSchema.compile(s)

      for value <- [:assert, :annotate] do
        assert_raise ArgumentError,
                     "the :formats option of validate/3 applies to a schema map; " <>
                       "a compiled schema keeps the one compile/2 was given",
                     fn -> InputSchema.validate(compiled, %{}, formats: value) end
      end
    end

    test "the struct is still a Compiled" do
      {:ok, compiled} = InputSchema.compile(%{}, formats: :assert)
      assert %Compiled{formats: :assert} = compiled
    end
  end

  test "the row's message and class are the documented ones" do
    {class, message} = @row

    {:error, error} =
      InputSchema.validate(schema(%{"format" => "ipv4"}), %{"v" => "1"}, formats: :assert)

    assert {error.class, error.message} == {class, message}
  end
end
