"""Real Debian arm64 kernels under qemu-system-aarch64: the ground truth of
the arm64 verdict (issue 37; tests/linux/README.md, "arm64 guests").

The x86 harness (scripts/linux-guest) boots amd64 kernels on the rows of
tests/matrix.conf; this module does the same for arm64 on that table's
`arch = aarch64` rows (ROWS below, `-machine virt`, TCG), with the same
private apt configuration (cptools/debfetch.py, `arch=arm64`), the same initramfs
layout and /init (tests/linux/init.sh), and clockprobe-guest built for
aarch64 (build/arm64/clockprobe-guest, mk/guest.mk's guest-arm64).

    fetch()            Debian 12's linux-image-arm64 (6.1), bookworm-
                       backports' 6.12 and busybox-static, all arm64
    boot(row, kernel)  one guest; its parsed GUEST report
"""

import json
import os
import shutil
import tempfile

from . import arm64efi, debfetch, frame, matrixconf, process

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LINUX_DIR = os.path.join(REPO, "build", "linux-arm64")
APT_DIR = os.path.join(LINUX_DIR, "apt")
DEBS_DIR = os.path.join(LINUX_DIR, "debs")
MANIFEST = os.path.join(LINUX_DIR, "kernels.json")
BUSYBOX = os.path.join(LINUX_DIR, "busybox")
INIT_SH = os.path.join(REPO, "tests", "linux", "init.sh")
GUEST_BIN = os.path.join(REPO, "build", "arm64", "clockprobe-guest")

SUITES = ("bookworm", "bookworm-security", "bookworm-backports")
REQUIRED_SUITES = ("bookworm", "bookworm-security")
# Kernel name -> (suites, the line its version starts with), as the x86
# harness names them: verdict.arm64.by_kernel[] is looked up by the name.
KERNEL_SUITES = {
    "6.1": (("bookworm", "bookworm-security"), "6.1"),
    "6.12": (("bookworm-backports",), "6.12"),
}
KERNELS = tuple(KERNEL_SUITES)


# The arm64 rows are tests/matrix.conf's rows with arch = aarch64 (the
# one machine table; why each CPU model is there is said beside them), in
# the form boot() takes: their names are the keys of the recorded boots
# (tests/linux/expected-arm64.json).  The guests get the row's machine,
# cpu and smp; "fast" is the row's fast tag (make test boots the probe on
# it, cptools/arm64agree.py holding its verdict to the recorded kernels).
MATRIX_CONF = os.path.join(REPO, "tests", "matrix.conf")


def rows_from_conf(path=MATRIX_CONF):
    """The aarch64 rows of a matrix config as dicts {name, machine, cpu,
    smp, fast}."""
    conf = matrixconf.load_config(path)
    return tuple({"name": r.name, "machine": r.get("machine"),
                  "cpu": r.get("cpu") or "max",
                  "smp": int(r.get("smp")) if r.get("smp").isdigit()
                  else r.get("smp"), "fast": "fast" in r.tags}
                 for r in matrixconf.arch_rows(conf, "aarch64"))


ROWS = rows_from_conf()


class GuestError(Exception):
    """The arm64 guests cannot run here (no kernel, QEMU or busybox)."""


def _pick(candidates):
    picked = {}
    for version, origin in candidates:
        suite = debfetch.origin_suite(origin)
        for name, (suites, line) in KERNEL_SUITES.items():
            if suite in suites and version.startswith(line) and \
                    version[len(line):len(line) + 1] in ".~":
                picked.setdefault(name, version)
    return picked


