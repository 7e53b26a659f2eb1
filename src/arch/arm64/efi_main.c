/* The arm64 probe's entry under UEFI (AAVMF, or any arm64 firmware): the
 * run as a list of steps, in the order the x86 run's stages have
 * (docs/architecture.md, "The run" and "src/arch/arm64"): identify the CPU,
 * read the ACPI tables through a guarded map (and the DTB, where ACPI is
 * off), take the console the SPCR (or the DT) names, ask the firmware's
 * PSCI/SMCCC what it offers, measure the counter
 * reads and the counter's rate, start the other CPUs, judge, report, power
 * off.  Every step records what stopped it and the run goes on: a report
 * always comes out. */
#include <efi.h>
#include <efilib.h>
#include "a64.h"
#include "a64_probe.h"
#include "arch_api.h"
#include "strbuf.h"
#include "verdict.h"

static struct a64_run run;
static struct acpi_info acpi;
static char report_buf[64 * 1024];

uint64_t a64_ticks_to_ps(uint64_t ticks_milli, uint64_t hz)
{
	if (!hz)
		return 0;
	return (uint64_t)(((unsigned __int128)ticks_milli * 1000000000u + hz / 2) / hz);
}

void a64_error(struct a64_run *r, const char *code, const char *message)
{
	if (r->error_count >= A64_MAX_ERRORS)
		return;
	struct a64_error *e = &r->errors[r->error_count++];
	e->code = code;
	struct strbuf sb;
	sb_init(&sb, e->message, sizeof e->message);
	sb_str(&sb, message);
}

/* ------------------------------------------------ the guarded ACPI map */

/* A firmware table pointer is followed only into memory the UEFI memory
 * map describes as write-back RAM (ACPI reclaim and NVS, boot and runtime
 * data, ...): UEFI identity-maps exactly that, and a bogus pointer outside
 * it would take a synchronous abort that the firmware answers by halting.
 * Adjacent descriptors count as one range (a table may straddle two). */
static uint8_t memmap_buf[32 * 1024];
static UINTN memmap_size, memmap_desc_size;

static void memmap_load(EFI_SYSTEM_TABLE *st)
{
	UINTN key = 0;
	UINT32 ver = 0;
	memmap_size = sizeof memmap_buf;
	if (st->BootServices->GetMemoryMap(&memmap_size, (EFI_MEMORY_DESCRIPTOR *)memmap_buf, &key,
					   &memmap_desc_size, &ver) != EFI_SUCCESS) {
		memmap_size = 0;
		a64_error(&run, "MEMMAP", "GetMemoryMap failed: no firmware table is read");
	}
}

bool a64_ram_covers(uint64_t phys, uint64_t len)
{
	uint64_t end = phys + len;
	if (!phys || end < phys)
		return false;
	for (int pass = 0; pass < 64 && phys < end; pass++) {
		bool moved = false;
		for (UINTN off = 0; memmap_desc_size && off + memmap_desc_size <= memmap_size;
		     off += memmap_desc_size) {
			const EFI_MEMORY_DESCRIPTOR *d = (const void *)(memmap_buf + off);
			uint64_t s = d->PhysicalStart, e = s + d->NumberOfPages * 4096u;
			if (!(d->Attribute & EFI_MEMORY_WB) || d->Type == EfiReservedMemoryType ||
			    d->Type == EfiUnusableMemory || d->Type == EfiMemoryMappedIO ||
			    d->Type == EfiMemoryMappedIOPortSpace)
				continue;
			if (phys >= s && phys < e) {
				phys = e;
				moved = true;
				break;
			}
		}
		if (!moved)
			return false;
	}
	return phys >= end;
}

static const void *acpi_map(void *ctx, uint64_t phys, uint32_t len)
{
	(void)ctx;
	return a64_ram_covers(phys, len) ? (const void *)(uintptr_t)phys : NULL;
}

static void copy_table(const char *sig, uint8_t *dst, uint32_t cap, uint32_t *len, bool *have)
{
	const struct acpi_table *t = acpi_find_table(&acpi, sig, 0);
	if (!t || !t->readable || !t->checksum_ok)
		return;
	uint32_t n = t->length < cap ? t->length : cap;
	const uint8_t *p = acpi_map(NULL, t->address, n);
	if (!p)
		return;
	for (uint32_t i = 0; i < n; i++)
		dst[i] = p[i];
	*len = n;
	*have = true;
}

