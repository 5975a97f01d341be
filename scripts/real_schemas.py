"""The python side of the real-schema differential (scripts/real_schemas).

    real_schemas.py CHECKER_DIR OPENAPI_DIR OUT_FILE

CHECKER_DIR is check-jsonschema's extracted source distribution: its
vendored schemas (src/check_jsonschema/builtin_schemas/vendor/*.json,
copies of widely used SchemaStore schemas) and their example files
(tests/example-files/hooks/{positive,negative}/<schema name>/*).
OPENAPI_DIR is openapi-spec-validator's: the OpenAPI 2.0, 3.0, 3.1 and
3.2 schemas (openapi_spec_validator/resources/schemas/v*/schema.json) and
its OpenAPI documents (tests/bench/specs: GitHub's, Stripe's,
Kubernetes', Docker's; tests/integration/data), each checked against the
schema of the version it names. Files are YAML, CFF (which is YAML), JSON
or TOML, read as JSON data: YAML's dates and times stay strings, keys
become strings. Writes OUT_FILE, one JSON document:

    {"schemas": {NAME: SCHEMA, ...},
     "cases": [{"schema": NAME, "source": FILE, "mutant": N, "valid": BOOL,
                "valid_formats": BOOL, "instance": VALUE}, ...]}

Each file is a case as written (mutant 0) and MUTANTS mutants of it
(LARGE_MUTANTS for a document of 100 KB or more): one to three edits drawn
from a generator seeded per file (a key removed, a value replaced by
another type, a key added, an item repeated, a string changed or replaced
by one that breaks a format), so the set is the same on every run.
"valid" is python-jsonschema's verdict (the schema's own dialect, formats
as annotations, as the specification's default), and "valid_formats" its
verdict with its FormatChecker asserting formats (the format oracle's
environment has every library it uses): the independent validator the
ExUnit side compares with. A file that does not read as JSON data (a
YAML tag, JSON5) is left out. Stdout says how many of each.
"""

import copy
import glob
import json
import os
import random
import sys
import tomllib

import jsonschema
import yaml

MUTANTS = 120
# Mutants of a document of 100 KB or more.
LARGE_MUTANTS = 2
SCALARS = [None, True, False, 0, -1, 1.5, 2**40, "", "x", "main", "1.0", [], {}]
KEYS = ["extra", "name", "on", "runs-on", "steps", "image", "version", "x-y"]
# Strings that break the formats the schemas use (uri, uri-reference,
# date, date-time, duration, regex), or a template's syntax.
MALFORMED = ["${{ x }}", "not a uri", "http://exa mple.com", "2026-02-30", "2026-13-01T25:00:00Z", "P1X", "(", "{{"]


class DataLoader(yaml.SafeLoader):
    """YAML as JSON data: a date or a time stays the string it is written
    as (JSON has no date), as check-jsonschema reads it."""


DataLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_instance(path):
    if path.endswith(".json"):
        with open(path) as f:
            return json.load(f)
    if path.endswith((".yaml", ".yml", ".cff")):
        with open(path) as f:
            return yaml.load(f, Loader=DataLoader)
    if path.endswith(".toml"):
        with open(path, "rb") as f:
            return tomllib.load(f)
    raise ValueError("not a JSON, YAML or TOML file")


def places(value, at=()):
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, at + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(item, at + (index,))


def get(value, at):
    for step in at:
        value = value[step]
    return value


def mutate(instance, rng):
    instance = copy.deepcopy(instance)
    for _ in range(rng.choice([1, 1, 2, 3])):
        edit = rng.randrange(5)
        every = list(places(instance))
        if edit == 4:
            # A string's edit picks among the strings alone.
            every = [at for at in every if isinstance(get(instance, at), str)] or every
        at = rng.choice(every)
        target = get(instance, at)
        parent = get(instance, at[:-1]) if at else None
        if edit == 0 and parent is not None:
            del parent[at[-1]]
        elif edit == 1 and parent is not None:
            parent[at[-1]] = copy.deepcopy(rng.choice(SCALARS))
        elif edit == 2 and isinstance(target, dict):
            target[rng.choice(KEYS)] = copy.deepcopy(rng.choice(SCALARS))
        elif edit == 3 and isinstance(target, list) and target:
            target.append(copy.deepcopy(rng.choice(target)))
        elif edit == 4 and parent is not None and isinstance(target, str):
            parent[at[-1]] = rng.choice(["", target + "!", target.upper(), target * 2] + MALFORMED)
    return instance


