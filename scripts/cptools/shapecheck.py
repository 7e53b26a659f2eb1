"""The shape of an untrusted document, checked against the project's own
JSON Schema without python3-jsonschema (a test-only dependency): the
subset the host tools lean on -- "type" (null, boolean, integer, number,
string, array, object; a list of them), "required", "properties",
"additionalProperties" (a schema), "items", "const", "enum" and local "$ref".  Names the schema does not
describe are allowed (an older reader accepts newer reports), as in
cptools/schema.py.

problems() returns what is wrong as "path: what" strings (path like
`history.events[2].line`), shown with their controls as \\xNN and capped,
so a rejection names the field and is safe on a terminal.  It is what
compare applies to every clockprobe-guest report before pairing it
(cptools/fleetinput.py): a report with a missing key or a value of the
wrong type is rejected by name instead of reaching code that reads it.
"""

import json

from . import paths
from .untrusted import cap, show_controls

_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and
    not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_CACHE = {}
MAX_PROBLEMS = 5


def load(path):
    """A schema file, read once per process."""
    if path not in _CACHE:
        with open(path) as f:
            _CACHE[path] = json.load(f)
    return _CACHE[path]


def guest_schema():
    return load(paths.GUEST_SCHEMA)


def _kind(v):
    for name in ("null", "boolean", "integer", "number", "string", "array",
                 "object"):
        if _TYPES[name](v):
            return name
    return type(v).__name__


def _shown(path):
    return show_controls(cap(path or "(top)", 200))


def problems(doc, schema, limit=MAX_PROBLEMS):
    """What in doc the schema refuses, at most `limit` entries."""
    out = []

    def resolve(node, depth=0):
        while isinstance(node, dict) and "$ref" in node and depth < 32:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return {}
            target = schema
            for part in ref[2:].split("/"):
                target = target.get(part.replace("~1", "/").replace(
                    "~0", "~"), {}) if isinstance(target, dict) else {}
            node, depth = target, depth + 1
        return node if isinstance(node, dict) else {}

    def walk(v, node, path, depth):
        if len(out) >= limit or depth > 64:
            return
        node = resolve(node)
        want = node.get("type")
        if want is not None:
            names = want if isinstance(want, list) else [want]
            if not any(_TYPES.get(n, lambda _: True)(v) for n in names):
                out.append("%s: %s, not %s" % (_shown(path), _kind(v),
                                               " or ".join(names)))
                return
        if "const" in node and v != node["const"]:
            out.append("%s: not %s" % (_shown(path),
                                       json.dumps(node["const"])))
            return
        if "enum" in node and v not in node["enum"]:
            out.append("%s: %s is not one of %s" % (
                _shown(path), show_controls(cap(repr(v), 60)),
                ", ".join(map(json.dumps, node["enum"]))))
            return
        if isinstance(v, dict):
            for key in node.get("required") or []:
                if key not in v:
                    out.append("%s: missing" % _shown(
                        "%s.%s" % (path, key) if path else key))
            props = node.get("properties") or {}
            extra = node.get("additionalProperties")
            for key, sub in v.items():
                sub_node = props.get(key, extra if isinstance(extra, dict)
                                   else None)
                if sub_node is not None:
                    walk(sub, sub_node, "%s.%s" % (path, key) if path
                         else key, depth + 1)
        elif isinstance(v, list) and isinstance(node.get("items"), dict):
            for i, sub in enumerate(v):
                walk(sub, node["items"], "%s[%d]" % (path, i), depth + 1)
                if len(out) >= limit:
                    return

    walk(doc, schema, "", 0)
    return out


def guest_problems(report):
    """problems() of a clockprobe-guest report against
    docs/guest-report-schema.json."""
    return problems(report, guest_schema())
