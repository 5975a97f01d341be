"""The python side of the format oracle (scripts/format_oracle runs it).

Reads batches of JSON lines on stdin, each `[FORMAT, STRING]`, a batch
ended by a line `END`; answers each batch, once it has read all of it,
with one line per string, in order: `1` (the format checker accepts it),
`0` (it refuses it) or `E NAME` (the checker raised NAME, an exception it
does not declare: jsonschema would let it through to its caller). Exits at
the end of stdin.

The checker is python-jsonschema's own `FormatChecker` for draft 2020-12,
with every library of the `format` extra installed: on start it checks
that all 19 formats have a checker (a missing library would leave its
formats unchecked, that is, always valid) and exits with status 2 naming
the missing ones otherwise.
"""

import json
import sys
import warnings
from importlib.metadata import version

from jsonschema import Draft202012Validator

FORMATS = (
    "date-time", "date", "time", "duration", "email", "idn-email",
    "hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference",
    "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
    "relative-json-pointer", "regex",
)


def main():
    # `re` warns about some patterns it accepts (a possible nested set):
    # the verdict is what counts.
    warnings.simplefilter("ignore")
    checker = Draft202012Validator.FORMAT_CHECKER
    missing = [name for name in FORMATS if name not in checker.checkers]
    if missing:
        sys.stderr.write(
            "format_oracle.py: jsonschema %s has no checker for %s "
            "(a library of its format extra is missing)\n"
            % (version("jsonschema"), ", ".join(missing))
        )
        sys.exit(2)
    out = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line == "END":
            sys.stdout.write("".join(out))
            sys.stdout.flush()
            out = []
            continue
        name, text = json.loads(line)
        if name not in FORMATS:
            sys.stderr.write("format_oracle.py: unknown format %r\n" % name)
            sys.exit(2)
        try:
            verdict = "1" if checker.conforms(text, name) else "0"
        except Exception as error:  # noqa: BLE001 - reported, not hidden
            verdict = "E " + type(error).__name__
        out.append(verdict + "\n")
    if out:
        sys.stderr.write("format_oracle.py: input ended inside a batch\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
