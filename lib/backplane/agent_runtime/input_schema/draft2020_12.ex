defmodule Backplane.AgentRuntime.InputSchema.Draft202012 do
  @moduledoc false
  # `Backplane.AgentRuntime.InputSchema` under `contract: :draft2020_12`:
  # the options, and the loop that asks a loader for the external
  # documents the NIF names. Every check of a schema or of arguments is
  # the NIF's (native/input_schema/src/contract.rs), in the contract's
  # order (docs/behaviour.md, "The Draft 2020-12 contract").

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.{DirtyGate, Native, Settings}
  alias __MODULE__.Compiled

  defmodule Compiled do
    @moduledoc """
    A tool schema compiled by `Backplane.AgentRuntime.InputSchema.compile/2`
    under `contract: :draft2020_12`. Opaque: pass it to
    `Backplane.AgentRuntime.InputSchema.validate/2`. It answers as that
    contract says whatever the node's setting, and carries its schema with
    the external documents it was compiled with, so that a node that does
    not own its compiled form (another node, a restart, an upgrade)
    compiles it again, with no registry or loader, and answers the same.
    """

    @enforce_keys [:resource]
    defstruct [:resource, :source]

    @typedoc "A tool schema compiled under `contract: :draft2020_12` (opaque)."
    @opaque t :: %__MODULE__{resource: reference(), source: binary() | nil}

    defimpl Inspect do
      def inspect(_compiled, _opts),
        do: "#Backplane.AgentRuntime.InputSchema.Draft202012.Compiled<>"
    end
  end

  @known [:schema_registry, :schema_loader, :loader, :format_assertion, :content_assertion]

  # Most documents one call may ask a loader for: the contract's
  # reference limit, as each is named by a reference.
  @max_loads 10_000

  @doc false
  def validate_schema(schema, opts, function \\ "validate_schema/2") do
    with {:ok, assertions, documents} <- options(opts, function) do
      case check(schema, :none, assertions, documents) do
        :ok -> :ok
        {:error, _} = error -> error
      end
    end
  end

  @doc false
  def validate(schema, arguments, opts) do
    with {:ok, assertions, documents} <- options(opts, "validate/3"),
         :ok <- arguments_map(arguments),
         :ok <- check(schema, arguments, assertions, documents) do
      {:ok, arguments}
    end
  end

  @doc false
  def validate_compiled(%Compiled{} = compiled, arguments, opts) do
    cond do
      not is_list(opts) ->
        options_not_a_list()

      opts != [] ->
        raise ArgumentError,
              "the options of validate/3 apply to a schema map; " <>
                "a compiled schema keeps the ones compile/2 was given"

      true ->
        with :ok <- arguments_map(arguments),
             :ok <- run_compiled(compiled, arguments) do
          {:ok, arguments}
        end
    end
  end

  @doc false
  def compile(schema, opts) do
    with {:ok, assertions, documents} <- options(opts, "compile/2"),
         {:ok, resource, loaded} <- compile_resource(schema, assertions, documents) do
      {:ok, %Compiled{resource: resource, source: source({schema, loaded, assertions})}}
    end
  end

  defp arguments_map(arguments) when is_map(arguments), do: :ok

  defp arguments_map(_arguments),
    do: {:error, Error.new(:validation, "tool schema and arguments must be maps")}

  defp options_not_a_list,
    do: {:error, Error.new(:validation, "schema options must be a list")}

  # Step 1, then what the caller's own code got wrong (raised, as for the
  # subset's options): not a keyword list, an unknown key, a key given
  # twice, an assertion flag that is not a boolean. The registry and the
  # loader are checked at the contract's own step for them (the NIF's).
  defp options([], _function), do: {:ok, {false, false}, :none}
  defp options(opts, _function) when not is_list(opts), do: options_not_a_list()

  defp options(opts, function) do
    case Settings.keys(opts, @known, " of #{function}") do
      :ok -> :ok
      {:error, message} -> raise ArgumentError, message
    end

    formats = flag!(opts, :format_assertion)
    content = flag!(opts, :content_assertion)
    registry = Keyword.get(opts, :schema_registry)
    loader = Keyword.get(opts, :schema_loader) || Keyword.get(opts, :loader)
    {:ok, {formats, content}, documents(registry, loader)}
  end

  defp flag!(opts, key) do
    case Keyword.get(opts, key) do
      nil ->
        false

      flag when is_boolean(flag) ->
        flag

      other ->
        raise ArgumentError,
              "invalid value for #{inspect(key)}: expected a boolean, got #{inspect(other)}"
    end
  end

  # How external documents may come in; `nil` is as absent.
  defp documents(nil, nil), do: :none

  defp documents(registry, nil) when is_map(registry) and not is_struct(registry),
    do: {:registry, registry}

  defp documents(nil, loader) when is_function(loader, 1), do: {:loader, loader}

  defp documents(registry, loader)
       when is_map(registry) and not is_struct(registry) and is_function(loader, 1),
       do: :both

  defp documents(_registry, _loader), do: :wrong_type

  # A schema map with arguments (`:none`: the schema alone). Without a
  # registry or a loader, one NIF call answers (the schema found in the
  # cache, or compiled and filed) unless it needs a dirty scheduler.
  defp check(schema, arguments, assertions, :none) do
    case Native.contract_check(schema, arguments, assertions, :none) do
      :ok -> :ok
      {:error, %Error{}} = error -> error
      {:dirty_validate, resource} -> dirty_validate(resource, arguments)
      :dirty -> check_documents(schema, arguments, assertions, :none)
      other -> internal(other)
    end
  end

  defp check(schema, arguments, assertions, documents),
    do: check_documents(schema, arguments, assertions, documents)

  defp check_documents(schema, arguments, assertions, documents) do
    call = fn given ->
      Native.contract_check(schema, arguments, assertions, given)
    end

    dirty = fn given ->
      DirtyGate.run(:compile, fn ->
        Native.contract_check_dirty(schema, arguments, assertions, given)
      end)
    end

    case with_documents(call, dirty, documents) do
      {:dirty_validate, resource, _loaded} -> dirty_validate(resource, arguments)
      {:done, :ok, _loaded} -> :ok
      {:done, {:error, %Error{}} = error, _loaded} -> error
      {:done, other, _loaded} -> internal(other)
      {:error, %Error{}} = error -> error
    end
  end

  defp compile_resource(schema, assertions, documents) do
    call = fn given -> Native.contract_compile(schema, assertions, given) end

    dirty = fn given ->
      DirtyGate.run(:compile, fn -> Native.contract_compile_dirty(schema, assertions, given) end)
    end

    case with_documents(call, dirty, documents) do
      {:done, {:ok, resource}, loaded} -> {:ok, resource, loaded}
      {:done, {:error, %Error{}} = error, _loaded} -> error
      {:done, other, _loaded} -> internal(other)
      {:error, %Error{}} = error -> error
    end
  end

  # Runs a NIF call with the documents it may read, asking the loader for
  # those it names (`{:load, [{reference, request}]}`) and calling again
  # with them, until it answers. Answers `{:done, answer, documents}`,
  # where `documents` is what a recompile needs to read the same ones
  # without a loader.
  defp with_documents(call, dirty, {:loader, loader}),
    do: loading(call, dirty, loader, %{}, 0)

  defp with_documents(call, dirty, documents) do
    given =
      case documents do
        {:registry, registry} -> {:registry, registry}
        other -> other
      end

    case answered(call, dirty, given) do
      {:error, _} = error -> error
      {:dirty_validate, resource} -> {:dirty_validate, resource, given}
      answer -> {:done, answer, given}
    end
  end

  defp loading(call, dirty, loader, loaded, calls) do
    case answered(call, dirty, {:loader, loaded}) do
      {:load, requests} ->
        case load_all(requests, loader, loaded, calls) do
          {:ok, loaded, calls} -> loading(call, dirty, loader, loaded, calls)
          {:error, _} = error -> error
        end

      {:dirty_validate, resource} ->
        {:dirty_validate, resource, {:registry, loaded}}

      {:error, _} = error ->
        error

      answer ->
        {:done, answer, {:registry, loaded}}
    end
  end

  # One NIF call: its inline half, then its dirty half if it asks; a
  # document refused as the schema would be is the load error naming it.
  defp answered(call, dirty, given) do
    answer =
      case call.(given) do
        :dirty -> dirty.(given)
        answer -> answer
      end

    case answer do
      {:invalid_document, reference, %Error{} = error} ->
        load_error(reference, {:invalid_schema, error})

      {:load, _requests} = load ->
        load

      {:dirty_validate, _resource} = dirty ->
        dirty

      {:error, %Error{}} = error ->
        error

      answer ->
        answer
    end
  end

  defp load_all([], _loader, loaded, calls), do: {:ok, loaded, calls}

  defp load_all([{reference, request} | rest], loader, loaded, calls) do
    if calls >= @max_loads do
      load_error(reference, :reference_limit_exceeded)
    else
      case load_one(loader, request) do
        {:ok, document} -> load_all(rest, loader, Map.put(loaded, request, document), calls + 1)
        {:error, reason} -> load_error(reference, reason)
      end
    end
  end

  # A loader that raises, throws or exits has failed to load, as one that
  # answers an error or anything but `{:ok, schema}`.
  defp load_one(loader, request) do
    case loader.(request) do
      {:ok, document} -> {:ok, document}
      {:error, reason} -> {:error, reason}
      other -> {:error, {:invalid_loader_response, other}}
    end
  rescue
    exception -> {:error, exception}
  catch
    kind, value -> {:error, {kind, value}}
  end

  defp load_error(reference, reason) do
    {:error,
     Error.new(:execution_failure, "external schema reference could not be loaded",
       details: %{reference: reference, reason: inspect(reason)}
     )}
  end

  defp run_compiled(%Compiled{resource: resource} = compiled, arguments) do
    case Native.contract_validate(resource, arguments) do
      :dirty -> dirty_validate(resource, arguments)
      :foreign -> run_foreign(compiled, arguments)
      answer -> verdict(answer)
    end
  end

  defp dirty_validate(resource, arguments) do
    DirtyGate.run(:validate, fn -> Native.contract_validate_dirty(resource, arguments) end)
    |> verdict()
  end

  defp verdict(:ok), do: :ok
  defp verdict({:error, %Error{}} = error), do: error
  defp verdict(other), do: internal(other)

  # A struct whose resource this node's library did not make (another
  # node's, or from before an upgrade): its schema and the documents it
  # was compiled with are compiled again here.
  defp run_foreign(%Compiled{source: source}, arguments) do
    with {:ok, {schema, documents, assertions}} <- decode_source(source),
         {:ok, resource, _} <- compile_resource(schema, assertions, documents) do
      case Native.contract_validate(resource, arguments) do
        :dirty -> dirty_validate(resource, arguments)
        answer -> verdict(answer)
      end
    end
  end

  defp decode_source(source) when is_binary(source) do
    case :erlang.binary_to_term(source) do
      {_schema, _documents, {_, _}} = decoded -> {:ok, decoded}
      _ -> unusable()
    end
  rescue
    ArgumentError -> unusable()
  end

  defp decode_source(_source), do: unusable()

  defp unusable do
    {:error,
     Error.new(:unsupported_capability, "compiled tool schema cannot be used on this node")}
  end

  # The schema, its documents and its assertions as a binary, when the
  # schema's flat size fits (as for the subset's compiled schemas).
  defp source({schema, _documents, _assertions} = parts) do
    fits =
      case Native.source_fits(schema) do
        :dirty -> DirtyGate.run(:compile, fn -> Native.source_fits_dirty(schema) end)
        fits -> fits
      end

    if fits, do: :erlang.term_to_binary(parts, [:deterministic])
  end

  # A panic inside the NIF, or an answer no clause expects: refused,
  # never taken for a verdict.
  defp internal(_answer) do
    {:error, Error.new(:execution_failure, "JSON Schema validation failed")}
  end
end
