defmodule Backplane.AgentRuntime.InputSchema.OptionsTest do
  # The options of the public functions (docs/behaviour.md, section 1.1):
  # a wrong one raises an ArgumentError that names it, before the schema or
  # the arguments are looked at, whatever the schema is (a map, a compiled
  # schema, nil). The messages are asserted exactly.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.Settings

  @schema %{"required" => ["q"], "properties" => %{"n" => %{"type" => "integer"}}}
  @arguments %{"n" => "x"}

  defp schemas do
    {:ok, compiled} = InputSchema.compile(@schema)
    [@schema, compiled, nil]
  end

  defp refused(opts, message) do
    for schema <- schemas() do
      assert_raise ArgumentError, message, fn ->
        InputSchema.validate(schema, @arguments, opts)
      end
    end
  end

  describe "validate/3 refuses" do
    test "an unknown key" do
      refused([error: :all], "unknown option :error of validate/3 (known: :errors, :formats)")

      refused(
        [errors: :all, format: :assert],
        "unknown option :format of validate/3 (known: :errors, :formats)"
      )
    end

    test "a wrong value" do
      refused(
        [errors: "all"],
        ~s(invalid value for :errors: expected :first or :all, got "all")
      )

      refused([errors: nil], "invalid value for :errors: expected :first or :all, got nil")
      refused([errors: true], "invalid value for :errors: expected :first or :all, got true")
    end

    test "a key given twice" do
      refused(
        [errors: :all, errors: :all],
        "option :errors of validate/3 is given more than once"
      )

      refused(
        [errors: :first, errors: :all],
        "option :errors of validate/3 is given more than once"
      )
    end

    test "options that are an atom" do
      refused(:all, "invalid options of validate/3: expected a keyword list, got :all")
      refused(nil, "invalid options of validate/3: expected a keyword list, got nil")
    end

    test "options that are a map" do
      refused(
        %{errors: :all},
        "invalid options of validate/3: expected a keyword list, got %{errors: :all}"
      )
    end

    test "options that are an improper list" do
      refused(
        [{:errors, :all} | :all],
        "invalid options of validate/3: expected a keyword list, got [{:errors, :all} | :all]"
      )
    end

    test "a list that is not a keyword list" do
      refused([:all], "invalid options of validate/3: expected a keyword list, got [:all]")

      refused(
        [{"errors", :all}],
        ~s(invalid options of validate/3: expected a keyword list, got [{"errors", :all}])
      )
    end

    test "the first problem in order: not a keyword list, unknown, twice, a wrong value" do
      refused(
        [{:error, :x}, :all],
        "invalid options of validate/3: expected a keyword list, got [{:error, :x}, :all]"
      )

      refused(
        [errors: :x, errors: :x, error: :all],
        "unknown option :error of validate/3 (known: :errors, :formats)"
      )

      refused([errors: :x, errors: :all], "option :errors of validate/3 is given more than once")
    end
  end

  describe "validate/3 still takes" do
    test "errors: :first, the same as validate/2" do
      for schema <- schemas() do
        assert InputSchema.validate(schema, @arguments, errors: :first) ==
                 InputSchema.validate(schema, @arguments)
      end

      assert {:error, %{message: "required tool argument is missing"} = error} =
               InputSchema.validate(@schema, @arguments, errors: :first)

      refute Map.has_key?(error.details, :errors)
    end

    test "errors: :all, every failure listed" do
      for schema <- Enum.take(schemas(), 2) do
        assert {:error, error} = InputSchema.validate(schema, @arguments, errors: :all)

        assert Enum.map(error.details.errors, & &1.details) == [
                 %{path: "$arguments", property: "q"},
                 %{path: "$arguments.n", type: "integer"}
               ]
      end

      assert {:error, %{message: "tool schema is required"}} =
               InputSchema.validate(nil, @arguments, errors: :all)

      assert InputSchema.validate(@schema, %{"q" => "a"}, errors: :all) == {:ok, %{"q" => "a"}}
    end

    test "[], the same as validate/2" do
      for schema <- schemas(), arguments <- [@arguments, %{"q" => "a"}, :not_a_map] do
        assert InputSchema.validate(schema, arguments, []) ==
                 InputSchema.validate(schema, arguments)
      end

      assert InputSchema.validate(@schema, %{"q" => "a"}, []) == {:ok, %{"q" => "a"}}
    end
  end

  describe "Settings.options/3, the checker other functions share" do
    @spec_ [errors: [:first, :all], formats: [:annotate, :assert]]

    test "fills in every default, the first value of each key" do
      assert Settings.options([], "f/2", @spec_) == {:ok, %{errors: :first, formats: :annotate}}

      assert Settings.options([formats: :assert], "f/2", @spec_) ==
               {:ok, %{errors: :first, formats: :assert}}

      assert Settings.options([formats: :assert, errors: :all], "f/2", @spec_) ==
               {:ok, %{errors: :all, formats: :assert}}
    end

    test "names the function, every known key and every accepted value" do
      assert Settings.options([format: :x], "compile/2", @spec_) ==
               {:error, "unknown option :format of compile/2 (known: :errors, :formats)"}

      assert Settings.options([formats: :x], "compile/2", @spec_) ==
               {:error, "invalid value for :formats: expected :annotate or :assert, got :x"}

      assert Settings.options([mode: 1.0], "f/1", mode: [1, :b, "c"]) ==
               {:error, ~s(invalid value for :mode: expected 1, :b or "c", got 1.0)}

      assert Settings.options([mode: :b], "f/1", mode: [:a]) ==
               {:error, "invalid value for :mode: expected :a, got :b"}

      assert Settings.options([formats: :x, errors: :x], "f/2", @spec_) ==
               {:error, "invalid value for :errors: expected :first or :all, got :x"}
    end
  end

  test "validate_schema/2 takes no options under the subset" do
    assert InputSchema.validate_schema(%{"required" => ["q"]}, []) == :ok

    for opts <- [[x: 1], [formats: :assert], :x] do
      assert_raise ArgumentError,
                   "validate_schema/2 takes no options under contract: :subset, got #{inspect(opts)}",
                   fn -> InputSchema.validate_schema(%{}, opts) end
    end
  end
end