def fetch(log=print):
    """Download and unpack the arm64 kernels and busybox; the manifest."""
    try:
        debfetch.check_host()
        os.makedirs(DEBS_DIR, exist_ok=True)
        repo = debfetch.AptRepo(APT_DIR, SUITES, required=REQUIRED_SUITES,
                                arch="arm64")
        notes = repo.update(log)
        metas = _pick(repo.candidates("linux-image-arm64"))
        if "6.1" not in metas:
            raise GuestError("no linux-image-arm64 6.1 in Debian 12's lists")
        manifest = {"kernels": {}, "notes": notes}
        for name, meta in metas.items():
            pkg = repo.depends_on("linux-image-arm64=" + meta, "linux-image-")
            if not pkg:
                raise GuestError("cannot resolve linux-image-arm64=" + meta)
            log("fetching %s (linux-image-arm64 %s)" % (pkg, meta))
            deb = repo.download(pkg, DEBS_DIR)
            dest = os.path.join(LINUX_DIR, "x", name)
            shutil.rmtree(dest, ignore_errors=True)
            debfetch.extract(deb, ["./boot/vmlinuz-*"], dest)
            images = os.listdir(os.path.join(dest, "boot"))
            if len(images) != 1:
                raise GuestError("expected one vmlinuz in %s: %r"
                                 % (deb, images))
            manifest["kernels"][name] = {
                "vmlinuz": os.path.relpath(
                    os.path.join(dest, "boot", images[0]), REPO),
                "release": images[0][len("vmlinuz-"):], "package": pkg,
                "meta_version": meta}
        log("fetching busybox-static (arm64)")
        deb = repo.download("busybox-static", DEBS_DIR)
        dest = os.path.join(LINUX_DIR, "x", "busybox")
        shutil.rmtree(dest, ignore_errors=True)
        debfetch.extract(deb, ["./bin/busybox"], dest)
        shutil.copyfile(os.path.join(dest, "bin", "busybox"), BUSYBOX)
        os.chmod(BUSYBOX, 0o755)
    except debfetch.FetchError as e:
        raise GuestError(str(e))
    with open(MANIFEST, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    return manifest


def load_manifest():
    """The fetched arm64 kernels, {name: {vmlinuz, release, path}}."""
    try:
        with open(MANIFEST) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for name, k in m.get("kernels", {}).items():
        path = os.path.join(REPO, k["vmlinuz"])
        if os.path.isfile(path):
            out[name] = dict(k, path=path)
    return out


def ready():
    return bool(load_manifest()) and os.path.isfile(BUSYBOX) and \
        os.path.isfile(GUEST_BIN) and shutil.which(QEMU) is not None


def _linux_guest():
    """scripts/linux-guest as a module: its initramfs writer and log
    parser serve both architectures."""
    import importlib.machinery
    import importlib.util
    path = os.path.join(REPO, "scripts", "linux-guest")
    loader = importlib.machinery.SourceFileLoader("linux_guest", path)
    spec = importlib.util.spec_from_loader("linux_guest", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


QEMU = arm64efi.QEMU
MEM = "512M"
SETTLE_S = 8
BOOT_TIMEOUT_S = 600


def qemu_argv(row, vmlinuz, initrd, settle=SETTLE_S):
    """Direct kernel boot on -machine virt under TCG: the kernel's EFI stub
    is not used (QEMU loads the Image and hands it the DTB it built), so no
    firmware is involved; the PL011 is the console."""
    return [QEMU, "-machine", row["machine"], "-accel", "tcg",
            "-cpu", row["cpu"], "-smp", str(row["smp"]), "-m", MEM,
            "-no-reboot", "-display", "none", "-serial", "stdio",
            "-monitor", "none", "-kernel", vmlinuz, "-initrd", initrd,
            "-append", "console=ttyAMA0 quiet panic=-1 clockprobe.settle=%d"
            % settle]


def boot(row, kernel, log=None, timeout=BOOT_TIMEOUT_S):
    """Boot one arm64 guest; {"row", "kernel", "release", "wall_s",
    "current", "available", "vdso" (per current clocksource: in_vdso),
    "arm64" (the guest report's arm64 object), "guest_report"}.  Raises
    GuestError when the guest gave no report."""
    kernels = load_manifest()
    if kernel not in kernels:
        raise GuestError("arm64 kernel %s not fetched (fetch first)" % kernel)
    lg = _linux_guest()
    fd, initrd = tempfile.mkstemp(prefix="initrd-arm64.", suffix=".cpio",
                                  dir=LINUX_DIR)
    os.close(fd)
    try:
        lg.build_initrd(initrd, busybox_path=BUSYBOX,
                        guest_bin_path=GUEST_BIN)
        argv = qemu_argv(row, kernels[kernel]["path"], initrd)
        # cptools/process.py, as the x86 guests: a SIGTERM stops it too.
        res = process.run_argv(argv, timeout)
        text, wall = res.log_text, res.seconds
    finally:
        os.unlink(initrd)
    if log:
        with open(log, "w") as f:
            f.write(text)
    report, _ = frame.extract_guest_report(text)
    if not report:
        raise GuestError("no GUEST report from %s on %s after %.0f s; last "
                         "lines: %s" % (kernel, row["name"], wall,
                                        text.strip().splitlines()[-5:]))
    return summarize(report, row, kernel, wall)


def summarize(report, row, kernel, wall=None):
    """The ground-truth facts of one boot from its GUEST report."""
    cs = report.get("clocksource") or {}
    current = cs.get("current")
    vdso = None
    for m in report.get("measurements") or []:
        if m.get("clocksource") == current:
            vdso = (m.get("vdso") or {}).get("in_vdso")
            break
    return {"row": row["name"], "kernel": kernel,
            "release": (report.get("kernel") or {}).get("release"),
            "wall_s": None if wall is None else round(wall, 1),
            "current": current,
            "available": list(cs.get("available") or []),
            "in_vdso": vdso,
            "arm64": report.get("arm64"),
            "guest_report": report}
