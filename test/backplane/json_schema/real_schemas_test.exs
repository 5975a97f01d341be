defmodule Backplane.JSONSchema.RealSchemasTest do
  # The standard entry point against an independent validator on real
  # schemas: the 26 SchemaStore configuration schemas check-jsonschema
  # 0.39.0 vendors (GitHub workflows, GitLab CI, Renovate, Compose, ...)
  # with their example files, and the OpenAPI 2.0 to 3.2 schemas with
  # openapi-spec-validator 0.9.0's documents (GitHub's, Stripe's,
  # Kubernetes' and Docker's APIs among them); 120 mutants of each file (2
  # of a large one), every case with python-jsonschema 4.23.0's verdicts,
  # formats as annotations and formats asserted (by its FormatChecker,
  # every library it uses installed). The corpus is made by
  # scripts/real_schemas (scripts/test runs it) and read from
  # REAL_SCHEMAS_CORPUS when set, else from the fixed path it writes to,
  # which the chroots see too.
  #
  # Every schema compiles but the one listed in @refused, refused with
  # exactly the error written there (docs/behaviour.md says why), in both
  # format modes. On every case of the others, in each mode, valid?/2 gives
  # python's verdict, and validate/2 is :ok exactly when the instance is
  # valid.
  use ExUnit.Case, async: true

  alias Backplane.AgentRuntime.InputSchema.JSON
  alias Backplane.JSONSchema
  alias Backplane.JSONSchema.CompileError

  @moduletag fetched: :real_schemas
  @moduletag timeout: 600_000

  @fixed_path Path.expand("../../../_build/real_schemas/0.39.0-0.9.0/corpus.json", __DIR__)

  @kubernetes "https://json.schemastore.org/kubernetes-definitions.json#/definitions/io.k8s.api.core.v1.PodDNSConfig"

  @refused %{
    # A reference to another schema that is not given in resources: (it is
    # never fetched).
    "drone-ci" => %CompileError{
      reason: :unresolved_reference,
      pointer: "/definitions/pipeline_kubernetes/properties/dns_config/$ref",
      uri: @kubernetes,
      failures: [],
      message:
        "reference #{@kubernetes} resolves to nothing in the schema, its resources or the built-in metaschemas"
    }
  }

  for {formats, key} <- [annotate: "valid", assert: "valid_formats"] do
    test "formats: #{formats}: every real schema compiles or is refused as listed, " <>
           "and every verdict is python-jsonschema's" do
      check(unquote(formats), unquote(key))
    end
  end

  defp check(formats, key) do
    %{"schemas" => schemas, "cases" => cases} = corpus!()
    assert map_size(schemas) == 30

    compiled =
      for {name, schema} <- schemas, into: %{} do
        case {JSONSchema.compile(schema, formats: formats), Map.fetch(@refused, name)} do
          {{:ok, compiled}, :error} ->
            {name, compiled}

          {{:error, error}, {:ok, expected}} ->
            {name, assert(error == expected)}

          {other, listed} ->
            flunk("#{name}: compile gave #{inspect(other)}, listed #{inspect(listed)}")
        end
      end

    checked = for case_ <- cases, not Map.has_key?(@refused, case_["schema"]), do: case_

    failures =
      Enum.flat_map(checked, fn %{"schema" => name, "instance" => instance} = case_ ->
        expected = Map.fetch!(case_, key)
        schema = Map.fetch!(compiled, name)
        verdict = JSONSchema.valid?(schema, instance)
        result = JSONSchema.validate(schema, instance)

        if verdict == expected and result == :ok == expected do
          []
        else
          [
            "#{case_["source"]} mutant #{case_["mutant"]}: python #{expected}, " <>
              "valid?/2 #{verdict}, validate/2 #{inspect(result, limit: 5, printable_limit: 200)}"
          ]
        end
      end)

    valid = Enum.count(checked, &Map.fetch!(&1, key))

    IO.puts(
      "real schemas, formats: #{formats}: #{map_size(schemas) - map_size(@refused)} of " <>
        "#{map_size(schemas)} compile, #{length(checked)} cases (#{valid} valid, " <>
        "#{length(checked) - valid} invalid), #{length(failures)} verdicts differ from python-jsonschema"
    )

    assert failures == [], Enum.join(Enum.take(failures, 20), "\n")
    # The corpus reaches every compiled schema, with both verdicts.
    assert length(checked) > 3000 and valid > 1000 and length(checked) - valid > 1000
  end

  defp corpus! do
    from_env = System.get_env("REAL_SCHEMAS_CORPUS")
    path = if from_env in [nil, ""], do: @fixed_path, else: from_env

    case File.read(path) do
      {:ok, text} ->
        {:ok, corpus} = JSON.decode(text)
        corpus

      {:error, reason} ->
        flunk("""
        the real-schema corpus is missing (#{path}: #{:file.format_error(reason)}). \
        Run scripts/real_schemas (scripts/test runs it), which writes it to #{@fixed_path}.\
        """)
    end
  end
end
