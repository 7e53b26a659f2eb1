"""Boot the probe once with given options and collect its verified report.

scripts/run, scripts/matrix, scripts/linux-guest and the integration tests
all used to repeat the same sequence -- check the image, copy the OVMF
vars, build the argv, run it (with the KVM hang watch under KVM), extract
and verify the report.  boot_probe() is that sequence, once, so that every
tool boots the probe and judges its output the same way; the callers keep
only what is theirs (printing, expectations, saved files).
"""

import collections
import os
import shutil
import tempfile

from . import paths, process
from .frame import extract_report_meta
from .kvm import kvm_watch
from .qemu import DEFAULT_IMAGES, QemuError, copy_vars, needs_firmware, \
    qemu_command

ProbeBoot = collections.namedtuple(
    "ProbeBoot", "result report error meta argv")

AUTO = "auto"


def boot_probe(image=None, boot="uefi", timeout=120, work_dir=None,
               log_path=None, echo=None, watch=AUTO, on_argv=None,
               runner=None, **qemu_kw):
    """Boot the probe once; return ProbeBoot(result, report, error, meta,
    argv).

      result  process.RunResult: exit_status 33 (complete), 35 (probe
              failed), other (QEMU's), None (timed out or stopped by watch)
      report  the verified report (a dict), or None
      error   None, or why no report verified (frame.extract_report)
      meta    {bytes, crc32, schema} of the verified frame, or None
      argv    the QEMU argv that ran

    image: the boot medium; default DEFAULT_IMAGES[boot].
    work_dir: where this run's OVMF vars copy (and a fat boot's ESP) go.
      None: a temporary folder, removed afterwards; a folder the caller
      names is left as it is (matrix --keep, scripts/run's work/).
    log_path, echo: serial log file and live echo (process.run_argv).
    watch: "auto" stops a KVM run that QEMU reported dead (kvm.kvm_watch)
      and watches nothing under TCG; or a run_argv watch callable, or None.
    on_argv: called with the argv just before QEMU starts (scripts/run
      prints it, the matrix saves it).
    runner: stands in for process.run_argv (tests).
    qemu_kw: the rest of qemu.qemu_command's options (machine, cpu, smp,
      mem, accel, extra, snapshot, ovmf_code, serial_path).

    Host set-up problems found before QEMU starts (no image, no OVMF) raise
    QemuError; everything after that comes back in the result.
    """
    image = image or DEFAULT_IMAGES[boot]
    if not os.path.exists(image):
        # The tree builds its images; an installed copy ships them.
        raise QemuError("image not found: %s (%s)" % (
            image, "run make first" if paths.IN_TREE else
            "--image names another; the package's own are in %s"
            % paths.DATA))
    if watch == AUTO:
        watch = kvm_watch if qemu_kw.get("accel") == "kvm" else None
    runner = runner or process.run_argv
    tmp = None
    if work_dir is None:
        tmp = work_dir = tempfile.mkdtemp(prefix="cpqemu-")
    try:
        vars_copy = copy_vars(work_dir) if needs_firmware(boot) else None
        argv = qemu_command(image, boot=boot, vars_copy=vars_copy, **qemu_kw)
        if on_argv is not None:
            on_argv(argv)
        result = runner(argv, timeout, log_path=log_path, echo=echo,
                        watch=watch)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    report, error, meta = extract_report_meta(result.log_text)
    return ProbeBoot(result, report, error, meta, argv)


def run_probe(image=None, boot="uefi", timeout=120, work_dir=None,
              log_path=None, echo=None, **kw):
    """Boot the probe once and return only its RunResult (older callers).

    Keyword arguments go to qemu_command (machine, cpu, smp, mem, accel,
    extra, snapshot); no early-stop watch.  See boot_probe().
    """
    return boot_probe(image, boot, timeout, work_dir, log_path, echo,
                      watch=None, **kw).result
