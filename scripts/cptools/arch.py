"""Each architecture the probe is built for, in one place for the Python
tools (the build's own per-arch settings are mk/arch-<arch>.mk): the QEMU
that boots it and the name UEFI's removable-media path gives the boot
file (UEFI spec 3.5.1.1, EFI/BOOT/BOOT<machine>.EFI).

x86_64 is the only one built today; aarch64 is issue 37's arm64 step."""

DEFAULT = "x86_64"

ARCHES = {
    "x86_64": {
        "qemu": "qemu-system-x86_64",
        "efi_boot_name": "BOOTX64.EFI",
    },
}


def info(arch=None):
    """The table row of arch (default: DEFAULT); a clear error for others."""
    arch = arch or DEFAULT
    try:
        return ARCHES[arch]
    except KeyError:
        raise ValueError("arch %r is not built (known: %s); aarch64 is issue 37's arm64 step"
                         % (arch, ", ".join(sorted(ARCHES)))) from None


def efi_boot_name(arch=None):
    return info(arch)["efi_boot_name"]
