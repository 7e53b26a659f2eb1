"""Whether a change kept the x86 probe's behaviour: two reports booted under
TCG with -icount shift=0,sleep=off and a virtual-time RTC, compared field by
field, every difference either in a named class (docs/architecture.md,
"Checking that a refactor kept behaviour") or UNEXPECTED.

Under -icount virtual time is the instruction count, and with `-rtc
clock=vm` the RTC follows it too: two boots of one binary give the same
report to the byte (tests/integration/test_sources.py holds the suite's
two boots to that).  Two binaries whose measured windows run the same
instructions differ only where a figure depends on how many instructions
ran *before* it or on the machine's wall clock.  Those classes are named
here, one pattern list each; a difference outside them is a change of
behaviour.

    python3 scripts/cptools/icountdiff.py compare BASE [HEAD]
        builds the direct-boot ELF of git revision BASE (and HEAD, default:
        the working tree's build/clockprobe.elf) in a private worktree under
        build/icount/, boots both with the same argv, prints every
        difference with its class; exit 0 when none is UNEXPECTED, 1 when
        one is, 2 when a build or boot failed (`make icount-compare
        BASE=REV`).
    python3 scripts/cptools/icountdiff.py reports A.json B.json
        the same comparison of two reports already booted.
"""

import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cptools import paths, process, untrusted  # noqa: E402

# The QEMU options that make a boot a function of its binary alone: virtual
# time is the instruction count; the RTC starts at a fixed date and runs on
# virtual time (with the default host clock the RTC's second edge, which
# the probe waits for, falls at a different instruction each boot).
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off",
               "-rtc", "base=2026-01-01T00:00:00,clock=vm"]

# class -> (why, patterns).  A pattern matches a field's dotted path with
# every list index written [] ("probe.stages[].elapsed_ms").
CLASSES = (
    ("identity", "the run's name: a hash over the build and the boot",
     ["probe.run_id"]),
    ("wall", "the host's wall clock or the firmware's own timing (OVMF "
     "polls host-timed devices), not the probe's windows",
     ["probe.started_utc", "probe.elapsed_ms", "probe.stages[].elapsed_ms",
      "cross_cpu.elapsed_ms"]),
    ("stamp", "absolute timebase stamps: the instructions before them",
     ["timers.lapic_oneshot.calibration.tsc0",
      "timers.lapic_oneshot.calibration.tsc1",
      "timers.lapic_oneshot.first_shots[].due_tsc",
      "timers.lapic_oneshot.first_shots[].handler_tsc"]),
    ("phase", "windows against a slow reference (PM timer, PIT, HPET): "
     "where the window starts within the reference's tick decides one "
     "tick more or less",
     ["platform.tsc.freq_windows.*", "platform.tsc.freq_hz.measured_vs_*",
      "platform.tsc.freq_cross_check.*", "drift[].*",
      "verdict.inputs.drift_ppm.*", "verdict.inputs.freq_references_ppm"]),
    ("rate", "follows the chosen timebase rate, which the phase class "
     "moves: allowed only when platform.tsc.freq_chosen.hz differs",
     ["platform.tsc.freq_chosen.hz", "sources[].freq_hz",
      "verdict.inputs.tsc_freq_measured_hz", "timers.lapic_oneshot.apic_hz",
      "gaps.threshold_ns", "gaps.reads", "*_ns", "*.ns"]),
    ("rounds", "fixed-length cross-CPU windows whose round count depends "
     "on where the vCPUs' slices fall",
     ["cross_cpu.all_cpus.*"]),
)
RATE_KEY = "platform.tsc.freq_chosen.hz"
ABSENT = "<absent>"


