defmodule Backplane.JSONSchema.SchemaValidator do
  @moduledoc """
  `Backplane.JSONSchema` in the shape of an MCP protocol layer's schema
  validator: the two callbacks of `Backplane.McpProtocol.SchemaValidator`
  (an agent runtime's behaviour, which validates a tool result's
  `structuredContent` against its `outputSchema`, and raw tool schemas).

  The module does not declare that behaviour, so that a host without it
  compiles this library without warnings; a host that has it can name this
  module as its validator, or declare the behaviour in a module of its own
  that delegates here.

      iex> alias Backplane.JSONSchema.SchemaValidator
      iex> schema = %{"type" => "object", "properties" => %{"n" => %{"type" => "integer"}}}
      iex> {:ok, compiled} = SchemaValidator.compile(schema, [])
      iex> SchemaValidator.validate(compiled, %{"n" => 1}, [])
      :ok
      iex> {:error, [error]} = SchemaValidator.validate(compiled, %{"n" => "one"}, [])
      iex> {error.path, error.message}
      {["n"], "instance is not of type integer"}

  Neither function raises, whatever it is given.

  ## compile/2

  Draft 2020-12 unless the schema's `$schema` names another dialect; the
  options are `Backplane.JSONSchema.compile/2`'s, passed on as given. Every
  schema map that `Backplane.JSONSchema.compile/2` compiles is
  `{:ok, compiled}`, where `compiled` is its `%Backplane.JSONSchema.Compiled{}`.

  Every other answer carries a `%Backplane.JSONSchema.CompileError{}`
  (`reason`, `message`, `pointer`, `uri`, `failures`):

    * `{:unsupported, error}`: valid JSON Schema that the library declines.
      `reason` is `:pattern` (a pattern that needs backtracking, such as a
      backreference or a lookaround, one past the pattern size limits, or
      one that is not ECMAScript: the specification says patterns *should*
      be ECMAScript, not must), `:unresolved_reference` (a reference to a
      document neither the schema, `resources:` nor the built-in
      metaschemas hold: nothing is ever fetched), `:load` (a `loader:` that
      failed to give a document), `:unknown_metaschema` or
      `:unknown_vocabulary` (a `$schema` or a vocabulary the library does
      not know).
    * `{:error, error}`: everything else. A schema that fails its
      metaschema (`:metaschema`), a malformed keyword (`:invalid_keyword`),
      a term that is not JSON inside the schema (`:not_json`); a schema
      past the compile limits (`:too_deep`, `:compile_budget`), because the
      limits guard the caller: a schema that a caller took as merely
      unsupported, and so left unchecked, would let any tool switch
      validation off by sending a large enough schema. A schema that is
      not a map is `reason: :not_a_schema`, `pointer: ""`, and so is a
      boolean schema (`true`, `false`): the behaviour's schemas are maps.
      Options that are not a keyword list, or that
      `Backplane.JSONSchema.compile/2` refuses (an unknown key, a wrong
      value), are `reason: :invalid_options` with the `ArgumentError`'s
      message. A reason this module does not know is taken as an error.

  ## validate/3

  `:ok`, or `{:error, errors}`: each error a map

      %{
        path: ["items", 0, "id"],
        message: "instance is not of type integer",
        keyword: "type",
        instance_location: "/items/0/id",
        keyword_location: "/properties/items/items/properties/id/type",
        absolute_keyword_location: nil
      }

  `path` is the instance location as a list: an object's key as its
  binary name (an atom key by its name), a list position as an integer.
  `message`, `keyword` and the locations are the
  `%Backplane.JSONSchema.ValidationError{}`'s, at most 64, in evaluation
  order.

  Fail closed: nothing that could not be checked is `:ok`. A value that is
  not JSON (a tuple, a pid, a reference, a function, a port, an atom other
  than `nil`, `true` and `false`, a binary that is not UTF-8, a bitstring,
  an improper list, a struct, a map key that is neither a UTF-8 binary nor
  an atom, an atom key and a binary key of one name) is an error at its
  place, with `keyword: nil` and `keyword_location: nil`, and the value is
  not validated: the JSON a caller sends on could not be the value checked.
  A validation past the work or depth limit, a compiled schema that cannot
  be used on this node, and a `compiled` that is not a
  `%Backplane.JSONSchema.Compiled{}` (what `compile/2` answers) are one
  error at `path: []` with `keyword: nil`, whose `message` says which.

  `opts` must be a keyword list; its entries are ignored (a compiled
  schema keeps the options `compile/2` was given). Anything else is an
  error at `path: []`.
  """

  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.{CompileError, Compiled, LimitError, ValidationError}

  @typedoc "One failure of `validate/3`."
  @type error :: %{
          path: [String.t() | non_neg_integer()],
          message: String.t(),
          keyword: String.t() | nil,
          instance_location: String.t(),
          keyword_location: String.t() | nil,
          absolute_keyword_location: String.t() | nil
        }

  # Valid JSON Schema that the library declines, rather than a schema in
  # error (see the moduledoc).
  @unsupported [:pattern, :unresolved_reference, :load, :unknown_metaschema, :unknown_vocabulary]

  # At most as many errors as the standard entry point returns.
  @max_errors 64

  @doc """
  Compiles a schema map: `{:ok, compiled}`, `{:unsupported, reason}` or
  `{:error, reason}`, `reason` a `Backplane.JSONSchema.CompileError`.

      iex> alias Backplane.JSONSchema.SchemaValidator
      iex> {:unsupported, error} = SchemaValidator.compile(%{"pattern" => "(a)\\\\1"}, [])
      iex> {error.reason, error.pointer}
      {:pattern, "/pattern"}
      iex> {:error, error} = SchemaValidator.compile(true, [])
      iex> {error.reason, error.pointer}
      {:not_a_schema, ""}
  """
  @spec compile(map(), keyword()) ::
          {:ok, Compiled.t()} | {:unsupported, CompileError.t()} | {:error, CompileError.t()}
  def compile(schema, opts) do
    cond do
      not keyword?(opts) ->
        {:error, invalid_options("schema options must be a keyword list")}

      is_boolean(schema) ->
        {:error,
         not_a_schema("schema must be a map; a boolean schema (true or false) is not accepted")}

      not is_map(schema) ->
        {:error, not_a_schema("schema must be a map")}

      true ->
        compile_map(schema, opts)
    end
  end

  defp compile_map(schema, opts) do
    case JSONSchema.compile(schema, opts) do
      {:ok, %Compiled{}} = ok ->
        ok

      {:error, %CompileError{reason: reason} = error} when reason in @unsupported ->
        {:unsupported, error}

      {:error, %CompileError{} = error} ->
        {:error, error}
    end
  rescue
    exception in ArgumentError -> {:error, invalid_options(Exception.message(exception))}
    _exception -> {:error, CompileError.internal()}
  end

  defp invalid_options(message), do: %CompileError{reason: :invalid_options, message: message}

  defp not_a_schema(message),
    do: %CompileError{reason: :not_a_schema, message: message, pointer: ""}

  @doc """
  Validates a value against what `compile/2` answered: `:ok` or
  `{:error, errors}` (see the moduledoc for each error's map).

      iex> alias Backplane.JSONSchema.SchemaValidator
      iex> {:ok, compiled} = SchemaValidator.compile(%{"items" => %{"type" => "string"}}, [])
      iex> SchemaValidator.validate(compiled, ["a", {:b}], [])
      {:error, [%{path: [1], message: "instance is a tuple, not a JSON value", keyword: nil, instance_location: "/1", keyword_location: nil, absolute_keyword_location: nil}]}
  """
  @spec validate(Compiled.t(), term(), keyword()) :: :ok | {:error, [error()]}
  def validate(compiled, value, opts) do
    cond do
      not keyword?(opts) ->
        {:error, [failure("validation options must be a keyword list")]}

      not is_struct(compiled, Compiled) ->
        {:error,
         [failure("compiled schema is not one that #{inspect(__MODULE__)}.compile/2 made")]}

      true ->
        case not_json(value) do
          [] -> run(compiled, value)
          errors -> {:error, errors}
        end
    end
  end

  defp run(compiled, value) do
    case JSONSchema.validate(compiled, value) do
      :ok ->
        :ok

      {:error, [_ | _] = units} ->
        {:error, errors(units, value)}

      {:error, %LimitError{message: message}} when is_binary(message) ->
        {:error, [failure(message)]}

      {:error, %CompileError{message: message}} when is_binary(message) ->
        {:error, [failure(message)]}

      _other ->
        {:error, [failure("validation failed unexpectedly")]}
    end
  rescue
    _exception -> {:error, [failure("validation failed unexpectedly")]}
  end

  defp errors(units, value) do
    Enum.map(units, fn
      %ValidationError{} = unit ->
        %{
          path: path(unit.instance_location, value),
          message: unit.message,
          keyword: unit.keyword,
          instance_location: unit.instance_location,
          keyword_location: unit.keyword_location,
          absolute_keyword_location: unit.absolute_keyword_location
        }

      _other ->
        failure("validation failed unexpectedly")
    end)
  end

  # An error that no keyword reports, at the root.
  defp failure(message), do: failure(message, [])

  defp failure(message, path) do
    %{
      path: path,
      message: message,
      keyword: nil,
      instance_location: pointer(path),
      keyword_location: nil,
      absolute_keyword_location: nil
    }
  end

  defp keyword?(opts), do: is_list(opts) and Keyword.keyword?(opts)

  ## Instance locations

  # A JSON Pointer into `value` as a path: its tokens unescaped (`~1` is
  # `/`, `~0` is `~`, in that order), each an integer where the value at
  # that point is a list, a key's binary name where it is a map.
  defp path("", _value), do: []

  defp path("/" <> pointer, value) do
    tokens = :binary.split(pointer, "/", [:global])

    case :binary.match(pointer, "~") do
      :nomatch -> segments(tokens, value)
      _ -> tokens |> Enum.map(&unescape/1) |> segments(value)
    end
  end

  defp path(_other, _value), do: []

  defp unescape(token), do: token |> String.replace("~1", "/") |> String.replace("~0", "~")

  defp segments([], _value), do: []

  defp segments([token | rest], value) when is_list(value) do
    case index(token) do
      nil -> [token | segments(rest, nil)]
      index -> [index | segments(rest, at(value, index))]
    end
  end

  defp segments([token | rest], value) when is_map(value) and not is_struct(value) do
    [token | segments(rest, child(value, token))]
  end

  defp segments([token | rest], _value), do: [token | segments(rest, nil)]

  # A list position as the library writes it: decimal digits.
  defp index(""), do: nil
  defp index(token), do: if(digits?(token), do: :erlang.binary_to_integer(token))

  defp digits?(<<digit, rest::binary>>) when digit in ?0..?9, do: digits?(rest)
  defp digits?(<<>>), do: true
  defp digits?(_token), do: false

  defp at([item | _], 0), do: item
  defp at([_ | rest], index), do: at(rest, index - 1)
  defp at(_value, _index), do: nil

  defp child(map, name) do
    case map do
      %{^name => child} ->
        child

      _ ->
        Enum.find_value(map, fn {key, child} ->
          is_atom(key) and key_name(key) == name and child
        end)
    end
  end

  defp key_name(key) when is_atom(key), do: Atom.to_string(key)
  defp key_name(key), do: key

  defp pointer([]), do: ""
  defp pointer(path), do: Enum.map_join(path, &["/", token(&1)])

  defp token(index) when is_integer(index), do: Integer.to_string(index)
  defp token(name), do: name |> String.replace("~", "~0") |> String.replace("/", "~1")

  ## Terms outside JSON

  # `[]` for a JSON value, else an error at each place where it is not
  # JSON (the first 64). The common case, JSON throughout, is one pass
  # that builds nothing.
  defp not_json(value) do
    if json?(value) do
      []
    else
      {errors, _count} = scan(value, [], {[], 0})
      Enum.reverse(errors)
    end
  end

  defp json?(value) when is_binary(value), do: utf8?(value)

  defp json?(value) when is_number(value) or is_boolean(value) or is_nil(value),
    do: true

  defp json?(value) when is_list(value), do: list?(value)

  defp json?(value) when is_map(value) and not is_struct(value),
    do: entries?(:maps.next(:maps.iterator(value)), value)

  defp json?(_value), do: false

  defp list?([]), do: true
  defp list?([item | rest]), do: json?(item) and list?(rest)
  defp list?(_improper), do: false

  defp entries?(:none, _map), do: true

  defp entries?({key, value, next}, map),
    do: key?(key, map) and json?(value) and entries?(:maps.next(next), map)

  defp key?(key, _map) when is_binary(key), do: utf8?(key)
  defp key?(key, map) when is_atom(key), do: not is_map_key(map, Atom.to_string(key))
  defp key?(_key, _map), do: false

  # The BIF answers the binary itself when it is UTF-8, without a copy,
  # in about a third of String.valid?/1's time.
  defp utf8?(binary), do: is_binary(:unicode.characters_to_binary(binary))

  # The same walk, recording where and why; `path` is reversed.
  defp scan(_value, _path, {_errors, @max_errors} = acc), do: acc

  defp scan(value, path, acc) when is_binary(value) do
    if utf8?(value),
      do: acc,
      else: add(acc, path, "instance is a binary that is not UTF-8, not a JSON string")
  end

  defp scan(value, _path, acc) when is_number(value) or is_boolean(value) or is_nil(value),
    do: acc

  defp scan(value, path, acc) when is_list(value), do: scan_list(value, 0, path, acc)

  defp scan(value, path, acc) when is_struct(value),
    do: add(acc, path, "instance is a struct, not a JSON object")

  defp scan(value, path, acc) when is_map(value) do
    value
    |> :maps.to_list()
    |> Enum.reduce(acc, fn {key, child}, acc -> scan_entry(key, child, value, path, acc) end)
  end

  defp scan(value, path, acc), do: add(acc, path, "instance is #{kind(value)}, not a JSON value")

  defp scan_list(_list, _index, _path, {_errors, @max_errors} = acc), do: acc
  defp scan_list([], _index, _path, acc), do: acc

  defp scan_list([item | rest], index, path, acc),
    do: scan_list(rest, index + 1, path, scan(item, [index | path], acc))

  defp scan_list(_tail, _index, path, acc),
    do: add(acc, path, "instance is an improper list, not a JSON array")

  defp scan_entry(key, child, map, path, acc) do
    cond do
      is_binary(key) and utf8?(key) ->
        scan(child, [key | path], acc)

      is_atom(key) and is_map_key(map, Atom.to_string(key)) ->
        add(
          acc,
          path,
          "object has an atom key and a string key named #{inspect(Atom.to_string(key))}"
        )

      is_atom(key) ->
        scan(child, [Atom.to_string(key) | path], acc)

      true ->
        add(acc, path, "object has a key that is not a string")
    end
  end

  defp add({_errors, @max_errors} = acc, _path, _message), do: acc

  defp add({errors, count}, path, message),
    do: {[failure(message, Enum.reverse(path)) | errors], count + 1}

  defp kind(value) when is_atom(value), do: "an atom"
  defp kind(value) when is_tuple(value), do: "a tuple"
  defp kind(value) when is_pid(value), do: "a pid"
  defp kind(value) when is_reference(value), do: "a reference"
  defp kind(value) when is_function(value), do: "a function"
  defp kind(value) when is_port(value), do: "a port"
  defp kind(value) when is_bitstring(value), do: "a bitstring"
  defp kind(_value), do: "a term"
end
