defmodule Backplane.AgentRuntime.InputSchema do
  @moduledoc """
  Validates tool-call arguments against the tool's `inputSchema`: a strict,
  fail-closed subset of JSON Schema, checked by a Rust NIF.

  The whole schema is checked before any argument is read. An unknown keyword
  or type is `:unsupported_capability`; a malformed schema or arguments that
  break a constraint are `:validation`; a pattern search over the work limit
  or arguments nested too deep are `:execution_failure`. Neither function
  raises on any schema or arguments (only a wrong option is an
  `ArgumentError`); arguments come back unchanged (defaults are never
  inserted).

      iex> alias Backplane.AgentRuntime.InputSchema
      iex> schema = %{"type" => "object", "properties" => %{"path" => %{"type" => "string"}}, "required" => ["path"]}
      iex> InputSchema.validate(schema, %{"path" => "lib/app.ex"})
      {:ok, %{"path" => "lib/app.ex"}}
      iex> {:error, error} = InputSchema.validate(schema, %{})
      iex> {error.class, error.message, error.details}
      {:validation, "required tool argument is missing", %{path: "$arguments", property: "path"}}
  """

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema.{Compiled, DirtyGate, Draft202012, Native, Settings}
  alias Backplane.AgentRuntime.InputSchema.Draft202012.Compiled, as: DraftCompiled

  # Which contract the public functions follow on this node: set once from
  # the application's `contract:` setting (`put_contract/1`). An atom key:
  # a persistent term found by a tuple costs the tuple's hash on every
  # call.
  @contract_key Backplane.AgentRuntime.InputSchema.Contract

  @typedoc "A tool schema: a map with atom or string keys."
  @type schema :: map()

  @doc """
  Checks a whole tool schema without arguments (catalog publication,
  preflight).

      iex> Backplane.AgentRuntime.InputSchema.validate_schema(%{"type" => "object"})
      :ok
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate_schema(%{"$ref" => "#/x"})
      iex> {error.class, error.message, error.details}
      {:unsupported_capability, "schema keyword is unsupported", %{keyword: "$ref"}}
  """
  @spec validate_schema(term()) :: :ok | {:error, Error.t()}
  def validate_schema(schema) do
    case contract() do
      :subset ->
        case Native.validate_schema(schema) do
          :dirty -> DirtyGate.run(:compile, fn -> Native.validate_schema_dirty(schema) end)
          result -> result
        end

      :draft2020_12 ->
        Draft202012.validate_schema(schema, [], "validate_schema/1")
    end
  end

  @doc """
  `validate_schema/1` with options. Under `contract: :draft2020_12` they
  are the contract's (`schema_registry:`, `schema_loader:` or `loader:`,
  `format_assertion:`, `content_assertion:`; see `validate/3`); under the
  subset there are none, and `validate_schema(schema, [])` is
  `validate_schema(schema)`. Under the subset:

      iex> Backplane.AgentRuntime.InputSchema.validate_schema(%{"type" => "object"}, [])
      :ok
      iex> Backplane.AgentRuntime.InputSchema.validate_schema(%{"type" => "object"}, format_assertion: true)
      ** (ArgumentError) validate_schema/2 takes no options under contract: :subset, got [format_assertion: true]
  """
  @spec validate_schema(term(), term()) :: :ok | {:error, Error.t()}
  def validate_schema(schema, opts) do
    case contract() do
      :draft2020_12 ->
        Draft202012.validate_schema(schema, opts)

      :subset when opts == [] ->
        validate_schema(schema)

      :subset ->
        raise ArgumentError,
              "validate_schema/2 takes no options under contract: :subset, got #{inspect(opts)}"
    end
  end

  @doc """
  The contract this node's `InputSchema` follows: `:subset` (the default)
  or `:draft2020_12`, as `config :backplane_input_schema, contract: ...`
  sets it when the application starts (docs/configuration.md). With the
  default configuration:

      iex> Backplane.AgentRuntime.InputSchema.contract()
      :subset
  """
  @spec contract() :: :subset | :draft2020_12
  def contract, do: :persistent_term.get(@contract_key, :subset)

  @doc false
  @spec put_contract(:subset | :draft2020_12) :: :ok
  # The application sets it once at start (a change of a persistent term
  # costs the node a scan of every process, so an unchanged value is not
  # written again).
  def put_contract(contract) when contract in [:subset, :draft2020_12] do
    if contract() != contract, do: :persistent_term.put(@contract_key, contract)
    :ok
  end

  @typedoc """
  Options of `validate/3`:

    * `errors: :first` (the default) returns the first failure in the
      documented check order (docs/behaviour.md), exactly as `validate/2`.
    * `errors: :all` walks on after failures and returns the first failure
      with `details.errors` listing every failure (each
      `%{class: _, message: _, details: _}`), in document order, at most 64.
    * `formats: :annotate` (the default) leaves `format` an annotation, as
      the old module did; `formats: :assert` checks each string against the
      format its schema names (see `compile/2`). With a schema map only: a
      compiled schema keeps the choice it was compiled with.

  Anything else raises `ArgumentError` (see `validate/3`): options that are
  not a keyword list, an unknown key, a key given twice, or another value.
  """
  @type option :: {:errors, :first | :all} | {:formats, :annotate | :assert}

  @typedoc "Options of `compile/2`: `formats: :annotate | :assert`, as for `validate/3`."
  @type compile_option :: {:formats, :annotate | :assert}

  # What validate/3 and compile/2 accept, the first value of each being the
  # default (`Settings.options/3`).
  @validate_options [errors: [:first, :all], formats: [:annotate, :assert]]
  @compile_options [formats: [:annotate, :assert]]

  @doc """
  Validates `arguments` against `schema` (a schema map or a compiled schema)
  and returns the identical arguments term, or the first failure.

      iex> schema = %{type: "object", properties: %{limit: %{type: "integer", minimum: 1}}}
      iex> Backplane.AgentRuntime.InputSchema.validate(schema, %{"limit" => 10})
      {:ok, %{"limit" => 10}}
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate(schema, %{"limit" => 0})
      iex> {error.message, error.details}
      {"tool argument is below the minimum", %{path: "$arguments.limit", minimum: 1}}

  With `errors: :all`, every failure is listed so a caller can repair the
  call in one round trip:

      iex> schema = %{"required" => ["q"], "properties" => %{"n" => %{"type" => "integer"}}}
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate(schema, %{"n" => "x"}, errors: :all)
      iex> error.message
      "required tool argument is missing"
      iex> Enum.map(error.details.errors, & &1.details)
      [%{path: "$arguments", property: "q"}, %{path: "$arguments.n", type: "integer"}]

  Whatever the schema and arguments, it returns a result. Options are the
  caller's own code, so wrong ones raise an `ArgumentError` that names the
  problem, before the schema or arguments are looked at: options that are
  not a keyword list, an unknown key, a key given twice, or a value the key
  does not take (docs/behaviour.md, section 1.1):

      iex> Backplane.AgentRuntime.InputSchema.validate(%{}, %{}, errors: "all")
      ** (ArgumentError) invalid value for :errors: expected :first or :all, got "all"
  """
  @spec validate(schema() | Compiled.t() | DraftCompiled.t() | nil, term(), [option()]) ::
          {:ok, term()} | {:error, Error.t()}
  def validate(schema, arguments, opts \\ [])

  # The calls a runtime makes most, with no options to read. The second
  # clause also takes a struct made by a version without `formats`:
  # compiled with formats annotated.
  def validate(%Compiled{resource: resource, source: source, formats: :assert}, arguments, []) do
    with :foreign <- validate_compiled(resource, source, arguments, :first_asserting) do
      validate_foreign(source, arguments, :first_asserting)
    end
  end

  def validate(%Compiled{resource: resource, source: source}, arguments, []) do
    with :foreign <- validate_compiled(resource, source, arguments, :first) do
      validate_foreign(source, arguments, :first)
    end
  end

  # A schema compiled under the Draft 2020-12 contract answers as that
  # contract says, whatever the node's setting.
  def validate(%DraftCompiled{} = compiled, arguments, opts),
    do: Draft202012.validate_compiled(compiled, arguments, opts)

  def validate(schema, arguments, []) when not is_struct(schema, Compiled) do
    case contract() do
      :subset -> validate_map(schema, arguments, :first)
      :draft2020_12 -> Draft202012.validate(schema, arguments, [])
    end
  end

  def validate(schema, arguments, opts) when not is_struct(schema, Compiled) do
    case contract() do
      :subset -> validate_subset(schema, arguments, opts)
      :draft2020_12 -> Draft202012.validate(schema, arguments, opts)
    end
  end

  def validate(schema, arguments, opts), do: validate_subset(schema, arguments, opts)

  defp validate_subset(schema, arguments, opts) do
    {errors, formats} =
      case Settings.options(opts, "validate/3", @validate_options) do
        {:ok, %{errors: errors, formats: formats}} -> {errors, formats}
        {:error, message} -> raise ArgumentError, message
      end

    # Each NIF pair is one call: the first half runs on this scheduler within
    # a fixed work budget and answers `:dirty` when the call needs more (a
    # new pattern to compile, a large schema or argument); the second half
    # then does the whole call on a dirty CPU scheduler, once `DirtyGate`
    # has a place. A schema map handed over is compiled in the gate's
    # `:compile` lane (or found in the cache), then the arguments are
    # walked in its `:validate` lane.
    case schema do
      %Compiled{resource: resource} = compiled ->
        if Keyword.has_key?(opts, :formats) do
          raise ArgumentError,
                "the :formats option of validate/3 applies to a schema map; " <>
                  "a compiled schema keeps the one compile/2 was given"
        end

        # `Map.get/3`: a struct made by a version without `source` or
        # `formats`.
        source = Map.get(compiled, :source)
        mode = mode(errors, Map.get(compiled, :formats))

        with :foreign <- validate_compiled(resource, source, arguments, mode) do
          validate_foreign(source, arguments, mode)
        end

      schema ->
        validate_map(schema, arguments, mode(errors, formats))
    end
  end

  # The NIF's one mode argument: which errors (`:first` or `:all`), and
  # whether formats are asserted (anything but `:assert` in a struct made
  # by hand annotates, as the old structs do).
  defp mode(:first, :assert), do: :first_asserting
  defp mode(:all, :assert), do: :all_asserting
  defp mode(errors, _annotate), do: errors

  defp asserts_formats?(mode), do: mode in [:first_asserting, :all_asserting]

  defp validate_map(schema, arguments, mode) do
    with :dirty <- Native.validate(schema, arguments, mode),
         {:ok, resource} <- compile_resource(schema, asserts_formats?(mode)) do
      validate_compiled(resource, nil, arguments, mode)
    end
  end

  # For a struct, `mode` carries its own format choice: it tells the NIF
  # which compiled form a foreign struct's source is filed under.
  defp validate_compiled(resource, source, arguments, mode) do
    case Native.validate_compiled(resource, source, arguments, mode) do
      :dirty ->
        DirtyGate.run(:validate, fn ->
          Native.validate_compiled_dirty(resource, source, arguments, mode)
        end)

      result ->
        result
    end
  end

  # A compiled schema whose resource this node's library did not make (it
  # came from another node, from disk, or from before a release upgrade):
  # its source is compiled here, once, and filed in the cache under the
  # source, where the next call finds it.
  defp validate_foreign(source, arguments, mode) do
    assert_formats = asserts_formats?(mode)

    with {:ok, schema} <- decode_source(source),
         {:ok, resource} <-
           DirtyGate.run(:compile, fn ->
             Native.compile_source_dirty(schema, source, assert_formats)
           end) do
      validate_compiled(resource, nil, arguments, mode)
    end
  end

  # The schema as a binary, when its flat size (every shared subterm
  # counted each time, as term_to_binary writes it) is at most 16 MiB;
  # past that the struct is usable only on the node that compiled it.
  defp source(schema) do
    fits =
      case Native.source_fits(schema) do
        :dirty -> DirtyGate.run(:compile, fn -> Native.source_fits_dirty(schema) end)
        fits -> fits
      end

    if fits, do: :erlang.term_to_binary(schema, [:deterministic])
  end

  defp decode_source(source) when is_binary(source) do
    {:ok, :erlang.binary_to_term(source)}
  rescue
    ArgumentError -> unusable()
  end

  defp decode_source(_source), do: unusable()

  defp unusable do
    {:error,
     Error.new(:unsupported_capability, "compiled tool schema cannot be used on this node")}
  end

  defp compile_resource(schema, assert_formats) do
    case Native.compile(schema, assert_formats) do
      :dirty -> DirtyGate.run(:compile, fn -> Native.compile_dirty(schema, assert_formats) end)
      result -> result
    end
  end

  @doc """
  Like `validate_schema/1`, with where the problem is: a JSON Pointer into
  the schema (`"/properties/limit/minimum"`). For catalog tooling.

      iex> Backplane.AgentRuntime.InputSchema.locate_schema_error(%{"properties" => %{"n" => %{"minimum" => "1"}}})
      {:error, %Backplane.AgentRuntime.Error{class: :validation, message: "schema minimum must be a number"}, "/properties/n/minimum"}
  """
  @spec locate_schema_error(term()) :: :ok | {:error, Error.t(), String.t()}
  def locate_schema_error(schema), do: Native.check_schema(schema)

  @typedoc "Cache policy and counters, as `cache_info/0` reports them."
  @type cache_info :: %{
          enabled: boolean(),
          entries: non_neg_integer(),
          bytes: non_neg_integer(),
          max_entries: non_neg_integer(),
          max_bytes: non_neg_integer(),
          hits: non_neg_integer(),
          misses: non_neg_integer()
        }

  @doc """
  Sets the policy of the cache behind `validate(schema_map, arguments)`,
  which `Backplane.JSONSchema.validate/3` and `valid?/2` share for the
  schema maps they are given.
  Options: `enabled` (default `true`), `max_entries` (default 1024),
  `max_bytes` (approximate, default 64 MiB). Shrinking or disabling evicts
  at once. The application applies `config :backplane_input_schema,
  cache: [...]` at start.

  An option that is unknown, given twice or of the wrong type raises an
  `ArgumentError` that names it, says what it accepts and what was given,
  and changes nothing:

      iex> Backplane.AgentRuntime.InputSchema.configure_cache(max_entries: -1)
      ** (ArgumentError) invalid value for :max_entries: expected a non-negative integer, got -1

  The cache finds a schema only when it is exactly the same term (`=:=`):
  `1` and `1.0`, or atom and string keys, are different schemas. When full,
  the oldest entries go first.
  """
  @spec configure_cache(keyword()) :: :ok
  def configure_cache(opts) do
    case Settings.cache(opts) do
      # A bound left out (nil) is the library's default.
      {:ok, {enabled, max_entries, max_bytes}} ->
        Native.configure_cache(enabled, max_entries, max_bytes)

      {:error, message} ->
        raise ArgumentError, message
    end
  end

  @doc "Drops every cached schema and resets the hit and miss counters."
  @spec clear_cache() :: :ok
  def clear_cache, do: Native.clear_cache()

  @doc """
  The cache's policy, size and counters: whether it is `enabled`, the
  `entries` it holds and about how many `bytes` they take, its bounds
  (`max_entries`, `max_bytes`), and the `hits` and `misses` of its
  lookups (`clear_cache/0` resets them). With the default policy:

      iex> info = Backplane.AgentRuntime.InputSchema.cache_info()
      iex> {info.enabled, info.max_entries, info.max_bytes}
      {true, 1024, 67108864}
  """
  @spec cache_info() :: cache_info()
  def cache_info do
    {enabled, entries, bytes, max_entries, max_bytes, hits, misses} = Native.cache_stats()

    %{
      enabled: enabled,
      entries: entries,
      bytes: bytes,
      max_entries: max_entries,
      max_bytes: max_bytes,
      hits: hits,
      misses: misses
    }
  end

  @doc """
  Checks and compiles a schema once, for many `validate/2` calls. The result
  gives exactly the results and errors the schema map gives.

      iex> {:ok, compiled} = Backplane.AgentRuntime.InputSchema.compile(%{"required" => ["q"]})
      iex> Backplane.AgentRuntime.InputSchema.validate(compiled, %{"q" => "beam"})
      {:ok, %{"q" => "beam"}}

  With `formats: :assert`, a string must also be a valid instance of the
  format its schema names, when JSON Schema 2020-12 defines that format (a
  name it does not define stays an annotation). That check comes after the
  other string checks (docs/behaviour.md, section 4):

      iex> schema = %{"properties" => %{"at" => %{"type" => "string", "format" => "date"}}}
      iex> {:ok, compiled} = Backplane.AgentRuntime.InputSchema.compile(schema, formats: :assert)
      iex> {:error, error} = Backplane.AgentRuntime.InputSchema.validate(compiled, %{"at" => "2024-02-30"})
      iex> {error.class, error.message, error.details}
      {:validation, "tool argument does not match the format", %{path: "$arguments.at", format: "date"}}

  A wrong option raises an `ArgumentError` naming it, as for `validate/3`.
  """
  @spec compile(term(), [compile_option()]) ::
          {:ok, Compiled.t() | DraftCompiled.t()} | {:error, Error.t()}
  def compile(schema, opts \\ []) do
    case contract() do
      :subset -> compile_subset(schema, opts)
      :draft2020_12 -> Draft202012.compile(schema, opts)
    end
  end

  defp compile_subset(schema, []), do: compile_as(schema, :annotate)

  defp compile_subset(schema, opts) do
    case Settings.options(opts, "compile/2", @compile_options) do
      {:ok, %{formats: formats}} -> compile_as(schema, formats)
      {:error, message} -> raise ArgumentError, message
    end
  end

  defp compile_as(schema, formats) do
    case compile_resource(schema, formats == :assert) do
      {:ok, resource} ->
        {:ok, %Compiled{resource: resource, source: source(schema), formats: formats}}

      {:error, _} = error ->
        error
    end
  end
end
