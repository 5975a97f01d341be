defmodule Backplane.AgentRuntime.InputSchema.Application do
  @moduledoc false
  # The library's own application (`:backplane_input_schema`). It applies
  # `config :backplane_input_schema, cache: [...]` and `contract:` (which
  # contract InputSchema's functions follow), and starts the gate that
  # bounds concurrent dirty validations (`dirty_concurrency`, default
  # `:auto`). InputSchema works without it started; the cache then keeps its
  # defaults and dirty validations are not bounded.
  use Application

  require Logger

  alias Backplane.AgentRuntime.InputSchema.{DeferredFree, DirtyGate, Native, Settings}

  @impl true
  def start(_type, _args) do
    # Every setting is checked first: a wrong one stops the application with
    # a message that names it, before anything is applied.
    case Settings.application(Application.get_all_env(:backplane_input_schema)) do
      {:ok, settings} ->
        apply_cache(settings.cache)
        Backplane.AgentRuntime.InputSchema.put_contract(settings.contract)

        children = [
          {DirtyGate, DirtyGate.resolve(settings.dirty_concurrency)},
          DeferredFree
        ]

        Supervisor.start_link(children,
          strategy: :one_for_one,
          name: __MODULE__.Supervisor
        )

      {:error, message} ->
        Logger.error("backplane_input_schema did not start: " <> message)
        {:error, {:invalid_setting, message}}
    end
  end

  defp apply_cache(nil), do: :ok

  defp apply_cache({enabled, max_entries, max_bytes}),
    do: Native.configure_cache(enabled, max_entries, max_bytes)
end
