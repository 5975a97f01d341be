defmodule Backplane.AgentRuntime.InputSchema.SummaryFormatter do
  @moduledoc false
  # An ExUnit formatter beside the CLI one: when the suite finishes it
  # appends one line, `tests=N failures=N excluded=N skipped=N`, to the file
  # named by INPUT_SCHEMA_SUMMARY (when set). scripts/test reads it to print
  # the platform matrix, instead of ExUnit's human summary, whose wording
  # changes between Elixir releases. Each failed test also appends a line,
  # `Module "test name": the first lines of its error`, to the file named
  # by INPUT_SCHEMA_SUMMARY with `.failures` added, so that the matrix can
  # name what failed on a platform whose own output scrolled away.
  use GenServer

  @impl true
  def init(_opts), do: {:ok, %{tests: 0, failures: 0, excluded: 0, skipped: 0}}

  @impl true
  def handle_cast({:test_finished, %ExUnit.Test{state: state} = test}, counts) do
    key =
      case state do
        nil -> nil
        {:excluded, _} -> :excluded
        {:skipped, _} -> :skipped
        _failed_or_invalid -> :failures
      end

    if key == :failures, do: record_failure(test)

    # `tests` counts the tests that ran: passed or failed.
    counts = if key in [nil, :failures], do: %{counts | tests: counts.tests + 1}, else: counts
    {:noreply, if(key, do: Map.update!(counts, key, &(&1 + 1)), else: counts)}
  end

  def handle_cast({:suite_finished, _times}, counts) do
    case System.get_env("INPUT_SCHEMA_SUMMARY") do
      path when path in [nil, ""] ->
        :ok

      path ->
        line =
          "tests=#{counts.tests} failures=#{counts.failures} " <>
            "excluded=#{counts.excluded} skipped=#{counts.skipped}\n"

        File.write!(path, line, [:append])
    end

    {:noreply, counts}
  end

  def handle_cast(_event, counts), do: {:noreply, counts}

  defp record_failure(%ExUnit.Test{module: module, name: name, state: state}) do
    case System.get_env("INPUT_SCHEMA_SUMMARY") do
      path when path in [nil, ""] ->
        :ok

      path ->
        line = "#{inspect(module)} #{inspect(to_string(name))}: #{headline(state)}\n"
        File.write!(path <> ".failures", line, [:append])
    end
  end

  defp headline({:failed, [{kind, reason, stack} | _]}) do
    kind
    |> Exception.format_banner(reason, stack)
    |> String.split("\n")
    |> Enum.map(&String.trim/1)
    |> Enum.reject(&(&1 == ""))
    |> Enum.take(4)
    |> Enum.join(" / ")
    |> String.slice(0, 300)
  end

  defp headline({:invalid, module}), do: "invalid: #{inspect(module)}'s setup_all failed"
  defp headline(other), do: inspect(other, limit: 5)
end
