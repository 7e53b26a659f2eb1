"""Decide whether KVM really boots a given boot path on this host.

The presence of /dev/kvm proves nothing: on nested hosts OVMF dies with
"KVM internal error" and QEMU then hangs instead of exiting.  So the answer
comes from booting a known-good stand-in (standin.py) under -accel kvm with
a timeout, and is cached under build/kvm-usable/ keyed by boot kind, QEMU
version and host kernel release, for at most 12 hours.  kvm_watch() is the
early-stop watch every KVM run uses for the same hang.
"""

import json
import os
import re
import shutil
import tempfile
import time

from .process import describe_status, run_argv
from .qemu import (BUILD, EXIT_COMPLETE, EXIT_FAILED, QemuError, copy_vars,
                   qemu_command, qemu_version)
from .standin import build_pvh_check_image, tiny_efi_app

KVM_FAILURE_PATTERNS = (
    "KVM internal error",
    "Could not access KVM kernel module",
    "failed to initialize kvm",
    "failed to initialize KVM",
    "kvm run failed",
    "KVM_RUN failed",
)


KVM_CACHE_MAX_AGE_S = 12 * 3600


def kvm_watch(serial, stderr):
    """run_argv watch: stop a KVM run that QEMU reported dead but keeps
    alive (nested KVM hangs after "KVM internal error")."""
    for pat in KVM_FAILURE_PATTERNS:
        if pat in stderr:
            return "QEMU reported %r" % pat
    return None

def _kvm_cache_path(boot, version):
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", "%s-%s" % (boot, version))
    return os.path.join(BUILD, "kvm-usable", safe + ".json")


def _check_kvm_once(boot, image, accel, timeout):
    """Boot a known-good image; return (ok, reason)."""
    work = tempfile.mkdtemp(prefix="kvmcheck-")
    try:
        if boot == "pvh":
            img = image or build_pvh_check_image()
            argv = qemu_command(img, boot="pvh", machine="pc", accel=accel,
                                mem="64M")
        else:
            if image:
                img, kind = image, boot
            else:
                esp = os.path.join(work, "esp", "EFI", "BOOT")
                os.makedirs(esp)
                with open(os.path.join(esp, "BOOTX64.EFI"), "wb") as f:
                    f.write(tiny_efi_app())
                img, kind = os.path.join(work, "esp"), "fat"
            argv = qemu_command(img, boot=kind, machine="q35", accel=accel,
                                mem="128M", vars_copy=copy_vars(work))
        res = run_argv(argv, timeout, watch=kvm_watch)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if res.exit_status in (EXIT_COMPLETE, EXIT_FAILED):
        return True, "booted a %s image under %s (status %d)" % (
            boot, accel, res.exit_status)
    for line in res.stderr.splitlines():
        for pat in KVM_FAILURE_PATTERNS:
            if pat in line:
                return False, "%s boot under KVM failed: %s" % (
                    boot, line.strip())
    if res.timed_out:
        return False, "%s boot under KVM did not finish within %d s" % (
            boot, timeout)
    return False, "%s boot under KVM: %s" % (boot, describe_status(res))


def kvm_usable(boot="uefi", image=None, timeout=25, use_cache=True):
    """Return (bool, reason): does KVM really run the `boot` path here?

    uefi/iso/fat: OVMF plus a trivial EFI app (or `image`) under -accel kvm.
    pvh: a tiny PVH ELF (build/kvmcheck.elf, built on demand) or `image`.
    The answer is cached under build/kvm-usable/ keyed by boot kind, QEMU
    version and host kernel release, for at most 12 hours; set
    use_cache=False (or delete the folder) to re-check.
    """
    kind = "pvh" if boot == "pvh" else "uefi"
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm does not exist"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "/dev/kvm is not accessible to this user"
    # A QEMU upgrade or a new host kernel can change the answer; so can
    # time (a host whose KVM was fixed), hence the age limit.
    version = "%s-%s" % (qemu_version(), os.uname().release)
    cache = _kvm_cache_path(kind if image is None else
                            kind + "-" + os.path.basename(image), version)
    if use_cache and os.path.isfile(cache) and \
            time.time() - os.path.getmtime(cache) < KVM_CACHE_MAX_AGE_S:
        try:
            with open(cache) as f:
                c = json.load(f)
            return bool(c["ok"]), c["reason"] + " (cached)"
        except (OSError, ValueError, KeyError):
            pass
    try:
        ok, reason = _check_kvm_once(kind, image, "kvm", timeout)
    except QemuError as e:
        ok, reason = False, str(e)
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(cache, "w") as f:
            json.dump({"ok": ok, "reason": reason, "qemu": version}, f)
    except OSError:
        pass
    return ok, reason