static void read_acpi(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	uint64_t rsdp = 0;
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, &acpi20))
			rsdp = (uint64_t)(uintptr_t)st->ConfigurationTable[i].VendorTable;
	if (!rsdp) {
		a64_error(&run, "ACPI", "no ACPI 2.0 table in the UEFI configuration tables");
		return;
	}
	run.acpi_ok = acpi_parse(&acpi, rsdp, acpi_map, NULL) == 0;
	if (!run.acpi_ok)
		a64_error(&run, "ACPI", "the RSDP or its root table was unusable");
	copy_table("FACP", run.fadt_raw, sizeof run.fadt_raw, &run.fadt_len, &run.have_fadt_raw);
	copy_table("APIC", run.madt_raw, sizeof run.madt_raw, &run.madt_len, &run.have_madt_raw);
	copy_table("GTDT", run.gtdt_raw, sizeof run.gtdt_raw, &run.gtdt_len, &run.have_gtdt_raw);
	acpi_arm_boot_decode(run.have_fadt_raw ? run.fadt_raw : NULL, run.fadt_len, &run.smccc.boot);
	acpi_gtdt_decode(run.have_gtdt_raw ? run.gtdt_raw : NULL, run.gtdt_len, &run.gtdt);
}

/* The devicetree (EFI_DTB_TABLE_GUID, edk2's EmbeddedPkg): AAVMF installs
 * it when ACPI is off (-machine virt,acpi=off), and then it is the only
 * word on the console, the PSCI conduit and the CPUs.  Read as the ACPI
 * tables are, only where the memory map says RAM: the header first, then
 * its whole totalsize (capped) before src/decode/fdt.c walks it. */
static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void read_dt(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID dtb = {0xb1b621d5, 0xf19c, 0x41a5, {0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0}};
	struct a64_dt *d = &run.dt;
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, &dtb))
			d->address = (uint64_t)(uintptr_t)st->ConfigurationTable[i].VendorTable;
	if (!d->address) {
		d->absent = "no DTB in the UEFI configuration tables";
		return;
	}
	if (!a64_ram_covers(d->address, 40)) {
		d->absent = "the DTB's header is not in RAM the UEFI memory map lists";
		return;
	}
	const uint8_t *h = (const uint8_t *)(uintptr_t)d->address;
	d->totalsize = be32_at(h + 4);
	if (d->totalsize > A64_DTB_CAP) {
		d->absent = "the DTB's totalsize is over the probe's 2 MiB cap";
		return;
	}
	if (!a64_ram_covers(d->address, d->totalsize ? d->totalsize : 1)) {
		d->absent = "the DTB's totalsize runs past RAM the UEFI memory map lists";
		return;
	}
	fdt_facts_decode(h, d->totalsize, &d->facts);
	if (d->facts.error != FDT_OK) {
		struct strbuf sb;
		sb_init(&sb, d->absent_buf, sizeof d->absent_buf);
		sb_str(&sb, "the DTB is malformed: ");
		sb_str(&sb, fdt_error_name(d->facts.error));
		d->absent = d->absent_buf;
		return;
	}
	d->found = true;
}

/* UEFI's MP services (PI EFI_MP_SERVICES_PROTOCOL): AAVMF builds before
 * edk2's ArmPsciMpServicesDxe do not install it; recorded, since the
 * other CPUs are started through PSCI either way (cpus.c). */
static void check_mp_services(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID mp = {0x3fdda605, 0xa76e, 0x4f46, {0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08}};
	void *iface = NULL;
	run.mp_services = st->BootServices->LocateProtocol(&mp, NULL, &iface) == EFI_SUCCESS && iface;
}

static void sb_two(struct strbuf *sb, const char *sep, unsigned v)
{
	sb_str(sb, sep);
	sb_char(sb, (char)('0' + v / 10 % 10));
	sb_char(sb, (char)('0' + v % 10));
}

static void read_time(EFI_SYSTEM_TABLE *st)
{
	EFI_TIME t;
	if (st->RuntimeServices->GetTime(&t, NULL) != EFI_SUCCESS)
		return;
	struct strbuf sb;
	sb_init(&sb, run.started_utc, sizeof run.started_utc);
	if (t.Year < 1000 || t.Year > 9999 || t.Month < 1 || t.Month > 12 || t.Day < 1 ||
	    t.Day > 31 || t.Hour > 23 || t.Minute > 59 || t.Second > 59)
		return;
	sb_u64(&sb, t.Year);
	sb_two(&sb, "-", t.Month);
	sb_two(&sb, "-", t.Day);
	sb_two(&sb, "T", t.Hour);
	sb_two(&sb, ":", t.Minute);
	sb_two(&sb, ":", t.Second);
	sb_str(&sb, "Z");
}

/* The newest long-term release the rules know: the x86 verdict's default
 * main kernel too (include/verdict.h, verdict_input.kernel). */
