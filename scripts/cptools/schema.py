"""The report's machine-checkable contract: docs/report-schema.json.

validate() checks a report against the schema (Debian's python3-jsonschema,
Draft 2020-12).  The schema leaves unknown names allowed, so that a reader
of an older schema accepts newer reports (the contract only ever adds
names); undocumented() is the stricter check this project holds its own
reports to: every name a real report has must be described.

Adding a field to the report: add a property with "type", "description" and,
for a number with a unit, "x-unit" in the object that holds it (the error
lists the path, e.g. `platform.acpi.tables[].address_hex`).
"""

import json
import re

from . import paths  # noqa: E402

REPO = paths.REPO
# docs/report-schema.json in the tree, share/clockprobe/ once installed.
SCHEMA_PATH = paths.SCHEMA
_COMBINERS = ("anyOf", "oneOf", "allOf")


def load_schema(path=SCHEMA_PATH):
    with open(path) as f:
        return json.load(f)


def _validator_class():
    from cptools.debpkg import import_debian
    try:
        jsonschema = import_debian("jsonschema")
    except ImportError as exc:
        raise RuntimeError("python3-jsonschema is missing (%s)"
                           % paths.need_package("python3-jsonschema")) from exc
    return jsonschema.Draft202012Validator


def check_schema(schema):
    """Raises when the schema itself is not valid Draft 2020-12."""
    _validator_class().check_schema(schema)


def validate(report, schema=None):
    """The schema's complaints about report, as 'path: message' strings."""
    schema = schema or load_schema()
    v = _validator_class()(schema)
    out = []
    for e in sorted(v.iter_errors(report), key=lambda e: list(e.absolute_path)):
        path = "".join("[%d]" % p if isinstance(p, int) else ".%s" % p for p in e.absolute_path)
        out.append("%s: %s" % (path.lstrip(".") or "(top)", e.message[:300]))
    return out


def _ref_lookup(schema):
    """$ref -> the node it names, resolved by jsonschema's own resolver
    (JSON-pointer escapes included) so that these walks read a reference
    as validate() does: referencing where the installed jsonschema has it
    (4.18+), RefResolver before that (Debian 12's 4.10)."""
    from cptools.debpkg import import_debian
    _validator_class()  # the missing-package message
    try:
        drafts = import_debian("referencing.jsonschema")
    except ImportError:
        resolver = import_debian("jsonschema").RefResolver.from_schema(schema)

        def lookup(ref):
            return resolver.resolve(ref)[1]
    else:
        registry = import_debian("referencing").Registry().with_resource(
            "", drafts.DRAFT202012.create_resource(schema))
        resolver = registry.resolver()

        def lookup(ref):
            return resolver.lookup(ref).contents
    return lookup


def _resolve(lookup, node, seen=0):
    """node with $ref followed and combiners flattened: a list of the
    subschemas that could describe one value."""
    if not isinstance(node, dict) or seen > 32:
        return []
    if "$ref" in node:
        ref = node["$ref"]
        # Another document is never fetched: what a path means stays in
        # the schema at hand (RefResolver would open a URL).
        if not ref.startswith("#"):
            raise ValueError("only local $ref is supported: %s" % ref)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _resolve(lookup, lookup(ref), seen + 1) + ([rest] if rest else [])
    out = [node]
    for key in _COMBINERS:
        for sub in node.get(key, []):
            out += _resolve(lookup, sub, seen + 1)
    return out


def _children(lookup, nodes, key):
    found = []
    for n in nodes:
        if key in n.get("properties", {}):
            found += _resolve(lookup, n["properties"][key])
        for pattern, sub in n.get("patternProperties", {}).items():
            if re.search(pattern, key):
                found += _resolve(lookup, sub)
        if isinstance(n.get("additionalProperties"), dict):
            found += _resolve(lookup, n["additionalProperties"])
    return found


def _items(lookup, nodes):
    found = []
    for n in nodes:
        if isinstance(n.get("items"), dict):
            found += _resolve(lookup, n["items"])
    return found


def undocumented(report, schema=None):
    """Sorted paths (`a.b[].c`) in report that the schema does not describe."""
    schema = schema or load_schema()
    lookup = _ref_lookup(schema)
    missing = set()

    def walk(value, nodes, path):
        if isinstance(value, dict):
            for key, sub in value.items():
                child = _children(lookup, nodes, key)
                p = "%s.%s" % (path, key) if path else key
                if not child:
                    missing.add(p)
                else:
                    walk(sub, child, p)
        elif isinstance(value, list):
            items = _items(lookup, nodes)
            if value and not items:
                missing.add(path + "[]")
            for sub in value:
                walk(sub, items, path + "[]")

    walk(report, _resolve(lookup, schema), "")
    return sorted(missing)


def described_paths(schema=None):
    """Every path the schema names, with its node (for description checks)."""
    schema = schema or load_schema()
    lookup = _ref_lookup(schema)
    out = []

    def walk(nodes, path, depth):
        if depth > 24:
            return
        for n in nodes:
            for key, sub in n.get("properties", {}).items():
                p = "%s.%s" % (path, key) if path else key
                out.append((p, sub))
                walk(_resolve(lookup, sub), p, depth + 1)
            for key, sub in n.get("patternProperties", {}).items():
                p = "%s.<%s>" % (path, key)
                out.append((p, sub))
                walk(_resolve(lookup, sub), p, depth + 1)
            if isinstance(n.get("items"), dict):
                walk(_resolve(lookup, n["items"]), path + "[]", depth + 1)

    walk(_resolve(lookup, schema), "", 0)
    return out


# The x86 sections the schema's top-level (and probe/verdict) "required"
# lists name: an arm64 report has none of them (docs/report-schema.json,
# arm64's description), so their absence is no problem there; any other
# complaint still is.
X86_ONLY = {"platform", "baselines", "sources", "kvmclock", "cross_cpu",
            "drift", "gaps", "run_id", "run_id_source", "label",
            "linux_clocksource", "linux_kernel", "vdso", "predicted_read_ns",
            "reasoning", "by_kernel", "warnings"}


def is_arm64(report):
    return isinstance(report, dict) and isinstance(report.get("probe"), dict) \
        and report["probe"].get("arch") == "aarch64"


def check_report(report, schema=None):
    """Both checks: a list of problems, empty when the report is fine."""
    schema = schema or load_schema()
    problems = validate(report, schema)
    if is_arm64(report):
        problems = [p for p in problems if not any(
            p.endswith("'%s' is a required property" % k) for k in X86_ONLY)]
    problems += ["undocumented: %s" % p for p in undocumented(report, schema)]
    return problems


def check_watch_record(record, schema=None):
    """check_report() for one framed WATCH record ($defs.watch_record)."""
    schema = schema or load_schema()
    return check_report(record, {"$defs": schema["$defs"], "$ref": "#/$defs/watch_record"})


# The guest report (clockprobe-guest, CLOCKPROBE GUEST frame) has its own
# file, referenced from report-schema.json's $defs.guest_report.
GUEST_SCHEMA_PATH = paths.GUEST_SCHEMA


def load_guest_schema(path=GUEST_SCHEMA_PATH):
    return load_schema(path)


def check_guest_report(report, schema=None):
    """check_report() for a guest report against docs/guest-report-schema.json."""
    return check_report(report, schema or load_guest_schema())
