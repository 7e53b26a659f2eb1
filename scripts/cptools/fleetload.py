"""Loading a fleet straight into a database (compare --sqlite/--postgres
with no other output): the inputs are read, verified and turned into rows
by --jobs processes, and this one writes them, keeping no report in
memory.  Same runs, labels, duplicates and rejections as
fleet.load_runs() followed by fleetdb.write_runs().
"""

import pickle
import traceback

from . import fleet
from .fleetrows import LayoutCache, _text, rename, run_rows


# What the loading processes share (set before they fork): the caller's
# judge (run -> (kernel_rows, headline, hits, page hits)), and whether
# each run's fleet page row is made (page: the report is dropped after).
_LOAD = {"judge": None, "layouts": None, "page": False}


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
        kernel_rows = head = hits = page_hits = None
        if _LOAD["judge"] is not None:
            kernel_rows, head, hits, page_hits = _LOAD["judge"](run)
        rr = run_rows(run, label, _LOAD["layouts"], kernel_rows, head)
        rr.input_index, rr.from_dir = index, from_dir
        if _LOAD["page"]:
            from .fleetgroups import page_row
            rr.page = page_row(run, head, page_hits)
        out["runs"].append((rr, hits))
    return out


def ingest(paths, sink, labels=(), warn=lambda msg: None, jobs=1,
           judge=None, page=False, progress=None):
    """Load files and directories straight into a sink, keeping no report
    in memory: what compare --sqlite/--postgres does when no other output
    needs the reports.  jobs processes read, verify and flatten (the CPU
    work); this one writes.  The outcome is the same as load_runs() then
    write_runs(): same runs (every report of every log), labels,
    duplicates, rejections (files refused by cptools.inputs included) and
    run_id collisions (fleet.Placer: kept as RUN_ID#digest and flagged).

    judge: run -> (kernel_rows, headline, hits, page hits) for the
    kernel set (cptools.kernels); hits are the --fail-on matches,
    returned with the run's final label.  page: each run's fleet page row
    is made too (RunRows.page, for fleetpage.PageSink).  progress: a
    callable(k, n) told after each of the n inputs (cptools.progress on
    a terminal; warn clears its line before a message).

    Returns (runs written, [(path, reason)] rejected, duplicates,
    [(label, hits)]); sink.flagged counts the collisions."""
    import multiprocessing
    # fleet.input_files: a folder's framed logs before its bare .json,
    # so the verified copy of a run is the one kept (load_runs alike).
    items = [(i, p, d, why) for i, (p, d, why) in enumerate(
        fleet.input_files(paths))]
    _LOAD.update(judge=judge, layouts=LayoutCache(), page=page)
    placer = fleet.Placer(warn)
    labeller = fleet.Labeller(labels)
    rejected, dups, need_label, hits = [], 0, [], []
    labels_of = {}
    loaders = None
    if jobs > 1 and len(items) >= 64:
        loaders = _Loaders(multiprocessing.get_context("fork"), jobs, items)
        results = loaders.results()
    else:
        results = map(_load_one, items)
    ok = False
    try:
        for k, res in enumerate(results, 1):
            for m in res["messages"]:
                warn(m)
            if progress is not None:
                progress(k, len(items))
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
        if loaders is not None:
            loaders.stop()
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


# Inputs per message from a loading process: enough to make a pickle's
# cost per message small, few enough that a message stays ~0.3 MB.
CHUNK = 32


class _Loaders:
    """jobs loading processes (forked: they share _LOAD) and one pipe
    from each.  Chunk k of the inputs is loaded by process k % jobs and
    read back in order, so this process takes the results in input order
    (the first copy of a run wins, labels go by input order) without a
    reorder buffer.  A process that has sent its chunk waits in the pipe
    until it is read: loaders run ahead of the writer by at most a chunk
    or two, never the fleet (multiprocessing.Pool's imap kept every
    finished result in memory and took them through a thread of its own,
    ~0.2 ms of this process's time per report)."""

    def __init__(self, ctx, jobs, items):
        self.chunks = [items[i:i + CHUNK] for i in range(0, len(items),
                                                         CHUNK)]
        jobs = min(jobs, len(self.chunks))
        self.procs, self.conns = [], []
        try:
            for w in range(jobs):
                recv, send = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_loader, daemon=True,
                                args=(send, self.chunks[w::jobs]))
                p.start()
                send.close()
                _bigger_pipe(recv)
                self.procs.append(p)
                self.conns.append(recv)
        except BaseException:
            self.stop()
            raise

    def results(self):
        n = len(self.procs)
        for k in range(len(self.chunks)):
            conn, proc = self.conns[k % n], self.procs[k % n]
            try:
                data = conn.recv_bytes()
            except EOFError:
                proc.join(5)
                raise RuntimeError(
                    "compare: a loading process ended without its results "
                    "(exit status %s); nothing was written" % proc.exitcode)
            out = pickle.loads(data)
            if isinstance(out, _Failed):
                raise RuntimeError("compare: a loading process failed; "
                                   "nothing was written:\n%s" % out.text)
            yield from out

    def stop(self):
        """End the processes (done: they have exited; else they are
        terminated) and close the pipes."""
        for p in self.procs:
            if p.is_alive():
                p.join(0.5)
            if p.is_alive():
                p.terminate()
            p.join()
        for c in self.conns:
            c.close()
        self.procs, self.conns = [], []


class _Failed:
    """What a loading process sends instead of its results when it fails:
    the traceback as text (an exception object may not pickle)."""

    def __init__(self, text):
        self.text = text


def _loader(conn, chunks):
    """A loading process: each chunk's results, one message a chunk."""
    try:
        for chunk in chunks:
            conn.send_bytes(pickle.dumps([_load_one(it) for it in chunk],
                                         pickle.HIGHEST_PROTOCOL))
    except BrokenPipeError:     # the writer stopped reading: it is ending
        pass
    except BaseException:
        try:
            conn.send_bytes(pickle.dumps(_Failed(traceback.format_exc())))
        except OSError:
            pass
    finally:
        conn.close()


def _bigger_pipe(conn):
    """A 1 MiB pipe where Linux allows it (F_SETPIPE_SZ): a chunk's
    message then fits, so a loading process that has finished one goes on
    with the next while the writer reads; the default 64 KiB works, only
    with more waiting."""
    try:
        import fcntl
        fcntl.fcntl(conn.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031),
                    1 << 20)
    except (ImportError, OSError):
        pass
