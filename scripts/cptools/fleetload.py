"""Loading a fleet straight into a database (compare --sqlite/--postgres
with no other output): the inputs are read, verified and turned into rows
by --jobs processes, and this one writes them, keeping no report in
memory.  Same runs, labels, duplicates and rejections as
fleet.load_runs() followed by fleetdb.write_runs().
"""

from . import fleet
from .fleetdb import LayoutCache, run_rows


# What the loading processes share (set before they fork): explicit
# labels and the caller's judge (run -> (kernel_rows, headline, hits)).
_LOAD = {"labels": (), "judge": None, "layouts": None}


def _load_one(item):
    """Read, verify and turn one input into rows (in a worker process)."""
    index, path, from_dir = item
    msgs = []
    run, why = fleet.read_run(path, from_dir, msgs.append)
    out = {"index": index, "path": path, "from_dir": from_dir,
           "messages": msgs, "rejected": None, "rr": None, "hits": None}
    if run is None:
        if why is not None:
            out["rejected"] = [(path, why)]
        return out
    run.input_index = index
    label = fleet.explicit_label(run, _LOAD["labels"])
    run.label = label
    kernel_rows = head = None
    if _LOAD["judge"] is not None:
        kernel_rows, head, out["hits"] = _LOAD["judge"](run)
    out["rr"] = run_rows(run, label, _LOAD["layouts"], kernel_rows, head)
    out["rejected"] = run.watch_rejected
    return out


def ingest(paths, sink, labels=(), warn=lambda msg: None, jobs=1,
           judge=None):
    """Load files and directories straight into a sink, keeping no report
    in memory: what compare --sqlite/--postgres does when no other output
    needs the reports.  jobs processes read, verify and flatten (the CPU
    work); this one writes.  The outcome is the same as load_runs() then
    write_runs(): same runs, labels, duplicates and rejections.

    judge: run -> (kernel_rows, headline, hits) for the kernel set
    (cptools.kernels); hits are the --fail-on matches, returned with the
    run's final label.

    Returns (runs written, [(path, reason)] rejected, duplicates,
    [(label, hits)])."""
    import multiprocessing
    files = fleet.expand_inputs(paths)
    items = [(i, p, d) for i, (p, d) in enumerate(files)]
    _LOAD.update(labels=list(labels), judge=judge, layouts=LayoutCache())
    seen, rejected, dups, need_label, hits = {}, [], 0, [], []
    labels_of = {}
    pool = None
    if jobs > 1 and len(items) >= 64:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap(_load_one, items, chunksize=32)
    else:
        results = map(_load_one, items)
    ok = False
    try:
        for res in results:
            for m in res["messages"]:
                warn(m)
            rr = res["rr"]
            if rr is None:
                rejected += res["rejected"] or []
                continue
            prev = seen.get(rr.run_id)
            if prev is not None and (res["from_dir"] or prev[1]):
                dups += 1
                warn("compare: %s: same run as %s (%s), counted once"
                     % (res["path"], prev[0], rr.run_id))
                continue
            seen.setdefault(rr.run_id, (res["path"], res["from_dir"]))
            rejected += res["rejected"] or []
            if res["hits"]:
                hits.append((rr.run_id, res["hits"]))
            labels_of[rr.run_id] = rr.label
            if rr.label is None:
                need_label.append((rr.run_id, res["path"]))
            sink.add(rr)
        for (rid, _), lab in zip(need_label, fleet.file_labels(
                [p for _, p in need_label])):
            sink.set_label(rid, lab)
            labels_of[rid] = lab
        for p, why in rejected:
            sink.add_rejected(p, why)
        ok = True
    finally:
        if pool is not None:
            pool.terminate() if not ok else pool.close()
            pool.join()
        sink.close(ok)
    return sink.written, rejected, dups, [(labels_of.get(rid), h)
                                          for rid, h in hits]
