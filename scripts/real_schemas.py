"""The python side of the real-schema differential (scripts/real_schemas).

    real_schemas.py SOURCE_DIR OUT_FILE

SOURCE_DIR is check-jsonschema's extracted source distribution: its
vendored schemas (src/check_jsonschema/builtin_schemas/vendor/*.json,
copies of widely used SchemaStore schemas) and its example files
(tests/example-files/hooks/{positive,negative}/<schema name>/*: YAML,
CFF (which is YAML), JSON or TOML; YAML's dates and times stay strings).
Writes OUT_FILE, one JSON document:

    {"schemas": {NAME: SCHEMA, ...},
     "cases": [{"schema": NAME, "source": FILE, "mutant": N, "valid": BOOL,
                "valid_formats": BOOL, "instance": VALUE}, ...]}

Each example file is a case as written (mutant 0) and MUTANTS mutants of
it (mutant 1..MUTANTS): one to three edits drawn from a generator seeded
per file (a key removed, a value replaced by another type, a key added,
an item repeated, a string changed, or replaced by one that breaks a
format), so the set is the same on every run.
"valid" is python-jsonschema's verdict (the schema's own dialect, formats
as annotations, as the specification's default), and "valid_formats" its
verdict with its FormatChecker asserting formats (the format oracle's
environment has every library it uses): the independent validator the
ExUnit side compares with. A file that does not read as
JSON data (YAML tags, dates) is left out. Stdout says how many of each.
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


def main(source, out):
    vendor = os.path.join(source, "src/check_jsonschema/builtin_schemas/vendor")
    schemas = {}
    for path in sorted(glob.glob(os.path.join(vendor, "*.json"))):
        with open(path) as f:
            schemas[os.path.basename(path)[: -len(".json")]] = json.load(f)
    cases, skipped = [], 0
    examples = os.path.join(source, "tests/example-files/hooks")
    for kind in ["positive", "negative"]:
        for directory in sorted(glob.glob(os.path.join(examples, kind, "*"))):
            name = os.path.basename(directory)
            if name not in schemas:
                continue
            schema = schemas[name]
            dialect = jsonschema.validators.validator_for(schema)
            validator = dialect(schema)
            asserting = dialect(schema, format_checker=dialect.FORMAT_CHECKER)
            for path in sorted(glob.glob(os.path.join(directory, "*"))):
                if os.path.basename(path).startswith("_"):
                    continue
                try:
                    instance = read_instance(path)
                    json.dumps(instance, allow_nan=False)
                except Exception:
                    skipped += 1
                    continue
                source_name = os.path.relpath(path, examples)
                rng = random.Random(source_name)
                for mutant in range(MUTANTS + 1):
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
    main(sys.argv[1], sys.argv[2])