def openapi_schema(instance):
    """The OpenAPI schema a document names by its version, if any."""
    if not isinstance(instance, dict):
        return None
    if str(instance.get("swagger", "")) == "2.0":
        return "openapi-2.0"
    version = str(instance.get("openapi", ""))
    for name in ["3.0", "3.1", "3.2"]:
        if version.startswith(name + "."):
            return "openapi-" + name
    return None


def main(checker_source, openapi_source, out):
    schemas, examples = {}, []
    # check-jsonschema: its vendored schemas and their example files.
    vendor = os.path.join(checker_source, "src/check_jsonschema/builtin_schemas/vendor")
    for path in sorted(glob.glob(os.path.join(vendor, "*.json"))):
        with open(path) as f:
            schemas[os.path.basename(path)[: -len(".json")]] = json.load(f)
    hooks = os.path.join(checker_source, "tests/example-files/hooks")
    for kind in ["positive", "negative"]:
        for directory in sorted(glob.glob(os.path.join(hooks, kind, "*"))):
            name = os.path.basename(directory)
            if name in schemas:
                for path in sorted(glob.glob(os.path.join(directory, "*"))):
                    if not os.path.basename(path).startswith("_"):
                        examples.append((name, path, "check-jsonschema/" + os.path.relpath(path, hooks)))
    # openapi-spec-validator: the OpenAPI 2.0 to 3.2 schemas, and its
    # documents (the version each names picks the schema; fragments that
    # name none are not documents).
    resources = os.path.join(openapi_source, "openapi_spec_validator/resources/schemas")
    for version in ["2.0", "3.0", "3.1", "3.2"]:
        with open(os.path.join(resources, "v" + version, "schema.json")) as f:
            schemas["openapi-" + version] = json.load(f)
    tests = os.path.join(openapi_source, "tests")
    for pattern in ["bench/specs/*", "integration/data/**/*"]:
        for path in sorted(glob.glob(os.path.join(tests, pattern), recursive=True)):
            if os.path.isfile(path):
                examples.append((None, path, "openapi-spec-validator/" + os.path.relpath(path, tests)))

    validators = {}
    cases, skipped = [], 0
    for name, path, source_name in examples:
        try:
            instance = read_instance(path)
            # As JSON data: keys are strings (YAML's `200:` is "200").
            instance = json.loads(json.dumps(instance, allow_nan=False))
        except Exception:
            skipped += 1
            continue
        name = name or openapi_schema(instance)
        if name is None:
            continue
        if name not in validators:
            schema = schemas[name]
            dialect = jsonschema.validators.validator_for(schema)
            validators[name] = (dialect(schema), dialect(schema, format_checker=dialect.FORMAT_CHECKER))
        validator, asserting = validators[name]
        rng = random.Random(source_name)
        # A document of megabytes takes python seconds a verdict.
        mutants = MUTANTS if os.path.getsize(path) < 100_000 else LARGE_MUTANTS
        for mutant in range(mutants + 1):
            value = instance if mutant == 0 else mutate(instance, rng)
            cases.append(
                {
                    "schema": name,
                    "source": source_name,
                    "mutant": mutant,
                    "valid": validator.is_valid(value),
                    "valid_formats": asserting.is_valid(value),
                    "instance": value,
                }
            )
    with open(out, "w") as f:
        json.dump({"schemas": schemas, "cases": cases}, f)
    valid = sum(case["valid"] for case in cases)
    files = len({case["source"] for case in cases})
    print(
        f"{len(schemas)} schemas, {files} example files ({skipped} not JSON data), "
        f"{len(cases)} cases ({valid} valid, {len(cases) - valid} invalid by python-jsonschema)"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
