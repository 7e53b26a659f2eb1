/* The arm64 probe's run: what each of its parts found, in one place, so
 * that the report (report.c) is written from results alone, as the x86
 * report is (docs/architecture.md, "src/arch/arm64").  Machine code only:
 * the pure rooms never see this header. */
#ifndef CP_ARM64_PROBE_H
#define CP_ARM64_PROBE_H
#include <stdbool.h>
#include <stdint.h>
#include "acpi.h"
#include "acpi_arm.h"
#include "arm64.h"
#include "arm64_gic.h"
#include "arm64_pt.h"
#include "fdt.h"
#include "measure.h"
#include "verdict_arm64.h"

#define A64_MAX_CPUS 8
#define A64_MAX_ERRORS 8

/* ------------------------------------------------------------ console */
enum a64_console_kind { A64_CON_NONE, A64_CON_PL011, A64_CON_CONOUT };
struct a64_console {
	enum a64_console_kind kind;
	uintptr_t base;			/* the PL011's registers */
	uint8_t spcr_interface;		/* SPCR interface type (3 PL011, 0x0e SBSA) */
	uint32_t periph_id;		/* PL011 UARTPeriphID0..3, byte by byte */
	const char *source;		/* where the PL011 was named: "acpi_spcr", "dt"; or
					 * "uefi_conout" (reason says why no PL011) */
	const char *reason;		/* why not the SPCR's (or the DT's) PL011 (ConOut) */
	const char *gcd;		/* what UEFI's GCD map calls the page */
	bool walked;			/* the translation tables were walked */
	struct arm64_pt_walk walk;
	uint32_t stalls;		/* writes that met a full FIFO past the bound */
};

/* ------------------------------------------------------- read costs */
/* One read's cost (measure.c).  The reads are measured by the generic
 * engine (engine: measure_op(), its figures in op), the same figures
 * x86's sources[].read_cost has: read_ps/se_ps are its per-call estimate,
 * the batch names its back-to-back batch pairs.  The virtual timer's costs
 * (vtimer.c) are still measure.c's own batch pairs of BATCH_CALLS calls
 * (engine false): read_ps/se_ps their trimmed mean. */
struct a64_cost {
	const char *name, *instruction;
	bool measured;
	const char *absent;		/* why not measured */
	uint32_t pairs, batch_calls;
	uint64_t read_ps, se_ps;	/* per call, net of the empty call */
	bool se_known;			/* se_ps was measured (the engine may have too few windows) */
	uint64_t harness_ps;		/* the empty call's own cost, per call */
	uint64_t batch_ticks_p50;	/* one read batch, median, counter ticks */
	bool deadline_hit;
	bool engine;			/* op holds the engine's figures */
	struct op_cost op;
};

struct a64_rate {
	bool measured;
	const char *absent;
	const char *reference;		/* "uefi_gettime" */
	uint32_t edges;			/* second edges seen */
	uint32_t seconds;		/* between the two edges used */
	uint64_t ticks;			/* counter ticks between the edges' midpoints */
	uint64_t hz;			/* ticks / seconds */
	uint64_t uncertainty_ticks;	/* half-widths of both edges, summed */
	uint64_t uncertainty_ppm;	/* of hz, rounded up */
	uint64_t gettime_calls;
	uint64_t gettime_ps;		/* one GetTime call, mean over the polls */
};

/* ------------------------------------------------------------ SMCCC */
struct a64_smccc {
	struct acpi_arm_boot boot;	/* the FADT's PSCI flags and conduit */
	/* The conduit every call goes through: the FADT's, else the DT's
	 * /psci method (a64_smccc_conduit); source "acpi_fadt", "dt" or NULL. */
	enum acpi_arm_conduit conduit;
	const char *conduit_source;
	const char *conduit_reason;	/* why none: the FADT's reason and the DT's */
	bool psci_called;
	struct arm64_version psci;
	bool psci_features;		/* PSCI >= 1.0: PSCI_FEATURES exists */
	int32_t features_smccc_version;	/* PSCI_FEATURES(SMCCC_VERSION); 1 = not asked */
	int32_t features_cpu_on;	/* PSCI_FEATURES(CPU_ON 64) */
	bool smccc_called;
	struct arm64_version smccc;	/* SMCCC_VERSION, or 1.0 by rule */
	bool uid_called;
	uint32_t uid[4];
	enum arm64_hyp_uid hyp;
	bool kvm_features_called;
	struct arm64_kvm_features kvm;
	bool pv_time_called;
	struct arm64_pv_time pv_time;
	const char *stopped;		/* where the chain stopped, and why */
};

