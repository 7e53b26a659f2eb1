"""The hostile machine: QEMU configurations that present bad firmware
tables, odd SMBIOS strings, missing devices and bad settings, and the
files they need (ACPI tables with computed checksums, a RAM pattern),
written into build/hostile/ at test time.  probe_runs boots them with
the rest, in parallel; tests/integration/test_hostile.py checks them."""
import os
import struct
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(REPO, "build", "hostile")

# Where the bogus HPET table points: RAM in every map (-m 256M), far from
# the probe's image and pool and from the firmware's tables at the top.
RAM_HPET_BASE = 0x4000000
RAM_MEM = "256M"
# What the probe would see there: capabilities with a valid period
# (10 ns), a halted configuration register, then filler.  A probe that
# trusted the table would set bit 0 of the configuration at +0x10.
HPET_CAPS = 0x0098968080868201
PATTERN = struct.pack("<QQQ", HPET_CAPS, 0xA5A5A5A5A5A5A5A5, 0) + bytes([0xA5]) * (4096 - 24)
CONFIG_OFFSET = 0x10


def acpi_table(sig, body, revision=1, fix_checksum=True, length=None):
    """A table with a 36-byte header; the checksum makes the byte sum 0
    unless fix_checksum is False (then it is off by one)."""
    n = 36 + len(body) if length is None else length
    hdr = bytearray(sig.encode() + struct.pack("<IBB", n, revision, 0) + b"CPTEST" + b"HOSTILE " +
                    struct.pack("<I", 1) + b"CPRB" + struct.pack("<I", 1))
    t = hdr + body
    t[9] = (-sum(t)) & 0xFF
    if not fix_checksum:
        t[9] = (t[9] + 1) & 0xFF
    return bytes(t)


def hpet_table(base, block_id=0x8086A201):
    gas = struct.pack("<BBBBQ", 0, 64, 0, 0, base)
    return acpi_table("HPET", struct.pack("<I", block_id) + gas + struct.pack("<BHB", 0, 0x80, 0))


# Issue 41: HPET tables naming another device's registers.  q35's MCFG
# declares 0xB0000000-0xBFFFFFFF (segment 0, buses 0-255): bus 0 device 0
# is the host bridge, whose offset 0x10 (the "configuration register")
# holds no BAR, reading 0 -- a probe trusting the table would write 0x1
# there, which QEMU's pci_cfg_write trace shows.  The I/O APIC's page
# (0xFEC00000 in the MADT): offset 0x10 is its IOWIN data window, which
# the ioapic_mem_write trace shows (traced with SeaBIOS's PCI writes,
# so an empty trace cannot pass for a silent one).
MCFG_HPET_BASE = 0xB0000000
IOAPIC_HPET_BASE = 0xFEC00000
# Two more (issue 41, carried by SPCR boots that have no HPET of their
# own, hpet=off, so as to add no boot): a base in a hole no firmware map
# sets aside (no HPET device in the AML, not reserved in the E820), and
# the std VGA's MMIO BAR2 where SeaBIOS places it on q35 (QEMU's
# pci_update_mappings_add trace of that boot says where it really was).
HOLE_HPET_BASE = 0xFE000000
BAR_HPET_BASE = 0xFEBF0000


def trace_file(name):
    return os.path.join(OUT, name + ".trace")


def _traced(name, events):
    """QEMU arguments writing these trace events of the boot to its file."""
    args = []
    for e in events:
        args += ["-d", "trace:" + e]
    return args + ["-D", trace_file(name)]


def spcr_table(port):
    """An SPCR (revision 2, 80 bytes) naming a 16550 (interface type 0) at
    an I/O port: GAS system I/O, 8 bits, byte access; 115200 baud, no IRQ."""
    gas = struct.pack("<BBBBQ", 1, 8, 0, 1, port)
    body = struct.pack("<B3s", 0, b"\0" * 3) + gas + struct.pack(
        "<BBIBBBBBBHHBBBBIB3s", 0, 0, 0, 7, 0, 1, 0, 0, 0, 0xffff, 0xffff,
        0, 0, 0, 0, 0, 0, b"\0" * 3)
    assert 36 + len(body) == 80, len(body)
    return acpi_table("SPCR", body, revision=2)


