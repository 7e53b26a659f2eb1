"""`clockprobe images`: every VM and cloud format from the probe's .efi.

One pipeline for `make images` and the installed command: a raw GPT disk
(boot/mkmedia.py: sfdisk + mtools), converted by qemu-img to VMware's
streamOptimized .vmdk, Hyper-V's .vhdx, .qcow2 and the fixed .vhd that
Azure and AWS import; the .ova (boot/mkova.py); the 1 GiB disk.raw in the
tar.gz Google Compute Engine imports.  --settings writes \\clockprobe.cfg
into every disk made (on a cloud VM the only way to pass settings).

Each artifact is written under a temporary name and renamed when whole, so
a failed step never leaves a half image under the final name; the listing
printed at the end (and by --list) names every image with its size and
SHA-256.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from . import helpfmt, paths, vocabulary

# What `make all` builds, and what this command adds.
BASE = ("clockprobe.efi", "clockprobe.img", "clockprobe.iso",
        "clockprobe.elf")
FORMATS = {
    # name: (output file, tools it needs)
    "img": ("clockprobe.img", ()),
    "vmdk": ("clockprobe.vmdk", ("qemu-img",)),
    "ova": ("clockprobe.ova", ("qemu-img",)),
    "vhdx": ("clockprobe.vhdx", ("qemu-img",)),
    "qcow2": ("clockprobe.qcow2", ("qemu-img",)),
    "vhd": ("clockprobe.vhd", ("qemu-img",)),
    "gce": ("clockprobe-gce.tar.gz", ("tar",)),
}
ALL = tuple(FORMATS)
# (Debian package) of each tool, for the error that names what is missing.
TOOL_PACKAGES = {"qemu-img": "qemu-utils", "tar": "tar",
                 "mformat": "mtools", "sfdisk": "fdisk"}
QEMU_IMG_ARGS = {
    "vmdk": ["-O", "vmdk", "-o", "subformat=streamOptimized"],
    "vhdx": ["-O", "vhdx", "-o", "subformat=dynamic"],
    "qcow2": ["-O", "qcow2"],
    "vhd": ["-O", "vpc", "-o", "subformat=fixed,force_size"],
}
GCE_DISK_MIB = 1024  # GCE wants a whole number of GiB

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class ImageError(Exception):
    pass


def parse_formats(text):
    names = [t.strip() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return ALL
    bad = [n for n in names if n not in FORMATS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            "unknown format %s (known: %s, all)"
            % (", ".join(bad) or "''", ", ".join(ALL)))
    return tuple(n for n in ALL if n in names)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Build the probe's disk image in every VM and cloud "
                    "format.",
        formatter_class=helpfmt.Formatter,
        epilog=helpfmt.epilog(
            "Formats: img (raw GPT disk, for dd to a USB stick), vmdk "
            "(VMware,\nstreamOptimized), ova (VMware and OVF importers), "
            "vhdx (Hyper-V), qcow2,\nvhd (fixed, Azure and AWS), gce "
            "(clockprobe-gce.tar.gz for Google Compute\nEngine).  Needs "
            "mtools and sfdisk (fdisk), and qemu-img (qemu-utils) for "
            "the\nconverted formats.",
            helpfmt.exit_status(
                (EXIT_OK, "every format asked for was written (or, with "
                          "--list, listed)"),
                (EXIT_FAILED, "a step failed (its message is printed; no "
                              "partial file is left)"),
                (EXIT_USAGE, "usage error, the .efi or a tool is "
                             "missing"))))
    p.add_argument("--efi", default=os.path.join(paths.DATA,
                                                 "clockprobe.efi"),
                   metavar="FILE", help="the probe to put on the disks")
    p.add_argument("--out", default=paths.output_dir("images"),
                   metavar="DIR", help="where the images go")
    p.add_argument("--formats", type=parse_formats,
                   default=ALL, metavar="LIST",
                   help="comma-separated formats to make, or all "
                        "(default: all)")
    p.add_argument("--settings", metavar="WORDS", type=settings_words,
                   help="words for \\clockprobe.cfg on every disk, e.g. "
                        "\"wait=900 resend=30\"")
    p.add_argument("--list", action="store_true",
                   help="only list the images in DIR (and the installed "
                        "ones) with size and SHA-256")
    return p.parse_args(argv)


def settings_words(text):
    """--settings as the probe reads \\clockprobe.cfg: printable ASCII
    words.  Anything else is a usage error naming the character, never
    the traceback mkmedia's ASCII encoding gave (issue 41)."""
    for i, ch in enumerate(text):
        if not " " <= ch <= "~":
            raise argparse.ArgumentTypeError(
                "only printable ASCII goes into \\clockprobe.cfg: %s at "
                "position %d" % (ascii(ch), i + 1))
    # A word the probe would refuse is refused here, before it is baked
    # into every disk (issue 38: `--settings wiat=900` went on all of them).
    try:
        vocabulary.check_settings(text.split())
    except vocabulary.NotUnderstood as e:
        raise argparse.ArgumentTypeError(str(e))
    return text


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def listing(paths_):
    """Lines "SIZE  SHA256  PATH" for the files that exist."""
    rows = []
    for p in paths_:
        if os.path.isfile(p):
            rows.append("%12d  %s  %s" % (os.path.getsize(p), sha256(p), p))
    return rows


