defmodule Backplane.AgentRuntime.InputSchema.Settings do
  @moduledoc false
  # Every setting of the library, checked in one place: the application
  # environment when the application starts, `configure_cache/1` at run
  # time, and the options of the public functions (`options/3`). A wrong
  # setting is named, with what it accepts and what was given; unknown
  # settings are refused (docs/configuration.md, docs/behaviour.md 1.1).

  @max_usize 18_446_744_073_709_551_615

  @cache_keys [:enabled, :max_entries, :max_bytes]
  @app_keys [:cache, :dirty_concurrency, :contract]
  @contracts [:subset, :draft2020_12]

  @doc """
  The cache options as the NIF takes them: `{:ok, {enabled, max_entries,
  max_bytes}}` (a bound left out is `nil`, the NIF's default), or
  `{:error, message}`.
  """
  @spec cache(term()) ::
          {:ok, {boolean(), non_neg_integer() | nil, non_neg_integer() | nil}}
          | {:error, String.t()}
  def cache(opts) do
    with :ok <- keyword(opts, "cache options"),
         :ok <- known(opts, @cache_keys, "cache option"),
         {:ok, enabled} <- fetch(opts, :enabled, true, &boolean/1),
         {:ok, max_entries} <- fetch(opts, :max_entries, nil, &size/1),
         {:ok, max_bytes} <- fetch(opts, :max_bytes, nil, &size/1) do
      {:ok, {enabled, max_entries, max_bytes}}
    end
  end

  @doc """
  The application environment, checked: `{:ok, %{cache: cache | nil,
  dirty_concurrency: value, contract: :subset | :draft2020_12}}` or
  `{:error, message}`.
  """
  @spec application([{atom(), term()}]) :: {:ok, map()} | {:error, String.t()}
  def application(env) do
    with :ok <- known(env, @app_keys, "setting", " of :backplane_input_schema"),
         {:ok, cache} <- app_cache(Keyword.fetch(env, :cache)),
         {:ok, dirty} <- fetch(env, :dirty_concurrency, :auto, &dirty_concurrency/1),
         {:ok, contract} <- fetch(env, :contract, :subset, &one_of(&1, @contracts)) do
      {:ok, %{cache: cache, dirty_concurrency: dirty, contract: contract}}
    end
  end

  @doc """
  Checks that `opts` is a keyword list of the `keys` given, each at most
  once: `:ok` or `{:error, message}` (`where` names the function in it,
  `" of compile/2"`).
  """
  @spec keys(term(), [atom()], String.t()) :: :ok | {:error, String.t()}
  def keys(opts, keys, where) do
    with :ok <- keyword(opts, "options#{where}") do
      known(opts, keys, "option", where)
    end
  end

  defp app_cache(:error), do: {:ok, nil}

  defp app_cache({:ok, opts}) do
    case cache(opts) do
      {:ok, cache} -> {:ok, cache}
      {:error, message} -> {:error, "invalid :cache setting: " <> message}
    end
  end

  @doc """
  The options of a public function, checked against `spec`: for each key
  it takes, the values it accepts, the first being the default (`[errors:
  [:first, :all]]`). `function` names the function in messages
  (`"validate/3"`).

  Returns `{:ok, map}` with every key of `spec`, given or defaulted
  (`%{errors: :all}`), or `{:error, message}` for options that are not a
  keyword list, an unknown key, a key given twice, or a value the key does
  not accept, in that order of precedence. Values are compared exactly
  (`=:=`). `known` lists every key the function takes, in the order
  messages name them, when the caller has taken some keys out of `opts`
  before (the keys of `spec` by default).
  """
  @spec options(term(), String.t(), [{atom(), [term(), ...]}, ...], [atom()] | nil) ::
          {:ok, %{optional(atom()) => term()}} | {:error, String.t()}
  def options(opts, function, spec, known \\ nil) do
    # One pass over the list for valid options; the messages (and which
    # problem is named when there are several) come from the checks below,
    # run only once the pass has failed.
    case take(opts, spec, %{}) do
      {:ok, given} ->
        {:ok, defaults(spec, given)}

      :error ->
        {:error, option_error(opts, function, spec, known || Keyword.keys(spec))}
    end
  end

  defp take([], _spec, given), do: {:ok, given}

  defp take([{key, value} | rest], spec, given)
       when is_atom(key) and not is_map_key(given, key) do
    case List.keyfind(spec, key, 0) do
      {_key, accepted} ->
        if :lists.member(value, accepted),
          do: take(rest, spec, Map.put(given, key, value)),
          else: :error

      nil ->
        :error
    end
  end

  defp take(_opts, _spec, _given), do: :error

  defp defaults([], given), do: given

  defp defaults([{key, [default | _]} | spec], given),
    do: defaults(spec, Map.put_new(given, key, default))

  defp option_error(opts, function, spec, known) do
    with :ok <- keyword(opts, "options of #{function}"),
         :ok <- known(opts, known, "option", " of #{function}") do
      Enum.find_value(spec, fn {key, accepted} ->
        case fetch(opts, key, nil, &one_of(&1, accepted)) do
          {:ok, _value} -> nil
          {:error, message} -> message
        end
      end)
    else
      {:error, message} -> message
    end
  end

  defp one_of(value, accepted) do
    if :lists.member(value, accepted), do: :ok, else: {:expected, alternatives(accepted)}
  end

  # `:a`, `:a or :b`, `:a, :b or :c`.
  defp alternatives([only]), do: inspect(only)

  defp alternatives(accepted) do
    {init, [last]} = Enum.split(accepted, -1)
    Enum.map_join(init, ", ", &inspect/1) <> " or " <> inspect(last)
  end

  defp keyword(opts, what) do
    if is_list(opts) and Keyword.keyword?(opts),
      do: :ok,
      else: {:error, "invalid #{what}: expected a keyword list, got #{inspect(opts)}"}
  end

  defp known(opts, keys, what, where \\ "") do
    case Enum.find(Keyword.keys(opts), &(&1 not in keys)) do
      nil ->
        case Keyword.keys(opts) -- Enum.uniq(Keyword.keys(opts)) do
          [] -> :ok
          [key | _] -> {:error, "#{what} #{inspect(key)}#{where} is given more than once"}
        end

      key ->
        {:error,
         "unknown #{what} #{inspect(key)}#{where} (known: #{Enum.map_join(keys, ", ", &inspect/1)})"}
    end
  end

  defp fetch(opts, key, default, check) do
    case Keyword.fetch(opts, key) do
      :error ->
        {:ok, default}

      {:ok, value} ->
        case check.(value) do
          :ok ->
            {:ok, value}

          {:expected, what} ->
            {:error, "invalid value for #{inspect(key)}: expected #{what}, got #{inspect(value)}"}
        end
    end
  end

  defp boolean(value) when is_boolean(value), do: :ok
  defp boolean(_value), do: {:expected, "a boolean"}

  defp size(value) when is_integer(value) and value >= 0 and value <= @max_usize, do: :ok

  defp size(value) when is_integer(value) and value > @max_usize,
    do: {:expected, "a non-negative integer of at most #{@max_usize}"}

  defp size(_value), do: {:expected, "a non-negative integer"}

  defp dirty_concurrency(value) when value in [:auto, :unlimited], do: :ok
  defp dirty_concurrency(value) when is_integer(value) and value > 0, do: :ok
  defp dirty_concurrency(_value), do: {:expected, ":auto, :unlimited or a positive integer"}
end
