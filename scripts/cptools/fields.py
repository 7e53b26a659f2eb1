"""scripts/compare's field table: which figures of a report stand side by
side, where each comes from, how it is shown and how it is judged.

The table is data: one Spec per row, in the order compare shows them.  A
Spec reads a report path (query.py's language) or, where a figure is
built from several names, a small function that names the paths it reads
(`reads`), so that tests/host/test_fields.py can hold every name the
table reads to docs/report-schema.json.  Per-source rows are repeated for
every clock source the reports list ("{name}" in their section, label and
paths), per-drift rows for every drift pair ("{pair}").

kind says how compare judges a figure against a baseline:
  cost     bigger is worse (ratio flagged at >= threshold)
  count    should stay 0 (0 -> n flagged), else like cost
  num      shown with its ratio, never flagged
  good     a capability: True -> False flagged
  status   a source status: ok -> anything else flagged
  clock    a clocksource name: a worse rank flagged
  warnings a list of warning codes: new codes flagged
  text     shown, never flagged
hv: the hypervisor a capability belongs to (kvm-clock is KVM's), so that
its absence under another named hypervisor is no regression.
"""

import collections

from . import query, untrusted
from .query import (  # noqa: F401 (compare's too)
    drift_entry, drift_pairs, source_entry, source_names)

KINDS = ("cost", "count", "num", "good", "status", "clock", "warnings",
         "text")


class Field:
    """One row of compare's table, ready to read a report."""

    def __init__(self, section, label, getter, kind="text", fmt=None,
                 hv=None):
        self.section = section
        self.label = label
        self.getter = getter
        self.kind = kind
        self.fmt = fmt
        self.hv = hv  # the hypervisor this capability belongs to, if one

    def value(self, report):
        try:
            return self.getter(report)
        except (TypeError, KeyError, IndexError, ValueError, AttributeError):
            return None


def path(p):
    return lambda r: query.get_path(r, p)


# ---------------------------------------------------------------- formats

_INF = float("inf")