# The SPCR cases (issue 25): a 16550 "at" these ports would put the scratch
# register, base + 7, on QEMU's isa-debug-exit (0xF4), on the reset control
# register (0xCF9) and on port A (0x92: fast reset, A20).
SPCR_HOSTILE_PORTS = (0xED, 0xCF2, 0x8B)
SERIAL_HOSTILE_PORT = 0xCF9
# A real second 16550 at a base no PC gives a COM port: taken on its
# registers, read alone.
ODD_UART_PORT = 0x500


# Longer than the probe's 64-byte SMBIOS strings: kept cut, and flagged.
LONG_SERIAL = "S" * 63 + "-cut-here"


def odd_uart_log():
    return os.path.join(OUT, "odd-uart.log")


def _write(name, data):
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _tables(names_and_data):
    args = []
    for name, data in names_and_data:
        args += ["-acpitable", "file=" + _write(name, data)]
    return args


def ram_file(name):
    return os.path.join(OUT, name + ".ram")


# The VMClock SSDT QEMU 10 builds (tests/fixtures/acpi), its _CRS moved:
# into RAM (seeded with a valid-looking VCLK page, so a probe that ignored
# the memory map would read and report it) and into an unreserved hole.
VMCLOCK_SSDT = os.path.join(REPO, "tests", "fixtures", "acpi", "seabios-q35-vmclock", "SSDT.bin")
VMCLOCK_PAGE = os.path.join(REPO, "tests", "fixtures", "acpi", "seabios-q35-vmclock", "VMCLOCK.bin")
RAM_VMCLOCK_BASE = 0x4800000
HOLE_VMCLOCK_BASE = 0xfe000000


def vmclock_ssdt(base):
    """QEMU's real SSDT with its QWord memory descriptor pointed at base."""
    with open(VMCLOCK_SSDT, "rb") as f:
        t = bytearray(f.read())
    d = t.index(b"\x8a\x2b\x00")
    length = struct.unpack_from("<Q", t, d + 38)[0]
    struct.pack_into("<QQ", t, d + 14, base, base + length - 1)
    t[9] = 0
    t[9] = (-sum(t)) & 0xFF
    return bytes(t)


# Issue 41: MADTs listing more CPUs than QEMU runs.  QEMU lists its own
# MADT first and the probe keeps the first, so a small PVH kernel
# (madt_swap.c) swaps the root tables' APIC entries at the PVH entry and
# jumps to the probe, which -device loader put at its address.
MADT_SWAP_C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "madt_swap.c")
PROBE_ELF = os.path.join(REPO, "build", "clockprobe.elf")
MADT_SWAP_ELF = os.path.join(OUT, "madt-swap.elf")


def madt_swap_kernel():
    """Builds the swap kernel for the probe's entry; its path."""
    with open(PROBE_ELF, "rb") as f:
        entry = struct.unpack_from("<Q", f.read(32), 24)[0]
    os.makedirs(OUT, exist_ok=True)
    subprocess.run(["gcc", "-m32", "-O1", "-ffreestanding", "-fno-pic", "-no-pie", "-fno-stack-protector",
                    "-nostdlib", "-static", '-DPROBE_ENTRY_STR="0x%x"' % entry, "-Wl,-Ttext=0x2000000",
                    "-Wl,--build-id=none", "-Wl,-e,shim_start", "-o", MADT_SWAP_ELF, MADT_SWAP_C], check=True)
    return MADT_SWAP_ELF


