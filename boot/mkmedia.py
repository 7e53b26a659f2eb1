#!/usr/bin/env python3
"""Builds the probe's boot media without root or loop mounts.

- a FAT ESP image holding \\EFI\\BOOT\\BOOTX64.EFI (mtools),
- a raw GPT disk with that ESP as its only partition (GPT written here:
  no partitioning tool is installed by default) -- boots in OVMF and can be
  dd'ed to a USB stick,
- a UEFI El Torito ISO whose EFI boot image is the same FAT image (xorriso).
"""
import argparse
import os
import struct
import subprocess
import tempfile
import uuid
import zlib

SECTOR = 512
MIB = 1024 * 1024
ESP_TYPE = uuid.UUID("C12A7328-F81F-11D2-BA4B-00A0C93EC93B")
ESP_BYTES = 30 * MIB
DISK_BYTES = 32 * MIB  # 1 MiB before the ESP for the GPT, 1 MiB after for its backup
# Fixed GUIDs keep the image reproducible from run to run.
DISK_GUID = uuid.UUID("6b1e7c2a-3f5d-4c8e-9a1b-c10c4b0be001")
PART_GUID = uuid.UUID("6b1e7c2a-3f5d-4c8e-9a1b-c10c4b0be002")


def run(*argv, **kw):
    subprocess.run(argv, check=True, **kw)


def make_fat(path, efi, size, label="CLOCKPROBE", settings=None):
    with open(path, "wb") as f:
        f.truncate(size)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    run("mformat", "-i", path, "-v", label, "-N", "c10cb0e1", "::", env=env)
    run("mmd", "-i", path, "::/EFI", "::/EFI/BOOT", env=env)
    run("mcopy", "-i", path, efi, "::/EFI/BOOT/BOOTX64.EFI", env=env)
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


def gpt_header(current, backup, first_usable, last_usable, entries_lba, entries_crc):
    fmt = "<8sIIIIQQQQ16sQIII"
    fields = [b"EFI PART", 0x00010000, 92, 0, 0, current, backup, first_usable,
              last_usable, DISK_GUID.bytes_le, entries_lba, 128, 128, entries_crc]
    hdr = struct.pack(fmt, *fields)
    crc = zlib.crc32(hdr) & 0xFFFFFFFF
    fields[3] = crc
    return struct.pack(fmt, *fields).ljust(SECTOR, b"\0")


def make_disk(path, esp_path, disk_bytes=DISK_BYTES):
    total_sectors = disk_bytes // SECTOR
    esp_first = MIB // SECTOR
    esp_last = esp_first + ESP_BYTES // SECTOR - 1
    name = "EFI System".encode("utf-16-le").ljust(72, b"\0")
    entry = struct.pack("<16s16sQQQ72s", ESP_TYPE.bytes_le, PART_GUID.bytes_le,
                        esp_first, esp_last, 0, name)
    entries = entry.ljust(128 * 128, b"\0")
    entries_crc = zlib.crc32(entries) & 0xFFFFFFFF
    last_lba = total_sectors - 1
    first_usable = 34
    last_usable = last_lba - 33
    primary = gpt_header(1, last_lba, first_usable, last_usable, 2, entries_crc)
    backup = gpt_header(last_lba, 1, first_usable, last_usable, last_lba - 32, entries_crc)
    # Protective MBR: one 0xEE partition covering the disk.
    mbr = bytearray(SECTOR)
    mbr[446:462] = struct.pack("<B3sB3sII", 0, b"\x00\x02\x00", 0xEE, b"\xff\xff\xff",
                               1, min(total_sectors - 1, 0xFFFFFFFF))
    mbr[510:512] = b"\x55\xaa"
    with open(path, "wb") as f:
        f.truncate(disk_bytes)
        f.write(mbr)
        f.write(primary)
        f.write(entries)
        f.seek(esp_first * SECTOR)
        with open(esp_path, "rb") as esp:
            f.write(esp.read())
        f.seek((last_lba - 32) * SECTOR)
        f.write(entries)
        f.write(backup)


def make_iso(path, efi, workdir):
    # A small FAT image is the El Torito EFI boot image; the ISO itself also
    # carries the .efi for people browsing the CD.
    boot_img = os.path.join(workdir, "efiboot.img")
    make_fat(boot_img, efi, 2 * MIB, label="CPROBEISO")
    root = os.path.join(workdir, "iso")
    os.makedirs(os.path.join(root, "EFI", "BOOT"), exist_ok=True)
    with open(efi, "rb") as src, open(os.path.join(root, "EFI", "BOOT", "BOOTX64.EFI"), "wb") as dst:
        dst.write(src.read())
    os.replace(boot_img, os.path.join(root, "efiboot.img"))
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
    ap.add_argument("--settings", help="words for \\clockprobe.cfg on the disk's ESP, "
                    "e.g. \"wait=600 resend=30\"")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        esp = os.path.join(work, "esp.img")
        make_fat(esp, args.efi, ESP_BYTES, settings=args.settings)
        make_disk(args.img + ".tmp", esp, args.disk_mib * MIB)
        os.replace(args.img + ".tmp", args.img)
        if args.iso:
            make_iso(args.iso + ".tmp", args.efi, work)
            os.replace(args.iso + ".tmp", args.iso)


if __name__ == "__main__":
    main()
