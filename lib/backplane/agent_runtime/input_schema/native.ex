defmodule Backplane.AgentRuntime.InputSchema.Native do
  @moduledoc false
  # The NIF seam: one-line stubs replaced by the Rust functions of the same
  # names when `priv/native/libinput_schema.so` loads. If it does not, each
  # stub raises an error naming the library path and the loader's reason.

  @on_load :load_nif

  @doc false
  def load_nif do
    path = library_path()

    case :erlang.load_nif(String.to_charlist(path), load_info()) do
      :ok ->
        :ok

      {:error, reason} ->
        :persistent_term.put({__MODULE__, :load_error}, {path, reason})
        # Loading the module still succeeds, so callers see the stubs' clear
        # error instead of `:undef`.
        :ok
    end
  end

  # The NIF walks maps in `Map.keys/1` order. For maps of more than 32 keys
  # that order differs between OTP releases, so the NIF measures it here, on
  # this VM: maps of both kinds with their `Map.keys/1`. The NIF refuses to
  # load if the probes disagree with every walk it can make.
  @doc false
  def load_info do
    probes =
      for n <- [1, 8, 32, 33, 64, 500] do
        map = Map.new(1..n, &{"k#{&1}", &1})
        {map, Map.keys(map)}
      end

    {:map_order, probes}
  end

  defp library_path do
    priv =
      case :code.priv_dir(:backplane_input_schema) do
        {:error, _} -> Path.expand("../../../../priv", __DIR__)
        dir -> List.to_string(dir)
      end

    Path.join([priv, "native", "libinput_schema"])
  end

  @doc false
  def not_loaded do
    {path, reason} =
      :persistent_term.get({__MODULE__, :load_error}, {library_path(), :not_attempted})

    {:nif_not_loaded,
     "InputSchema NIF library #{path}.so could not be loaded: #{inspect(reason)}"}
  end

  def validate_schema(_schema), do: :erlang.nif_error(not_loaded())
  def validate_schema_dirty(_schema), do: :erlang.nif_error(not_loaded())
  def compile_dirty(_schema, _assert_formats), do: :erlang.nif_error(not_loaded())

  # `mode`: `:first` or `:all` errors, formats annotated; `:first_asserting`
  # or `:all_asserting`, formats asserted.
  def validate(_schema, _arguments, _mode), do: :erlang.nif_error(not_loaded())

  def compile(_schema, _assert_formats), do: :erlang.nif_error(not_loaded())

  def validate_compiled(_compiled, _source, _arguments, _mode),
    do: :erlang.nif_error(not_loaded())

  def validate_compiled_dirty(_compiled, _source, _arguments, _mode),
    do: :erlang.nif_error(not_loaded())

  def compile_source_dirty(_schema, _source, _assert_formats),
    do: :erlang.nif_error(not_loaded())

  def source_fits(_term), do: :erlang.nif_error(not_loaded())
  def source_fits_dirty(_term), do: :erlang.nif_error(not_loaded())

  def check_schema(_schema), do: :erlang.nif_error(not_loaded())
  def decode_json(_text), do: :erlang.nif_error(not_loaded())
  def encode_json(_term), do: :erlang.nif_error(not_loaded())
  def configure_cache(_enabled, _max_entries, _max_bytes), do: :erlang.nif_error(not_loaded())
  def clear_cache, do: :erlang.nif_error(not_loaded())
  def cache_stats, do: :erlang.nif_error(not_loaded())

  def json_schema_compile(_schema, _dialect, _resources, _formats, _content),
    do: :erlang.nif_error(not_loaded())

  def json_schema_compile_dirty(_schema, _dialect, _resources, _formats, _content),
    do: :erlang.nif_error(not_loaded())

  def json_schema_validate(_compiled, _instance, _mode), do: :erlang.nif_error(not_loaded())

  def json_schema_validate_dirty(_compiled, _instance, _mode),
    do: :erlang.nif_error(not_loaded())

  def json_schema_check(_schema, _instance, _mode, _dialect, _resources, _formats, _content),
    do: :erlang.nif_error(not_loaded())

  def json_schema_check_dirty(
        _schema,
        _instance,
        _mode,
        _dialect,
        _resources,
        _formats,
        _content
      ),
      do: :erlang.nif_error(not_loaded())

  def json_schema_bytes(_compiled), do: :erlang.nif_error(not_loaded())
  def json_schema_missing(_schema, _dialect, _resources), do: :erlang.nif_error(not_loaded())

  def json_schema_missing_dirty(_schema, _dialect, _resources),
    do: :erlang.nif_error(not_loaded())

  # `contract: :draft2020_12` (native/input_schema/src/contract.rs).
  # `arguments` is `:none` for a schema alone; `assertions` is
  # `{format_assertion, content_assertion}`; `documents` is `:none`,
  # `{:registry, map}`, `{:loader, loaded}`, `:both` or `:wrong_type`.
  def contract_check(_schema, _arguments, _assertions, _documents),
    do: :erlang.nif_error(not_loaded())

  def contract_check_dirty(_schema, _arguments, _assertions, _documents),
    do: :erlang.nif_error(not_loaded())

  def contract_compile(_schema, _assertions, _documents), do: :erlang.nif_error(not_loaded())

  def contract_compile_dirty(_schema, _assertions, _documents),
    do: :erlang.nif_error(not_loaded())

  def contract_validate(_compiled, _arguments), do: :erlang.nif_error(not_loaded())
  def contract_validate_dirty(_compiled, _arguments), do: :erlang.nif_error(not_loaded())

  def noop, do: :erlang.nif_error(not_loaded())
  def noop_dirty, do: :erlang.nif_error(not_loaded())
  def deferred_held, do: :erlang.nif_error(not_loaded())
  def deferred_free_dirty, do: :erlang.nif_error(not_loaded())
  # Present in the library only when built for the test environment.
  def panic_probe, do: :erlang.nif_error(not_loaded())
  def list_length_within(_list, _limit), do: :erlang.nif_error(not_loaded())
  def map_order_probe(_probes), do: :erlang.nif_error(not_loaded())
  def stack_use(_op, _grow, _a, _b), do: :erlang.nif_error(not_loaded())
  def contract_schema_size(_schema), do: :erlang.nif_error(not_loaded())
end
