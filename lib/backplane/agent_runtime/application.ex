defmodule Backplane.AgentRuntime.Application do
  @moduledoc false
  # Applies `config :backplane_agent_runtime, :input_schema_cache, [...]` and
  # starts the gate that bounds concurrent dirty validations
  # (`:input_schema_dirty_concurrency`, default `:auto`). InputSchema works
  # without the application started; the cache then keeps its defaults and
  # dirty validations are not bounded.
  use Application

  alias Backplane.AgentRuntime.InputSchema.DirtyGate

  @impl true
  def start(_type, _args) do
    case Application.fetch_env(:backplane_agent_runtime, :input_schema_cache) do
      {:ok, opts} -> Backplane.AgentRuntime.InputSchema.configure_cache(opts)
      :error -> :ok
    end

    limit =
      :backplane_agent_runtime
      |> Application.get_env(:input_schema_dirty_concurrency, :auto)
      |> DirtyGate.resolve()

    Supervisor.start_link([{DirtyGate, limit}],
      strategy: :one_for_one,
      name: __MODULE__.Supervisor
    )
  end
end
