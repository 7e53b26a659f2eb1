"""The labels a fleet's outputs show for its runs: --label for an input,
else the report's own probe.label (guest.label), else the file name with
as many parent folders as it takes to tell equal names apart.  Both
loaders label by these rules: fleet.load_runs (cptools/fleetinput.py,
which reads the inputs) and the streaming loader (cptools/fleetload.py,
which labels from a run's rows in its writing process), so a fleet's
runs get the same labels either way.  cptools/fleet.py re-exports these
names.
"""

import collections
import os

from .untrusted import cap

# The suffixes of report files: a folder's files with one are its reports
# (fleetinput.input_files), and a file-name label leaves it off.
LOG_SUFFIXES = (".json", ".log", ".txt")


def _stem(path):
    base = os.path.basename(path)
    for ext in LOG_SUFFIXES:
        if base.endswith(ext):
            return base[:-len(ext)]
    return base


def file_labels(paths):
    """A short distinct label per path: the file name without extension,
    with as many parent folders as it takes to tell equal names apart
    (a/report.json, b/report.json -> a/report, b/report)."""
    norm = [os.path.normpath(os.path.abspath(p)) for p in paths]
    parts = [n.split(os.sep) for n in norm]
    stems = [_stem(p) for p in paths]
    depth = [1] * len(paths)

    def label(i):
        return "/".join(parts[i][-depth[i]:-1] + [stems[i]])

    while True:
        files_by_label = {}
        for i in range(len(paths)):
            files_by_label.setdefault(label(i), set()).add(norm[i])
        grow = [i for i in range(len(paths))
                if len(files_by_label[label(i)]) > 1
                and depth[i] < len(parts[i])]
        if not grow:
            break
        for i in grow:
            depth[i] += 1
    taken, out = set(), []
    for i in range(len(paths)):   # the same path twice: number the copies
        lab = label(i)
        new, n = lab, 2
        while new in taken:
            new, n = "%s-%d" % (lab, n), n + 1
        taken.add(new)
        out.append(new)
    return out


class Labeller:
    """The explicit label of each run: --label for its input (by input
    order; the second run of one log under it gets LABEL-2, and so on),
    else probe.label (guest.label), else None -- the file-name label then
    needs every such run at once (file_labels)."""

    def __init__(self, labels=()):
        self.labels = list(labels)
        self.taken = collections.Counter()

    def explicit(self, run):
        if run.input_index < len(self.labels):
            lab = self.labels[run.input_index]
            self.taken[(run.input_index, lab)] += 1   # two runs of one log
            n = self.taken[(run.input_index, lab)]
            return lab if n == 1 else "%s-%d" % (lab, n)
        probe_label = run.get(getattr(run, "kind", "probe") + ".label")
        if isinstance(probe_label, str) and probe_label.strip():
            return cap(probe_label, 200)
        return None


def explicit_label(run, labels):
    """Labeller(labels).explicit(run) for a run alone."""
    return Labeller(labels).explicit(run)


def label_runs(runs, labels):
    """Label every run (load_runs' last step): its explicit label
    (Labeller), else a file-name label made for all such runs at once
    (file_labels), so that equal file names are told apart."""
    need_file_label = []
    labeller = Labeller(labels)
    for r in runs:
        r.label = labeller.explicit(r)
        if r.label is None:
            need_file_label.append(r)
    for r, lab in zip(need_file_label,
                      file_labels([r.path for r in need_file_label])):
        r.label = lab