/* -------------------------------------------------------------- CPUs */
struct a64_cpu {
	uint64_t mpidr;
	uint32_t midr;
	uint64_t cntfrq;
	bool started;			/* answered (the boot CPU always) */
	bool timed_out;			/* CPU_ON succeeded, the CPU never answered */
	int32_t cpu_on_status;		/* PSCI CPU_ON's answer; 0 success */
	uint32_t xc_rounds, xc_backwards;
	uint64_t xc_max_backwards;	/* ticks */
	int64_t xc_offset_lo, xc_offset_hi;	/* its counter minus the boot CPU's, bounds, ticks */
};

struct a64_xcpu {
	bool attempted;
	const char *absent;
	uint32_t listed;		/* GICC entries in the MADT (or cpu nodes in the DT) */
	const char *cpu_list_source;	/* "acpi_madt", "dt" or NULL: where the MPIDRs came from */
	uint32_t cpus;			/* other CPUs checked */
	uint32_t rounds;
	uint64_t max_backwards_ticks;	/* worst time a later read was behind an earlier one */
	uint64_t backwards;		/* rounds where it was */
	uint64_t max_skew_bound_ticks;	/* the largest |offset| the bounds allow */
};

/* ------------------------------------------------- the virtual timer */
/* Its arm cost and its firing as the CPU sees it (vtimer.c): ISTATUS
 * polled with IMASK set, so nothing reaches the GIC and no interrupt is
 * taken; the interrupt's own delivery latency is irq's (gic.c). */
/* The whole of it (two costs and the shots), bounding another CPU's wait. */
#define A64_VTIMER_BUDGET_MS 1000u
/* The GIC as the boot CPU proved it (gic.c): what the MADT names, checked
 * against the registers' own identification, every page the measurement
 * touches walked in the translation tables and found Device memory, and
 * the one CPU planned for it (its redistributor, GICv3).  absent names
 * why the timer's interrupt is not taken. */
struct a64_gic {
	bool proven;			/* the distributor (and v2's CPU interface) */
	const char *absent;
	struct acpi_madt_gic madt;
	const char *source;		/* where gicd_base (and the rest) came from:
					 * "acpi_madt" or "dt" (no MADT); NULL: none */
	unsigned arch_rev;		/* GICD_PIDR2 ArchRev */
	unsigned version;		/* driven as: 2, or 3 (GICv3 and v4) */
	uint64_t gicd_base, gicc_base;	/* gicc: GICv2's (banked per CPU) */
	uint32_t gicc_iidr;
	uint32_t intid;			/* the EL1 virtual timer's PPI (GTDT, or the DT's timer) */
	bool planned;			/* a CPU's pages proven: cpu_mpidr */
	uint64_t cpu_mpidr;
	uint64_t gicr_base;		/* that CPU's RD_base (GICv3) */
	uint64_t gicr_typer;
	uint32_t gicr_frames;		/* redistributors read to find it */
};

/* The virtual timer's interrupt taken for real on one started CPU
 * (gic.c): each shot arms the timer unmasked, opens IRQs and waits for
 * the probe's handler; a shot's latency is the handler's first stamp
 * minus CNTV_CVAL_EL0. */
#define A64_IRQ_BUDGET_MS 500u		/* the boot CPU's extra wait for it */
struct a64_irq {
	bool attempted;			/* anything was written on that CPU */
	const char *absent;		/* why not measured; NULL when measured */
	uint64_t cpu_mpidr;
	uint32_t shots, fired, late_arm, timeouts, spurious, unexpected;
	uint64_t delay_ticks;
	struct gic_lat lat;		/* CVAL to the handler's stamp, ticks */
	struct gic_lat arm_to_handler;	/* the arm's first stamp to the handler's */
	bool deadline_hit;
	const char *stopped;		/* why the shots ended early; NULL if not */
	bool exception;			/* an exception ended a guarded part */
	uint64_t exc_esr, exc_elr, exc_far, exc_kind;
	bool restored;
	const char *not_restored;	/* the register that did not read back */
};

