"""Predicted next to actual: a guest report (clockprobe-guest, inside a
running Linux guest) joined with a probe report of the same VM (issue 27).

The probe predicts, beneath any OS, what a Linux kernel will do on the VM
(verdict.by_kernel[]: clocksource, vDSO, available list, the race it may
lose); the guest report says what the running kernel did and what a read
costs there.  pair() matches them (the SMBIOS UUID, else the label), join()
compares, item by item:

  clocksource  by_kernel's linux_clocksource for the guest's release  vs
               clocksource.current
  available    its available_clocksource                              vs
               clocksource.available
  vdso         its vdso                                               vs
               measurements[current].vdso.in_vdso (counted under seccomp)
  read_ns      sources[cs].read_cost.estimate_ns, plus the verdict's
               syscall estimate when there is no vDSO                 vs
               the median clock_gettime() through the vDSO entry there
  risk         by_kernel's risk (a race the TSC can lose)            vs
               whether the guest's log shows it lost (risk_explains)

A disagreement is a finding that quotes the kernel's log line behind the
guest's choice.  Read costs are judged by class only (COST_BAND): the probe
times the bare read beneath the OS, the guest a whole clock_gettime() call
(the vDSO's own arithmetic, or the syscall, on top), and under emulation
both are emulation costs; what must hold is the order of magnitude, the
difference between a vDSO read (tens of ns) and a trapped one (hundreds to
tens of thousands).

verdict_for_kernel() and risk_explains() are the rules scripts/linux-guest
checks real kernels with; they live here so that the harness and compare
judge a guest the same way.
"""

import re

from . import query, untrusted
from .untrusted import cap

# A read cost within this factor of the prediction is of the predicted
# class.  Measured under QEMU TCG on Debian 6.1/6.12 guests: a vDSO TSC
# call 4-6x the probe's bare TSC read, hpet/acpi_pm syscalls 1.7-3x the
# probe's read plus its syscall estimate; the acpi_pm fallback against a
# predicted tsc 80x.
COST_BAND = 10.0

_VERSION_RE = re.compile(r"(\d+)\.(\d+)")