def leaves(value, path=""):
    """Every scalar of a report as (dotted path with indices, value)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, "%s.%s" % (path, k) if path else k)
    elif isinstance(value, list):
        if not value:
            yield path, []
        for i, v in enumerate(value):
            yield from leaves(v, "%s[%d]" % (path, i))
    else:
        yield path, value


def differences(a, b):
    """[(path, a's value, b's value)] for every leaf that differs; a leaf
    only one report has is ABSENT in the other."""
    la, lb = dict(leaves(a)), dict(leaves(b))
    return [(p, la.get(p, ABSENT), lb.get(p, ABSENT))
            for p in sorted(set(la) | set(lb))
            if la.get(p, ABSENT) != lb.get(p, ABSENT)]


def _shape(path):
    return re.sub(r"\[\d+\]", "[]", path)


def class_of(path, rate_moved):
    """The named class a differing field belongs to, or None."""
    shape = _shape(path)
    for name, _why, patterns in CLASSES:
        if name == "rate" and not rate_moved:
            continue
        if any(fnmatch.fnmatchcase(shape, p) for p in patterns):
            return name
    return None


def classify(a, b):
    """{"named": {class: [paths]}, "unexpected": [(path, va, vb)]}.  A
    field one report lacks is always unexpected: a refactor that keeps
    behaviour keeps every name."""
    diffs = differences(a, b)
    rate_moved = any(p == RATE_KEY for p, _, _ in diffs)
    named, unexpected = {}, []
    for p, va, vb in diffs:
        cls = None if ABSENT in (va, vb) else class_of(p, rate_moved)
        if cls is None:
            unexpected.append((p, va, vb))
        else:
            named.setdefault(cls, []).append(p)
    return {"named": named, "unexpected": unexpected}


def render(result, out=sys.stdout):
    named, unexpected = result["named"], result["unexpected"]
    for name, why, _ in CLASSES:
        if name in named:
            out.write("named %-8s %3d field(s): %s\n" % (name, len(named[name]), why))
    for p, va, vb in unexpected:
        out.write("UNEXPECTED %s\n" % untrusted.term_text("%s: %r -> %r" % (p, va, vb)))
    out.write("%d difference(s): %d named, %d unexpected\n" % (
        sum(map(len, named.values())) + len(unexpected),
        sum(map(len, named.values())), len(unexpected)))


def _load(path):
    """A report from a .json file or a serial log (frame.load_report_file:
    size-capped, framed copies verified); None with the reason printed."""
    from cptools import frame
    report, why = frame.load_report_file(path)
    if report is None:
        print("icount-compare: %s: %s" % (path, why), file=sys.stderr)
    return report


def build_rev(rev, where):
    """The direct-boot ELF of git revision `rev`, built in a private
    worktree at `where`; (path, None) or (None, why)."""
    repo = paths.REPO
    # A worktree `make clean` removed is still registered: forget it first.
    subprocess.run(["git", "-C", repo, "worktree", "prune"], capture_output=True)
    if not os.path.isdir(where):
        p = subprocess.run(["git", "-C", repo, "worktree", "add", "-q", "--detach",
                            where, rev], capture_output=True, text=True)
        if p.returncode != 0:
            return None, "git worktree add %s: %s" % (rev, p.stderr.strip())
    else:
        p = subprocess.run(["git", "-C", where, "checkout", "-q", "--detach", rev],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None, "git checkout %s: %s" % (rev, p.stderr.strip())
    p = subprocess.run(["make", "-s", "-j2", "build/clockprobe.elf"], cwd=where,
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, "make at %s failed: %s" % (rev, (p.stderr or p.stdout)[-1500:])
    return os.path.join(where, "build", "clockprobe.elf"), None


def boot_icount(elf, timeout=300):
    """One direct boot under ICOUNT_ARGS; (report, None) or (None, why)."""
    from cptools.boot import boot_probe
    pb = boot_probe(elf, boot="pvh", timeout=timeout, extra=ICOUNT_ARGS)
    return pb.report, pb.error


def main(argv):
    if len(argv) == 3 and argv[0] == "reports":
        pair = [_load(p) for p in argv[1:]]
        if None in pair:
            return 2
        result = classify(*pair)
    elif 2 <= len(argv) <= 3 and argv[0] == "compare":
        top = os.path.join(paths.REPO, "build", "icount")
        os.makedirs(top, exist_ok=True)
        elfs = []
        for i, rev in enumerate(argv[1:]):
            elf, why = build_rev(rev, os.path.join(top, "rev%d" % i))
            if elf is None:
                print("icount-compare: %s" % why, file=sys.stderr)
                return 2
            elfs.append(elf)
        if len(elfs) == 1:
            elfs.append(os.path.join(paths.REPO, "build", "clockprobe.elf"))
        reports = []
        for elf in elfs:
            with process.ends_runs():   # a SIGTERM stops QEMU too
                report, why = boot_icount(elf)
            if report is None:
                print("icount-compare: %s: no report: %s" % (elf, why), file=sys.stderr)
                return 2
            reports.append(report)
        with tempfile.NamedTemporaryFile("w", dir=top, prefix="pair-", suffix=".json",
                                         delete=False) as f:
            json.dump(reports, f)
            print("reports kept in %s" % f.name)
        result = classify(*reports)
    else:
        print(__doc__.split("\n\n", 2)[2], file=sys.stderr)
        return 2
    render(result)
    return 1 if result["unexpected"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
