"""The matrix's config language: rows of QEMU settings plus expectations.

scripts/matrix documents the format (tests/matrix.conf is the real one) and
runs the rows; this module only turns config text into Row objects and
checks a report against a row's expectations, so that both can be tested
without booting anything and the runner stays small.  Expectation paths use
query.py's path language.

It is the project's one table of QEMU machines: scripts/linux-guest boots
its real Linux guests on the rows with a `guest =` setting (guest_rows),
so the probe's matrix and the real-guest comparison cannot drift apart.
Its rows with `arch = aarch64` are the arm64 probe's (booted by
cptools/arm64efi.py) and the ones real Debian arm64 kernels are booted on
(tests/linux/README.md, "arm64 guests"); they inherit [defaults aarch64],
never x86's [defaults].
"""

import fnmatch
import json
import os
import re
import shlex

from . import query
from .qemu import BOOT_KINDS, DEFAULT_IMAGES

ROW_KEYS = {"machine", "cpu", "smp", "mem", "accel", "boot", "image",
            "qemu", "timeout", "tags", "skip", "image_optional", "guest",
            "arch"}
ROW_DEFAULTS = {"machine": "q35", "cpu": None, "smp": "1", "mem": "256M",
                "accel": "tcg", "boot": "uefi", "image": None,
                "timeout": "120", "tags": "", "skip": None,
                "image_optional": "no", "guest": None, "arch": "x86_64"}
# Each architecture has its own defaults section: [defaults] is x86_64's,
# [defaults aarch64] the arm64 rows' (an x86 expectation such as the TCG
# CPUID signature means nothing in an arm64 report, so none is inherited
# across).  AAVMF under TCG wants 512M; -machine virt is the only board
# arm64efi boots.
ARCHES = ("x86_64", "aarch64")
ARCH_DEFAULTS = {"x86_64": ROW_DEFAULTS,
                 "aarch64": dict(ROW_DEFAULTS, machine="virt", mem="512M",
                                 arch="aarch64")}
# What an aarch64 row may set: arm64efi builds its QEMU line from these
# alone (no -accel kvm, no other boot media, no extra QEMU arguments), and
# the arm64 real guests are booted on the row's machine, cpu and smp.
AARCH64_KEYS = {"machine", "cpu", "smp", "mem", "accel", "boot", "image",
                "timeout", "tags", "skip", "image_optional", "arch"}
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
        # An aarch64 row (AAVMF under TCG) takes twice an OVMF row's time:
        # started first, it does not finish a run alone.
        return self.get("accel") == "kvm" or "-icount" in (
            self.get("qemu") or "") or self.arch == "aarch64"

    @property
    def arch(self):
        return self.get("arch")

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
        if self.arch == "aarch64":
            from . import arm64efi  # its image: build/aarch64/clockprobe.img
            return self.get("image") or arm64efi.IMAGE
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
        if self.arch != "x86_64":
            parts.insert(0, "arch=" + self.arch)
        return " ".join(parts)


def parse_config(text, path="<config>"):
    """Parse matrix config text into a list of Rows (see module doc)."""
    # arch -> (settings, expectations, line of its [defaults ...] or 0)
    defaults = {a: (dict(d), [], 0) for a, d in ARCH_DEFAULTS.items()}
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
            dm = re.fullmatch(r"defaults(?:\s+(\S+))?", name)
            if dm:
                arch = dm.group(1) or "x86_64"
                if arch not in ARCHES:
                    raise ConfigError(where + "[defaults %s]: no such arch "
                                      "(%s)" % (arch, ", ".join(ARCHES)))
                if defaults[arch][2]:
                    raise ConfigError(where + "second [%s]" % name)
                if arch == "x86_64" and sections:
                    raise ConfigError(where + "[defaults] must come first")
                defaults[arch] = defaults[arch][:2] + (lineno,)
                current = ("defaults", defaults[arch][0], defaults[arch][1])
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
        if key in ("guest", "arch") and current[0] == "defaults":
            raise ConfigError(where + "%s belongs to a row, not to "
                              "[defaults]" % key)
        if key == "qemu" and current[1].get("qemu"):
            value = current[1]["qemu"] + " " + value
        current[1][key] = value
    rows = []
    for name, settings, expects, lineno in sections:
        where = "%s:%d: " % (path, lineno)
        arch = settings.get("arch", "x86_64")
        if arch not in ARCHES:
            raise ConfigError(where + "arch must be one of "
                              + ", ".join(ARCHES))
        base, default_expects, dline = defaults[arch]
        # A row reads the defaults of its arch as written above it.
        if dline > lineno:
            raise ConfigError(where + "[defaults %s] must come before its "
                              "rows" % arch)
        merged = dict(base)
        if settings.get("qemu") and base.get("qemu"):
            settings = dict(settings, qemu=base["qemu"] + " "
                            + settings["qemu"])
        merged.update(settings)
        row_keys = {e.key for e in expects}
        all_expects = [e for e in default_expects if e.key not in row_keys]
        rows.append(Row(name, merged, all_expects + expects))
        check_row(rows[-1], where, set(settings) | set(
            k for k, v in base.items() if v != ARCH_DEFAULTS[arch].get(k)))
    return rows


def check_row(row, where, given=()):
    """given: the settings the row or its defaults section wrote."""
    if row.arch == "aarch64":
        extra = sorted(set(given) - AARCH64_KEYS)
        if extra:
            raise ConfigError(where + "an aarch64 row boots through "
                              "arm64efi (machine, cpu, smp, mem, timeout): "
                              "%s has no meaning there" % ", ".join(extra))
        if row.get("accel") != "tcg" or row.get("boot") != "uefi":
            raise ConfigError(where + "an aarch64 row is accel = tcg, "
                              "boot = uefi (AAVMF under TCG)")
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


def arch_rows(rows, arch):
    """The rows of one architecture, in file order."""
    return [r for r in rows if r.arch == arch]


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
