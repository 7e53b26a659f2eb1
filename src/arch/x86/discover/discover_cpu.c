/* Discovery's x86 half (include/arch_api.h): the CPU and hypervisor
 * through CPUID, the VMware back door, the TSC's rough rate that sizes
 * every deadline before anything is measured, and the raw CPUID record. */
#include "discover.h"
#include "arch_api.h"
#include "cpuid.h"
#include "rate.h"
#include "strbuf.h"

#define VMWARE_CMD_GETVERSION 10
#define VMWARE_CMD_GETHZ 45
#define ROUGH_CALIBRATION_PM_TICKS 35795 /* 10 ms */

void arch_discover_cpu(struct run_results *r)
{
	struct probe_facts *f = &r->facts;
	cpuid_decode(&f->cpu, cpuid_hw, NULL);
	hypervisor_decode(&f->hv, &f->cpu, cpuid_hw, NULL);
	discover_confidential(f);
}

/* VMware backdoor: IN from port 0x5658 with the magic in EAX.  Anything
 * but a hypervisor returns the floating bus (0xffffffff) or leaves EBX. */
static void vmware_backdoor(uint32_t cmd, uint32_t regs[4])
{
	regs[0] = VMWARE_BACKDOOR_MAGIC;
	regs[1] = 0xffffffffu;
	regs[2] = cmd;
	regs[3] = VMWARE_BACKDOOR_PORT;
	vmware_backdoor_in(regs);
}

void arch_discover_late(struct run_results *r)
{
	uint32_t v[4];
	if (!r->facts.hv.present)
		return;
	r->vmware.probed = true;
	vmware_backdoor(VMWARE_CMD_GETVERSION, v);
	if (v[1] != VMWARE_BACKDOOR_MAGIC || v[0] == 0xffffffffu)
		return;
	r->vmware.present = true;
	r->vmware.version = v[0];
	r->vmware.type = v[2];
	vmware_backdoor(VMWARE_CMD_GETHZ, v);
	if (v[1] != 0xffffffffu) {
		r->vmware.gethz_valid = true;
		r->vmware.tsc_hz = ((uint64_t)v[1] << 32) | v[0];
		r->vmware.apic_hz = v[2];
	}
}

/* 10 ms against the PM timer when the FADT names one: enough for loop
 * deadlines (the real frequency measurement comes later). */
static uint64_t calibrate_rough(const struct acpi_pm_timer_info *pm, uint64_t spin_cycles)
{
	if (!pm->present || pm->gas.space_id != ACPI_SPACE_IO || !pm->gas.address || pm->gas.address > IOPORT_LAST_DWORD)
		return 0;
	uint16_t port = (uint16_t)pm->gas.address;
	uint32_t start = inl(port) & 0xffffff;
	uint64_t t0 = tb_now();
	/* Capped at the spins its own 1 s bound allows (a stopped TSC). */
	uint64_t cap = spin_cap(FACTS_ASSUMED_TSC_HZ, spin_cycles);
	for (uint64_t i = 0; i < cap; i++) {
		uint32_t now = inl(port) & 0xffffff;
		uint32_t ticks = (now - start) & 0xffffff;
		if (ticks >= ROUGH_CALIBRATION_PM_TICKS)
			return rate_from_window(tb_now() - t0, RATE_ACPI_PM_HZ, ticks);
		if (tb_now() - t0 > FACTS_ASSUMED_TSC_HZ) /* a second at 4 GHz: frozen timer */
			return 0;
	}
	return 0;
}

/* A candidate rate outside what any x86 TSC runs at is refused, named,
 * and the next candidate tried: this rate sizes every deadline of the
 * run, and a garbage hypervisor leaf (1 kHz, or a THz) would make them
 * expire at once or last a thousandfold. */
static bool rough_rate_ok(struct run_results *r, uint64_t hz, const char *source)
{
	if (!hz)
		return false;
	if (rate_tsc_hz_plausible(hz))
		return true;
	char line[128];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, source);
	sb_str(&sb, " gives a TSC rate of ");
	sb_u64(&sb, hz);
	sb_str(&sb, " Hz, outside 100 MHz..10 GHz: not used");
	results_error(r, "TSC_RATE_IMPLAUSIBLE", line);
	return false;
}

void tb_rough_rate(struct run_results *r)
{
	struct probe_facts *f = &r->facts;
	uint64_t hz = 0;
	if (f->hv.timing.valid && rough_rate_ok(r, (uint64_t)f->hv.timing.tsc_khz * 1000, "hypervisor timing leaf")) {
		f->tsc_hz_rough = (uint64_t)f->hv.timing.tsc_khz * 1000;
		f->tsc_hz_rough_source = "hypervisor timing leaf";
	} else if (f->cpu.leaf15.valid && rough_rate_ok(r, f->cpu.leaf15.tsc_hz, "CPUID 0x15")) {
		f->tsc_hz_rough = f->cpu.leaf15.tsc_hz;
		f->tsc_hz_rough_source = "CPUID 0x15";
	} else if (rough_rate_ok(r, hz = calibrate_rough(&f->acpi.pm_timer, f->spin_cycles), "the ACPI PM timer calibration")) {
		f->tsc_hz_rough = hz;
		f->tsc_hz_rough_source = "10 ms against the ACPI PM timer";
	} else {
		f->tsc_hz_rough = FACTS_ASSUMED_TSC_HZ;
		f->tsc_hz_rough_source = "assumed 4 GHz (nothing to calibrate against yet)";
	}
}

void arch_capture_raw(struct run_results *r)
{
	struct raw_capture *c = &r->raw;
	c->cpuid_count = cpuid_record_leaves(cpuid_hw, NULL, c->cpuid, ARRAY_SIZE(c->cpuid));
	/* How this CPU answers leaves it does not define, so a replay of the
	 * recording answers them the same way (cpuid_replay). */
	c->cpuid_unrecorded_zero = cpuid_detect_unrecorded(cpuid_hw, NULL) == CPUID_UNRECORDED_ZERO;
	c->captured = true;
}