struct a64_vtimer {
	bool attempted;
	const char *absent;		/* why not measured (firmware's timer, ...) */
	bool boot_cpu_firmware;		/* the boot CPU's was the firmware's: another CPU's measured */
	uint64_t boot_ctl_found;	/* the boot CPU's CNTV_CTL_EL0 as read */
	uint64_t cpu_mpidr;		/* the CPU whose timer was measured */
	uint64_t ctl_found, cval_found;	/* that CPU's, as read before anything was written */
	bool restored;			/* ENABLE/IMASK and CVAL read back as found */
	struct a64_cost arm, ctl_read;
	uint32_t shots;			/* asked */
	uint32_t fired;			/* ISTATUS seen */
	uint32_t late_arm;		/* CVAL already passed once armed: not counted */
	uint32_t timeouts;		/* ISTATUS never seen within the bound */
	uint64_t delay_ticks;		/* CVAL this far after the arm */
	uint64_t lat_p50, lat_p99, lat_max, lat_min;	/* ticks, CVAL to ISTATUS seen */
	uint64_t lat_mean_milli, lat_se_milli;		/* trimmed mean, ticks x1000 */
	uint64_t poll_p50;		/* ticks between the last poll that missed and the one that saw */
	bool deadline_hit;
	struct a64_irq irq;		/* through the GIC: never on the boot CPU */
};

/* -------------------------------------- KVM's PTP pairing, stolen time */
/* Issued on the first CPU cpus.c starts, never the boot CPU first (a
 * call that never comes back loses only that CPU, as on x86), and only
 * once the UID said KVM and its feature bitmap offered PTP (or PV_TIME
 * said stolen time is there): kvm_ptp.c. */
#define A64_KVM_PV_BUDGET_MS 200u	/* the boot CPU's extra wait for it */
struct a64_kvm_pv {
	bool planned;			/* handed to a CPU */
	bool attempted;			/* that CPU began the calls */
	bool lost;			/* the boot CPU gave up on it */
	const char *absent;		/* why no pairing was made; NULL when made */
	uint64_t cpu_mpidr;
	uint32_t rounds_done;
	struct arm64_ptp_round rounds[ARM64_PTP_MAX_ROUNDS];
	struct arm64_ptp_summary sum;
	bool deadline_hit;
	/* Stolen time (DEN0057), the same CPU's structure. */
	const char *st_absent;		/* why not read; NULL when read */
	uint64_t st_x0;			/* PV_TIME_ST's answer */
	struct arm64_stolen_time st_before, st_after;
	uint64_t st_t0, st_t1;		/* counter at the two reads */
};

/* ----------------------------------------------------- the devicetree */
/* The DTB the firmware hands the OS (EFI configuration table), read where
 * ACPI is absent or silent (-machine virt,acpi=off): only once the UEFI
 * memory map says its header and then its whole totalsize are RAM, and
 * only up to this cap.  QEMU's own tree is 1 MiB unpacked, and AAVMF
 * hands on 1 MiB + 4 KiB of it: the cap leaves it room. */
#define A64_DTB_CAP (2u << 20)
struct a64_dt {
	bool found;			/* read and well formed: facts holds it */
	const char *absent;		/* why not; NULL when found */
	char absent_buf[96];
	uint64_t address;		/* 0: none in the configuration table */
	uint32_t totalsize;		/* its header's, once readable */
	struct fdt_facts facts;
};

struct a64_error {
	const char *code;
	char message[96];
};

struct a64_run {
	uint64_t t_start;		/* counter at entry */
	unsigned el;
	uint64_t midr, mpidr, mmfr0, pfr0;
	struct arm64_midr midr_dec;
	struct arm64_ecv ecv;
	uint64_t cntfrq;
	struct arm64_cntfrq_check cntfrq_check;
	struct a64_console con;
	bool acpi_ok;
	struct a64_dt dt;
	struct acpi_gtdt_info gtdt;
	bool have_fadt_raw, have_gtdt_raw, have_madt_raw;
	uint8_t madt_raw[4096];
	uint32_t madt_len;
	uint8_t fadt_raw[512];
	uint32_t fadt_len;
	uint8_t gtdt_raw[256];
	uint32_t gtdt_len;
	bool mp_services;		/* EFI_MP_SERVICES_PROTOCOL located */
	struct a64_cost cost_cntvct, cost_cntpct, cost_cntvctss, cost_midr;
	struct tsc_step step;		/* the counter's step, as the engine found it */
	const char *method;		/* the engine's stamp pair, in words */
	const char *cntpct_trap;	/* "no", "yes" or why unknown */
	const char *cntvct_trap;
	struct a64_rate rate;
	struct a64_smccc smccc;
	uint32_t cpu_count;
	struct a64_cpu cpus[A64_MAX_CPUS];
	struct a64_xcpu xcpu;
	struct a64_vtimer vtimer;
	struct a64_gic gic;
	struct a64_kvm_pv kvm_pv;
	char started_utc[24];
	struct verdict_arm64 verdict;
	uint32_t error_count;
	struct a64_error errors[A64_MAX_ERRORS];
};

