defmodule Backplane.JSONSchema.Bowtie do
  @moduledoc false
  # The Bowtie harness protocol, version 1 (https://docs.bowtie.report):
  # one JSON object a line in, at most one JSON object a line out.
  # `mix json_schema.bowtie` reads the lines and writes the replies; this
  # module holds the protocol, so that it runs (and is tested) apart from
  # any I/O.
  #
  #   start   {"cmd":"start","version":1}  -> {"version":1,"implementation":{...}}
  #   dialect {"cmd":"dialect","dialect":URI} -> {"ok":true} (one of the five
  #           dialects) or {"ok":false} (any other URI)
  #   run     {"cmd":"run","seq":S,"case":{"schema","tests","registry"}}
  #           -> {"seq":S,"results":[{"valid":bool} | {"errored":true,...}]}
  #              or {"seq":S,"errored":true,"context":{"message",...}} when
  #              the case cannot run (a schema that does not compile, a case
  #              not of the protocol's shape)
  #   stop    -> no reply; the harness exits 0
  #
  # A line that is not a command of the protocol (not JSON, not an object,
  # an unknown command, a command before `start`, a `run` without `seq`)
  # has no reply the protocol allows: it stops the harness with status 1
  # and a message for stderr.

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, LimitError}

  @version 1

  # Dialect URIs as Bowtie sends them (the metaschemas' own $id, with the
  # empty fragment of the drafts), newest first.
  @dialects [
    {"https://json-schema.org/draft/2020-12/schema", :draft2020_12},
    {"https://json-schema.org/draft/2019-09/schema", :draft2019_09},
    {"http://json-schema.org/draft-07/schema#", :draft7},
    {"http://json-schema.org/draft-06/schema#", :draft6},
    {"http://json-schema.org/draft-04/schema#", :draft4}
  ]

  defstruct started: false, dialect: :draft2020_12, implementation: %{}

  @type t :: %__MODULE__{started: boolean(), dialect: atom(), implementation: map()}

  @type outcome ::
          {:reply, map(), t()}
          | {:noreply, t()}
          | {:stop, 0 | 1, String.t() | nil}

  @doc "The protocol version this harness speaks."
  def version, do: @version

  @doc "The dialect URIs the harness announces, newest first."
  def dialect_uris, do: Enum.map(@dialects, &elem(&1, 0))

  @doc "The dialect atom of a dialect URI (with or without the empty fragment), or nil."
  def dialect(uri) when is_binary(uri) do
    bare = String.trim_trailing(uri, "#")

    Enum.find_value(@dialects, fn {known, atom} ->
      String.trim_trailing(known, "#") == bare && atom
    end)
  end

  def dialect(_), do: nil

  @doc """
  A harness state. `implementation` holds the start reply's URL fields
  (`"homepage"`, `"issues"`, `"source"`, and optionally `"documentation"`).
  """
  def new(implementation \\ %{}), do: %__MODULE__{implementation: implementation}

  @doc "The start reply's `implementation` object."
  def implementation(%__MODULE__{implementation: urls}) do
    {os_family, os_name} = :os.type()

    Map.merge(
      %{
        "language" => "elixir",
        "name" => "backplane_input_schema",
        "version" => app_version(),
        "dialects" => dialect_uris(),
        "os" => Atom.to_string(os_name),
        "os_version" => os_version(os_family),
        "language_version" =>
          "#{System.version()} (Erlang/OTP #{:erlang.system_info(:otp_release)})"
      },
      urls
    )
  end

  defp app_version do
    case Application.spec(:backplane_input_schema, :vsn) do
      nil -> "0.0.0"
      vsn -> List.to_string(vsn)
    end
  end

  defp os_version(_family) do
    case :os.version() do
      {major, minor, patch} -> "#{major}.#{minor}.#{patch}"
      text when is_list(text) -> List.to_string(text)
    end
  end

  @doc """
  Handles one line of input (with or without its newline). A reply is a
  map to encode with `encode_line/1`.
  """
  @spec handle_line(binary(), t()) :: outcome()
  def handle_line(line, state) when is_binary(line) do
    if String.trim(line) == "" do
      {:noreply, state}
    else
      case JSON.decode(line) do
        {:ok, command} when is_map(command) ->
          handle(command, state)

        {:ok, other} ->
          {:stop, 1, "a command must be a JSON object, got #{describe(other)}"}

        {:error, error} ->
          {:stop, 1, "a line is not JSON: #{json_error(error)}"}
      end
    end
  end

  @doc "Handles one decoded command."
  @spec handle(map(), t()) :: outcome()
  def handle(%{"cmd" => "start"} = command, state) do
    case Map.fetch(command, "version") do
      {:ok, @version} ->
        state = %{state | started: true}
        {:reply, %{"version" => @version, "implementation" => implementation(state)}, state}

      {:ok, other} ->
        {:stop, 1, "this harness speaks protocol version #{@version}, not #{describe(other)}"}

      :error ->
        {:stop, 1, "start has no version"}
    end
  end

  def handle(%{"cmd" => cmd}, %__MODULE__{started: false})
      when cmd in ["dialect", "run", "stop"] do
    {:stop, 1, "#{cmd} before start"}
  end

  def handle(%{"cmd" => "dialect"} = command, state) do
    case dialect(Map.get(command, "dialect")) do
      nil -> {:reply, %{"ok" => false}, state}
      atom -> {:reply, %{"ok" => true}, %{state | dialect: atom}}
    end
  end

  def handle(%{"cmd" => "run", "seq" => seq} = command, state) do
    {:reply, run(seq, Map.get(command, "case"), state.dialect), state}
  end

  def handle(%{"cmd" => "run"}, _state), do: {:stop, 1, "run has no seq"}

  def handle(%{"cmd" => "stop"}, _state), do: {:stop, 0, nil}

  def handle(%{"cmd" => cmd}, _state), do: {:stop, 1, "unknown command #{describe(cmd)}"}

  def handle(_command, _state), do: {:stop, 1, "a command object has no cmd"}

  @doc "Runs one case: the run reply for `seq`."
  def run(seq, test_case, dialect) do
    with {:ok, schema, tests, registry} <- case_parts(test_case),
         {:ok, compiled} <- compile(schema, dialect, registry) do
      %{"seq" => seq, "results" => Enum.map(tests, &result(compiled, &1))}
    else
      {:errored, context} -> %{"seq" => seq, "errored" => true, "context" => context}
    end
  end

  defp case_parts(%{"schema" => schema, "tests" => tests} = test_case)
       when is_list(tests) and tests != [] do
    registry = Map.get(test_case, "registry", %{})

    cond do
      not is_map(registry) ->
        {:errored, %{"message" => "the case's registry is not an object"}}

      not Enum.all?(tests, &(is_map(&1) and Map.has_key?(&1, "instance"))) ->
        {:errored, %{"message" => "every test of a case must be an object with an instance"}}

      true ->
        {:ok, schema, tests, registry}
    end
  end

  defp case_parts(test_case) when is_map(test_case) do
    {:errored, %{"message" => "a case needs a schema and a non-empty list of tests"}}
  end

  defp case_parts(_), do: {:errored, %{"message" => "run has no case object"}}

  defp compile(schema, dialect, registry) do
    case JSONSchema.compile(schema, dialect: dialect, resources: registry) do
      {:ok, compiled} ->
        {:ok, compiled}

      {:error, %CompileError{} = error} ->
        {:errored, compile_context(error)}
    end
  rescue
    exception -> {:errored, raised(exception, __STACKTRACE__)}
  end

  defp compile_context(%CompileError{} = error) do
    [
      {"message", error.message},
      {"reason", Atom.to_string(error.reason)},
      {"pointer", error.pointer},
      {"uri", error.uri}
    ]
    |> Enum.reject(fn {_, value} -> is_nil(value) end)
    |> Map.new()
  end

  # valid?/2 is the fast path; a false verdict is confirmed by validate/2,
  # which tells a limit (not a verdict) apart from errors.
  defp result(compiled, %{"instance" => instance}) do
    if JSONSchema.valid?(compiled, instance) do
      %{"valid" => true}
    else
      case JSONSchema.validate(compiled, instance) do
        {:error, errors} when is_list(errors) and errors != [] ->
          %{"valid" => false}

        {:error, %LimitError{} = error} ->
          %{
            "errored" => true,
            "context" => %{"message" => error.message, "reason" => Atom.to_string(error.reason)}
          }

        other ->
          %{
            "errored" => true,
            "context" => %{
              "message" => "valid?/2 is false but validate/2 returned #{inspect(other, limit: 5)}"
            }
          }
      end
    end
  rescue
    exception -> %{"errored" => true, "context" => raised(exception, __STACKTRACE__)}
  end

  defp raised(exception, stacktrace) do
    %{
      "message" => Exception.message(exception),
      "traceback" => Exception.format(:error, exception, stacktrace)
    }
  end

  @doc """
  A reply as one line of compact JSON, newline included, or an error when
  the reply holds a term JSON cannot carry.
  """
  @spec encode_line(map()) :: {:ok, binary()} | {:error, String.t()}
  def encode_line(reply) do
    case JSON.encode(reply) do
      # The encoder pretty-prints; every newline it writes (and the
      # indentation after it) is outside strings, whose own newlines are
      # escaped, so removing them leaves the same JSON on one line.
      {:ok, text} -> {:ok, String.replace(text, ~r/\n */, "") <> "\n"}
      {:error, error} -> {:error, "a reply cannot be encoded as JSON: #{error.message}"}
    end
  end

  defp json_error(%{details: %{line: line, column: column, reason: reason}}),
    do: "#{reason} at column #{column} (line #{line} of the text)"

  defp json_error(error), do: inspect(error, limit: 5)

  defp describe(term), do: inspect(term, limit: 5, printable_limit: 80)
end
