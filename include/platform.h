/* The thin layer between the measuring core and whatever booted it.
 * UEFI (src/platform/uefi.c) and direct PVH boot (src/arch/x86/boot/pvh.c)
 * each fill one of these; nothing that measures, decides or reports calls
 * firmware any other way.  Every member may be NULL where the boot path
 * cannot offer it; callers then report the fact as absent. */
#ifndef CP_PLATFORM_H
#define CP_PLATFORM_H
#include "util.h"
#include "identity.h"
#include "settings.h"
#include "apgroup.h"

/* Logical CPUs the probe keeps per run (issue 41).  4,096 is more than
 * twice the largest single-image x86 machines shipped (a 32-socket HPE
 * Superdome Flex: 1,792 threads; 2 x 192-core EPYC with SMT: 768) and
 * Linux's own x86 NR_CPUS default under MAXSMP is 8,192.  Every per-CPU
 * array sized by it stays small (results: 20 bytes a CPU, cross-CPU: ~120,
 * the direct boot's AP slots: ~50): under 2 MiB for all of them; the AP
 * stacks are allocated for the APs the MADT lists, not for this limit.
 * CPUs past it are counted and named in errors[] (CPUS_BEYOND_LIMIT). */
#define PLATFORM_MAX_CPUS 4096

struct platform_cpu {
	uint32_t apic_id;
	uint32_t package, core, thread;
	bool bsp, enabled, healthy;
};

/* Work handed to other CPUs runs with the SysV convention; the platform
 * wraps it for its firmware's calling convention. */
typedef void (*ap_work_fn)(void *arg);

struct platform {
	const char *boot; /* "uefi" | "pvh" */

	/* Firmware identity; vendor NULL when there is no firmware. */
	char firmware_vendor[64];
	bool firmware_vendor_truncated; /* longer than 63 characters: cut */
	uint32_t firmware_revision;
	uint32_t uefi_revision; /* (major << 16) | minor, 0 when not UEFI */
	const char *firmware_reason;

	uint64_t acpi_rsdp;       /* 0 when none was handed over or found */
	const char *acpi_rsdp_via; /* "EFI ACPI 2.0 table", "PVH start info", ... */
	uint64_t smbios3_entry;   /* 64-bit entry point, 0 when none */
	uint64_t smbios_entry;    /* 32-bit entry point, 0 when none */

	/* Text for a person at the screen; may re-enable interrupts. */
	void (*screen_write)(const char *text);
	/* The firmware copies screen text to a serial terminal already. */
	bool screen_mirrors_serial;

	/* Zeroed, page-aligned memory that lives until exit; NULL if none. */
	void *(*alloc_pages)(size_t bytes);

	/* CPUs: fills up to cap entries, returns how many exist (which may be
	 * more than cap: the caller keeps cap and names the rest). */
	unsigned (*cpu_list)(struct platform_cpu *cpus, unsigned cap);
	const char *cpu_list_source; /* "EFI MP services", "MADT", ... */
	/* Starts fn(arg) on one AP (an index into cpu_list) without waiting:
	 * one at a time, so APs that are not being measured stay parked in the
	 * firmware's idle loop instead of spinning and stealing host time from
	 * the pair under test.  0 on success. */
	int (*ap_start)(unsigned cpu, ap_work_fn fn, void *arg, uint64_t timeout_us);
	/* Waits (bounded) until the work started by every ap_start so far has
	 * returned; false on timeout (the platform notes which AP). */
	bool (*aps_wait)(uint64_t timeout_us);
	/* Work on several APs at once (contention, the all-CPU warp test):
	 * hands every member of g (apgroup.h: g->fn on each member's arg) to
	 * the firmware, waits at most arrive_ms until each is at the group's
	 * start barrier, then releases together those that are; the others
	 * are named in g->reason and never run the work.  work_ms bounds what
	 * the work may take (the firmware's own per-AP timeout is set past
	 * it).  Returns how many run.  The BSP does its own part after this
	 * returns, then calls aps_finish_together. */
	uint32_t (*aps_start_together)(struct ap_group *g, uint64_t arrive_ms, uint64_t work_ms);
	/* Waits at most finish_ms for every released member of g, then for
	 * the firmware to take the APs back; false when one did not finish
	 * (named in g->reason; the platform gives that AP no more work, and
	 * the work's memory must stay valid: it may still finish). */
	bool (*aps_finish_together)(struct ap_group *g, uint64_t finish_ms);