/* The counter's ticks as picoseconds at CNTFRQ (0 when it is 0). */
uint64_t a64_ticks_to_ps(uint64_t ticks_milli, uint64_t hz);
void a64_error(struct a64_run *r, const char *code, const char *message);

/* efi_main.c: the memory-map guard, for reads of firmware memory. */
bool a64_ram_covers(uint64_t phys, uint64_t len);

/* console.c */
/* NULL when EL1's translation tables map the page holding addr to itself
 * as Device memory, else why not (*w: the walk).  Every MMIO access the
 * probe makes is to a page that passed this first. */
const char *a64_device_mapped(const struct a64_run *r, uint64_t addr, struct arm64_pt_walk *w);
/* The same for Normal memory the probe reads as plain memory (the
 * stolen-time structure). */
const char *a64_memory_mapped(const struct a64_run *r, uint64_t addr, struct arm64_pt_walk *w);
void a64_console_setup(struct a64_run *r, const struct acpi_info *acpi, void *systab);
void a64_puts(const char *s);
void a64_frame(const char *json, size_t len);

/* measure.c */
void a64_measure_costs(struct a64_run *r);
void a64_measure_rate(struct a64_run *r, void *systab);
/* One call's cost as batch pairs against an empty call (the reads' method). */
void a64_measure_cost(struct a64_run *r, struct a64_cost *c, uint64_t (*f)(void));

/* vtimer.c */
void a64_measure_vtimer(struct a64_run *r);
bool a64_vtimer_wanted(const struct a64_run *r);
void a64_vtimer_here(struct a64_run *r, struct a64_vtimer *v);

/* gic.c */
/* Boot CPU: the MADT's GIC proven (or r->gic.absent says why not). */
void a64_gic_discover(struct a64_run *r);
/* Whether the timer's interrupt still wants a CPU. */
bool a64_irq_wanted(const struct a64_run *r);
/* Boot CPU, before CPU_ON: this CPU's GIC pages proven; false when not. */
bool a64_gic_plan(struct a64_run *r, const struct acpi_madt_gicc *cpu);
/* On the planned CPU (never the boot CPU): measured, everything restored. */
void a64_gic_irq_here(struct a64_run *r);
/* The boot CPU gave up on the CPU that was to measure it. */
void a64_gic_not_finished(struct a64_run *r);

/* smccc.c */
/* The conduit: the FADT's, else the DT's /psci (r->dt), its source named. */
void a64_smccc_conduit(struct a64_run *r);
void a64_smccc_discover(struct a64_run *r);
/* One call through the conduit (HVC or SMC), all four results. */
struct a64_smccc_res a64_smccc_call(const struct a64_smccc *s, uint32_t fn, uint64_t a1);

/* kvm_ptp.c */
/* Whether KVM's PTP service (or PV stolen time) still wants a CPU. */
bool a64_kvm_pv_wanted(const struct a64_run *r);
/* On the started CPU: the pairings and the stolen-time reads. */
void a64_kvm_pv_here(struct a64_run *r);
/* The boot CPU gave up on that CPU: the first call never came back. */
void a64_kvm_pv_not_finished(struct a64_run *r);
/* After the CPUs: the summary, or why nothing was issued. */
void a64_kvm_pv_finish(struct a64_run *r);
struct json;
struct strbuf;
void a64_kvm_pv_json(struct json *j, const struct a64_run *r);
/* The summary's two lines, without their line ends. */
void a64_kvm_pv_line(struct strbuf *sb, const struct a64_run *r);
void a64_stolen_line(struct strbuf *sb, const struct a64_run *r);

/* cpus.c */
void a64_cpus_start(struct a64_run *r, const struct acpi_info *acpi);

/* report.c */
void a64_summary(struct a64_run *r);
bool a64_report_json(struct a64_run *r, char *buf, size_t cap, size_t *len);
#endif