static unsigned newest_longterm(void)
{
	unsigned kv = 0;
	for (size_t i = 0; i < verdict_release_count(); i++) {
		const char *n = verdict_release_name(i);
		size_t len = 0;
		while (n[len])
			len++;
		if (verdict_release_maintained_longterm(i))
			verdict_kernel_parse(n, len, &kv);
	}
	return kv;
}

/* The facts, decoded, into the arm64 verdict (src/verdict/arm64.c). */
static void judge(void)
{
	uint64_t per_cpu[A64_MAX_CPUS];
	size_t n = 0;
	struct verdict_arm64_input in = {0};
	for (uint32_t i = 0; i < run.cpu_count; i++)
		if (run.cpus[i].started) {
			per_cpu[n++] = run.cpus[i].cntfrq;
			in.errata |= arm64_errata_from_midr(run.cpus[i].midr);
		}
	/* The DT's timer node: a clock-frequency Linux takes over CNTFRQ_EL0,
	 * and the errata properties it matches (fdt.c asked the errata table). */
	uint64_t dt_hz = run.dt.found && run.dt.facts.clock_frequency_present ? run.dt.facts.clock_frequency : 0;
	if (run.dt.found)
		in.errata |= run.dt.facts.errata;
	in.dt_clock_frequency = dt_hz;
	arm64_cntfrq_judge(per_cpu, n, dt_hz, run.rate.measured ? run.rate.hz : 0, run.rate.uncertainty_ppm,
			   &run.cntfrq_check);
	if (run.gtdt.present)
		in.errata |= arm64_errata_from_acpi_oem(run.gtdt.oem_id, run.gtdt.oem_table_id,
							run.gtdt.oem_revision);
	in.ecv = run.ecv.cntvctss ? VERDICT_YES : VERDICT_NO;
	in.cntfrq_hz = run.cntfrq;
	/* measure.c says why CNTVCT's trapping is not judged. */
	in.cntvct_trapped = VERDICT_UNKNOWN;
	in.counter_read_ps = run.cost_cntvct.measured ? run.cost_cntvct.read_ps : 0;
	in.counter_read_se_known = run.cost_cntvct.measured && run.cost_cntvct.se_known;
	in.counter_read_se_ps = run.cost_cntvct.se_ps;
	verdict_arm64_decide(&in, newest_longterm(), &run.verdict);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	run.t_start = tb_now();
	InitializeLib(image, st);
	/* The firmware's 5-minute watchdog would reset a slow run mid-report. */
	st->BootServices->SetWatchdogTimer(0, 0, 0, NULL);

	run.el = a64_current_el();
	run.midr = a64_midr();
	run.mpidr = a64_mpidr();
	run.mmfr0 = a64_id_aa64mmfr0();
	run.pfr0 = a64_id_aa64pfr0();
	run.cntfrq = a64_cntfrq();
	arm64_midr_decode((uint32_t)run.midr, &run.midr_dec);
	arm64_ecv_decode(run.mmfr0, &run.ecv);
	run.cpu_count = 1;
	run.cpus[0] = (struct a64_cpu){.mpidr = run.mpidr, .midr = (uint32_t)run.midr,
				       .cntfrq = run.cntfrq, .started = true};

	memmap_load(st);
	read_acpi(st);
	read_dt(st);
	a64_console_setup(&run, &acpi, st);
	a64_puts("\r\nclockprobe (arm64): console up\r\n");
	read_time(st);
	check_mp_services(st);

	a64_puts("clockprobe: firmware services (PSCI, SMCCC)\r\n");
	a64_smccc_conduit(&run);
	a64_smccc_discover(&run);
	a64_puts("clockprobe: counter read costs\r\n");
	a64_measure_costs(&run);
	a64_puts("clockprobe: virtual timer (arm cost, firing seen through ISTATUS)\r\n");
	a64_measure_vtimer(&run);
	a64_puts("clockprobe: counter rate against the UEFI clock\r\n");
	a64_measure_rate(&run, st);
	/* Read-only here: the GIC's identity, proven before any CPU is
	 * started that might take the timer's interrupt through it. */
	a64_gic_discover(&run);
	a64_puts("clockprobe: other CPUs (PSCI CPU_ON, cross-CPU counter check, the timer's interrupt, "
		 "KVM's PTP pairing where offered)\r\n");
	a64_cpus_start(&run, &acpi);
	a64_kvm_pv_finish(&run);

	judge();
	a64_summary(&run);
	size_t len = 0;
	if (a64_report_json(&run, report_buf, sizeof report_buf, &len))
		a64_frame(report_buf, len);
	else
		a64_puts("clockprobe: the report did not fit its buffer: none sent\r\n");

	/* Power off (PSCI SYSTEM_OFF behind it in AAVMF): QEMU exits, a real
	 * machine stops with the report on its console. */
	st->RuntimeServices->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	return EFI_SUCCESS;
}
