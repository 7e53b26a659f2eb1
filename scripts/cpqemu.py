"""Shared QEMU plumbing for clockprobe's host tools (run, matrix, compare, tests).

Python 3 standard library only.  Import it from another script with::

    sys.path.insert(0, os.path.join(REPO, "scripts"))
    import cpqemu

What lives here, and why it is in one place:

* find_ovmf()       -- Debian's OVMF code + vars template (4M layout first).
* kvm_usable(boot)  -- "does KVM really run this boot path here?"  Decided by
                       booting something under -accel kvm with a timeout,
                       because on nested hosts OVMF dies with "KVM internal
                       error" and QEMU then hangs instead of exiting; the
                       presence of /dev/kvm proves nothing.  Cached per
                       session under build/ (keyed by boot kind + QEMU version).
* qemu_command()    -- one argv builder, so every tool boots the probe the same
                       way (isa-debug-exit at 0xf4, no network, no reboot).
* run_probe()       -- run it with a timeout, killing the whole process group.
* extract_report()  -- find and verify the framed report (design.md, "The
                       report contract").
* get_path()        -- address a field of a report with a short path syntax,
                       shared by matrix expectations, compare and tests.

Exit statuses: the probe writes 0x10 (complete) or 0x11 (failed) to
isa-debug-exit, and QEMU exits with (value << 1) | 1, i.e. 33 or 35.
"""

import collections
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(REPO, "build")

QEMU = "qemu-system-x86_64"

DEBUG_EXIT_PORT = 0xF4
EXIT_VALUE_COMPLETE = 0x10
EXIT_VALUE_FAILED = 0x11
EXIT_COMPLETE = (EXIT_VALUE_COMPLETE << 1) | 1  # 33
EXIT_FAILED = (EXIT_VALUE_FAILED << 1) | 1  # 35

BOOT_KINDS = ("uefi", "pvh", "iso", "fat")

DEFAULT_IMAGES = {
    "uefi": os.path.join(BUILD, "clockprobe.img"),
    "iso": os.path.join(BUILD, "clockprobe.iso"),
    "fat": os.path.join(BUILD, "clockprobe.efi"),
    "pvh": os.path.join(BUILD, "clockprobe.elf"),
}

OVMF_DIRS = ("/usr/share/OVMF", "/usr/share/ovmf", "/usr/share/qemu")
OVMF_PAIRS = (
    ("OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd"),
    ("OVMF_CODE.fd", "OVMF_VARS.fd"),
)

BEGIN_RE = re.compile(r"==== CLOCKPROBE REPORT BEGIN schema=(\d+) ====")
END_RE = re.compile(
    r"==== CLOCKPROBE REPORT END crc32=([0-9A-Fa-f]{8}) bytes=(\d+) ====")
# CSI sequences (colours, cursor moves) and two-byte escapes that a firmware
# console or terminal program sprinkles into captured logs.
ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")

RunResult = collections.namedtuple(
    "RunResult", "exit_status timed_out log_text seconds argv stderr")


class QemuError(Exception):
    """A problem with the host setup (no QEMU, no OVMF, missing image)."""


# ---------------------------------------------------------------- discovery

def find_qemu():
    path = shutil.which(QEMU)
    if not path:
        raise QemuError(QEMU + " not found (Debian package qemu-system-x86)")
    return path


def qemu_version():
    """The first line of `qemu-system-x86_64 --version`, or "unknown"."""
    try:
        out = subprocess.run([QEMU, "--version"], capture_output=True,
                             text=True, timeout=20).stdout
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
        import shlex
        return shlex.split(extra)
    return list(extra)


