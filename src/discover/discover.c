#include "discover.h"
#include "arch_api.h"
#include "console.h"
#include "fault.h"
#include "rate.h"
#include "strbuf.h"

const void *phys_map_guarded(void *ctx, uint64_t phys, uint32_t len)
{
	(void)ctx;
	uint8_t byte;
	if (!phys || !len || phys + len < phys)
		return NULL;
	for (uint64_t a = phys; a < phys + len; a = (a | 4095) + 1)
		if (read_byte_safe(a, &byte))
			return NULL;
	if (read_byte_safe(phys + len - 1, &byte))
		return NULL;
	return (const void *)(uintptr_t)phys;
}

static void copy_acpi_errors(struct run_results *r)
{
	for (uint32_t i = 0; i < r->facts.acpi.error_count && i < ACPI_MAX_ERRORS; i++)
		results_error(r, r->facts.acpi.errors[i].code, r->facts.acpi.errors[i].message);
}

/* The SMBIOS parser's own codes all start with SMBIOS_ (entry checksum,
 * truncated structure, bad string index, ...), like the ACPI ones. */
static void copy_smbios_errors(struct run_results *r)
{
	for (uint32_t i = 0; i < r->smbios.error_count && i < SMBIOS_MAX_ERRORS; i++)
		results_error(r, r->smbios.errors[i].code, r->smbios.errors[i].message);
}

static void discover_cpus(struct run_results *r)
{
	struct probe_facts *f = &r->facts;
	if (f->plat->cpu_list) {
		/* It may count more than it fills: keep what fits, name the rest. */
		unsigned listed = f->plat->cpu_list(r->cpus, PLATFORM_MAX_CPUS);
		r->cpu_count = MIN(listed, (unsigned)PLATFORM_MAX_CPUS);
		r->cpu_count_source = f->plat->cpu_list_source;
		if (listed > PLATFORM_MAX_CPUS) {
			char text[REASON_LEN];
			struct strbuf sb;
			sb_init(&sb, text, sizeof text);
			sb_u64(&sb, listed);
			sb_str(&sb, " CPUs listed by ");
			sb_str(&sb, r->cpu_count_source ? r->cpu_count_source : "the platform");
			sb_str(&sb, ", the probe keeps ");
			sb_u64(&sb, PLATFORM_MAX_CPUS);
			sb_str(&sb, ": the rest are not tested");
			results_error(r, "CPUS_BEYOND_LIMIT", text);
		}
	}
	if (f->plat->smp_reason)
		results_error(r, "SMP_NOT_STARTED", f->plat->smp_reason);
	for (unsigned i = 0; i < ARRAY_SIZE(f->plat->smp_notes) && f->plat->smp_notes[i]; i++)
		results_error(r, "SMP_CPUS_NOT_STARTED", f->plat->smp_notes[i]);
	if (!r->cpu_count && f->acpi.madt.present) {
		for (uint32_t i = 0; i < f->acpi.madt.cpu_count && r->cpu_count < PLATFORM_MAX_CPUS; i++) {
			const struct acpi_madt_cpu *c = &f->acpi.madt.cpus[i];
			if (!(c->flags & ACPI_MADT_CPU_ENABLED))
				continue;
			struct platform_cpu *p = &r->cpus[r->cpu_count++];
			p->apic_id = c->apic_id;
			p->package = c->apic_id >> f->cpu.package_shift;
			p->enabled = true;
			p->bsp = c->apic_id == (f->cpu.x2apic_id_valid ? f->cpu.x2apic_id : f->cpu.initial_apic_id);
		}
		r->cpu_count_source = "ACPI MADT (enabled entries)";
	}
	if (!r->cpu_count) {
		r->cpu_count = 1;
		r->cpus[0].bsp = r->cpus[0].enabled = true;
		r->cpu_count_source = "none (assumed the running CPU only)";
		results_error(r, "CPU_COUNT_UNKNOWN", "neither MP services nor a MADT lists the CPUs");
	}
	/* Packages as Linux counts them (topology_max_packages): APIC ID >>
	 * the package shift from CPUID, over every CPU the MADT lists (possible
	 * ones included), not the firmware's own Location.Package, which OVMF
	 * derives from leaves AMD-vendor models do not fill the Intel way. */
	static uint32_t ids[PLATFORM_MAX_CPUS];
	unsigned n_ids = 0;
	if (f->acpi.madt.present) {
		for (uint32_t i = 0; i < f->acpi.madt.cpu_count && n_ids < PLATFORM_MAX_CPUS; i++)
			if (f->acpi.madt.cpus[i].linux_possible)
				ids[n_ids++] = f->acpi.madt.cpus[i].apic_id;
	} else {
		for (unsigned i = 0; i < r->cpu_count && n_ids < PLATFORM_MAX_CPUS; i++)
			ids[n_ids++] = r->cpus[i].apic_id;
	}
	unsigned packages = 0;
	for (unsigned i = 0; i < n_ids; i++) {
		bool seen = false;
		for (unsigned k = 0; k < i && !seen; k++)
			seen = ids[k] >> f->cpu.package_shift == ids[i] >> f->cpu.package_shift;
		if (!seen)
			packages++;
	}
	for (unsigned i = 0; i < r->cpu_count && i < PLATFORM_MAX_CPUS; i++)
		if (r->cpus[i].enabled)
			r->cpus_enabled++;
	r->packages = packages;
}

