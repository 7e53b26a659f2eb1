"""One run as the fleet database's rows (cptools/fleetschema.py's tables):
every value bound as it is (numbers and flags typed, strings capped), the
measurements as one JSON array of values per run with the field list of
its report shape kept once (a layout, named by its SHA-1 so that loaders
agree on it without talking).
"""

import hashlib
import math

from . import fleet
from .flatshape import Shapes
from .longformat import flat_digest, flatten, values_json
from .untrusted import cap


def _num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, int) and not -2 ** 63 <= v < 2 ** 63:
        return float(v)     # SQLite and BIGINT hold 64 bits
    return v


def _bool(v):
    return int(v) if isinstance(v, bool) else None


def _text(v):
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return cap(v)


class RunRows:
    """One run's rows for every per-run table, and its measurement layout
    (keys: [(section, name, field)], named by layout_id)."""

    __slots__ = ("run_id", "label", "rows", "layout_id", "layout_keys",
                 "input_index", "from_dir", "path", "policy", "digest",
                 "claimed_run_id", "collides_with", "page")


def rename(rr, run_id, claimed_run_id, other_file):
    """rr's rows under run_id, flagged as a report that claimed
    claimed_run_id, which other_file's report holds (every table's first
    column is the run_id)."""
    rr.rows = {name: [(run_id,) + tuple(row[1:]) for row in rows]
               for name, rows in rr.rows.items()}
    rr.run_id, rr.claimed_run_id, rr.collides_with = \
        run_id, claimed_run_id, other_file
    rr.rows["run_id_collisions"] = [(run_id, _text(claimed_run_id),
                                     _text(rr.path), _text(other_file))]


def _layout_id(keys):
    h = hashlib.sha1()
    for s, n, f in keys:
        h.update(("%s\x1f%s\x1f%s\x1e" % (s, n, f)).encode("utf-8",
                                                        "replace"))
    return h.hexdigest()[:20]


class LayoutCache:
    """Layout ids by key list: reports of one probe version share one.
    The few layouts seen last are compared first (the very list a shape's
    flatten gives, else list equality, no hashing of some 800 freshly
    built key strings: half the cost of the lookup; a fleet's reports
    mostly share a handful of layouts).  It keeps the fleet's report
    shapes too (flatshape.Shapes): what a loading process learns of the
    fleet, in one place."""

    RECENT = 8

    def __init__(self):
        self.ids = {}
        self.recent = []    # [(keys, id)], the latest first
        self.shapes = Shapes()

    def get(self, keys):
        n = len(keys)
        for i, (k, lid) in enumerate(self.recent):
            if k is keys or (len(k) == n and k == keys):
                if i:
                    self.recent.insert(0, self.recent.pop(i))
                return lid, False
        t = tuple(keys)
        lid = self.ids.get(t)
        new = lid is None
        if new:
            lid = self.ids[t] = _layout_id(keys)
        self.recent.insert(0, (keys, lid))
        del self.recent[self.RECENT:]
        return lid, new


def _vals_json(vals):
    return values_json(vals, _text)


