defmodule Backplane.AgentRuntime.InputSchema.TermFuzzTest do
  # The BEAM side of the fuzzing (scripts/fuzz has the core's targets):
  # terms built from fuzzer bytes go through every public function, and each
  # result must have the contract's shape. The bytes are the committed
  # libFuzzer seeds (native/input_schema_core/fuzz/corpus), then random
  # ones; a byte picks what to build next: integers of any size, floats,
  # atoms, binaries that are not UTF-8, bitstrings, lists proper and not,
  # maps with keyword keys, tuples, pids, references, funs, and chains tens
  # of thousands of levels deep or wide. The VM staying up is part of the
  # test: a crash ends the whole run.
  #
  # Run it on the local corpus scripts/fuzz grows as well with
  # INPUT_SCHEMA_TERM_FUZZ=all.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema
  alias Backplane.AgentRuntime.InputSchema.{Compiled, JSON}

  @moduletag timeout: 300_000

  @seeds Path.expand("../../../../native/input_schema_core/fuzz/corpus", __DIR__)
  @local_corpus Path.expand("../../../../_build/fuzz_corpus", __DIR__)
  @random_inputs 1_000

  @keys ~w(type properties required additionalProperties items prefixItems enum const
           pattern minimum maximum minLength maxItems oneOf anyOf allOf not $ref $defs
           uniqueItems propertyNames dependentRequired format description)
  @strings ["object", "string", "integer", "number", "array", "boolean", "null"] ++
             ["#/$defs/a", "#/properties", "^a+$", "(a|b)*", "[", "\\"]
  @atoms [:type, :properties, :object, :string, nil, true, false, :items, :a, :ok]

  # One term from the bytes, and the bytes left.
  defp term(<<>>, _depth), do: {%{}, <<>>}
  defp term(_bytes, 0), do: {1, <<>>}

  defp term(<<tag, rest::binary>>, depth) do
    case rem(tag, 19) do
      0 -> small_integer(rest)
      1 -> bignum(rest)
      2 -> float(rest)
      3 -> pick(@atoms, rest)
      4 -> raw_binary(rest)
      5 -> pick(@strings, rest)
      6 -> pick(@keys, rest)
      7 -> {<<tag::5>>, rest}
      8 -> list(rest, depth, true)
      9 -> list(rest, depth, false)
      10 -> map(rest, depth)
      11 -> map(rest, depth)
      12 -> tuple(rest, depth)
      13 -> {Enum.at([self(), make_ref(), fn -> :ok end], rem(tag, 3)), rest}
      14 -> deep(rest, depth)
      15 -> wide(rest, depth)
      16 -> schema_like(rest, depth)
      17 -> schema_like(rest, depth)
      _ -> small_integer(rest)
    end
  end

  defp small_integer(<<n::signed-16, rest::binary>>), do: {n, rest}
  defp small_integer(rest), do: {0, rest}

  defp bignum(<<size, rest::binary>>) do
    bytes = binary_part(rest, 0, min(rem(size, 40), byte_size(rest)))
    sign = if rem(size, 2) == 0, do: 1, else: -1

    {sign * (:binary.decode_unsigned(bytes) + 2 ** 64),
     binary_part(rest, byte_size(bytes), byte_size(rest) - byte_size(bytes))}
  end

  defp bignum(rest), do: {2 ** 70, rest}

  defp float(<<f::float-64, rest::binary>>), do: {f, rest}
  defp float(<<_::64, rest::binary>>), do: {1.5, rest}
  defp float(rest), do: {-0.0, rest}

  defp pick(list, <<i, rest::binary>>), do: {Enum.at(list, rem(i, length(list))), rest}
  defp pick(list, rest), do: {hd(list), rest}

  defp raw_binary(<<size, rest::binary>>) do
    n = min(rem(size, 24), byte_size(rest))
    {binary_part(rest, 0, n), binary_part(rest, n, byte_size(rest) - n)}
  end

  defp raw_binary(rest), do: {<<0xFF, 0xFE>>, rest}

  defp count(<<n, rest::binary>>, max), do: {rem(n, max), rest}
  defp count(rest, _max), do: {0, rest}

  defp many(rest, depth, n) do
    Enum.map_reduce(1..n//1, rest, fn _, bytes -> term(bytes, depth - 1) end)
  end

  defp list(rest, depth, proper?) do
    {n, rest} = count(rest, 6)
    {items, rest} = many(rest, depth, n)

    if proper? do
      {items, rest}
    else
      {tail, rest} = term(rest, depth - 1)
      {items ++ tail, rest}
    end
  end

  defp map(rest, depth) do
    {n, rest} = count(rest, 6)

    {pairs, rest} =
      Enum.map_reduce(1..n//1, rest, fn _, bytes ->
        {key, bytes} =
          case bytes do
            <<k, more::binary>> when rem(k, 3) != 0 -> pick(@keys, more)
            _ -> term(bytes, 1)
          end

        {value, bytes} = term(bytes, depth - 1)
        {{key, value}, bytes}
      end)

    {Map.new(pairs), rest}
  end

  defp tuple(rest, depth) do
    {n, rest} = count(rest, 4)
    {items, rest} = many(rest, depth, n)
    {List.to_tuple(items), rest}
  end

  # A chain as deep as 65,535 levels, of one wrapper around the next term.
  defp deep(<<n::16, how, rest::binary>>, _depth) do
    {leaf, rest} = term(rest, 1)
    key = Enum.at(@keys, rem(how, length(@keys)))

    wrap =
      case rem(how, 4) do
        0 -> &[&1]
        1 -> &%{key => &1}
        2 -> &%{"properties" => %{"a" => &1}}
        _ -> &{&1}
      end

    {Enum.reduce(1..n//1, leaf, fn _, acc -> wrap.(acc) end), rest}
  end

  defp deep(rest, depth), do: term(rest, depth - 1)

  # As wide as 65,535 copies of one small term, in a list or a map (the
  # flat size stays bounded; shared subterms have a test of their own in
  # hostile_test.exs).
  defp wide(<<n::16, how, rest::binary>>, _depth) do
    {item, rest} = term(rest, 1)

    wide =
      if rem(how, 2) == 0,
        do: List.duplicate(item, n),
        else: Map.new(1..n//1, &{"k#{&1}", item})

    {wide, rest}
  end

  defp wide(rest, depth), do: term(rest, depth - 1)

  # A map shaped like a schema: keyword keys, values of any kind.
  defp schema_like(rest, depth) do
    {map, rest} = map(rest, depth)
    {Map.put(map, "type", "object"), rest}
  end

  defp error?({:error, %Error{class: class, message: message, details: details, cause: nil}}),
    do:
      class in [:validation, :unsupported_capability, :execution_failure] and
        is_binary(message) and is_map(details)

  defp error?(_), do: false

  defp check(bytes) do
    {schema, rest} = term(bytes, 12)
    {arguments, _} = term(rest, 12)

    preflight = InputSchema.validate_schema(schema)
    assert preflight == :ok or error?(preflight), inspect(bytes)

    for result <- [
          InputSchema.validate(schema, arguments),
          InputSchema.validate(schema, arguments, errors: :all)
        ] do
      assert match?({:ok, ^arguments}, result) or error?(result), inspect(bytes)
    end

    case InputSchema.compile(schema) do
      {:ok, compiled} ->
        for struct <- [compiled, %{compiled | resource: make_ref()}] do
          result = InputSchema.validate(struct, arguments)
          assert result == InputSchema.validate(schema, arguments), inspect(bytes)
        end

      error ->
        assert error?(error), inspect(bytes)
        assert error == preflight, inspect(bytes)
    end

    located = InputSchema.locate_schema_error(schema)
    assert located == :ok or match?({:error, %Error{}, pointer} when is_binary(pointer), located)

    foreign = %Compiled{resource: make_ref(), source: bytes}
    assert error?(InputSchema.validate(foreign, %{})), inspect(bytes)

    decoded = JSON.decode(bytes)
    assert match?({:ok, _}, decoded) or error?(decoded), inspect(bytes)
    encoded = JSON.encode(schema)
    assert match?({:ok, text} when is_binary(text), encoded) or error?(encoded), inspect(bytes)
  end

  # Every committed seed (1,600; inputs take 5 ms each on average), and
  # with INPUT_SCHEMA_TERM_FUZZ=all the local corpus scripts/fuzz grows
  # too, for a longer run, which gets an hour.
  @whole_corpus System.get_env("INPUT_SCHEMA_TERM_FUZZ") == "all"

  @tag timeout: if(@whole_corpus, do: 3_600_000, else: 300_000)
  test "terms from the fuzz corpora and random bytes: every result has the contract's shape" do
    dirs = if @whole_corpus, do: [@seeds, @local_corpus], else: [@seeds]
    files = dirs |> Enum.flat_map(&Path.wildcard(Path.join(&1, "*/*"))) |> Enum.sort()

    seed = :erlang.phash2(make_ref())
    :rand.seed(:exsss, {seed, 7, 11})

    random =
      for _ <- 1..@random_inputs do
        :rand.bytes(:rand.uniform(256))
      end

    # A file a running campaign replaced meanwhile is passed over.
    corpus = for file <- files, {:ok, bytes} <- [File.read(file)], do: bytes
    for bytes <- corpus ++ random, do: check(bytes)
    IO.puts("term fuzz: #{length(corpus)} corpus inputs, #{@random_inputs} random (seed #{seed})")
  end
end