def qemu_command(image, boot="uefi", machine="q35", cpu=None, smp="1",
                 mem="256M", accel="tcg", extra=(), serial_path=None,
                 vars_copy=None, ovmf_code=None, snapshot=True):
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
    snapshot: the probe writes \\clockprobe-report.json to a writable boot
      volume; snapshot=on keeps the shared image untouched and lets parallel
      runs share it (QEMU would refuse a second writer's lock otherwise).
    serial_path: None -> serial on stdio; else -serial file:PATH.
    vars_copy: required for the firmware boots: this run's own copy of the
      OVMF vars (copy_vars()).
    """
    if boot not in BOOT_KINDS:
        raise ValueError("boot must be one of %s, not %r" % (BOOT_KINDS, boot))
    if accel not in ("tcg", "kvm"):
        raise ValueError("accel must be tcg or kvm, not %r" % (accel,))
    argv = [QEMU, "-machine", machine, "-accel", accel, "-m", str(mem),
            "-smp", str(smp)]
    if cpu:
        argv += ["-cpu", host_cpu_fixup(cpu, accel)]
    argv += ["-display", "none", "-monitor", "none", "-parallel", "none",
             "-no-reboot", "-nic", "none",
             "-device", "isa-debug-exit,iobase=0x%x,iosize=0x04"
             % DEBUG_EXIT_PORT]
    argv += ["-serial", "file:" + serial_path if serial_path else "stdio"]
    if needs_firmware(boot):
        if vars_copy is None:
            raise ValueError("boot %r needs vars_copy (see copy_vars())"
                             % boot)
        code = ovmf_code or find_ovmf()[0]
        argv += ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file="
                 + code,
                 "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy]
    snap = ",snapshot=on" if snapshot else ""
    if boot == "uefi":
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


# ------------------------------------------------------------------ running

def _kill_group(proc, grace=2.0):
    """Stop QEMU and anything it started; SIGKILL if SIGTERM is ignored."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_argv(argv, timeout, log_path=None, echo=None, watch=None):
    """Run a QEMU argv whose serial goes to stdio; return a RunResult.

    echo: a binary file object (e.g. sys.stdout.buffer) to stream the serial
      output to as it arrives.
    watch: optional callable(serial_text_so_far, stderr_text_so_far) -> str
      or None; a string stops the run early (recorded in stderr).  Used by the
      KVM check to recognise a "KVM internal error" hang.
    """
    import selectors
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out, stop_reason = False, None
    logf = open(log_path, "wb") if log_path else None
    try:
        while sel.get_map():
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if key.data is out:
                    if logf:
                        logf.write(chunk)
                        logf.flush()
                    if echo is not None:
                        echo.write(chunk)
                        echo.flush()
            if watch is not None:
                stop_reason = watch(out.decode("latin-1"),
                                    err.decode("latin-1", "replace"))
                if stop_reason:
                    break
        if timed_out or stop_reason:
            _kill_group(proc)
        else:
            try:
                proc.wait(timeout=max(1.0, timeout - (time.monotonic()
                                                      - start)))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
    finally:
        sel.close()
        if logf:
            logf.close()
        if proc.poll() is None:
            _kill_group(proc)
        proc.stdout.close()
        proc.stderr.close()
    stderr = err.decode("utf-8", "replace")
    if stop_reason:
        stderr += "\n[cpqemu] stopped: %s\n" % stop_reason
    status = None if (timed_out or stop_reason) else proc.returncode
    return RunResult(status, timed_out, out.decode("utf-8", "replace"),
                     time.monotonic() - start, argv, stderr)


def run_probe(image=None, boot="uefi", timeout=120, work_dir=None,
              log_path=None, echo=None, **kw):
    """Boot the probe once and return a RunResult.

    The OVMF vars are copied into work_dir (a temporary directory, removed
    afterwards, when none is given).  Keyword arguments go to qemu_command
    (machine, cpu, smp, mem, accel, extra, snapshot).  The serial output is
    captured through a pipe (and into log_path / echo when given).
    exit_status is QEMU's: 33 complete, 35 probe failed, None on timeout.
    """
    image = image or DEFAULT_IMAGES[boot]
    if not os.path.exists(image):
        raise QemuError("image not found: %s (run make first)" % image)
    tmp = None
    if work_dir is None:
        tmp = tempfile.mkdtemp(prefix="cpqemu-")
        work_dir = tmp
    try:
        vars_copy = copy_vars(work_dir) if needs_firmware(boot) else None
        argv = qemu_command(image, boot=boot, vars_copy=vars_copy, **kw)
        return run_argv(argv, timeout, log_path=log_path, echo=echo)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def describe_status(result):
    """One line that says how a run ended."""
    if result.timed_out:
        return "timed out after %.0f s" % result.seconds
    st = result.exit_status
    if st == EXIT_COMPLETE:
        return "probe complete (status 33)"
    if st == EXIT_FAILED:
        return "probe failed (status 35)"
    if st is None:
        last = result.stderr.strip().splitlines()[-1]
        return last.replace("[cpqemu] ", "")
    if st is not None and st < 0:
        return "QEMU killed by signal %d" % -st
    tail = result.stderr.strip().splitlines()
    return "QEMU exit status %s%s" % (st, (": " + tail[-1]) if tail else "")


# ------------------------------------------------------------ the KVM check

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


def _align(n, a):
    return (n + a - 1) // a * a


def tiny_efi_app(serial_text=b""):
    """A minimal PE32+ EFI application: print serial_text on COM1, exit 0x10.

    Hand-assembled so the KVM check needs no toolchain and no probe build
    (tests also use it, with a framed report as payload, as a stand-in for
    the probe under OVMF).  The code is position independent and holds no
    addresses, so it needs no relocations; RELOCS_STRIPPED stays clear so
    the loader may place it anywhere.  UEFI enters with DF clear; cld anyway.
    """
    if isinstance(serial_text, str):
        serial_text = serial_text.encode("utf-8")
    head = bytes([0xFC])                                   # cld
    # lea rsi, [rip + payload]  (disp filled below)
    lea_at = len(head)
    head += bytes([0x48, 0x8D, 0x35, 0, 0, 0, 0])
    head += bytes([0xB9]) + struct.pack("<I", len(serial_text))  # mov ecx
    head += bytes([0x66, 0xBA, 0xF8, 0x03])                # mov dx, 0x3f8
    loop = len(head)
    body = bytes([0x85, 0xC9,                              # test ecx, ecx
                  0x74, 0x06,                              # jz done
                  0xAC,                                    # lodsb
                  0xEE,                                    # out dx, al
                  0xFF, 0xC9])                             # dec ecx
    jmp_at = loop + len(body)
    body += bytes([0xEB, (loop - (jmp_at + 2)) & 0xFF])    # jmp loop
    tail = bytes([0xB0, EXIT_VALUE_COMPLETE,               # mov al, 0x10
                  0xE6, DEBUG_EXIT_PORT,                   # out 0xf4, al
                  0xFA, 0xF4, 0xEB, 0xFC])                 # cli; hlt; jmp
    code = bytearray(head + body + tail)
    struct.pack_into("<i", code, lea_at + 3, len(code) - (lea_at + 7))
    code += serial_text
    file_align, sect_align = 0x200, 0x1000
    text_rva, text_off = 0x1000, 0x200
    raw_size = _align(len(code), file_align)
    size_of_image = text_rva + _align(len(code), sect_align)
    dos = bytearray(64)
    dos[0:2] = b"MZ"
    struct.pack_into("<I", dos, 0x3C, 64)
    coff = struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 240,
                       0x0002 | 0x0020)  # EXECUTABLE | LARGE_ADDRESS_AWARE
    opt = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII",
                      0x20B, 0, 0, raw_size, 0, 0, text_rva, text_rva,
                      0x0, sect_align, file_align, 0, 0, 0, 0, 0, 0, 0,
                      size_of_image, 0x200, 0, 10, 0,  # subsystem EFI app
                      0x10000, 0x1000, 0x10000, 0x1000, 0, 16)
    opt += bytes(16 * 8)  # empty data directories
    sect = struct.pack("<8sIIIIIIHHI", b".text", len(code), text_rva,
                       raw_size, text_off, 0, 0, 0, 0,
                       0x60000020)  # CODE | EXECUTE | READ
    hdr = bytes(dos) + b"PE\0\0" + coff + opt + sect
    hdr += bytes(text_off - len(hdr))
    return hdr + bytes(code) + bytes(raw_size - len(code))


