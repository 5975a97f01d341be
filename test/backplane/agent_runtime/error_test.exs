defmodule Backplane.AgentRuntime.ErrorTest do
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.Error

  doctest Error

  test "defaults" do
    assert %Error{} == %Error{class: :execution_failure, message: nil, details: %{}, cause: nil}
  end

  test "new/3 accepts every class and sets details and cause" do
    for class <- Error.classes() do
      assert %Error{class: ^class, message: "m", details: %{a: 1}, cause: :boom} =
               Error.new(class, "m", details: %{a: 1}, cause: :boom)
    end

    assert length(Error.classes()) == 14
    assert Error.new(:timeout) == %Error{class: :timeout, message: nil, details: %{}, cause: nil}
  end

  test "new/3 raises ArgumentError for an unknown class" do
    assert_raise ArgumentError, fn -> Error.new(:nope, "m") end
    assert_raise ArgumentError, fn -> Error.new("validation") end
  end

  test "to_map/1" do
    error = Error.new(:validation, "bad", details: %{path: "$arguments"}, cause: :ignored)

    assert Error.to_map(error) == %{
             "class" => "validation",
             "message" => "bad",
             "details" => %{path: "$arguments"}
           }
  end
end
