defmodule Backplane.AgentRuntime.InputSchema.Application do
  @moduledoc false
  # The library's own application (`:backplane_input_schema`). It applies
  # `config :backplane_input_schema, cache: [...]` and starts the gate that
  # bounds concurrent dirty validations (`dirty_concurrency`, default
  # `:auto`). InputSchema works without it started; the cache then keeps its
  # defaults and dirty validations are not bounded.
  use Application

  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.DirtyGate

  @impl true
  def start(_type, _args) do
    case Application.fetch_env(:backplane_input_schema, :cache) do
      {:ok, opts} -> InputSchema.configure_cache(opts)
      :error -> :ok
    end

    limit =
      :backplane_input_schema
      |> Application.get_env(:dirty_concurrency, :auto)
      |> DirtyGate.resolve()

    Supervisor.start_link([{DirtyGate, limit}],
      strategy: :one_for_one,
      name: __MODULE__.Supervisor
    )
  end
end
