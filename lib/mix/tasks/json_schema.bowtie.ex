defmodule Mix.Tasks.JsonSchema.Bowtie do
  @shortdoc "Runs Backplane.JSONSchema as a Bowtie harness (JSON lines on stdin/stdout)"
  @moduledoc """
  Speaks Bowtie's harness protocol, version 1 (https://docs.bowtie.report),
  for `Backplane.JSONSchema`: one command a line on stdin, one reply a line
  on stdout, and nothing else on stdout.

      MIX_ENV=prod mix compile
      MIX_ENV=prod mix json_schema.bowtie

  The harness announces the five dialects (2020-12, 2019-09, draft 7, 6
  and 4); `dialect` sets the dialect of schemas without `$schema`; each
  `run` compiles the case's schema with its `registry` as `resources:`
  (formats and content as annotations, the defaults) and answers each
  test's verdict. A schema that does not compile is an errored case whose
  context carries the `Backplane.JSONSchema.CompileError` message.

  Everything but the replies goes to stderr: the compile this task runs,
  Logger, and the message of a line that is not a command of the protocol,
  which stops the harness with status 1. `stop` (or the end of stdin)
  exits 0. Compile first, as above: a task that is not compiled yet is
  found only after Mix's own compile, whose output goes to stdout.

  The start reply's `homepage`, `source` and `issues` are the project's
  `:homepage_url`, `:source_url` and `:issues_url` (mix.exs), each falling
  back to the one before it, and to a `file:` URI of the project directory.
  """
  use Mix.Task

  alias Backplane.JSONSchema.Bowtie

  @impl true
  def run(argv) do
    argv == [] || fail("usage: mix json_schema.bowtie (no arguments)", 1)
    stdout = Process.group_leader()
    # Anything written to this process's standard output from here on (the
    # compile's messages, cargo's output) goes to stderr; the replies are
    # written to `stdout` explicitly.
    Process.group_leader(self(), Process.whereis(:standard_error))
    logs_to_stderr()
    Mix.Task.run("app.start", [])
    # Bytes in, bytes out: the lines are UTF-8 JSON, passed through as is.
    :ok = :io.setopts(stdout, binary: true, encoding: :latin1)
    loop(stdout, Bowtie.new(urls()))
  end

  defp loop(stdout, state) do
    case IO.binread(stdout, :line) do
      :eof ->
        note("stdin closed without stop; exiting")

      {:error, reason} ->
        fail("cannot read stdin: #{inspect(reason)}", 1)

      line when is_binary(line) ->
        case Bowtie.handle_line(line, state) do
          {:reply, reply, state} ->
            case Bowtie.encode_line(reply) do
              {:ok, text} ->
                :ok = IO.binwrite(stdout, text)
                loop(stdout, state)

              {:error, message} ->
                fail(message, 1)
            end

          {:noreply, state} ->
            loop(stdout, state)

          {:stop, 0, nil} ->
            :ok

          {:stop, status, message} ->
            fail(message, status)
        end
    end
  end

  defp urls do
    config = Mix.Project.config()
    homepage = config[:homepage_url] || config[:source_url] || "file://" <> File.cwd!()
    source = config[:source_url] || homepage
    %{"homepage" => homepage, "source" => source, "issues" => config[:issues_url] || source}
  end

  # Logger writes to stderr: Erlang's default handler (what Elixir 1.15 and
  # newer log through) is put back writing to standard_error, and Elixir's
  # console backend (Elixir 1.14, or where configured) is told the same.
  defp logs_to_stderr do
    case :logger.get_handler_config(:default) do
      {:ok, %{module: :logger_std_h, config: %{type: type}} = handler}
      when type != :standard_error ->
        kept = Map.take(handler, [:level, :filter_default, :filters, :formatter])
        :ok = :logger.remove_handler(:default)

        :ok =
          :logger.add_handler(
            :default,
            :logger_std_h,
            Map.put(kept, :config, %{type: :standard_error})
          )

      _ ->
        :ok
    end

    backends = Application.get_env(:logger, :backends, [])
    # Called through a variable: the function is deprecated where Logger
    # backends moved out of Elixir, and present (not deprecated) on 1.14.
    logger = Logger

    if :console in backends and function_exported?(logger, :configure_backend, 2) do
      apply(logger, :configure_backend, [:console, [device: :standard_error]])
    end

    :ok
  end

  defp note(message), do: IO.puts(:stderr, "json_schema.bowtie: " <> message)

  @spec fail(String.t(), pos_integer()) :: no_return()
  defp fail(message, status) do
    note(message)
    exit({:shutdown, status})
  end
end
