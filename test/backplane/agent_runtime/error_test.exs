defmodule Backplane.AgentRuntime.ErrorTest do
  # The runtime's error struct, call by call, as docs/behaviour.md ("Error")
  # states it: every runtime caller relies on these, not only InputSchema.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.Error

  doctest Error

  @classes [
    :validation,
    :forbidden,
    :approval_required,
    :not_found,
    :timeout,
    :cancelled,
    :transient_transport,
    :resource_conflict,
    :execution_failure,
    :malformed_result,
    :budget_exceeded,
    :unsupported_capability,
    :unknown_outcome,
    :overloaded
  ]

  test "fields and their defaults" do
    assert Map.from_struct(%Error{}) === %{
             class: :execution_failure,
             message: nil,
             details: %{},
             cause: nil
           }
  end

  test "classes/0 lists exactly the fourteen classes, in order" do
    assert Error.classes() === @classes
  end

  test "new/1 and new/2 default the message, details and cause" do
    assert Error.new(:timeout) === %Error{class: :timeout, message: nil, details: %{}, cause: nil}

    assert Error.new(:timeout, "slow") ===
             %Error{class: :timeout, message: "slow", details: %{}, cause: nil}
  end

  test "new/3 accepts every class" do
    for class <- @classes do
      assert Error.new(class, "m") === %Error{
               class: class,
               message: "m",
               details: %{},
               cause: nil
             }
    end
  end

  test "new/3 turns keyword details into a map" do
    assert Error.new(:validation, "m", details: [path: "x"]).details === %{path: "x"}

    assert Error.new(:validation, "m", details: [path: "x", keyword: :type]).details ===
             %{path: "x", keyword: :type}
  end

  test "new/3 turns any list of pairs into a map, and keeps a map as it is" do
    assert Error.new(:validation, "m", details: [{"path", "x"}, {1, 2}]).details ===
             %{"path" => "x", 1 => 2}

    assert Error.new(:validation, "m", details: %{path: "x"}).details === %{path: "x"}
    assert Error.new(:validation, "m", details: []).details === %{}
  end

  test "new/3 takes the cause from opts, and nothing else" do
    error = Error.new(:execution_failure, "m", cause: {:exit, :normal}, other: 1)

    assert error === %Error{
             class: :execution_failure,
             message: "m",
             details: %{},
             cause: {:exit, :normal}
           }
  end

  test "new/3 raises ArgumentError for an unknown atom class, naming it inspected" do
    assert_raise ArgumentError, "unknown agent runtime error class :bogus", fn ->
      Error.new(:bogus, "m")
    end

    assert_raise ArgumentError, "unknown agent runtime error class nil", fn -> Error.new(nil) end

    assert_raise ArgumentError, ~s(unknown agent runtime error class :"with space"), fn ->
      Error.new(:"with space")
    end
  end

  test "new/3 raises ArgumentError for a class that is not an atom" do
    assert_raise ArgumentError, ~s(agent runtime error class must be an atom, got "x"), fn ->
      Error.new("x")
    end

    assert_raise ArgumentError,
                 ~s(agent runtime error class must be an atom, got "validation"),
                 fn ->
                   Error.new("validation", "m", [])
                 end

    assert_raise ArgumentError, "agent runtime error class must be an atom, got 1", fn ->
      Error.new(1)
    end
  end

  test "new/3 with opts that are not a list is a FunctionClauseError in Error.new/3" do
    for opts <- [%{details: %{}}, nil, :details] do
      error = assert_raise FunctionClauseError, fn -> Error.new(:validation, "m", opts) end
      assert {error.module, error.function, error.arity} === {Error, :new, 3}
    end

    # The guard is on the head: it is checked before the class. (The
    # arguments come from a list so that a compiler's type check does not
    # refuse the call it is meant to make.)
    for {class, opts} <- [{:bogus, %{}}] do
      assert_raise FunctionClauseError, fn -> Error.new(class, "m", opts) end
    end
  end

  test "to_map/1 keeps the class an atom and leaves the cause out" do
    error = Error.new(:validation, "bad", details: [path: "$arguments"], cause: :ignored)

    assert Error.to_map(error) === %{
             "class" => :validation,
             "message" => "bad",
             "details" => %{path: "$arguments"}
           }

    assert Error.to_map(%Error{}) === %{
             "class" => :execution_failure,
             "message" => nil,
             "details" => %{}
           }
  end
end
