"""The matrix's config language: rows of QEMU settings plus expectations.

scripts/matrix documents the format (tests/matrix.conf is the real one) and
runs the rows; this module only turns config text into Row objects and
checks a report against a row's expectations, so that both can be tested
without booting anything and the runner stays small.  Expectation paths use
query.py's path language.

It is the project's one table of QEMU machines: scripts/linux-guest boots
its real Linux guests on the rows with a `guest =` setting (guest_rows),
so the probe's matrix and the real-guest comparison cannot drift apart.
"""

import fnmatch
import json
import os
import re
import shlex

from . import query
from .qemu import BOOT_KINDS, DEFAULT_IMAGES

ROW_KEYS = {"machine", "cpu", "smp", "mem", "accel", "boot", "image",
            "qemu", "timeout", "tags", "skip", "image_optional", "guest"}
ROW_DEFAULTS = {"machine": "q35", "cpu": None, "smp": "1", "mem": "256M",
                "accel": "tcg", "boot": "uefi", "image": None,
                "timeout": "120", "tags": "", "skip": None,
                "image_optional": "no", "guest": None}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
# guest = full | fast KERNEL...: the row is a real-Linux-guest configuration
# (scripts/linux-guest); the full run boots it on every fetched kernel,
# the fast run (make test) only on the kernels listed after "fast".
# Kernel names are scripts/linux-guest's (6.1, 6.12, 6.12-deb13, 7.2, ...).
GUEST_RE = re.compile(r"^(?:full|fast(?:\s+\d+\.\d+[A-Za-z0-9.~+-]*)+)$")


class ConfigError(Exception):
    pass


# ------------------------------------------------------------ expectations

class Expectation:
    """One check on a report: `path op value`, parsed from a config line."""

    OPS = ("==", "!=", ">=", "<=", ">", "<")
    _RE = re.compile(r"^\s*(?P<path>\S+)\s+(?P<rest>.*)$")

    def __init__(self, text, where=""):
        self.text = text.strip()
        self.where = where
        m = self._RE.match(self.text)
        if not m:
            raise ConfigError("%sexpectation needs PATH OP VALUE: %r"
                              % (where, self.text))
        self.path, rest = m.group("path"), m.group("rest").strip()
        self.length = False
        lm = re.fullmatch(r"len\((.+)\)", self.path)
        if lm:
            self.path, self.length = lm.group(1), True
        try:
            query.split_path(self.path)
        except ValueError as e:
            raise ConfigError("%s%s" % (where, e))
        self.value = self.raw = None
        if rest in ("exists", "missing"):
            self.op = rest
            return
        lm = re.fullmatch(r"(not\s+in|in)\s*\[(.*)\]", rest)
        if lm:
            self.op = "not in" if lm.group(1) != "in" else "in"
            items = [i.strip() for i in lm.group(2).split(",") if i.strip()]
            self.value = [parse_value(i) for i in items]
            self.raw = items
            return
        for op in self.OPS:
            if rest.startswith(op):
                self.op = op
                self.raw = rest[len(op):].strip()
                if not self.raw:
                    break
                self.value = parse_value(self.raw)
                return
        raise ConfigError("%sunknown expectation %r (ops: %s, in [..], "
                          "not in [..], exists, missing)"
                          % (where, self.text, " ".join(self.OPS)))

    @property
    def key(self):
        """What a row's expectation overrides in the defaults."""
        return ("len:" if self.length else "") + self.path

    def evaluate(self, report):
        """Return (passed, message)."""
        actual = query.get_path(report, self.path, query.MISSING)
        if self.length and actual is not query.MISSING:
            actual = len(actual) if isinstance(actual, (list, dict, str)) \
                else query.MISSING
        present = actual is not query.MISSING and actual is not None
        if self.op == "exists":
            return present, self._msg(actual, present)
        if self.op == "missing":
            return not present, self._msg(actual, not present)
        if actual is query.MISSING:
            return False, "%s: %s is not in the report" % (self.text,
                                                           self.path)
        if self.op in ("in", "not in"):
            found = any(values_equal(actual, v, r)
                        for v, r in zip(self.value, self.raw))
            ok = found if self.op == "in" else not found
        elif self.op == "==":
            ok = values_equal(actual, self.value, self.raw)
        elif self.op == "!=":
            ok = not values_equal(actual, self.value, self.raw)
        else:
            if not is_number(actual) or not is_number(self.value):
                return False, "%s: not comparable as numbers (got %s)" % (
                    self.text, show(actual))
            ok = {">=": actual >= self.value, "<=": actual <= self.value,
                  ">": actual > self.value,
                  "<": actual < self.value}[self.op]
        return ok, self._msg(actual, ok)

    def _msg(self, actual, ok):
        if ok:
            return self.text
        return "%s: got %s" % (self.text, "nothing" if actual is
                               query.MISSING else show(actual))


def parse_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def values_equal(actual, expected, raw):
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    if is_number(actual) and is_number(expected):
        return actual == expected
    if actual == expected:
        return True
    # "6.1" in the report against a bare 6.1 in the config, and the like.
    return isinstance(actual, str) and raw is not None and actual == raw


def show(v):
    return json.dumps(v) if not isinstance(v, str) else repr(v)


# ------------------------------------------------------------------ config