def madt_table(apic_ids):
    """A q35-like MADT (PCAT_COMPAT, the I/O APIC at 0xFEC00000, QEMU's
    ISA overrides) listing apic_ids in order, every one enabled: type 0
    entries below 0xff, type 9 (x2APIC) from 0x100."""
    body = struct.pack("<II", 0xFEE00000, 1)
    for uid, i in enumerate(apic_ids):
        if i < 0xff:
            body += struct.pack("<BBBBI", 0, 8, uid & 0xff, i, 1)
        else:
            body += struct.pack("<BBHIII", 9, 16, 0, i, 1, uid)
    body += struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)
    for irq, gsi, flags in ((0, 2, 0), (5, 5, 0xd), (9, 9, 0xd), (10, 10, 0xd), (11, 11, 0xd)):
        body += struct.pack("<BBBBIH", 2, 10, 0, irq, gsi, flags)
    return acpi_table("APIC", body, revision=3)


# 300 enabled CPUs (ids 0..254, then x2APIC ids 0x100..0x12c) on a
# 2-vCPU QEMU; a running AP (id 1) listed twice on 3 vCPUs; 250 CPUs
# (ids 2..251) that never answer on 2 vCPUs.
MADT_300 = list(range(0xff)) + list(range(0x100, 0x100 + 45))
MADT_DUP = [0, 1, 1, 2]
MADT_ABSENT = list(range(252))


def _swapped(name, ids, smp):
    return dict(boot="pvh", smp=smp, image_fn=madt_swap_kernel,
                extra=["-device", "loader,file=%s" % PROBE_ELF] + _tables([(name + ".bin", madt_table(ids))]))


