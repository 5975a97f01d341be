defmodule Backplane.AgentRuntime.InputSchema.Memory do
  @moduledoc "Helpers for the tests that measure the VM's memory (they run alone)."

  @doc "Collects every process's garbage and lets freed resources go."
  def settle do
    for pid <- Process.list(), do: :erlang.garbage_collect(pid)
    Process.sleep(50)
  end
end