class Row:
    def __init__(self, name, settings, expects):
        self.name = name
        self.settings = settings
        self.expects = expects

    def get(self, key):
        return self.settings.get(key)

    @property
    def tags(self):
        return [t.strip() for t in (self.get("tags") or "").split(",")
                if t.strip()]

    @property
    def timeout(self):
        return float(self.get("timeout"))

    @property
    def slow(self):
        return self.get("accel") == "kvm" or "-icount" in (
            self.get("qemu") or "")

    @property
    def guest(self):
        """None, or how scripts/linux-guest boots real guests on this row:
        "full" (the full run only) or "fast" (the fast run too)."""
        g = self.get("guest")
        return g.split()[0] if g else None

    @property
    def guest_fast_kernels(self):
        """The kernels the fast real-guest run boots here; () if none."""
        return tuple((self.get("guest") or "").split()[1:])

    def qemu_extra(self):
        return shlex.split(self.get("qemu") or "")

    def image(self):
        # CLOCKPROBE_IMAGE_UEFI etc.: only prefixed names (issue 38).
        return self.get("image") or os.environ.get(
            "CLOCKPROBE_IMAGE_" + self.get("boot").upper()) or \
            DEFAULT_IMAGES[self.get("boot")]

    def describe(self):
        s = self.settings
        parts = ["machine=" + s["machine"], "smp=" + s["smp"],
                 "mem=" + s["mem"], "accel=" + s["accel"],
                 "boot=" + s["boot"]]
        if s.get("cpu"):
            parts.insert(1, "cpu=" + s["cpu"])
        if s.get("qemu"):
            parts.append("qemu=" + repr(s["qemu"]))
        return " ".join(parts)


def parse_config(text, path="<config>"):
    """Parse matrix config text into a list of Rows (see module doc)."""
    defaults, default_expects = dict(ROW_DEFAULTS), []
    sections = []  # (name, settings, expects, lineno)
    current = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = "%s:%d: " % (path, lineno)
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"\[(.+)\]", line)
        if m:
            name = m.group(1).strip()
            if name == "defaults":
                if sections:
                    raise ConfigError(where + "[defaults] must come first")
                current = ("defaults", defaults, default_expects)
                continue
            if not NAME_RE.match(name):
                raise ConfigError(where + "bad row name %r (letters, digits,"
                                  " . _ + -)" % name)
            if any(s[0] == name for s in sections):
                raise ConfigError(where + "duplicate row %r" % name)
            current = (name, {}, [])
            sections.append(current + (lineno,))
            continue
        if current is None:
            raise ConfigError(where + "setting outside a [section]")
        if re.match(r"expect\s", line):
            current[2].append(Expectation(line[len("expect"):], where))
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in ROW_KEYS:
            raise ConfigError(where + "unknown setting %r (known: %s, "
                              "expect)" % (key, ", ".join(sorted(ROW_KEYS))))
        if key == "guest" and current[0] == "defaults":
            raise ConfigError(where + "guest belongs to a row, not to "
                              "[defaults]")
        if key == "qemu" and current[1].get("qemu"):
            value = current[1]["qemu"] + " " + value
        current[1][key] = value
    rows = []
    for name, settings, expects, lineno in sections:
        merged = dict(defaults)
        if settings.get("qemu") and defaults.get("qemu"):
            settings = dict(settings, qemu=defaults["qemu"] + " "
                            + settings["qemu"])
        merged.update(settings)
        row_keys = {e.key for e in expects}
        all_expects = [e for e in default_expects if e.key not in row_keys]
        rows.append(Row(name, merged, all_expects + expects))
        check_row(rows[-1], "%s:%d: " % (path, lineno))
    return rows


def check_row(row, where):
    if row.get("accel") not in ("tcg", "kvm"):
        raise ConfigError(where + "accel must be tcg or kvm")
    if row.get("boot") not in BOOT_KINDS:
        raise ConfigError(where + "boot must be one of "
                          + ", ".join(BOOT_KINDS))
    try:
        if row.timeout <= 0:
            raise ValueError
    except ValueError:
        raise ConfigError(where + "timeout must be a positive number")
    if row.get("image_optional") not in ("yes", "no"):
        raise ConfigError(where + "image_optional must be yes or no")
    if row.get("guest") is not None and \
            not GUEST_RE.match(" ".join(row.get("guest").split())):
        raise ConfigError(where + "guest must be full, or fast and the "
                          "kernels the fast run boots (fast 6.1 6.12), not "
                          "%r" % row.get("guest"))
    # scripts/linux-guest boots the guest under TCG and the probe from its
    # disk image, each with the row's machine, cpu and smp alone: a row
    # that says more would be compared on a machine it does not describe.
    if row.get("guest") is not None and (
            row.get("accel") != "tcg" or row.get("boot") != "uefi"
            or row.get("qemu") or row.get("image") or row.get("skip")):
        raise ConfigError(where + "a guest row is a plain TCG row (accel = "
                          "tcg, boot = uefi, no qemu, image or skip): "
                          "scripts/linux-guest uses its machine, cpu and "
                          "smp only")


def load_config(path):
    with open(path) as f:
        return parse_config(f.read(), path)


def guest_rows(rows):
    """{name: Row} of the rows real Linux guests boot on, in file order."""
    return {r.name: r for r in rows if r.guest}


def select_rows(rows, only=None, fast=False, shard=None):
    """Filter by --only (glob or substring, comma list), --fast, --shard."""
    if only:
        pats = [p.strip() for p in only.split(",") if p.strip()]
        rows = [r for r in rows if any(
            fnmatch.fnmatch(r.name, p) or p in r.name for p in pats)]
    if fast:
        rows = [r for r in rows if "fast" in r.tags]
    if shard:
        k, n = shard
        rows = [r for i, r in enumerate(rows) if i % n == k - 1]
    return rows
