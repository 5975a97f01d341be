defmodule Backplane.AgentRuntime.InputSchema.SettingsTest do
  # Every setting is checked, with an error that names it, says what it
  # accepts and what was given (docs/configuration.md): `configure_cache/1`
  # at run time, the application environment at boot.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.InputSchema

  @app :backplane_input_schema

  setup do
    InputSchema.configure_cache(enabled: true, max_entries: 1024, max_bytes: 67_108_864)
    on_exit(fn -> InputSchema.configure_cache([]) end)
  end

  @invalid_cache [
    {[max_entries: -1],
     "invalid value for :max_entries: expected a non-negative integer, got -1"},
    {[max_entries: 1.5],
     "invalid value for :max_entries: expected a non-negative integer, got 1.5"},
    {[max_entries: nil],
     "invalid value for :max_entries: expected a non-negative integer, got nil"},
    {[max_bytes: "x"],
     ~s(invalid value for :max_bytes: expected a non-negative integer, got "x")},
    {[max_bytes: 2 ** 64],
     "invalid value for :max_bytes: expected a non-negative integer of at most " <>
       "18446744073709551615, got 18446744073709551616"},
    {[enabled: :maybe], "invalid value for :enabled: expected a boolean, got :maybe"},
    {[enabled: nil], "invalid value for :enabled: expected a boolean, got nil"},
    {[max_entry: 10],
     "unknown cache option :max_entry (known: :enabled, :max_entries, :max_bytes)"},
    {[max_entries: 1, max_entries: 2], "cache option :max_entries is given more than once"},
    {:notalist, "invalid cache options: expected a keyword list, got :notalist"},
    {%{max_entries: 1}, "invalid cache options: expected a keyword list, got %{max_entries: 1}"},
    {[{"max_entries", 1}],
     ~s(invalid cache options: expected a keyword list, got [{"max_entries", 1}])}
  ]

  test "configure_cache/1 refuses each invalid option by name, and changes nothing" do
    for {opts, message} <- @invalid_cache do
      before = InputSchema.cache_info()
      assert_raise ArgumentError, message, fn -> InputSchema.configure_cache(opts) end
      assert InputSchema.cache_info() == before, inspect(opts)
    end
  end

  test "configure_cache/1 takes every valid option" do
    assert InputSchema.configure_cache(enabled: false, max_entries: 0, max_bytes: 0) == :ok
    assert %{enabled: false, max_entries: 0, max_bytes: 0} = InputSchema.cache_info()
    max = 18_446_744_073_709_551_615
    assert InputSchema.configure_cache(enabled: true, max_entries: 7, max_bytes: max) == :ok
    assert %{enabled: true, max_entries: 7, max_bytes: ^max} = InputSchema.cache_info()
  end

  describe "the application environment at boot" do
    setup do
      saved = Application.get_all_env(@app)

      on_exit(fn ->
        Application.stop(@app)
        for {key, _} <- Application.get_all_env(@app), do: Application.delete_env(@app, key)
        for {key, value} <- saved, do: Application.put_env(@app, key, value)
        {:ok, _} = Application.ensure_all_started(@app)
      end)
    end

    defp boot(env) do
      # Stopped by the previous boot, or not started at all after a refusal.
      _ = Application.stop(@app)
      for {key, _} <- Application.get_all_env(@app), do: Application.delete_env(@app, key)
      for {key, value} <- env, do: Application.put_env(@app, key, value)

      ExUnit.CaptureLog.with_log(fn -> Application.start(@app) end)
    end

    test "a wrong setting stops the application with a message that names it" do
      for {env, message} <- [
            {[dirty_concurrency: 0],
             "invalid value for :dirty_concurrency: expected :auto, :unlimited or a positive integer, got 0"},
            {[dirty_concurrency: -2],
             "invalid value for :dirty_concurrency: expected :auto, :unlimited or a positive integer, got -2"},
            {[dirty_concurrency: "4"],
             ~s(invalid value for :dirty_concurrency: expected :auto, :unlimited or a positive integer, got "4")},
            {[cache: [max_entries: -1]],
             "invalid :cache setting: invalid value for :max_entries: expected a non-negative integer, got -1"},
            {[cache: :off],
             "invalid :cache setting: invalid cache options: expected a keyword list, got :off"},
            {[dirty_concurency: 2],
             "unknown setting :dirty_concurency of :backplane_input_schema " <>
               "(known: :cache, :dirty_concurrency, :contract)"},
            {[contract: :draft7],
             "invalid value for :contract: expected :subset or :draft2020_12, got :draft7"},
            {[contract: "draft2020_12"],
             ~s(invalid value for :contract: expected :subset or :draft2020_12, got "draft2020_12")}
          ] do
        {result, log} = boot(env)

        assert {:error, {{:invalid_setting, ^message}, _start}} = result
        assert log =~ "backplane_input_schema did not start: " <> message
        refute Process.whereis(Backplane.AgentRuntime.InputSchema.DirtyGate)
      end
    end

    test "valid settings start it, applied" do
      {result, _log} = boot(cache: [max_entries: 5], dirty_concurrency: 2)
      assert result == :ok
      assert %{max_entries: 5} = InputSchema.cache_info()
      assert Backplane.AgentRuntime.InputSchema.DirtyGate.limit() == 2

      for value <- [:auto, :unlimited, 1] do
        {result, _log} = boot(dirty_concurrency: value)
        assert result == :ok, inspect(value)
      end
    end

    test "the contract setting selects what InputSchema's functions do" do
      schema = %{"required" => ["n"], "unevaluatedProperties" => false}

      try do
        {:ok, _log} = boot(contract: :draft2020_12)
        assert InputSchema.contract() == :draft2020_12

        assert {:error, %{message: "required property \"n\" is missing"}} =
                 InputSchema.validate(schema, %{})

        {:ok, _log} = boot([])
        assert InputSchema.contract() == :subset

        assert {:error,
                %{class: :unsupported_capability, details: %{keyword: "unevaluatedProperties"}}} =
                 InputSchema.validate(schema, %{})
      after
        InputSchema.put_contract(:subset)
      end
    end
  end
end
