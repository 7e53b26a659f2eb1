"""Compatibility face of clockprobe's QEMU plumbing (scripts/cptools/).

The plumbing used to live in this one file; it is now a package with one
job per module (see cptools/__init__.py).  This module re-exports the same
public names so that older callers keep working unchanged::

    sys.path.insert(0, os.path.join(REPO, "scripts"))
    import cpqemu
    cpqemu.qemu_command(...), cpqemu.extract_report(...), ...

New code should import from cptools directly.  Also a small CLI for humans:
`cpqemu.py extract LOG` and `cpqemu.py kvm [uefi|pvh]`.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cptools.qemu import (  # noqa: E402,F401
    BOOT_KINDS, BUILD, DEBUG_EXIT_PORT, DEFAULT_IMAGES, EXIT_COMPLETE,
    EXIT_FAILED, EXIT_VALUE_COMPLETE, EXIT_VALUE_FAILED, OVMF_DIRS,
    OVMF_PAIRS, QEMU, REPO, QemuError, copy_vars, find_ovmf, find_qemu,
    host_cpu_fixup, needs_firmware, qemu_command, qemu_version,
    _fat_dir_for, _split_extra)
from cptools.process import (  # noqa: E402,F401
    RunResult, describe_status, run_argv, _kill_group)
from cptools.standin import (  # noqa: E402,F401
    PVH_ASM, PVH_LDS, build_pvh_check_image, tiny_efi_app, _align)
from cptools.kvm import (  # noqa: E402,F401
    KVM_CACHE_MAX_AGE_S, KVM_FAILURE_PATTERNS, kvm_usable, kvm_watch,
    _check_kvm_once, _kvm_cache_path)
from cptools.frame import (  # noqa: E402,F401
    ANSI_RE, BEGIN_RE, END_RE, extract_report, extract_report_meta,
    frame_report, load_report_file, _fail, _lines)
from cptools.query import (  # noqa: E402,F401
    KEY_FIELDS, MISSING, get_path, get_path_or_missing, has_path,
    split_path, _MISSING, _SEG_RE, _select)
from cptools.boot import ProbeBoot, boot_probe, run_probe  # noqa: E402,F401


if __name__ == "__main__":
    # Small CLI for humans: `cpqemu.py extract LOG`, `cpqemu.py kvm [BOOT]`.
    # extract is `clockprobe extract` (cptools/extract.py): same output,
    # and its --help, -o and --raw.
    if len(sys.argv) >= 2 and sys.argv[1] == "extract":
        from cptools import extract
        sys.argv[0] = "cpqemu.py extract"  # argparse's prog in the usage
        sys.exit(extract.main(sys.argv[2:]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "kvm":
        b = sys.argv[2] if len(sys.argv) > 2 else "uefi"
        ok, why = kvm_usable(b, use_cache=False)
        from cptools.untrusted import term_text   # why quotes QEMU's stderr
        print("%s: %s" % ("usable" if ok else "not usable", term_text(why)))
        sys.exit(0 if ok else 1)
    else:
        print("usage: cpqemu.py extract LOG | kvm [uefi|pvh]",
              file=sys.stderr)
        sys.exit(2)
