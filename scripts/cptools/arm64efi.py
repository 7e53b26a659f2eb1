"""Booting the arm64 probe (build/aarch64/clockprobe.img) under
qemu-system-aarch64 -machine virt with AAVMF (Debian's qemu-efi-aarch64),
TCG: `make arm64-run`, and tests/host/test_arm64_efi.py.

AAVMF is given as two pflash units (code read-only, a private copy of the
variable store), as Debian's AAVMF is meant to be run; the serial console
(the PL011 the SPCR names) goes to a log file, from which the framed
report is taken and verified by cptools.frame, as for x86.  scripts/matrix
boots its aarch64 rows (tests/matrix.conf, arch = aarch64) through
boot_row(), with the serial on stdio under cptools/process.py as its x86
rows are, so that a SIGTERM stops these QEMUs too.

    python3 scripts/cptools/arm64efi.py run [--smp N] [--cpu MODEL]
"""

import os
import shutil
import sys
import tempfile

try:
    from . import frame, process, untrusted
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from cptools import frame, process, untrusted

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
IMAGE = os.path.join(REPO, "build", "aarch64", "clockprobe.img")
QEMU = "qemu-system-aarch64"
CROSS_CC = "aarch64-linux-gnu-gcc"
# mk/arm64-probe.mk's A64_STAMP: gnu-efi's aarch64 crt0, once fetched.
GNUEFI_STAMP = os.path.join(REPO, "build", "aarch64", "gnu-efi", "root", "usr",
                            "lib", "crt0-efi-aarch64.o")
AAVMF_CODE = "/usr/share/AAVMF/AAVMF_CODE.fd"
AAVMF_VARS = "/usr/share/AAVMF/AAVMF_VARS.fd"
BOOT_TIMEOUT_S = 120


def host_missing():
    """None when this host can boot an arm64 image (QEMU, AAVMF), else
    why not: the host's lack, not the image's."""
    if not shutil.which(QEMU):
        return QEMU + " not installed (scripts/install-deps arm64: qemu-system-arm)"
    for f in (AAVMF_CODE, AAVMF_VARS):
        if not os.path.exists(f):
            return f + " missing (scripts/install-deps arm64: qemu-efi-aarch64)"
    return None


def cannot_build():
    """None when make arm64-probe can build here, else what it lacks: the
    cross compiler, or gnu-efi's aarch64 files (make arm64-deps fetches
    them from Debian, which needs the network once)."""
    if not shutil.which(CROSS_CC):
        return "%s not installed (sh scripts/install-deps arm64)" % CROSS_CC
    if not os.path.exists(GNUEFI_STAMP):
        return "arm64 gnu-efi not fetched (make arm64-deps)"
    return None


def image_missing(image=IMAGE):
    """None when the image is there, else why not."""
    if os.path.exists(image):
        return None
    return "%s not built (make arm64-probe)" % os.path.relpath(image, REPO)


def missing():
    """None when an arm64 boot can run here, else why not."""
    return host_missing() or image_missing()


def argv(workdir, smp=4, cpu="max", image=IMAGE, machine="virt",
         mem="512M", serial=None):
    """machine: QEMU's -machine value; "virt,gic-version=3" gives a GICv3
    (QEMU 7.2's virt defaults to GICv2 under TCG).  serial: QEMU's -serial
    (default a file in workdir; "stdio" for cptools/process.py, which logs
    it)."""
    vars_copy = os.path.join(workdir, "vars.fd")
    shutil.copyfile(AAVMF_VARS, vars_copy)
    return [QEMU, "-machine", machine, "-cpu", cpu, "-smp", str(smp),
            "-m", mem, "-accel", "tcg", "-nodefaults", "-display", "none",
            "-no-reboot",
            "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + AAVMF_CODE,
            "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy,
            "-drive", "if=none,id=disk,format=raw,readonly=on,file=" + image,
            "-device", "virtio-blk-pci,drive=disk,bootindex=0",
            "-serial", serial or "file:" + os.path.join(workdir, "serial.log")]


def boot_row(row, work_dir, log_path=None, on_argv=None):
    """Boot the probe on one aarch64 matrix row (cptools.matrixconf.Row):
    a cptools.boot.ProbeBoot, its result's exit_status 0 when the probe
    powered the machine off (PSCI SYSTEM_OFF), None on a timeout."""
    from . import boot
    a = argv(work_dir, smp=row.get("smp"), cpu=row.get("cpu") or "max",
             image=row.image(), machine=row.get("machine"),
             mem=row.get("mem"), serial="stdio")
    if on_argv is not None:
        on_argv(a)
    res = process.run_argv(a, row.timeout, log_path=log_path)
    report, error, meta = frame.extract_report_meta(res.log_text)
    return boot.ProbeBoot(res, report, error, meta, a)


def boot(smp=4, cpu="max", timeout=BOOT_TIMEOUT_S, machine="virt"):
    """(serial log text, QEMU exit status or None on timeout, seconds).
    Through cptools/process.py as every x86 boot is: a SIGTERM or SIGHUP
    stops this QEMU too, and the log is read as the untrusted bytes it is."""
    with tempfile.TemporaryDirectory(prefix="cp-arm64-") as d:
        res = process.run_argv(argv(d, smp, cpu, machine=machine, serial="stdio"), timeout)
        return res.log_text, None if res.timed_out else res.exit_status, res.seconds


def main(argv_):
    if len(argv_) < 2 or argv_[1] != "run":
        print("usage: arm64efi.py run [--smp N] [--cpu MODEL] [--machine virt[,gic-version=3]] [--log FILE]", file=sys.stderr)
        return 2
    smp, cpu, log, machine = 4, "max", None, "virt"
    rest = argv_[2:]
    while rest:
        k = rest.pop(0)
        # make's knobs pass --smp='2' (one word): the value rides along.
        if k.startswith("--") and "=" in k:
            k, v = k.split("=", 1)
            rest.insert(0, v)
        if k == "--smp":
            smp = int(rest.pop(0))
        elif k == "--cpu":
            cpu = rest.pop(0)
        elif k == "--machine":
            machine = rest.pop(0)
        elif k == "--log":
            log = rest.pop(0)
    why = missing()
    if why:
        print("arm64efi: " + why, file=sys.stderr)
        return 1
    # A SIGTERM or SIGHUP stops this QEMU too (it runs in its own session).
    with process.ends_runs():
        text, rc, secs = boot(smp, cpu, machine=machine)
    if log:
        with open(log, "w") as f:
            f.write(text)
    start = text.find("clockprobe ")
    # The serial log is the guest's to write: shown with its controls
    # escaped (its CRLF line ends kept as plain line ends).
    shown = (text[start:] if start >= 0 else text[-4000:]).replace("\r\n", "\n")
    print(untrusted.term_lines(shown, 1 << 20))
    print("(QEMU exit %s after %.1f s)" % (rc, secs))
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
