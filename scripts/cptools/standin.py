"""Tiny boot images that print a given text on COM1 and exit with status 33.

The KVM check boots one to learn whether KVM works without needing the
probe to be built, and the host tests boot one carrying a framed report as
a stand-in for the probe, so that they exercise the real QEMU plumbing in
a second instead of minutes.  Two flavours: a PE32+ EFI application for the
firmware paths (hand-assembled, no toolchain) and a PVH ELF (binutils).
"""

import os
import shutil
import struct
import subprocess
import tempfile

from .qemu import BUILD, DEBUG_EXIT_PORT, EXIT_VALUE_COMPLETE, QemuError


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