void discover_platform(struct run_results *r)
{
	struct probe_facts *f = &r->facts;
	arch_discover_cpu(r);
	if (f->plat->acpi_rsdp) {
		f->acpi_parsed = acpi_parse(&f->acpi, f->plat->acpi_rsdp, phys_map_guarded, NULL) == 0;
		copy_acpi_errors(r);
	} else {
		results_error(r, "ACPI_RSDP_MISSING", f->plat->acpi_rsdp_via);
	}
	/* The 64-bit SMBIOS 3 entry point when the firmware offers it. */
	uint64_t smbios = f->plat->smbios3_entry ? f->plat->smbios3_entry : f->plat->smbios_entry;
	if (smbios) {
		smbios_parse(&r->smbios, smbios, phys_map_guarded, NULL);
		copy_smbios_errors(r);
	} else {
		results_error(r, "SMBIOS_MISSING", "no SMBIOS entry point handed over by the firmware");
	}
	discover_cpus(r);
	arch_discover_late(r);
	tb_rough_rate(r);
}

void discover_capture_raw(struct run_results *r) { arch_capture_raw(r); }

/* A UART that a table or a setting names, tried into a copy: a refusal
 * (uart.h: nothing was written to the port) is named in errors[] with the
 * port, and the console stays on the UART it had. */
static bool try_uart(struct run_results *r, uint16_t base, const char *source, const char *who)
{
	struct uart u;
	if (uart_init(&u, base, source)) {
		con_use_uart(&u);
		return true;
	}
	char line[120];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, who);
	sb_str(&sb, " names I/O port ");
	sb_hex0x(&sb, base);
	sb_str(&sb, ", not used: ");
	sb_str(&sb, u.refusal);
	results_error(r, "SERIAL_PORT_REFUSED", line);
	return false;
}

void discover_console(struct run_results *r)
{
	struct probe_facts *f = &r->facts;
	const struct acpi_spcr_info *spcr = &f->acpi.spcr;
	if (f->settings.serial_from_settings && try_uart(r, f->settings.serial_port, "settings", "serial="))
		return;
	if (spcr->present && spcr->io_port_usable && spcr->interface_type <= 1 &&
	    try_uart(r, (uint16_t)spcr->uart.address, "ACPI SPCR", "the ACPI SPCR"))
		return;
	if (!con_open_uart(CONSOLE_UART_DEFAULT, CONSOLE_UART_DEFAULT_NAME))
		results_error(r, "NO_UART", "no 16550 answers at the chosen port or COM1: report on screen/file only");
}