def configs():
    """name -> probe_runs config; files are written now."""
    pattern = _write("hpet-pattern.bin", PATTERN)
    ram = ram_file("hostile_hpet_ram")
    hpet_ram = dict(
        boot="pvh",
        machine="q35,hpet=off,memory-backend=ram0",
        mem=RAM_MEM,
        extra=["-object", "memory-backend-file,id=ram0,size=%s,mem-path=%s,share=on" % (RAM_MEM, ram),
               "-device", "loader,file=%s,addr=0x%x,force-raw=on" % (pattern, RAM_HPET_BASE)]
        + _tables([("hpet-in-ram.bin", hpet_table(RAM_HPET_BASE))]),
        pre=lambda: os.path.exists(ram) and os.remove(ram))
    # Seventy more tables: a bad checksum, one claiming less than its
    # header, one claiming more than it holds, and 67 plain ones.
    many = [("bad-checksum.bin", acpi_table("BADC", b"\x01" * 16, fix_checksum=False)),
            ("short.bin", acpi_table("SHRT", b"\x02" * 16, length=20)),
            ("long.bin", acpi_table("LONG", b"\x03" * 16, length=4000))]
    many += [("extra-%02d.bin" % i, acpi_table("X%03d" % i, bytes([i]) * 8)) for i in range(67)]
    odd = "q\"uo\\te\x01\x1f\x7f caf\u00e9 \u2603"
    def drop_trace(name):
        return lambda: os.path.exists(trace_file(name)) and os.remove(trace_file(name))
    return {
        "hostile_hpet_ram": hpet_ram,
        "hostile_hpet_mcfg": dict(
            boot="pvh", machine="q35,hpet=off", pre=drop_trace("hostile_hpet_mcfg"),
            extra=_traced("hostile_hpet_mcfg", ["pci_cfg_write"])
            + _tables([("hpet-in-mcfg.bin", hpet_table(MCFG_HPET_BASE))])),
        "hostile_hpet_ioapic": dict(
            boot="pvh", machine="q35,hpet=off", pre=drop_trace("hostile_hpet_ioapic"),
            extra=_traced("hostile_hpet_ioapic", ["ioapic_mem_write", "pci_cfg_write"])
            + _tables([("hpet-at-ioapic.bin", hpet_table(IOAPIC_HPET_BASE))])),
        "hostile_vmclock_ram": dict(boot="pvh", extra=[
            "-device", "loader,file=%s,addr=0x%x,force-raw=on" % (VMCLOCK_PAGE, RAM_VMCLOCK_BASE)]
            + _tables([("vmclock-in-ram.bin", vmclock_ssdt(RAM_VMCLOCK_BASE))])),
        "hostile_vmclock_hole": dict(boot="pvh", extra=_tables([("vmclock-in-hole.bin",
                                                                vmclock_ssdt(HOLE_VMCLOCK_BASE))])),
        "hostile_many_tables": dict(boot="pvh", extra=["-append", "dump"] + _tables(many)),
        "hostile_smbios": dict(boot="pvh", extra=[
            "-smbios", "type=0,vendor=%s,version=\\\\" % odd.replace(",", ",,"),
            "-smbios", "type=1,manufacturer=%s,product=\"\",version=\x7f\x80,serial=%s"
            % (odd.replace(",", ",,"), LONG_SERIAL),
            # Cut strings are flagged (issue 25): the 64-byte label, the
            # SMBIOS field.
            "-append", "label=" + "L" * 80]),
        "hostile_no_timers": dict(boot="pvh", machine="q35,hpet=off,pit=off", mem="64M"),
        "hostile_smp8": dict(boot="pvh", smp="8"),
        "hostile_madt_300": _swapped("madt-300", MADT_300, "2"),
        "hostile_madt_dup": _swapped("madt-dup", MADT_DUP, "3"),
        "hostile_madt_absent": _swapped("madt-absent", MADT_ABSENT, "2"),
        "hostile_no_tsc": dict(boot="pvh", cpu="qemu64,-tsc"),
        # Three vCPUs and a 1 ms cross-CPU budget (issue 41): one pair is
        # measured, the other AP is named not tested (the budget path of
        # a machine with hundreds of CPUs, on a small one).
        "hostile_settings_a": dict(boot="pvh", smp="3",
                                   extra=["-append", "samples=100 mode=quick dmup smaples=5 "
                                          "mode=fast window_ms=0 serial=com9 wait=-1 "
                                          "dump=maybe gaps_ms samples=1e3 \x01x=\xff xcpu_budget_ms=1"]),
        "hostile_settings_b": dict(boot="pvh", extra=["-append", "mode=quick samples=100"]),
        # Each must end with its report on COM1 and the port named.
        "hostile_spcr_ed": dict(boot="pvh", extra=["-append", "serial=0x%x" % SERIAL_HOSTILE_PORT]
                                + _tables([("spcr-ed.bin", spcr_table(0xED))])),
        "hostile_spcr_cf2": dict(boot="pvh", machine="q35,hpet=off", pre=drop_trace("hostile_spcr_cf2"),
                                 extra=_traced("hostile_spcr_cf2", ["pci_update_mappings_add"])
                                 + _tables([("spcr-cf2.bin", spcr_table(0xCF2)),
                                            ("hpet-at-vga-bar.bin", hpet_table(BAR_HPET_BASE))])),
        "hostile_spcr_8b": dict(boot="pvh", machine="q35,hpet=off",
                                extra=_tables([("spcr-8b.bin", spcr_table(0x8B)),
                                               ("hpet-in-hole.bin", hpet_table(HOLE_HPET_BASE))])),
        # Too little memory for the 4 MiB report buffer: everything is
        # measured, the summary goes out, and the missing report is named
        # (QEMU exit 35, probe failed: no report).
        "hostile_low_memory": dict(boot="pvh", mem="5M", exit_status=35, report_on_com1=False),
        "hostile_spcr_odd_uart": dict(
            boot="pvh", report_on_com1=False,
            pre=lambda: os.path.exists(odd_uart_log()) and os.remove(odd_uart_log()),
            extra=["-chardev", "file,id=odd,path=%s" % odd_uart_log(),
                   "-device", "isa-serial,chardev=odd,iobase=0x%x,irq=5" % ODD_UART_PORT]
            + _tables([("spcr-odd.bin", spcr_table(ODD_UART_PORT))])),
        # The firmware path is the subject: \\clockprobe.cfg in UTF-16.
        "hostile_cfg_utf16": dict(boot="fat", cfg_bytes=b"\xff\xfe" + "# UTF-16 settings\r\n"
                                  "samples=100 mode=quick\r\ndmup\r\n".encode("utf-16-le")),
    }
