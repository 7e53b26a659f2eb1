"""How clockprobe's tools start QEMU: one argv builder and its inputs.

Every tool boots the probe (and scripts/linux-guest its real Linux guests)
through qemu_command() so that runs differ only in the options asked for
(isa-debug-exit at 0xf4, no network, no reboot, serial on stdio, a private
OVMF vars copy per run).  This module also knows which QEMU binary runs
(CLOCKPROBE_QEMU=PATH in the environment, or a script's --qemu PATH; default Debian's
qemu-system-x86_64 on PATH), where the build leaves each boot medium
(DEFAULT_IMAGES), where Debian keeps OVMF, and what QEMU's exit statuses
mean for the probe.

Exit statuses: the probe writes 0x10 (complete) or 0x11 (failed) to
isa-debug-exit, and QEMU exits with (value << 1) | 1, i.e. 33 or 35.
"""

import os
import re
import shlex
import shutil
import subprocess

from . import paths

# The source tree (or the install prefix) and its scratch folder; the
# images come from paths.DATA: build/ in the tree, share/clockprobe/ once
# installed (cptools/paths.py).
REPO = paths.REPO
BUILD = paths.BUILD

# The default binary (Debian's qemu-system-x86); CLOCKPROBE_QEMU=PATH in the
# environment selects another one, e.g. a second QEMU unpacked under build/
# for an A/B of two device models.  Every argv is built with the binary
# selected when it is built, so a script's --qemu (select_qemu) and the
# environment variable mean the same thing, for the tools it starts too.
QEMU = "qemu-system-x86_64"
# Prefixed: a generic QEMU= in the environment is someone else's (issue 38).
QEMU_ENV = "CLOCKPROBE_QEMU"

DEBUG_EXIT_PORT = 0xF4
EXIT_VALUE_COMPLETE = 0x10
EXIT_VALUE_FAILED = 0x11
EXIT_COMPLETE = (EXIT_VALUE_COMPLETE << 1) | 1  # 33
EXIT_FAILED = (EXIT_VALUE_FAILED << 1) | 1  # 35

BOOT_KINDS = ("uefi", "pvh", "iso", "fat")
# Not a medium of the probe: a Linux kernel booted directly (-kernel,
# -initrd, -append) by scripts/linux-guest, under SeaBIOS or OVMF.
LINUX_BOOT = "linux"
LINUX_FIRMWARE = ("seabios", "ovmf")

DEFAULT_IMAGES = {
    "uefi": os.path.join(paths.DATA, "clockprobe.img"),
    "iso": os.path.join(paths.DATA, "clockprobe.iso"),
    "fat": os.path.join(paths.DATA, "clockprobe.efi"),
    "pvh": os.path.join(paths.DATA, "clockprobe.elf"),
}

OVMF_DIRS = ("/usr/share/OVMF", "/usr/share/ovmf", "/usr/share/qemu")
OVMF_PAIRS = (
    ("OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd"),
    ("OVMF_CODE.fd", "OVMF_VARS.fd"),
)


class QemuError(Exception):
    """A problem with the host setup (no QEMU, no OVMF, missing image)."""


# ---------------------------------------------------------------- discovery

def qemu_binary(path=None):
    """The QEMU binary an argv starts with: `path` when given, else the
    CLOCKPROBE_QEMU environment variable when set, else qemu-system-x86_64.  The
    name qemu2 stands for the second QEMU (cptools.qemu2, `make qemu2`)."""
    binary = path or os.environ.get(QEMU_ENV) or QEMU
    if binary == "qemu2":
        from . import qemu2
        return qemu2.BINARY
    return binary


def find_qemu(path=None):
    """The QEMU binary that will run (qemu_binary), checked: its full path.

    A binary named by CLOCKPROBE_QEMU=PATH or --qemu PATH that is not there, or not
    executable, is a QemuError that names it; so is a missing default."""
    qemu = qemu_binary(path)
    found = shutil.which(qemu)
    if found:
        return found
    if qemu == QEMU:
        raise QemuError(QEMU + " not found (Debian package qemu-system-x86)")
    if os.sep not in qemu:
        why = "no such program on PATH"
    elif not os.path.exists(qemu):
        why = "no such file"
    else:
        why = "not an executable file"
    raise QemuError("QEMU binary %s (CLOCKPROBE_QEMU=PATH or --qemu PATH): %s"
                    % (qemu, why))


