defmodule Backplane.JSONSchema do
  @moduledoc """
  Standard JSON Schema, in five dialects (draft 2020-12, the default;
  2019-09; draft 7; draft 6; draft 4), on the same Rust core as
  `Backplane.AgentRuntime.InputSchema`.

  Use it at any trust boundary where a schema is written in standard JSON
  Schema (MCP `outputSchema` and structured results, webhooks, manifests,
  OpenAPI 3.1 bodies). The gateway's `InputSchema` stays the strict,
  fail-closed subset for tool arguments.

      iex> schema = %{"type" => "object", "properties" => %{"n" => %{"type" => "integer", "minimum" => 1}}}
      iex> {:ok, compiled} = Backplane.JSONSchema.compile(schema)
      iex> Backplane.JSONSchema.validate(compiled, %{"n" => 3})
      :ok
      iex> Backplane.JSONSchema.valid?(compiled, %{"n" => 0})
      false
      iex> {:error, [error]} = Backplane.JSONSchema.validate(compiled, %{"n" => 0})
      iex> {error.keyword, error.instance_location, error.keyword_location, error.message}
      {"minimum", "/n", "/properties/n/minimum", "instance is less than the minimum 1"}

  Nothing is ever fetched: a reference must point into the schema, into the
  `resources:` given, or at one of the five dialects' metaschemas, which are
  built in. Patterns run in linear time; one that needs backtracking (a
  backreference, lookaround) is refused at compile. Every call is bounded in
  work and depth, and no function raises on any schema or instance (options
  are checked: a wrong one is an `ArgumentError`).
  """

  alias Backplane.AgentRuntime.InputSchema.{DirtyGate, Native, Settings}
  alias Backplane.JSONSchema.{CompileError, Compiled, LimitError, ValidationError}

  @dialects [:draft2020_12, :draft2019_09, :draft7, :draft6, :draft4]
  @compile_spec [dialect: @dialects, formats: [:annotate, :assert], content: [:annotate, :assert]]
  @validate_spec [output: [:units, :basic]]
  # Every option, in the order messages name them.
  @compile_known [:dialect, :resources, :loader, :formats, :content]
  @validate_known @compile_known ++ [:output]
  # Most documents one compile may ask a loader for (as many as a schema
  # may have references under the gateway's Draft 2020-12 contract).
  @max_loads 10_000
  # What an empty option list means: {dialect, resources, formats, content}.
  @defaults {:draft2020_12, %{}, :annotate, :annotate}

  @typedoc "A schema: a map (binary or atom keys) or a boolean."
  @type schema :: map() | boolean()

  @typedoc """
  Options of `compile/2` (and of `validate/3` given a schema rather than a
  compiled one):

    * `dialect:` the dialect of a schema without `$schema`:
      `:draft2020_12` (default), `:draft2019_09`, `:draft7`, `:draft6`,
      `:draft4`. A `$schema` naming one of the five wins, also inside
      embedded resources.
    * `resources:` a map from absolute URI to schema: what `$ref`s to other
      documents may point at (default `%{}`).
    * `formats:` `:annotate` (default, as the specification says) or
      `:assert`.
    * `content:` `:annotate` (default, as 2019-09 and 2020-12 say) or
      `:assert`: `contentEncoding` (`base64`, `base64url`, `base32`,
      `base16`), `contentMediaType` (`application/json`) and, beside it,
      `contentSchema` applied to the decoded value. Another encoding or
      media type stays an annotation.
    * `loader:` a function of one argument, `uri -> {:ok, schema} |
      {:error, reason}`, asked at compile (never during validation) for
      each document a reference names that neither the schema, nor
      `resources:`, nor the built-in metaschemas hold, once each.
  """
  @type compile_option ::
          {:dialect, :draft2020_12 | :draft2019_09 | :draft7 | :draft6 | :draft4}
          | {:resources, %{optional(String.t()) => schema()}}
          | {:formats, :annotate | :assert}
          | {:content, :annotate | :assert}
          | {:loader, (String.t() -> {:ok, schema()} | {:error, term()})}

  @typedoc """
  Options of `validate/3`: `output: :units` (default) returns a list of
  `Backplane.JSONSchema.ValidationError`; `output: :basic` returns the
  specification's "basic" output format as a JSON-ready map.
  """
  @type validate_option :: {:output, :units | :basic} | compile_option()

  @doc """
  Checks `schema` against its dialect's metaschema and compiles it.

  A schema that fails its metaschema, a reference that resolves nowhere, a
  pattern that needs backtracking, or a schema over the compile limits is a
  `Backplane.JSONSchema.CompileError`.

      iex> {:error, error} = Backplane.JSONSchema.compile(%{"minLength" => -1})
      iex> {error.reason, error.pointer}
      {:metaschema, "/minLength"}
  """
  @spec compile(schema(), [compile_option()]) :: {:ok, Compiled.t()} | {:error, CompileError.t()}
  def compile(schema, opts \\ []) do
    {loader, opts} = loader!(opts, "compile/2")
    {dialect, resources, formats, content} = compile_options!(opts, "compile/2", @compile_known)

    with {:ok, resources} <- load(schema, dialect, resources, loader) do
      compile_checked(schema, dialect, resources, formats, content)
    end
  end

  defp compile_checked(schema, dialect, resources, formats, content) do
    result =
      case Native.json_schema_compile(schema, dialect, resources, formats, content) do
        :dirty ->
          DirtyGate.run(:compile, fn ->
            Native.json_schema_compile_dirty(schema, dialect, resources, formats, content)
          end)

        result ->
          result
      end

    case result do
      {:ok, resource} ->
        {:ok,
         %Compiled{
           resource: resource,
           schema: schema,
           dialect: dialect,
           formats: formats,
           content: content,
           resources: resources
         }}

      {:error, details} when is_map(details) ->
        {:error, CompileError.new(details)}

      {:error, :panic} ->
        {:error, CompileError.internal()}

      # Options are checked before the NIF is called; anything else it
      # could answer is refused, never taken for a compiled schema.
      _ ->
        {:error, CompileError.internal()}
    end
  end

  @doc """
  Validates `instance` (any JSON term) against a compiled schema, or
  against a schema map: compiled for this call, or found in the schema
  cache the gateway's schema maps use when the same term was compiled
  with the same `dialect:`, `formats:` and `content:` before (not with `resources:`;
  see `Backplane.AgentRuntime.InputSchema.configure_cache/1`). Returns
  `:ok` or every failure (at most 64), in evaluation order.

  A validation over the work or depth limit is a
  `Backplane.JSONSchema.LimitError`, never a verdict.

      iex> {:error, basic} = Backplane.JSONSchema.validate(%{"required" => ["id"]}, %{}, output: :basic)
      iex> basic
      %{"valid" => false, "errors" => [%{"keywordLocation" => "/required", "instanceLocation" => "", "error" => "required property \\"id\\" is missing"}]}
  """
  @spec validate(Compiled.t() | schema(), term(), [validate_option()]) ::
          :ok
          | {:error, [ValidationError.t()] | map() | CompileError.t() | LimitError.t()}
  def validate(schema, instance, opts \\ [])

  def validate(%Compiled{} = compiled, instance, []), do: run(compiled, instance, :all)

  # No options: the defaults, without reading an option list.
  def validate(schema, instance, []), do: check(schema, instance, :all, @defaults)

  def validate(schema, instance, opts) do
    {loader, opts} = loader!(opts, "validate/3")
    {output, compile_opts} = validate_options!(opts)

    if loader != nil and is_struct(schema, Compiled) do
      raise ArgumentError,
            "compile options of validate/3 apply to a schema, not to a compiled one"
    end

    result =
      case schema do
        %Compiled{} when compile_opts != [] ->
          raise ArgumentError,
                "compile options of validate/3 apply to a schema, not to a compiled one"

        %Compiled{} ->
          run(schema, instance, :all)

        schema ->
          {dialect, resources, formats, content} =
            compile_options!(compile_opts, "validate/3", @validate_known)

          case load(schema, dialect, resources, loader) do
            {:ok, resources} ->
              check(schema, instance, :all, {dialect, resources, formats, content})

            {:error, _} = error ->
              error
          end
      end

    case result do
      {:error, units} when is_list(units) and output == :basic -> {:error, basic(units)}
      result -> result
    end
  end

  @doc """
  Whether `instance` is valid: the fast path, which builds no error terms.
  A schema that does not compile, or a validation over a limit, answers
  `false` (fail closed).

      iex> Backplane.JSONSchema.valid?(%{"type" => "string", "maxLength" => 3}, "abc")
      true
      iex> Backplane.JSONSchema.valid?(%{"type" => "string", "maxLength" => 3}, "abcd")
      false
      iex> Backplane.JSONSchema.valid?(%{"minLength" => -1}, "a")
      false
  """
  @spec valid?(Compiled.t() | schema(), term()) :: boolean()
  def valid?(%Compiled{} = compiled, instance), do: run(compiled, instance, :valid) == true

  def valid?(schema, instance), do: check(schema, instance, :valid, @defaults) == true

  # A schema map with its options: one NIF call finds it in the schema
  # cache, or compiles it (and files it), and validates. Over the
  # compile's inline budget both run on a dirty scheduler; over the
  # walk's, the compiled schema comes back for the dirty walk.
  defp check(schema, instance, mode, {dialect, resources, formats, content}) do
    check_dirty = fn ->
      DirtyGate.run(:compile, fn ->
        Native.json_schema_check_dirty(
          schema,
          instance,
          mode,
          dialect,
          resources,
          formats,
          content
        )
      end)
    end

    result =
      case Native.json_schema_check(schema, instance, mode, dialect, resources, formats, content) do
        :dirty ->
          check_dirty.()

        {:dirty_validate, resource} ->
          # A library reloaded between the two calls cannot read the
          # other image's graph: the dirty call compiles the schema again.
          case dirty_validate(resource, instance, mode) do
            :foreign -> check_dirty.()
            result -> result
          end

        result ->
          result
      end

    case result do
      {:error, details} when is_map(details) -> {:error, CompileError.new(details)}
      {:error, {:limit, _reason, _message}} -> answer(result)
      {:error, units} when is_list(units) -> answer(result)
      verdict when verdict in [:ok, true, false] -> verdict
      # A panic, or anything else: refused, never taken for a verdict.
      _ -> {:error, CompileError.internal()}
    end
  end

  defp run(%Compiled{resource: resource} = compiled, instance, mode) do
    case call(resource, instance, mode) do
      :foreign -> run_foreign(compiled, instance, mode)
      result -> result
    end
  end

  # A struct whose graph this node's library did not make (it came from
  # another node, or from before an upgrade to another build): its schema
  # is compiled again here, with its options.
  defp run_foreign(compiled, instance, mode) do
    case Map.get(compiled, :schema) do
      nil ->
        {:error, CompileError.foreign()}

      schema ->
        resources = Map.get(compiled, :resources, %{})
        dialect = Map.get(compiled, :dialect, :draft2020_12)
        formats = Map.get(compiled, :formats, :annotate)
        content = Map.get(compiled, :content, :annotate)

        with {:ok, %Compiled{resource: resource}} <-
               compile_checked(schema, dialect, resources, formats, content) do
          case call(resource, instance, mode) do
            :foreign -> {:error, CompileError.foreign()}
            result -> result
          end
        end
    end
  end

  defp call(resource, instance, mode) do
    result =
      case Native.json_schema_validate(resource, instance, mode) do
        :dirty -> dirty_validate(resource, instance, mode)
        result -> result
      end

    case result do
      {:error, :panic} -> {:error, LimitError.internal()}
      other -> answer(other)
    end
  end

  defp dirty_validate(resource, instance, mode) do
    DirtyGate.run(:validate, fn -> Native.json_schema_validate_dirty(resource, instance, mode) end)
  end

  defp answer({:error, {:limit, reason, message}}),
    do: {:error, %LimitError{reason: reason, message: message}}

  defp answer({:error, units}) when is_list(units), do: {:error, units(units)}
  defp answer(result), do: result

  # The NIF gives each failure as a tuple; the struct is made here, where
  # every one shares the literal's keys (a map made by the NIF is sorted
  # and given keys of its own, each time).
  defp units([{keyword, message, keyword_location, instance_location, absolute} | rest]) do
    [
      %ValidationError{
        keyword: keyword,
        keyword_location: keyword_location,
        absolute_keyword_location: absolute,
        instance_location: instance_location,
        message: message
      }
      | units(rest)
    ]
  end

  # A library image from before this shape made the struct itself: during
  # a hot upgrade that loads this module before the NIF's, its answer is
  # passed on as it is.
  defp units([%ValidationError{} = unit | rest]), do: [unit | units(rest)]
  defp units([]), do: []

  defp basic(units) do
    %{
      "valid" => false,
      "errors" =>
        Enum.map(units, fn unit ->
          base = %{
            "keywordLocation" => unit.keyword_location,
            "instanceLocation" => unit.instance_location,
            "error" => unit.message
          }

          case unit.absolute_keyword_location do
            nil -> base
            location -> Map.put(base, "absoluteKeywordLocation", location)
          end
        end)
    }
  end

  # `loader:` is a function, so it is taken out of the options here; the
  # rest go through the shared option checker.
  defp loader!(opts, function) do
    case split_key(opts, :loader) do
      {[], rest} ->
        {nil, rest}

      {[loader: loader], rest} when is_function(loader, 1) ->
        {loader, rest}

      {[loader: loader], _rest} ->
        raise ArgumentError,
              "invalid value for :loader of #{function}: expected a function of one argument, got #{inspect(loader)}"

      {_twice, _rest} ->
        raise ArgumentError, "option :loader of #{function} is given more than once"
    end
  end

  # The documents a loader gives, added to `resources` under the URIs
  # their references resolve to: asked for each document that neither the
  # schema, the resources nor the built-in metaschemas hold, once, in the
  # schema's order, then for those the answers name, at compile only.
  defp load(_schema, _dialect, resources, nil), do: {:ok, resources}

  defp load(schema, dialect, resources, loader), do: load(schema, dialect, resources, loader, 0)

  defp load(schema, dialect, resources, loader, loaded) do
    missing =
      case Native.json_schema_missing(schema, dialect, resources) do
        :dirty ->
          DirtyGate.run(:compile, fn ->
            Native.json_schema_missing_dirty(schema, dialect, resources)
          end)

        answer ->
          answer
      end

    case missing do
      {:ok, []} ->
        {:ok, resources}

      {:ok, requests} when loaded + length(requests) > @max_loads ->
        {:error,
         CompileError.new(%{
           reason: :load,
           uri: elem(hd(requests), 0),
           message: "schema refers to more than #{@max_loads} documents to load"
         })}

      {:ok, requests} ->
        with {:ok, resources} <- load_each(requests, loader, resources) do
          load(schema, dialect, resources, loader, loaded + length(requests))
        end

      {:error, details} when is_map(details) ->
        {:error, CompileError.new(details)}

      _ ->
        {:error, CompileError.internal()}
    end
  end

  defp load_each([], _loader, resources), do: {:ok, resources}

  defp load_each([{request, document} | rest], loader, resources) do
    case load_one(loader, request) do
      {:ok, schema} when is_map(schema) or is_boolean(schema) ->
        load_each(rest, loader, Map.put(resources, document, schema))

      {:ok, other} ->
        load_failed(
          request,
          "the loader's answer for #{request}, #{inspect(other)}, is not a schema"
        )

      {:error, reason} ->
        load_failed(request, "loading #{request} failed: #{inspect(reason)}")
    end
  end

  # A loader that raises, throws or exits, or answers anything but
  # `{:ok, schema}` or `{:error, reason}`, has failed.
  defp load_one(loader, request) do
    case loader.(request) do
      {:ok, schema} -> {:ok, schema}
      {:error, reason} -> {:error, reason}
      other -> {:error, {:invalid_loader_response, other}}
    end
  rescue
    exception -> {:error, exception}
  catch
    kind, value -> {:error, {kind, value}}
  end

  defp load_failed(request, message) do
    {:error, CompileError.new(%{reason: :load, uri: request, message: message})}
  end

  defp compile_options!(opts, function, known) do
    {resources, rest} = split_resources(opts)

    case Settings.options(rest, function, @compile_spec, known) do
      {:ok, %{dialect: dialect, formats: formats, content: content}} ->
        {dialect, resources, formats, content}

      {:error, message} ->
        raise ArgumentError, message
    end
  end

  defp validate_options!(opts) do
    {resources, rest} = split_resources(opts)
    {output, rest} = split_key(rest, :output)

    case Settings.options(output, "validate/3", @validate_spec, @validate_known) do
      {:ok, %{output: output}} ->
        compile_opts = if resources == %{}, do: rest, else: [{:resources, resources} | rest]
        {output, compile_opts}

      {:error, message} ->
        raise ArgumentError, message
    end
  end

  # `resources:` takes any map from binary URIs to schemas, so it is
  # checked here; the rest go through the shared option checker.
  defp split_resources(opts) when is_list(opts) do
    case split_key(opts, :resources) do
      {[], rest} ->
        {%{}, rest}

      {[resources: resources], rest} when is_map(resources) and not is_struct(resources) ->
        if Enum.all?(Map.keys(resources), &is_binary/1) do
          {resources, rest}
        else
          raise ArgumentError,
                "invalid value for :resources: expected a map from URI strings to schemas, got #{inspect(resources)}"
        end

      {[resources: resources], _rest} ->
        raise ArgumentError,
              "invalid value for :resources: expected a map from URI strings to schemas, got #{inspect(resources)}"

      {_twice, _rest} ->
        raise ArgumentError, "option :resources is given more than once"
    end
  end

  defp split_resources(opts), do: {%{}, opts}

  # Anything but a proper keyword list is left whole, for the shared
  # checker to name.
  defp split_key(opts, key) do
    if keyword_like?(opts) and :lists.keymember(key, 1, opts) do
      Enum.split_with(opts, &match?({^key, _}, &1))
    else
      {[], opts}
    end
  end

  defp keyword_like?([]), do: true
  defp keyword_like?([{key, _value} | rest]) when is_atom(key), do: keyword_like?(rest)
  defp keyword_like?(_other), do: false
end