def fmt_num(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v != v or v in (_INF, -_INF):   # a figure computed from one at
            return repr(v)                # the edge of the double range
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        if abs(v) >= 1e15:      # a finite hostile value: 6 digits, not 300
            return "%.6g" % v
        return "%.3g" % v if abs(v) < 10 else "%.1f" % v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return ", ".join(fmt_num(x) for x in v) if v else "none"
    return str(v)


def fmt_hz(v):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return fmt_num(v)
    return "%.3f MHz" % (v / 1e6)


def fmt_ratio(r):
    """A ratio of two figures: "2.35", "140", "1.2e+300" (a finite value
    at the edge of the double range in a hostile report stays short)."""
    if r >= 1e15:
        return "%.3g" % r
    return "%.0f" % r if r >= 100 else "%.3g" % r


def fmt_cell(field, v):
    return field.fmt(v) if field.fmt else fmt_num(v)


def abs_or_none(v):
    return abs(v) if isinstance(v, (int, float)) and \
        not isinstance(v, bool) else None


# ------------------------------------------- figures built from several

def boot_phase(r):
    return "%s / %s" % (query.get_path(r, "probe.boot"),
                        query.get_path(r, "probe.phase"))


def system(r):
    return " ".join(str(x) for x in (
        query.get_path(r, "platform.smbios.manufacturer"),
        query.get_path(r, "platform.smbios.product")) if x) or None


def family_model(r):
    c = query.get_path(r, "platform.cpu")
    if not isinstance(c, dict) or c.get("family") is None:
        return None
    return "%s/%s/%s" % (c.get("family"), c.get("model"), c.get("stepping"))


def signatures(r):
    sigs = query.get_path(r, "platform.hypervisor.signatures")
    if not isinstance(sigs, list):
        return None
    return ["%s@0x%x" % (s.get("signature") or s.get("name"), s["leaf"])
            if isinstance(s.get("leaf"), int) else str(s.get("signature"))
            for s in sigs if isinstance(s, dict)]


def acpi_tables(r):
    """Table signatures; a bad checksum is marked with a "!"."""
    tabs = query.get_path(r, "platform.acpi.tables")
    if not isinstance(tabs, list):
        return None
    out = []
    for t in tabs:
        if isinstance(t, dict):
            sig = str(t.get("signature"))
            out.append(sig + ("!" if t.get("checksum_ok") is False else ""))
        else:
            out.append(str(t))
    return out


def warning_codes(r):
    ws = query.get_path(r, "verdict.warnings")
    if not isinstance(ws, list):
        return None
    return [w.get("code") for w in ws if isinstance(w, dict)]


def cpus_tested(r):
    if not query.get_path(r, "cross_cpu"):
        return None
    return "%s of %s" % (query.get_path(r, "cross_cpu.tested"),
                         query.get_path(r, "cross_cpu.cpus"))


def error_count(r):
    return len(r["errors"]) if isinstance(r.get("errors"), list) else None


def _in_source(name, rest):
    return lambda r: query.get_path(source_entry(r, name), rest) \
        if rest else source_entry(r, name)


def source_status(name):
    def get(r):
        s = source_entry(r, name)
        if not isinstance(s, dict):
            return None
        st = s.get("status")
        if st != "ok" and s.get("reason"):
            return "%s (%s)" % (st, s["reason"])
        return st
    return get


def source_cost(unit, pct):
    """A read-cost percentile of a source that is ok (None otherwise)."""
    def per_source(name):
        def get(r):
            s = source_entry(r, name)
            if not isinstance(s, dict) or s.get("status") != "ok":
                return None
            return query.get_path(s, "read_cost.%s.%s" % (unit, pct))
        return get
    return per_source


# A number a report field may be computed with: untrusted's rule (no bool,
# NaN or infinity), the one every tool applies.
is_num = untrusted.is_finite_num


def source_estimate(name):
    """The unbiased estimate of one read (read_cost.estimate_ns): what
    the verdict uses, and the only cost of a source below the TSC's step
    (the TSC under TCG), whose percentiles are null."""
    def get(r):
        s = source_entry(r, name)
        if not isinstance(s, dict) or s.get("status") != "ok":
            return None
        return query.get_path(s, "read_cost.estimate_ns")
    return get


def source_step_bound(name):
    """Below the step: the bound every percentile is under (two steps,
    in ns at the chosen TSC rate); None when the source is above it."""
    def get(r):
        s = source_entry(r, name)
        hz = query.get_path(r, "platform.tsc.freq_chosen.hz")
        if not isinstance(s, dict) or s.get("status") != "ok":
            return None
        rc = s.get("read_cost") if isinstance(s.get("read_cost"), dict) \
            else {}
        step = rc.get("step_ticks")
        if rc.get("below_resolution") is not True or not is_num(step) or \
                not is_num(hz) or hz <= 0:
            return None
        return "< %s (below the %s-tick step)" % (
            fmt_num(round(2 * step * 1e9 / hz, 1)), fmt_num(step))
    return get


def drift_ppm(pair):
    def get(r):
        d = drift_entry(r, pair)
        return abs_or_none(d.get("ppm")) if isinstance(d, dict) else None
    return get


def source_hypervisor(name):
    """The hypervisor a paravirtual clock source belongs to, or None."""
    if name.startswith("kvm"):
        return "kvm"
    if name.startswith("hyperv"):
        return "hyperv"
    return None


# ------------------------------------------------------------ the table

# get: a report path, or a function (per-source/per-pair rows: a function
# of the name that returns one); reads: the paths a function reads; hv: a
# hypervisor, or a function of the source's name.
Spec = collections.namedtuple("Spec", "section label get kind fmt hv reads",
                              defaults=("text", None, None, ()))

FREQ_KEYS = ("cpuid_15", "cpuid_16", "hypervisor_leaf", "pvclock",
             "measured_vs_hpet", "measured_vs_acpi_pm")

HEAD = (
    Spec("Identity", "probe version", "probe.version"),
    Spec("Identity", "boot / phase", boot_phase,
         reads=("probe.boot", "probe.phase")),
    Spec("Identity", "CPU vendor", "platform.cpu.vendor"),
    Spec("Identity", "CPU brand", "platform.cpu.brand"),
    Spec("Identity", "family/model/stepping", family_model,
         reads=("platform.cpu.family", "platform.cpu.model",
                "platform.cpu.stepping")),
    Spec("Identity", "logical CPUs", "platform.cpu.logical_cpus", "num"),
    Spec("Identity", "possible CPUs", "platform.cpu.possible_cpus", "num"),
    Spec("Identity", "firmware", "platform.firmware.vendor"),
    Spec("Identity", "UEFI revision", "platform.firmware.uefi_revision"),
    Spec("Identity", "system", system,
         reads=("platform.smbios.manufacturer", "platform.smbios.product")),
    Spec("Identity", "hypervisor", "platform.hypervisor.name"),
    Spec("Identity", "signatures", signatures,
         reads=("platform.hypervisor.signatures[].signature",
                "platform.hypervisor.signatures[].name",
                "platform.hypervisor.signatures[].leaf")),
    Spec("Capabilities", "invariant TSC", "platform.tsc.invariant", "good"),
    Spec("Capabilities", "RDTSCP", "platform.tsc.rdtscp", "good"),
    Spec("Capabilities", "TSC deadline", "platform.tsc.deadline", "good"),
    Spec("Capabilities", "TSC_ADJUST", "platform.tsc.tsc_adjust"),
    Spec("Capabilities", "kvm-clock", "platform.kvm.clocksource2", "good",
         hv="kvm"),
    Spec("Capabilities", "kvm-clock stable bit", "platform.kvm.stable_bit",
         "good", hv="kvm"),
    Spec("Capabilities", "ACPI tables", acpi_tables,
         reads=("platform.acpi.tables[].signature",
                "platform.acpi.tables[].checksum_ok")),
    Spec("Capabilities", "PM timer width",
         "platform.acpi.pm_timer.width_bits"),
    Spec("TSC frequency", "chosen", "platform.tsc.freq_chosen.hz", "num",
         fmt_hz),
    Spec("TSC frequency", "chosen from", "platform.tsc.freq_chosen.source"),
) + tuple(
    Spec("TSC frequency", k, "platform.tsc.freq_hz." + k, "num", fmt_hz)
    for k in FREQ_KEYS) + (
    Spec("TSC frequency", "disagreement ppm",
         "platform.tsc.freq_disagreement_ppm", "cost"),
)

PER_SOURCE = (
    Spec("Source {name}", "status", source_status, "status",
         hv=source_hypervisor,
         reads=("sources[{name}].status", "sources[{name}].reason")),
    Spec("Source {name}", "read path", "sources[{name}].read_path"),
) + tuple(
    Spec("Source {name}", "%s %s" % (pct, unit), source_cost(unit, pct),
         "cost", reads=("sources[{name}].status",
                        "sources[{name}].read_cost.%s.%s" % (unit, pct)))
    for pct, unit in (("p50", "ns"), ("p99", "ns"), ("p50", "cycles"),
                      ("p99", "cycles"), ("min", "cycles"))) + (
    Spec("Source {name}", "estimate ns", source_estimate, "cost",
         reads=("sources[{name}].status",
                "sources[{name}].read_cost.estimate_ns")),
    Spec("Source {name}", "p50 bound ns", source_step_bound, "text",
         reads=("sources[{name}].status", "platform.tsc.freq_chosen.hz",
                "sources[{name}].read_cost.step_ticks",
                "sources[{name}].read_cost.below_resolution")),
    Spec("Source {name}", "frequency", "sources[{name}].freq_hz", "num",
         fmt_hz),
    Spec("Source {name}", "resolution ns", "sources[{name}].resolution_ns",
         "cost"),
    Spec("Source {name}", "backward steps", "sources[{name}].backward_steps",
         "count"),
)

KVMCLOCK = (
    Spec("kvm-clock", "MSR write cycles", "kvmclock.msr_write_cycles",
         "cost", hv="kvm"),
    Spec("kvm-clock", "MSR read cycles", "kvmclock.msr_read_cycles", "cost",
         hv="kvm"),
    Spec("kvm-clock", "pvclock stable", "kvmclock.pvclock.stable", "good",
         hv="kvm"),
)

PER_DRIFT = (
    Spec("Drift", "{pair} ppm", drift_ppm, "cost",
         reads=("drift[{pair}].ppm",)),
)

TAIL = (
    Spec("Cross-CPU", "CPUs tested", cpus_tested,
         reads=("cross_cpu.tested", "cross_cpu.cpus")),
    Spec("Cross-CPU", "warps", "cross_cpu.warps", "count"),
    Spec("Cross-CPU", "max skew cycles", "cross_cpu.max_skew_cycles", "cost"),
    Spec("Gaps", "count", "gaps.count", "cost"),
    Spec("Gaps", "max ns", "gaps.max_ns", "cost"),
    Spec("Gaps", "total ns", "gaps.total_ns", "cost"),
    Spec("Verdict", "Linux clocksource", "verdict.linux_clocksource",
         "clock"),
    Spec("Verdict", "for kernel", "verdict.linux_kernel"),
    Spec("Verdict", "vDSO", "verdict.vdso", "good"),
    Spec("Verdict", "predicted read ns", "verdict.predicted_read_ns", "cost"),
    Spec("Verdict", "warnings", warning_codes, "warnings",
         reads=("verdict.warnings[].code",)),
    Spec("Verdict", "errors", error_count, "count", reads=("errors",)),
)


def make_field(spec, **names):
    """The Field of one Spec; names fills "{name}"/"{pair}"."""
    get = spec.get
    if isinstance(get, str) and get.startswith("sources[{name}]"):
        get = _in_source(names["name"],
                         get[len("sources[{name}]"):].lstrip("."))
    elif isinstance(get, str):
        get = path(get.format(**names))
    elif names:
        get = get(*names.values())
    hv = spec.hv(*names.values()) if callable(spec.hv) else spec.hv
    return Field(spec.section.format(**names), spec.label.format(**names),
                 get, spec.kind, spec.fmt, hv)


def build_fields(reports, names=None):
    """compare's rows for these reports: the table, with the per-source
    rows for every source (or only those in names: the fleet page's cap)
    and the drift rows for every pair they list."""
    query.clear_index()  # only this table's reports are looked up next
    fields = [make_field(s) for s in HEAD]
    for name in source_names(reports) if names is None else names:
        fields += [make_field(s, name=name) for s in PER_SOURCE]
    fields += [make_field(s) for s in KVMCLOCK]
    for pair in drift_pairs(reports):
        fields += [make_field(s, pair=pair) for s in PER_DRIFT]
    return fields + [make_field(s) for s in TAIL]


def paths_read():
    """Every report path the table reads, per-source and per-pair ones
    with a [] selector (sources[].status): for the schema check."""
    out = []
    for spec in HEAD + PER_SOURCE + KVMCLOCK + PER_DRIFT + TAIL:
        for p in ((spec.get,) if isinstance(spec.get, str) else spec.reads):
            out.append(p.replace("[{name}]", "[]").replace("[{pair}]", "[]"))
    return out
