"""The probe's settings for one boot (`clockprobe run --label/--kernel/
--settings`): the words, and where each boot kind takes them from.

The probe reads key=value words (README, "Settings") from the kernel
command line under direct boot and from \\clockprobe.cfg on its boot
volume under UEFI.  So:

  pvh   -append "WORDS" (refused when --extra already has an -append)
  fat   \\clockprobe.cfg in the fat: drive's folder (this run's own)
  uefi  \\clockprobe.cfg written with mtools into a copy of the disk, after
        any the image already has (the later word wins), never into the
        image itself
  iso   refused: the CD's boot volume is read-only; `clockprobe images
        --settings` bakes words into the disk images instead

The words themselves are judged by the probe (an unknown word or a bad
value is an error entry in its report, code SETTINGS); here only what
would not survive the trip is refused: a label with a space (words are
split on spaces), a kernel that is not X.Y.
"""

import json
import os
import re
import shutil
import subprocess

from . import qemu

CFG = "clockprobe.cfg"
_KERNEL_RE = re.compile(r"\d+\.\d+")
MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


class SettingsError(ValueError):
    pass


def words(label=None, kernel=None, extra=None):
    """The settings words for --label, --kernel and --settings."""
    out = (extra or "").split()
    if label is not None:
        if not label or any(c.isspace() for c in label):
            raise SettingsError("--label %r: one word, no spaces (the probe "
                                "splits its settings on spaces)" % label)
        out.append("label=" + label)
    if kernel is not None:
        if not _KERNEL_RE.fullmatch(kernel):
            raise SettingsError("--kernel %r: a Linux release as X.Y, "
                                "e.g. 6.1" % kernel)
        out.append("kernel=" + kernel)
    return out


def _sfdisk():
    for cand in (shutil.which("sfdisk"), "/usr/sbin/sfdisk", "/sbin/sfdisk"):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise SettingsError("sfdisk not found (Debian package fdisk): needed "
                        "to find the ESP on the disk for its settings")


def esp_offset(disk):
    """Byte offset of the disk's EFI system partition, from its GPT."""
    p = subprocess.run([_sfdisk(), "--json", disk], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SettingsError("%s: no partition table sfdisk can read: %s"
                            % (disk, p.stderr.strip()))
    table = json.loads(p.stdout)["partitiontable"]
    for part in table.get("partitions", []):
        if part.get("type", "").upper() == \
                "C12A7328-F81F-11D2-BA4B-00A0C93EC93B":
            return part["start"] * table.get("sectorsize", 512)
    raise SettingsError("%s: no EFI system partition" % disk)


def _disk_with_settings(image, line, work_dir):
    if not (shutil.which("mcopy") and shutil.which("mtype")):
        raise SettingsError("mtools not found (Debian package mtools): "
                            "needed to write \\%s on the disk" % CFG)
    copy = os.path.join(work_dir, "disk-with-settings.img")
    shutil.copyfile(image, copy)
    target = "%s@@%d" % (copy, esp_offset(copy))
    old = subprocess.run(["mtype", "-i", target, "::/" + CFG],
                         capture_output=True, env=MTOOLS_ENV)
    text = (old.stdout.decode("ascii", "replace").strip() + " "
            if old.returncode == 0 else "") + line
    cfg = os.path.join(work_dir, CFG)
    with open(cfg, "wb") as f:
        f.write(text.encode("ascii", "replace") + b"\r\n")
    p = subprocess.run(["mcopy", "-o", "-i", target, cfg, "::/" + CFG],
                       capture_output=True, text=True, env=MTOOLS_ENV)
    os.unlink(cfg)
    if p.returncode != 0:
        raise SettingsError("writing \\%s on %s: %s" % (CFG, copy,
                                                       p.stderr.strip()))
    return copy


def place(boot, image, settings_words, work_dir, extra=""):
    """Put the words where this boot kind reads them.

    Returns (image, qemu_args): the medium to boot (a copy for uefi) and
    arguments to add to QEMU's.  A fat boot's folder is this run's own
    (work_dir/esp, cptools.qemu): a \\clockprobe.cfg left there by an
    earlier run with settings is removed when this one has none."""
    fat_cfg = os.path.join(work_dir, "esp", CFG)
    if boot == "fat" and os.path.exists(fat_cfg):
        os.unlink(fat_cfg)
    if not settings_words:
        return image, []
    line = " ".join(settings_words)
    os.makedirs(work_dir, exist_ok=True)
    if boot == "pvh":
        if "-append" in qemu._split_extra(extra):
            raise SettingsError("settings and an -append in the QEMU "
                                "arguments: give the words one way")
        return image, ["-append", line]
    if boot == "fat":
        if os.path.isdir(image):
            raise SettingsError("fat boot of the folder %s: put %s in it "
                                "yourself" % (image, CFG))
        os.makedirs(os.path.dirname(fat_cfg), exist_ok=True)
        with open(fat_cfg, "wb") as f:
            f.write(line.encode("ascii", "replace") + b"\r\n")
        return image, []
    if boot == "uefi":
        return _disk_with_settings(image, line, work_dir), []
    raise SettingsError("settings cannot go on the CD image (its boot "
                        "volume is read-only): boot uefi, fat or pvh, or "
                        "bake them in with `clockprobe images --settings`")
