defmodule Backplane.AgentRuntime.Application do
  @moduledoc false
  # Applies `config :backplane_agent_runtime, :input_schema_cache, [...]`.
  # InputSchema works without the application started; the cache then keeps
  # its defaults.
  use Application

  @impl true
  def start(_type, _args) do
    case Application.fetch_env(:backplane_agent_runtime, :input_schema_cache) do
      {:ok, opts} -> Backplane.AgentRuntime.InputSchema.configure_cache(opts)
      :error -> :ok
    end

    Supervisor.start_link([], strategy: :one_for_one, name: __MODULE__.Supervisor)
  end
end