def kernel_version(release):
    """(6, 12) from "6.12", "6.12.95+deb12-amd64", "6.12-deb13" or
    "7.3~rc7": the major and minor numbers, what by_kernel ranges name."""
    m = _VERSION_RE.match(str(release or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def verdict_for_kernel(report, kernel):
    """The verdict.by_kernel[] entry whose [from, to] holds `kernel` (a
    release or a version), or the main prediction when by_kernel is
    missing and the main one is for that kernel.  None when none holds it.
    """
    verdict = _dict(report.get("verdict") if isinstance(report, dict)
                    else None)
    want = kernel_version(kernel)
    if want is None:
        return None
    by_kernel = verdict.get("by_kernel")
    for entry in by_kernel if isinstance(by_kernel, list) else []:
        if not isinstance(entry, dict):
            continue
        lo = kernel_version(entry.get("from") or "0.0") or (0, 0)
        hi = kernel_version(entry.get("to")) if entry.get("to") else None
        if lo <= want and (hi is None or want <= hi):
            return entry
    if verdict.get("linux_kernel") and \
            kernel_version(verdict["linux_kernel"]) == want:
        return {"linux_clocksource": verdict.get("linux_clocksource"),
                "vdso": verdict.get("vdso"),
                "from": verdict["linux_kernel"], "to": verdict["linux_kernel"]}
    return None


# What a guest's dmesg shows when it lost one of the races the verdict
# names in risk.reason (docs/verdict-rules.md, "Races").
_JIFFIES_SKEW_RE = re.compile(r"'refined-jiffies' wd_nsec|"
                              r"watchdog 'refined-jiffies'")
_DETECTED_MHZ_RE = re.compile(r"tsc: Detected (\d+\.\d+) MHz processor")


def risk_explains(risk, guest, report=None):
    """True when `guest` ({current, available: [names], dmesg: [lines]})
    ended on the outcome of `risk` (a by_kernel[] risk object) and its
    dmesg shows that race lost: refined-jiffies watching when the TSC was
    marked unstable, or a TSC rate more than 10 % away from the probe's
    measured one (or the kernel's own "PIT calibration deviates"), or the
    rewritten watchdog's "unstable due to frequency skew"."""
    if not risk or guest.get("current") != risk.get("linux_clocksource"):
        return False
    avail = risk.get("available_clocksource")
    if avail is not None and (not isinstance(avail, str) or avail.split()
                              != (guest.get("available") or [])):
        return False
    dmesg = [ln for ln in guest.get("dmesg") or [] if isinstance(ln, str)]
    demoted = any("Marking TSC unstable due to clocksource watchdog" in ln
                  for ln in dmesg)
    if risk.get("reason") == "jiffies_watchdog":
        return demoted and any(_JIFFIES_SKEW_RE.search(ln) for ln in dmesg)
    if risk.get("reason") == "watchdog_short_round":
        return demoted and any("unstable due to frequency skew" in ln
                               for ln in dmesg)
    if risk.get("reason") == "tsc_calibration":
        if any("PIT calibration deviates" in ln for ln in dmesg):
            return demoted
        measured = untrusted.finite_or_none(_get(report or {},
                             "verdict.inputs.tsc_freq_measured_hz")) or 0
        for ln in dmesg:
            m = _DETECTED_MHZ_RE.search(ln)
            if m and measured and abs(float(m.group(1)) * 1e6 - measured) \
                    > measured * 0.10:
                return demoted
    return False


# ---------------------------------------------------------------- pairing

def _get(report, path):
    try:
        return query.get_path(report, path)
    except (ValueError, TypeError):
        return None


def _dict(v):
    """v when it is an object, else {}: a probe report is read here as it
    is (only its limits checked), so a member of the wrong type counts as
    absent instead of failing the pairing."""
    return v if isinstance(v, dict) else {}


def _line(event):
    """An event's kernel log line, as text (the schema does not require
    it)."""
    return cap(str(event.get("line", "(no line)")), 2000)


def identity(report, guest):
    """(uuid, label) of a report: platform.smbios.uuid (both kinds), and
    guest.label or probe.label."""
    uuid = _get(report, "platform.smbios.uuid")
    label = _get(report, "guest.label" if guest else "probe.label")
    uuid = uuid.lower() if isinstance(uuid, str) and uuid else None
    label = label if isinstance(label, str) and label else None
    return uuid, label


def pair(guests, probes):
    """[(guest run, probe run or None, paired_by)] for fleet Runs: the
    first probe report with the guest's SMBIOS UUID, else the first with
    its label (guest.label = probe.label); paired_by "smbios_uuid",
    "label" or None."""
    out = []
    ids = [identity(p.report, False) for p in probes]
    for g in guests:
        uuid, label = identity(g.report, True)
        found = None
        if uuid:
            found = next((p for p, (u, _) in zip(probes, ids) if u == uuid),
                         None)
            if found is not None:
                out.append((g, found, "smbios_uuid"))
                continue
        if label:
            found = next((p for p, (_, lab) in zip(probes, ids)
                          if lab == label), None)
        out.append((g, found, "label" if found is not None else None))
    return out


# ------------------------------------------------------------------- join

def _measurement(guest, name):
    for m in guest.get("measurements") or []:
        if isinstance(m, dict) and m.get("clocksource") == name and \
                m.get("status") == "ok":
            return m
    return None


def _events(guest):
    ev = _get(guest, "history.events")
    return [e for e in ev if isinstance(e, dict)] if isinstance(ev, list) \
        else []


def predicted_cost_ns(probe, clocksource, vdso):
    """The probe's estimate of one read of `clocksource` beneath the OS,
    plus its syscall estimate when the read is no vDSO one; None when the
    probe did not measure that source."""
    src = _get(probe, "sources[%s]" % clocksource) if clocksource else None
    if not isinstance(src, dict) or src.get("status") != "ok":
        return None
    ns = untrusted.finite_or_none(_get(src, "read_cost.estimate_ns"))
    if ns is None:
        ns = untrusted.finite_or_none(_get(src, "read_cost.ns.p50"))
    if ns is None:
        return None
    if vdso is False:
        ns += untrusted.finite_or_none(_get(probe, "verdict.syscall_overhead_ns_estimate")) or 0
    return ns


def actual_cost_ns(m):
    """One clock_gettime() on a measurement: the median of the bracketed
    calls through the vDSO entry (robust to a loaded host, unlike a batch
    mean), else the batch mean, else the syscall's."""
    if not m:
        return None
    for path in ("vdso.cost.ns.p50", "vdso.cost.batch_ns",
                 "syscall.cost.ns.p50", "syscall.cost.batch_ns"):
        v = untrusted.finite_or_none(_get(m, path))
        if v is not None:
            return v
    return None


def kernel_range(entry):
    lo, hi = entry.get("from") or "?", entry.get("to")
    return "%s and later" % lo if hi is None else "%s-%s" % (lo, hi)


def why_line(guest, predicted, actual):
    """The kernel's log line behind the guest's choice of `actual` when
    the probe predicted `predicted`: a clocksource= override on the command
    line, else the last line that demoted a source (the watchdog, an
    unsynchronized or warped TSC, an override that was refused), the one
    about the predicted source first, else the switch to `actual`."""
    cmdline = _get(guest, "kernel.cmdline") or ""
    m = re.search(r"(?:^|\s)clocksource=(\S+)", cmdline)
    events = _events(guest)
    if m and m.group(1) == actual:
        override = [e for e in events if e.get("kind") == "override"]
        return "clocksource=%s on the kernel command line%s" % (
            actual, ("; `%s`" % _line(override[-1])) if override else "")
    demoting = [e for e in events if e.get("kind") in (
        "clocksource_unstable", "tsc_unstable", "tsc_warp", "override")]
    related = [e for e in demoting if str(e.get("clocksource") or "")
               .split("-")[0] == str(predicted or "").split("-")[0]]
    for pick in (related, demoting):
        if pick:
            return "`%s`" % _line(pick[-1])
    switched = [e for e in events if e.get("kind") == "switched"
                and e.get("clocksource") == actual]
    if switched:
        return "`%s`" % _line(switched[-1])
    status = _get(guest, "history.status")
    if status != "ok":
        return "no kernel log (%s)" % (_get(guest, "history.reason") or status)
    return None


def _item(name, predicted, actual, agree, note=None):
    return {"item": name, "predicted": predicted, "actual": actual,
            "agree": agree, "note": note}


def join(guest, probe):
    """Compare one guest report with the probe report of the same VM.

    Returns {kernel_release, kernel_range, items: [{item, predicted,
    actual, agree (True/False/None: not judged), note}], per_source:
    [{clocksource, predicted_read_ns, actual_ns, actual_in_vdso, ratio}],
    findings: [text]}."""
    release = _get(guest, "kernel.release")
    entry = verdict_for_kernel(probe, release) if release else None
    current = _get(guest, "clocksource.current")
    available = _get(guest, "clocksource.available") or []
    out = {"kernel_release": release, "kernel_range": None, "items": [],
           "per_source": [], "findings": []}
    items, findings = out["items"], out["findings"]
    if entry is None:
        findings.append("the probe report has no prediction for Linux %s"
                        % (release or "(unknown release)"))
        return out
    out["kernel_range"] = kernel_range(entry)
    facts = {"current": current, "available": available,
             "dmesg": _get(guest, "history.lines") or []}
    risk = entry.get("risk") if isinstance(entry.get("risk"), dict) else None
    risk_true = bool(risk) and risk_explains(risk, facts, probe)
    judged = dict(risk) if risk_true else entry

    predicted = judged.get("linux_clocksource")
    ok = predicted == current if current else None
    note = None
    if risk_true:
        note = "the race the probe named (%s) was lost: %s" % (
            risk.get("reason"), why_line(guest, entry.get(
                "linux_clocksource"), current))
    items.append(_item("clocksource", predicted, current, ok, note))
    if ok is False:
        why = why_line(guest, predicted, current)
        findings.append("the probe predicted %s for Linux %s (its "
                        "prediction for %s); the guest runs %s%s"
                        % (predicted, release, out["kernel_range"], current,
                           (" since " + why) if why else ""))

    want_avail = judged.get("available_clocksource")
    if want_avail is None and kernel_version(
            _get(probe, "verdict.linux_kernel")) == kernel_version(release):
        want_avail = _get(probe, "verdict.available_clocksource")
    if not isinstance(want_avail, str):
        want_avail = None       # absent, or no list of names
    if want_avail is not None:
        ok_av = want_avail.split() == list(available)
        items.append(_item("available", want_avail, " ".join(available),
                           ok_av))
        if not ok_av:
            findings.append("the probe predicted available_clocksource "
                            "'%s'; the guest lists '%s'"
                            % (want_avail, " ".join(available)))

    m = _measurement(guest, current) if current else None
    in_vdso = _get(m, "vdso.in_vdso") if m else None
    want_vdso = judged.get("vdso")
    if isinstance(want_vdso, bool):
        ok_v = (want_vdso == in_vdso) if isinstance(in_vdso, bool) else None
        items.append(_item("vdso", want_vdso, in_vdso, ok_v,
                           None if isinstance(in_vdso, bool) else
                           _get(m, "vdso.check_reason") if m else
                           "the current clocksource was not measured"))
        if ok_v is False:
            findings.append("the probe predicted %s (%s); the guest's "
                            "clock_gettime on %s %s" % (
                                "a vDSO read" if want_vdso else
                                "a syscall per read", predicted, current,
                                "stays in the vDSO" if in_vdso else
                                "enters the kernel on every call"))

    want_ns = predicted_cost_ns(probe, predicted, want_vdso)
    got_ns = actual_cost_ns(m)
    ratio = got_ns / want_ns if want_ns and got_ns is not None else None
    ok_c = None if ratio is None else (1 / COST_BAND <= ratio <= COST_BAND)
    items.append(_item("read_ns", want_ns, got_ns, ok_c,
                       None if ratio is None else "x%.2f" % ratio))
    if ok_c is False:
        findings.append("one clock_gettime() on %s costs %s ns in the "
                        "guest, x%.1f the %s ns the probe predicted"
                        % (current, got_ns, ratio, fmt(want_ns)))

    if risk:
        items.append(_item("risk", risk.get("reason"),
                           "came true" if risk_true else "did not come true",
                           None, risk.get("note")))
    else:
        items.append(_item("risk", None, None, None, "the probe named none"))

    for meas in guest.get("measurements") or []:
        if not isinstance(meas, dict):
            continue
        name = meas.get("clocksource")
        vd = _get(meas, "vdso.in_vdso")
        p_ns = predicted_cost_ns(probe, name, vd)
        a_ns = actual_cost_ns(meas)
        out["per_source"].append({
            "clocksource": name, "status": meas.get("status"),
            "switched": meas.get("switched"),
            "predicted_read_ns": p_ns, "actual_ns": a_ns,
            "actual_in_vdso": vd,
            "actual_syscall_ns": untrusted.finite_or_none(_get(meas, "syscall.cost.ns.p50")),
            "ratio": (a_ns / p_ns) if p_ns and a_ns is not None else None})
    return out


def join_all(guests, probes):
    """[{guest, probe, paired_by, join}] for fleet Runs (probe and join
    None when no probe report matched)."""
    out = []
    for g, p, how in pair(guests, probes):
        out.append({"guest": g, "probe": p, "paired_by": how,
                    "join": join(g.report, p.report) if p else None})
    return out


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "%.1f" % v if v < 1000 else "%.0f" % v
    return str(v)