def _tool(name):
    found = shutil.which(name)
    if found:
        return found
    # sfdisk is in /usr/sbin, not on a normal user's PATH on Debian
    for d in ("/usr/sbin", "/sbin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return None


def missing_tools(formats):
    need = {"mformat", "sfdisk"}
    for f in formats:
        need.update(FORMATS[f][1])
    return sorted(t for t in need if _tool(t) is None)


def _run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise ImageError("%s failed (exit %d): %s" % (
            os.path.basename(argv[0]) if argv[0] != sys.executable
            else argv[1], p.returncode, (p.stderr or p.stdout).strip()))


def _mkmedia(efi, img, settings, disk_mib=None):
    argv = [sys.executable, os.path.join(paths.BOOT_TOOLS, "mkmedia.py"),
            "--efi", efi, "--img", img]
    if disk_mib:
        argv += ["--disk-mib", str(disk_mib)]
    if settings:
        argv += ["--settings", settings]
    _run(argv)


def build(efi, out, formats, settings=None, log=print):
    """Write each format into out; return the paths written, in order."""
    os.makedirs(out, exist_ok=True)
    written = []
    # On out's own file system, so the renames are atomic and the 1 GiB
    # GCE disk stays sparse.
    work = tempfile.mkdtemp(prefix=".images-", dir=out)
    try:
        raw = os.path.join(work, "disk.img")
        _mkmedia(efi, raw, settings)
        for f in formats:
            dest = os.path.join(out, FORMATS[f][0])
            tmp = os.path.join(work, "out-" + FORMATS[f][0])
            log("  IMAGE   %s" % dest)
            if f == "img":
                shutil.copyfile(raw, tmp)
            elif f in QEMU_IMG_ARGS:
                _run([_tool("qemu-img"), "convert", "-f", "raw"]
                     + QEMU_IMG_ARGS[f] + [raw, tmp])
            elif f == "ova":
                _run([sys.executable,
                      os.path.join(paths.BOOT_TOOLS, "mkova.py"),
                      "--img", raw, "--ova", tmp])
            elif f == "gce":
                gce = os.path.join(work, "gce")
                os.makedirs(gce)
                _mkmedia(efi, os.path.join(gce, "disk.raw"), settings,
                         GCE_DISK_MIB)
                # GCE's import wants exactly one member named disk.raw;
                # oldgnu + -S keeps the sparse 1 GiB small.
                _run([_tool("tar"), "--format=oldgnu", "-Sczf", tmp,
                      "-C", gce, "disk.raw"])
            os.replace(tmp, dest)
            written.append(dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return written


def known_images(out):
    """Every image this project makes that is in out, and the installed
    (or built) base images, without duplicates."""
    names = BASE + tuple(FORMATS[f][0] for f in ALL)
    seen, result = set(), []
    for d in (out, paths.DATA):
        for n in names:
            p = os.path.join(d, n)
            if os.path.abspath(p) not in seen:
                seen.add(os.path.abspath(p))
                result.append(p)
    return result


def main(argv, stdout=None, stderr=None):
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = parse_args(argv)
    if args.list:
        rows = listing(known_images(args.out))
        for r in rows:
            print(r, file=stdout)
        if not rows:
            print("images: no image in %s or %s" % (args.out, paths.DATA),
                  file=stderr)
            return EXIT_FAILED
        return EXIT_OK
    if not os.path.isfile(args.efi):
        print("images: %s not found (%s)" % (
            args.efi, "build it with make" if paths.IN_TREE
            else "give the probe with --efi"), file=stderr)
        return EXIT_USAGE
    missing = missing_tools(args.formats)
    if missing:
        print("images: missing %s (Debian packages: %s)" % (
            ", ".join(missing), " ".join(sorted(
                {TOOL_PACKAGES.get(t, t) for t in missing}))), file=stderr)
        return EXIT_USAGE
    try:
        written = build(args.efi, args.out, args.formats, args.settings,
                        log=lambda m: print(m, file=stdout))
    except (ImageError, OSError) as e:
        print("images: %s" % e, file=stderr)
        return EXIT_FAILED
    # The whole set: what was just written and the images already there
    # (make all's .efi/.img/.iso/.elf, or the installed ones).
    print("images: %d written to %s" % (len(written), args.out), file=stdout)
    for r in listing(known_images(args.out)):
        print(r, file=stdout)
    return EXIT_OK