def run_rows(run, label, layouts, kernel_rows=None, headline_text=None):
    """RunRows for a fleet.Run (label may be None: set later).

    kernel_rows: the by_kernel rows (cptools.kernels.table_rows), else
    they are made from the report's own by_kernel."""
    from . import kernels
    g = run.get
    h = fleet.headline(run)
    rid = run.run_id
    rows = {}
    rows["runs"] = [(
        rid, _text(label), _text(run.path), _text(h["hypervisor"]),
        _text(g("platform.hypervisor.signature")),
        _text(g("platform.cpu.vendor")), _text(g("platform.cpu.brand")),
        _num(g("platform.cpu.logical_cpus")),
        _text(g("platform.smbios.manufacturer")),
        _text(g("platform.smbios.product")),
        _text(g("platform.firmware.vendor")), _text(g("probe.version")),
        _text(g("probe.boot")), _bool(g("platform.tsc.invariant")),
        _num(g("platform.tsc.freq_chosen.hz")), _text(run.verified),
        _text(g("probe.started_utc")),
        None)]      # ingested_utc: the sink sets it when it writes
    rows["verdicts"] = [(
        rid, _text(h["linux_clocksource"]), _text(h["linux_kernel"]),
        _bool(h["vdso"]), _num(h["predicted_read_ns"]),
        _text(h["confidence"]), _text(kernels.risk_text(g("verdict.risk"))),
        _text(headline_text))]
    if kernel_rows is None:
        kernel_rows = kernels.table_rows(kernels.ranges_of(run.report))
    seen_from = set()
    bk = []
    for r in kernel_rows:
        if r[0] in seen_from:   # a hostile report's repeated range
            continue
        seen_from.add(r[0])
        bk.append((rid,) + tuple(_text(x) if i not in (3, 4) else
                                 (_bool(x) if i == 3 else _num(x))
                                 for i, x in enumerate(r)))
    rows["by_kernel"] = bk
    srcs = g("sources")
    seen = set()
    out = []
    for s in srcs if isinstance(srcs, list) else []:
        if not isinstance(s, dict) or not s.get("name") or \
                str(s["name"]) in seen:
            continue
        seen.add(str(s["name"]))
        rc = s.get("read_cost") if isinstance(s.get("read_cost"),
                                              dict) else {}
        ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
        cy = rc.get("cycles") if isinstance(rc.get("cycles"), dict) else {}
        out.append((
            rid, _text(s["name"]), _text(s.get("status")),
            _text(s.get("reason")), _text(s.get("read_path")),
            _num(ns.get("p50")), _num(ns.get("p99")), _num(cy.get("p50")),
            _num(cy.get("p99")), _num(rc.get("estimate_ns")),
            _num(s.get("backward_steps"))))
    rows["sources"] = out
    rows["warnings"] = [(
        rid, _text(w.get("code")), _text(w.get("severity")),
        _text(w.get("message")), _text(w.get("evidence")),
        _text(w.get("fix"))) for w in h["warnings"]]
    watch = {}
    for seq, rec in run.watch:      # a repeated seq: the later one
        if isinstance(seq, int) and not isinstance(seq, bool):
            watch[seq] = (rid, seq, _num(rec.get("elapsed_tsc_s")),
                          _num(rec.get("elapsed_rtc_s")))
    rows["watch"] = [watch[k] for k in sorted(watch)]
    keys, vals = layouts.shapes.flatten(run.report)
    lid, new = layouts.get(keys)
    text = _vals_json(vals)
    digest = run.cached_digest()
    if digest is None:      # the flatten made here names the report too
        digest = run.set_digest(flat_digest(lid, text, run.report))
    if run.watch:           # the log's watch records, after the report's
        wkeys, wvals = flatten({}, run.watch)
        keys, vals = keys + wkeys, vals + wvals
        lid, new = layouts.get(keys)
        text = _vals_json(vals)
    rows["measurement_values"] = [(rid, lid, text)]
    rows["run_digests"] = [(rid, digest, _text(run.path))]
    rows["run_id_collisions"] = [] if run.claimed_run_id is None else [
        (rid, _text(run.claimed_run_id), _text(run.path),
         _text(run.collides_with))]
    rr = RunRows()
    rr.page = None      # the fleet page's row, when a load makes it
    rr.run_id, rr.label, rr.rows = rid, label, rows
    rr.path, rr.digest = run.path, digest
    rr.claimed_run_id, rr.collides_with = run.claimed_run_id, \
        run.collides_with
    rr.layout_id, rr.layout_keys = lid, (keys if new else None)
    return rr


def layout_rows(lid, keys):
    return [(lid, i, s, n, f, fleet.unit_of(s, f))
            for i, (s, n, f) in enumerate(keys)]


