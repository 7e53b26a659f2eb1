#!/usr/bin/env python3
"""Builds the probe's boot media without root or loop mounts.

- a FAT ESP image holding \\EFI\\BOOT\\BOOTX64.EFI (mtools),
- a raw GPT disk with that ESP as its only partition, partitioned by
  sfdisk (Debian's fdisk package; it partitions an image file without root)
  -- boots in OVMF and can be dd'ed to a USB stick,
- a UEFI El Torito ISO whose EFI boot image is the same FAT image (xorriso).
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import uuid

SECTOR = 512
MIB = 1024 * 1024
ESP_TYPE = uuid.UUID("C12A7328-F81F-11D2-BA4B-00A0C93EC93B")
ESP_BYTES = 30 * MIB
DISK_BYTES = 32 * MIB  # 1 MiB before the ESP for the GPT, 1 MiB after for its backup
# Fixed GUIDs keep the image reproducible from run to run (sfdisk would
# otherwise pick random ones).
DISK_GUID = uuid.UUID("6b1e7c2a-3f5d-4c8e-9a1b-c10c4b0be001")
PART_GUID = uuid.UUID("6b1e7c2a-3f5d-4c8e-9a1b-c10c4b0be002")
GPT_ENTRIES = 128  # the usual table: 128 entries of 128 bytes, 32 sectors
# UEFI's removable-media boot file for the arch the .efi is built for: the
# Makefile passes its arch's (mk/arch-<arch>.mk EFI_BOOT_NAME); alone, the
# one arch built today.
BOOT_NAME = "BOOTX64.EFI"


def run(*argv, **kw):
    subprocess.run(argv, check=True, **kw)


def make_fat(path, efi, size, label="CLOCKPROBE", settings=None, boot_name=None):
    with open(path, "wb") as f:
        f.truncate(size)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    run("mformat", "-i", path, "-v", label, "-N", "c10cb0e1", "::", env=env)
    run("mmd", "-i", path, "::/EFI", "::/EFI/BOOT", env=env)
    run("mcopy", "-i", path, efi, "::/EFI/BOOT/" + (boot_name or BOOT_NAME), env=env)
    readme = (b"clockprobe boot volume. After a run, clockprobe-report.json here holds\r\n"
              b"the machine-readable report (when the medium is writable).\r\n"
              b"Optional settings file: \\clockprobe.cfg (key=value, e.g. mode=thorough).\r\n")
    with tempfile.NamedTemporaryFile(delete=False) as t:
        t.write(readme)
    try:
        run("mcopy", "-i", path, t.name, "::/README.TXT", env=env)
    finally:
        os.unlink(t.name)
    if settings:
        # The settings file the probe reads at start (README, "Settings"):
        # on a cloud VM it is the only way to pass settings.
        with tempfile.NamedTemporaryFile(delete=False) as t:
            t.write(settings.encode("ascii") + b"\r\n")
        try:
            run("mcopy", "-i", path, t.name, "::/clockprobe.cfg", env=env)
        finally:
            os.unlink(t.name)


def find_sfdisk():
    """sfdisk lives in /usr/sbin on Debian, which a normal user's PATH
    lacks; partitioning a file needs no root, so look there too."""
    found = shutil.which("sfdisk")
    for cand in ([found] if found else []) + ["/usr/sbin/sfdisk",
                                              "/sbin/sfdisk"]:
        if cand and os.access(cand, os.X_OK):
            return cand
    raise SystemExit("mkmedia: sfdisk not found (Debian package fdisk; "
                     "scripts/install-deps run installs it)")


def gpt_script(disk_bytes):
    """The sfdisk script of the disk: every value pinned (GUIDs, the
    table's size and place, the usable range), so sfdisk's own defaults or
    alignment rules can never change the bytes written."""
    total = disk_bytes // SECTOR
    esp_first = MIB // SECTOR
    table_sectors = GPT_ENTRIES * 128 // SECTOR
    return "\n".join([
        "label: gpt",
        "label-id: %s" % str(DISK_GUID).upper(),
        "unit: sectors",
        "sector-size: %d" % SECTOR,
        "table-length: %d" % GPT_ENTRIES,
        # after the protective MBR, the header and the entries
        "first-lba: %d" % (2 + table_sectors),
        # before the backup entries and the backup header
        "last-lba: %d" % (total - 2 - table_sectors),
        "",
        "start=%d, size=%d, type=%s, uuid=%s, name=\"EFI System\"" % (
            esp_first, ESP_BYTES // SECTOR, str(ESP_TYPE).upper(),
            str(PART_GUID).upper()),
        ""])


def esp_start(path):
    """Where sfdisk put the ESP, read back from the table it wrote."""
    out = subprocess.run([find_sfdisk(), "--json", path], check=True,
                         capture_output=True, text=True).stdout
    parts = json.loads(out)["partitiontable"]["partitions"]
    if len(parts) != 1:
        raise SystemExit("mkmedia: %s: expected one partition, sfdisk "
                         "lists %d" % (path, len(parts)))
    return parts[0]["start"] * SECTOR


def make_disk(path, esp_path, disk_bytes=DISK_BYTES):
    # A sparse file of the disk's size: sfdisk writes the protective MBR,
    # the primary and the backup GPT; the ESP's bytes then go where the
    # table says the partition starts.
    with open(path, "wb") as f:
        f.truncate(disk_bytes)
    subprocess.run([find_sfdisk(), "--no-reread", "--no-tell-kernel",
                    "--quiet", path], input=gpt_script(disk_bytes),
                   text=True, check=True, stdout=subprocess.DEVNULL)
    start = esp_start(path)
    with open(path, "r+b") as f, open(esp_path, "rb") as esp:
        f.seek(start)
        shutil.copyfileobj(esp, f)


def make_iso(path, efi, workdir, boot_name=None):
    # A small FAT image is the El Torito EFI boot image; the ISO itself also
    # carries the .efi for people browsing the CD.
    boot_img = os.path.join(workdir, "efiboot.img")
    # Sized by the .efi (its zeroed per-CPU tables ship as data: ~2.2 MB
    # since the probe holds 4,096 CPUs), with room for the FAT's own
    # tables and directories, in whole MiB; never under the old 2 MiB.
    size = max(2 * MIB, -(-(os.path.getsize(efi) + MIB // 2) // MIB) * MIB)
    make_fat(boot_img, efi, size, label="CPROBEISO", boot_name=boot_name)
    root = os.path.join(workdir, "iso")
    os.makedirs(os.path.join(root, "EFI", "BOOT"), exist_ok=True)
    with open(efi, "rb") as src, open(os.path.join(root, "EFI", "BOOT", boot_name or BOOT_NAME), "wb") as dst:
        dst.write(src.read())
    os.replace(boot_img, os.path.join(root, "efiboot.img"))
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        # Reproducible builds: mtools and xorriso take their own dates
        # from SOURCE_DATE_EPOCH, the ISO's files keep their mtimes.
        for d, dirs, files in os.walk(root):
            for n in dirs + files:
                os.utime(os.path.join(d, n), (int(epoch), int(epoch)))
        os.utime(root, (int(epoch), int(epoch)))
    run("xorriso", "-as", "mkisofs", "-quiet", "-V", "CLOCKPROBE", "-J", "-R",
        "-e", "efiboot.img", "-no-emul-boot", "-isohybrid-gpt-basdat",
        "-o", path, root)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--efi", required=True)
    ap.add_argument("--img", required=True)
    ap.add_argument("--iso")
    ap.add_argument("--disk-mib", type=int, default=DISK_BYTES // MIB,
                    help="raw disk size (GCE wants a multiple of 1024); the file stays sparse")
    ap.add_argument("--boot-name", default=BOOT_NAME,
                    help="the boot file's name in EFI/BOOT/ (the arch's: BOOTX64.EFI on x86_64)")
    ap.add_argument("--settings", help="words for \\clockprobe.cfg on the disk's ESP, "
                    "e.g. \"wait=600 resend=30\"")
    args = ap.parse_args()
    # The probe reads the file as ASCII: say so, not a UnicodeEncodeError.
    if args.settings is not None and not all(" " <= c <= "~" for c in args.settings):
        ap.error("--settings: only printable ASCII goes into \\clockprobe.cfg")
    with tempfile.TemporaryDirectory() as work:
        esp = os.path.join(work, "esp.img")
        make_fat(esp, args.efi, ESP_BYTES, settings=args.settings, boot_name=args.boot_name)
        make_disk(args.img + ".tmp", esp, args.disk_mib * MIB)
        os.replace(args.img + ".tmp", args.img)
        if args.iso:
            make_iso(args.iso + ".tmp", args.efi, work, boot_name=args.boot_name)
            os.replace(args.iso + ".tmp", args.iso)


if __name__ == "__main__":
    main()
