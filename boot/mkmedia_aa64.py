#!/usr/bin/env python3
"""The arm64 probe's boot disk: a FAT file system over the whole image
(no partition table: UEFI's partition driver takes an unpartitioned FAT
medium as one file system) holding \\EFI\\BOOT\\BOOTAA64.EFI, the path
arm64 firmware boots from removable media (UEFI spec, "Removable Media
Boot Behavior").  mtools, no root; boot/mkmedia.py's x86 media untouched.
"""
import argparse
import os
import subprocess

IMAGE_BYTES = 8 * 1024 * 1024


def make(img, efi):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    tmp = img + ".tmp"
    with open(tmp, "wb") as f:
        f.truncate(IMAGE_BYTES)
    for argv in (["mformat", "-i", tmp, "-v", "CLOCKPROBE", "-N", "c10cb0e2", "::"],
                 ["mmd", "-i", tmp, "::/EFI", "::/EFI/BOOT"],
                 ["mcopy", "-i", tmp, efi, "::/EFI/BOOT/BOOTAA64.EFI"]):
        subprocess.run(argv, check=True, env=env)
    os.replace(tmp, img)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--efi", required=True)
    ap.add_argument("--img", required=True)
    a = ap.parse_args()
    make(a.img, a.efi)


if __name__ == "__main__":
    main()