def select_qemu(path=None):
    """Check the QEMU a script was asked for and make it the one every
    later argv (and every tool this process starts) uses.

    path: a script's --qemu PATH, or None for the CLOCKPROBE_QEMU
    environment variable.  Nothing asked for: nothing is checked here (a missing
    default QEMU is reported where it is first needed, as before).
    Returns the binary selected (None for the default); raises QemuError."""
    if path is None and not os.environ.get(QEMU_ENV):
        return None
    # Absolute, so that a tool started in another folder runs the same one.
    found = os.path.abspath(find_qemu(path))
    os.environ[QEMU_ENV] = found
    return found


def qemu_version(path=None):
    """The version in `QEMU --version` (e.g. 7.2.22), or "unknown"."""
    try:
        out = subprocess.run([qemu_binary(path), "--version"],
                             capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    m = re.search(r"version (\S+)", out)
    return m.group(1) if m else "unknown"


def find_ovmf():
    """Return (code_fd, vars_template) of Debian's ovmf package.

    The 4M flash layout is preferred (Debian 12's default); the 2M one is the
    fallback for older installs.  The vars file is a template: every run must
    boot from its own copy (copy_vars) because OVMF writes to it.
    """
    for d in OVMF_DIRS:
        for code, vars_ in OVMF_PAIRS:
            c, v = os.path.join(d, code), os.path.join(d, vars_)
            if os.path.isfile(c) and os.path.isfile(v):
                return c, v
    raise QemuError("OVMF not found (Debian package ovmf): looked for "
                    + ", ".join(p[0] for p in OVMF_PAIRS) + " in "
                    + ", ".join(OVMF_DIRS))


def copy_vars(dest_dir, template=None):
    """Copy the OVMF vars template into dest_dir; return the copy's path."""
    if template is None:
        template = find_ovmf()[1]
    os.makedirs(dest_dir, exist_ok=True)
    dest = os.path.join(dest_dir, "OVMF_VARS.fd")
    shutil.copyfile(template, dest)
    return dest


def needs_firmware(boot):
    return boot in ("uefi", "iso", "fat")


# ------------------------------------------------------------ command line

def _split_extra(extra):
    if extra is None:
        return []
    if isinstance(extra, str):
        return shlex.split(extra)
    return list(extra)


def qemu_command(image, boot="uefi", machine="q35", cpu=None, smp="1",
                 mem="256M", accel="tcg", extra=(), serial_path=None,
                 vars_copy=None, ovmf_code=None, snapshot=True,
                 disk_first=False, qemu=None, initrd=None, append=None,
                 firmware="seabios", debug_exit=True):
    """Build the argv that boots `image` the way every clockprobe tool does.

    boot:
      uefi  raw disk image (build/clockprobe.img) on an IDE/AHCI disk;
            if=ide works on both machines (q35 maps it onto its AHCI ports).
      iso   UEFI CD image as -cdrom.
      fat   `image` is the .efi file or a directory; a directory is exported
            as a vvfat drive (fat:rw:DIR -- plain fat:DIR needs readonly=on);
            a file is placed as EFI/BOOT/BOOTX64.EFI in a directory next to
            the vars copy.
      pvh   direct boot with -kernel (no OVMF).
      linux a Linux kernel booted directly (scripts/linux-guest): `image`
            is its vmlinuz, -initrd `initrd`, -append `append`; firmware
            "seabios" (QEMU's default BIOS, nothing added) or "ovmf" (the
            kernel starts through its EFI stub; needs vars_copy).
    snapshot: the probe writes \\clockprobe-report.json to a writable boot
      volume; snapshot=on keeps the shared image untouched and lets parallel
      runs share it (QEMU would refuse a second writer's lock otherwise).
    serial_path: None -> serial on stdio; else -serial file:PATH.
    vars_copy: required for the firmware boots: this run's own copy of the
      OVMF vars (copy_vars()).
    disk_first: uefi only: give the disk bootindex=0 so that OVMF boots it
      before the machine's default CD drive instead of first failing on the
      empty drive ("BdsDxe: failed to load Boot0001 ... DVD-ROM ... Not
      Found").  Off by default so that every recorded argv stays as it was.
    qemu: the binary (default qemu_binary(): $QEMU, else qemu-system-x86_64).
      The unpacked second QEMU (cptools.qemu2, `make qemu2`) gets -L for
      its own blobs, however it was named.
    debug_exit: attach isa-debug-exit at 0xf4 (the probe's exit status);
      scripts/linux-guest leaves it out so that its guests run on the
      machines their outcomes were recorded on (a Linux guest powers off
      through ACPI instead).
    """
    if boot not in BOOT_KINDS + (LINUX_BOOT,):
        raise ValueError("boot must be one of %s, not %r"
                         % (BOOT_KINDS + (LINUX_BOOT,), boot))
    if accel not in ("tcg", "kvm"):
        raise ValueError("accel must be tcg or kvm, not %r" % (accel,))
    if firmware not in LINUX_FIRMWARE:
        raise ValueError("firmware must be one of %s, not %r"
                         % (LINUX_FIRMWARE, firmware))
    if boot != LINUX_BOOT and (initrd or append is not None
                               or firmware != "seabios"):
        raise ValueError("initrd, append and firmware are for boot %r only"
                         % LINUX_BOOT)
    from . import qemu2
    binary = qemu_binary(qemu)
    argv = [binary] + qemu2.qemu_args(binary) + [
        "-machine", machine, "-accel", accel, "-m", str(mem), "-smp", str(smp)]
    if cpu:
        argv += ["-cpu", host_cpu_fixup(cpu, accel)]
    argv += ["-display", "none", "-monitor", "none", "-parallel", "none",
             "-no-reboot", "-nic", "none"]
    if debug_exit:
        argv += ["-device", "isa-debug-exit,iobase=0x%x,iosize=0x04"
                 % DEBUG_EXIT_PORT]
    argv += ["-serial", "file:" + serial_path if serial_path else "stdio"]
    if needs_firmware(boot) or (boot == LINUX_BOOT and firmware == "ovmf"):
        if vars_copy is None:
            raise ValueError("boot %r needs vars_copy (see copy_vars())"
                             % boot)
        code = ovmf_code or find_ovmf()[0]
        argv += ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file="
                 + code,
                 "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy]
    snap = ",snapshot=on" if snapshot else ""
    if boot == "uefi" and disk_first:
        argv += ["-drive", "file=%s,format=raw,if=none,id=probedisk%s"
                 % (image, snap),
                 "-device", "ide-hd,drive=probedisk,bootindex=0"]
    elif boot == "uefi":
        argv += ["-drive", "file=%s,format=raw,if=ide,media=disk%s"
                 % (image, snap)]
    elif boot == "iso":
        argv += ["-cdrom", image]
    elif boot == "fat":
        fat_dir = image
        if not os.path.isdir(image):
            fat_dir = _fat_dir_for(image, os.path.dirname(vars_copy))
        # vvfat in rw mode refuses snapshot=on; it writes back to fat_dir.
        argv += ["-drive", "file=fat:rw:%s,format=raw,if=ide" % fat_dir]
    elif boot == "pvh":
        argv += ["-kernel", image]
    elif boot == LINUX_BOOT:
        argv += ["-kernel", image]
        if initrd:
            argv += ["-initrd", initrd]
        if append is not None:
            argv += ["-append", append]
    return argv + _split_extra(extra)


def host_cpu_fixup(cpu, accel):
    """Add -arch-capabilities to `-cpu host` under KVM.

    On nested KVM hosts `-cpu host` aborts QEMU unless the
    IA32_ARCH_CAPABILITIES MSR is dropped; that MSR only lists speculation
    mitigations, so hiding it changes nothing the probe measures.
    """
    if accel == "kvm" and cpu.split(",")[0] == "host" \
            and "arch-capabilities" not in cpu:
        return cpu + ",-arch-capabilities"
    return cpu


def _fat_dir_for(efi_file, work_dir):
    root = os.path.join(work_dir, "esp")
    boot_dir = os.path.join(root, "EFI", "BOOT")
    os.makedirs(boot_dir, exist_ok=True)
    shutil.copyfile(efi_file, os.path.join(boot_dir, "BOOTX64.EFI"))
    return root