	/* Applies the settings (\clockprobe.cfg, then the load options or
	 * the command line, so those win) on top of *s; reading problems (an
	 * oversize file, a cut command line) become problems in *s. */
	void (*read_settings)(struct settings *s);
	/* Before writing a register at an address firmware tables gave: NULL
	 * when [phys, phys + len) is device memory or a hole in the
	 * firmware's memory map, else why the write must not happen (RAM, or
	 * no map to check).  A NULL member refuses every such write. */
	const char *(*mmio_write_refusal)(uint64_t phys, uint64_t len);
	/* Before reading a page a firmware table names (the VMClock page):
	 * NULL when the firmware's maps set all of [phys, phys + len) aside,
	 * with *basis saying which map said what; else why not.  Direct boot:
	 * reserved in the E820-style map.  UEFI: reserved in the memory map,
	 * or where that map has a hole, reserved, MMIO or non-existent in the
	 * GCD map -- never memory in either.  NULL member: every such read
	 * is refused. */
	const char *(*reserved_read_refusal)(uint64_t phys, uint64_t len, const char **basis);
	/* Writes a file on the boot volume; NULL on success, else why not. */
	const char *(*write_file)(const char *name, const void *data, size_t len);
	/* The firmware's wall clock; false when it has none that answers.
	 * basis says how the time was read ("UEFI GetTime ..."). */
	bool (*get_time)(struct utc_time *t, const char **basis);
	/* Waits for a key press or timeout_ms: the key's character (consumed,
	 * so the next call waits for the next key; 0 for keys without one),
	 * or -1 when the time ran out. */
	int (*wait_key)(uint64_t timeout_ms);
	/* Leaves the firmware for good before a watch (UEFI: ExitBootServices);
	 * NULL where there is none to leave.  Returns NULL on success, else why
	 * not.  Either way the platform then offers only what needs no boot
	 * services: UART output, runtime power-off. */
	const char *(*leave_firmware)(void);
	/* Powers off (or resets); never returns. */
	void (*power_off)(void) __attribute__((noreturn));

	/* Why the platform left its APs unstarted (a local APIC it could not
	 * write), NULL otherwise; the run names it in errors[]. */
	const char *smp_reason;
	/* What starting the APs left undone, one kind a line (listed CPUs
	 * that never answered, left untried when the start budget was spent,
	 * ids out of reach, no stack, past the limit), NULL-ended; each an
	 * errors[] entry SMP_CPUS_NOT_STARTED naming the first APIC ids. */
	const char *smp_notes[7];
	/* The TSC at the probe's first instruction (the PVH entry, efi_main),
	 * 0 when unknown: probe.elapsed_ms counts from it. */
	uint64_t entry_tsc;
};

/* The one check every MMIO base a table gives -- the HPET, the local
 * APIC, the VMClock page -- goes through before the probe writes there:
 * NULL when [phys, phys + len) is a hole or device memory in the
 * firmware's memory map, else why not ("0x... is RAM in the PVH memory
 * map (type 1)").  Address 0 and a platform without a map are refused:
 * nothing is known to be safe about them. */
static inline const char *platform_mmio_write_check(const struct platform *p, uint64_t phys, uint64_t len)
{
	if (!phys)
		return "address 0 is no device's";
	if (!p || !p->mmio_write_refusal)
		return "the platform has no memory map to check";
	return p->mmio_write_refusal(phys, len);
}
#endif