PVH_ASM = """\
/* KVM check image: PVH entry (32-bit protected mode, paging off).  Sends
   the optional payload to COM1, then writes 0x10 to isa-debug-exit so QEMU
   exits with status 33.  No multiboot header: QEMU tries multiboot before
   PVH. */
	.section .text, "ax"
	.code32
	.globl _start
_start:
	cld
	movl $payload, %esi
	movl $payload_end, %ecx
	movw $0x3f8, %dx
1:	cmpl %ecx, %esi
	je 2f
	lodsb
	outb %al, %dx
	jmp 1b
2:	movb $0x10, %al
	outb %al, $0xf4
3:	cli
	hlt
	jmp 3b
payload:
	.incbin "payload.bin"
payload_end:

	.section .note.pvh, "a"
	.p2align 2
	.long 4			/* namesz */
	.long 4			/* descsz */
	.long 18		/* XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.long _start
"""

PVH_LDS = """\
ENTRY(_start)
PHDRS { text PT_LOAD FLAGS(5); note PT_NOTE FLAGS(4); }
SECTIONS {
	. = 0x100000;
	.text : { *(.text) } :text
	.note.pvh : { *(.note.pvh) } :text :note
}
"""


def build_pvh_check_image(dest=None, serial_text=b""):
    """Assemble a tiny PVH ELF (default build/kvmcheck.elf; needs binutils).

    serial_text (bytes) is written to COM1 before the exit; tests use it to
    stand in for the probe (e.g. a framed report) without booting firmware.
    """
    dest = dest or os.path.join(BUILD, "kvmcheck.elf")
    if isinstance(serial_text, str):
        serial_text = serial_text.encode("utf-8")
    work = tempfile.mkdtemp(prefix="kvmcheck-")
    try:
        src = os.path.join(work, "k.S")
        lds = os.path.join(work, "k.lds")
        obj = os.path.join(work, "k.o")
        with open(src, "w") as f:
            f.write(PVH_ASM)
        with open(lds, "w") as f:
            f.write(PVH_LDS)
        with open(os.path.join(work, "payload.bin"), "wb") as f:
            f.write(serial_text)
        subprocess.run(["as", "--32", "-o", obj, src], check=True,
                       capture_output=True, cwd=work)
        os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
        subprocess.run(["ld", "-m", "elf_i386", "-nostdlib", "-T", lds,
                        "-o", dest, obj], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise QemuError("cannot build %s: %s" % (dest, getattr(
            e, "stderr", b"").decode("utf-8", "replace").strip() or e))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


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


# -------------------------------------------------------- report extraction

def _lines(text):
    """Split on LF, CRLF or lone CR; drop ANSI escapes from each line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return [ANSI_RE.sub("", ln) for ln in re.split(r"\r\n|\r|\n", text)]


def _fail(reason):
    return None, reason, None


def extract_report(text):
    """Return (report, None) or (None, reason); see extract_report_meta."""
    report, err, _ = extract_report_meta(text)
    return report, err


def extract_report_meta(text):
    """Like extract_report, plus a dict {bytes, crc32, schema} (or None).

    Find and verify the LAST complete framed report in a serial log.

    "Complete" means a BEGIN line followed by an END line before any further
    BEGIN; a trailing copy without END is ignored when an earlier complete
    one exists ("truncated: END marker missing" when none does).

    Line ends may be LF, CRLF
    or CR; escape sequences and other text around the markers are ignored.
    The JSON line must match the END marker's byte count and zlib CRC-32
    exactly (it is checked as UTF-8, the bytes the probe sent).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = _lines(text)
    begins = [i for i, ln in enumerate(lines) if BEGIN_RE.search(ln)]
    if not begins:
        return _fail("no report: BEGIN marker not found")
    # Walk back from the last BEGIN to the last one closed by an END before
    # the next BEGIN: a copy cut off by a reset or a full buffer does not
    # hide an earlier whole one.  The chosen pair is then verified as is --
    # a corrupted last copy is an error, never a silent fall-back.
    last_begin = end_idx = None
    for b_i, b in enumerate(reversed(begins)):
        stop = begins[len(begins) - b_i] if b_i else len(lines)
        for j in range(b + 1, stop):
            if END_RE.search(lines[j]):
                last_begin, end_idx = b, j
                break
        if end_idx is not None:
            break
    if end_idx is None:
        return _fail("truncated: END marker missing")
    schema = int(BEGIN_RE.search(lines[last_begin]).group(1))
    body = [ln for ln in lines[last_begin + 1:end_idx] if ln.strip()]
    if len(body) != 1:
        return _fail("malformed: expected one JSON line between the "
                     "markers, found %d" % len(body))
    json_line = body[0].strip()
    m = END_RE.search(lines[end_idx])
    want_crc, want_len = int(m.group(1), 16), int(m.group(2))
    data = json_line.encode("utf-8")
    if len(data) != want_len:
        return _fail("length mismatch: END says %d bytes, JSON line has %d"
                     % (want_len, len(data)))
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != want_crc:
        return _fail("CRC mismatch: END says %08x, JSON bytes give %08x"
                     % (want_crc, crc))
    try:
        report = json.loads(json_line)
    except ValueError as e:
        return _fail("JSON does not parse: %s" % e)
    if not isinstance(report, dict):
        return _fail("JSON is not an object")
    if report.get("schema", schema) != schema:
        return _fail("schema mismatch: marker says %d, JSON says %r"
                     % (schema, report.get("schema")))
    return report, None, {"bytes": want_len, "crc32": "%08x" % crc,
                          "schema": schema}


def frame_report(report_or_json):
    """Frame a report as the probe does (used by fixture generators/tests)."""
    if isinstance(report_or_json, str):
        line = report_or_json
    else:
        line = json.dumps(report_or_json, separators=(",", ":"),
                          ensure_ascii=False)
    data = line.encode("utf-8")
    return ("==== CLOCKPROBE REPORT BEGIN schema=1 ====\n%s\n"
            "==== CLOCKPROBE REPORT END crc32=%08x bytes=%d ====\n"
            % (line, zlib.crc32(data) & 0xFFFFFFFF, len(data)))


def load_report_file(path):
    """Read a report from a .json file or a raw serial log.

    Returns (report, None) or (None, reason).  A file that parses as a JSON
    object is taken as an already extracted report; anything else is searched
    for the framed report.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return None, "cannot read: %s" % e.strerror
    text = raw.decode("utf-8", "replace")
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError as e:
            if "CLOCKPROBE REPORT" not in text:
                return None, "JSON does not parse: %s" % e
        else:
            if isinstance(obj, dict):
                return obj, None
    return extract_report(text)


# ------------------------------------------------------------------ paths

_MISSING = object()
_SEG_RE = re.compile(r"([^.\[\]]+)((?:\[[^\]]*\])*)")
KEY_FIELDS = ("name", "code", "signature", "leaf")


def split_path(path):
    """Split "a.b[x].c[0]" into [("a", []), ("b", ["x"]), ("c", ["0"])]."""
    parts = []
    for seg in path.split("."):
        m = _SEG_RE.fullmatch(seg)
        if not m:
            raise ValueError("bad path segment %r in %r" % (seg, path))
        keys = re.findall(r"\[([^\]]*)\]", m.group(2))
        parts.append((m.group(1), keys))
    return parts


def _select(array, key):
    """Pick an array entry by key (see get_path)."""
    if re.fullmatch(r"-?\d+", key):
        i = int(key)
        return array[i] if -len(array) <= i < len(array) else _MISSING
    if "=" in key:
        field, _, want = key.partition("=")
        for e in array:
            if isinstance(e, dict) and str(e.get(field)) == want:
                return e
        return _MISSING
    if "/" in key:
        a, _, b = key.partition("/")
        for e in array:
            if isinstance(e, dict) and e.get("a") == a and e.get("b") == b:
                return e
        return _MISSING
    for e in array:
        if isinstance(e, dict) and any(e.get(f) == key for f in KEY_FIELDS):
            return e
    for e in array:  # plain lists of strings, e.g. acpi.tables
        if e == key:
            return e
    return _MISSING


def get_path(report, path, default=None):
    """Look up a field by path; return `default` when any step is missing.

    Syntax: dot-separated object keys; [KEY] after a key selects an array
    entry:
      sources[hpet].status          entry whose "name" is hpet
      verdict.warnings[ACPI_PM_FALLBACK].severity
                                    entry whose "code" is ACPI_PM_FALLBACK
                                    (lookup order: name, code, signature,
                                    leaf)
      drift[tsc/hpet].ppm           entry with a == "tsc" and b == "hpet"
      cross_cpu.per_cpu[2]          by index (negative counts from the end)
      platform.hypervisor.signatures[leaf=1073742080].name
                                    explicit FIELD=VALUE (compared as text)
      platform.acpi.tables[HPET]    the entry whose "signature" is HPET (or
                                    a plain string member of a list)
    A bare array (no [KEY]) is returned as a list; "len(...)" is not part of
    the syntax -- use count() in the matrix for that.
    """
    value = get_path_or_missing(report, path)
    return default if value is _MISSING else value


def has_path(report, path):
    return get_path_or_missing(report, path) is not _MISSING


def get_path_or_missing(report, path):
    cur = report
    for key, selectors in split_path(path):
        if not isinstance(cur, dict) or key not in cur:
            return _MISSING
        cur = cur[key]
        for sel in selectors:
            if not isinstance(cur, list):
                return _MISSING
            cur = _select(cur, sel)
            if cur is _MISSING:
                return _MISSING
    return cur


MISSING = _MISSING


if __name__ == "__main__":
    # Small CLI for humans: `cpqemu.py extract LOG`, `cpqemu.py kvm [BOOT]`.
    if len(sys.argv) >= 3 and sys.argv[1] == "extract":
        rep, why = load_report_file(sys.argv[2])
        if rep is None:
            print("%s: %s" % (sys.argv[2], why), file=sys.stderr)
            sys.exit(1)
        json.dump(rep, sys.stdout, indent=2)
        print()
    elif len(sys.argv) >= 2 and sys.argv[1] == "kvm":
        b = sys.argv[2] if len(sys.argv) > 2 else "uefi"
        ok, why = kvm_usable(b, use_cache=False)
        print("%s: %s" % ("usable" if ok else "not usable", why))
        sys.exit(0 if ok else 1)
    else:
        print("usage: cpqemu.py extract LOG | kvm [uefi|pvh]",
              file=sys.stderr)
        sys.exit(2)
