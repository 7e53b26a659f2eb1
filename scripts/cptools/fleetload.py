"""Loading a fleet straight into a database (compare --sqlite/--postgres
with no other output): the inputs are read, verified and turned into rows
by --jobs processes, and this one writes them, keeping no report in
memory.  Same runs, labels, duplicates and rejections as
fleet.load_runs() followed by fleetdb.write_runs().
"""

from . import fleet, inputs
from .fleetrows import LayoutCache, _text, rename, run_rows


# What the loading processes share (set before they fork): explicit
# labels and the caller's judge (run -> (kernel_rows, headline, hits)).
_LOAD = {"judge": None, "layouts": None}


def _load_one(item):
    """Read, verify and turn one input into rows (in a worker process):
    every report of the file (fleet.read_file_runs, through
    cptools.inputs), each as RunRows."""
    index, path, from_dir, refusal = item
    msgs = []
    runs, rejected = fleet.read_file_runs(path, from_dir, index,
                                          msgs.append, False, refusal)
    out = {"index": index, "path": path, "from_dir": from_dir,
           "messages": msgs, "rejected": rejected, "runs": []}
    for run in runs:
        # The label is settled in the writing process (Labeller: two runs
        # of one log under one --label); probe.label is the run's own.
        label = fleet.explicit_label(run, ())
        kernel_rows = head = hits = None
        if _LOAD["judge"] is not None:
            kernel_rows, head, hits = _LOAD["judge"](run)
        rr = run_rows(run, label, _LOAD["layouts"], kernel_rows, head)
        rr.input_index, rr.from_dir = index, from_dir
        out["runs"].append((rr, hits))
    return out


def ingest(paths, sink, labels=(), warn=lambda msg: None, jobs=1,
           judge=None):
    """Load files and directories straight into a sink, keeping no report
    in memory: what compare --sqlite/--postgres does when no other output
    needs the reports.  jobs processes read, verify and flatten (the CPU
    work); this one writes.  The outcome is the same as load_runs() then
    write_runs(): same runs (every report of every log), labels,
    duplicates, rejections (files refused by cptools.inputs included) and
    run_id collisions (fleet.Placer: kept as RUN_ID#digest and flagged).

    judge: run -> (kernel_rows, headline, hits) for the kernel set
    (cptools.kernels); hits are the --fail-on matches, returned with the
    run's final label.

    Returns (runs written, [(path, reason)] rejected, duplicates,
    [(label, hits)]); sink.flagged counts the collisions."""
    import multiprocessing
    items = [(i, p, d, why) for i, (p, d, why) in enumerate(
        inputs.input_files(paths, fleet.LOG_SUFFIXES))]
    _LOAD.update(judge=judge, layouts=LayoutCache())
    placer = fleet.Placer(warn)
    labeller = fleet.Labeller(labels)
    rejected, dups, need_label, hits = [], 0, [], []
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
            rejected += res["rejected"]
            for rr, run_hits in res["runs"]:
                placed = placer.place(rr.run_id, rr.digest, res["path"],
                                      res["from_dir"])
                if placed is None:
                    dups += 1
                    continue
                if placed[1] is not None:
                    rename(rr, *placed)
                lab = labeller.explicit(_LabelView(rr))
                if lab is not None and lab != rr.label:
                    rr.label = lab
                    rr.rows["runs"] = [(rr.run_id, _text(lab)) +
                                       tuple(rr.rows["runs"][0][2:])]
                if run_hits:
                    hits.append((rr.run_id, run_hits))
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


class _LabelView:
    """What Labeller reads of a run, from its rows: the input's place and
    the label the run gave itself (probe.label, already capped)."""

    def __init__(self, rr):
        self.input_index = rr.input_index
        self.own = rr.label

    def get(self, path):
        return self.own
