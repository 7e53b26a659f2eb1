/* The interface an architecture implements (docs/architecture.md, "The
 * arch seam").  Everything outside src/arch/<arch>/ -- the engine and the
 * measurement stages, the run, discovery, the console -- reads the
 * timebase, masks interrupts and reaches the machine through this header
 * and never through an arch's instruction wrappers.
 *
 * The functions a measured window calls are static inline: the arch's
 * src/arch/<arch>/include/arch_impl.h (found through the arch's include
 * directory, which the Makefile's ARCH selects) defines them, so a window
 * runs the same instructions it would with the wrapper written in place.
 * The rest are ordinary functions in src/arch/<arch>/.
 *
 * The timebase keeps its x86 name in the report and in the types shared
 * with it (tsc_hz, platform.tsc, enum tsc_read): the report is a contract
 * (docs/report-schema.json), and "tsc" there means the arch's timebase. */
#ifndef CP_ARCH_API_H
#define CP_ARCH_API_H
#include "util.h"
#include "tsc_order.h"

struct run_results;
struct probe_facts;
struct utc_time;

/* ---- timebase ---- */
static inline uint64_t tb_now(void);                               /* unordered read: deadlines and loop bounds */
static inline uint64_t tb_ordered(enum tsc_read how);              /* one ordered read, `how` this CPU's choice (tsc_order.h) */
static inline uint64_t tb_stamp_begin(enum stamp_fence fence);     /* a measured interval's first stamp: nothing crosses it */
static inline uint64_t tb_stamp_end(bool waits, enum stamp_fence fence); /* its last: after the work (waits: the self-waiting read) */
static inline const char *tb_stamp_method(enum stamp_fence fence, bool waits); /* that pair as run, for the report's `method` */
void tb_rough_rate(struct run_results *r);                         /* frequency hint: facts.tsc_hz_rough and where it came from */
static inline bool tb_hz_hypervisor_register(bool offered, uint64_t *hz); /* the rate a hypervisor register gives, when offered */

/* ---- the CPU ---- */
static inline void cpu_relax(void);                                /* one turn of a busy wait */
static inline bool irq_save(void);                                 /* masks interrupts; returns whether they were on */
static inline void irq_restore(bool was_on);                       /* unmasks them if they were on */
static inline bool irq_enabled(void);                              /* whether they are on now */
static inline void cpu_halt_forever(void) __attribute__((noreturn)); /* interrupts off, this CPU stopped for good */
static inline bool cpu_random64(bool seed, uint64_t *v);           /* the CPU's random generator (seed: the entropy source), false when it had nothing */
static uint64_t cpu_ref_loop(uint32_t n);                          /* n turns of CPU_REF_LOOP_INSNS instructions nothing intercepts */
static inline int cpu_smi_count(uint64_t *count);                  /* firmware interrupts taken since reset; a fault vector when none is counted */
static inline void cpu_hv_leaf(uint32_t leaf, uint32_t r[4]);      /* one hypervisor identification leaf, read live */

/* ---- the fault guard (fault.h has the generic half) ---- */
struct fault_cpu_saved;                                            /* what an AP gives back when it leaves */
static inline void fault_guard_enter_ap(struct fault_cpu_saved *s); /* loads the guard on this AP, keeping what was there */
static inline void fault_guard_leave_ap(const struct fault_cpu_saved *s); /* and puts that back */

/* ---- exit yardsticks: the cheapest things a hypervisor must answer ---- */
static inline uint64_t yardstick_trap(void);                       /* an instruction that always exits (x86: CPUID) */
static inline uint64_t yardstick_device_unassigned(void);          /* a device access nobody answers (the device model's floor) */
static inline uint64_t yardstick_device_kernel(void);              /* a device access the kernel answers itself */
/* The report names the two devices: yardstick_unassigned_port (read from
 * memory, as the access itself does) and YARDSTICK_KERNEL_PORT. */

/* ---- wall clock, console, leaving ---- */
const char *rtc_read_now(const struct probe_facts *f, struct utc_time *t); /* the RTC's time now; NULL, or why not */
/* A change of the RTC's second, as rtc_wait_edge saw it. */
struct rtc_edge {
	bool ok;
	const char *reason;       /* when !ok: why */
	uint64_t tsc;             /* TSC when the new second was seen */
	uint64_t poll_cycles;     /* TSC between the last two polls: the edge's uncertainty */
	uint64_t unix_seconds;    /* the second that just began */
};

/* Waits for the next change of second (bounded by max_cycles of TSC and
 * max_polls polls: the caller's facts_spin_cap of max_cycles, which ends
 * the wait should the TSC stop), then reads the whole time.  A clock that never ticks,
 * or reads as garbage, comes back !ok with the reason.  idle (may be NULL)
 * runs between polls, so the caller's periodic work goes on during the
 * wait of up to a second. */
void rtc_wait_edge(struct rtc_edge *out, uint64_t max_cycles, uint64_t max_polls, void (*idle)(void *ctx), void *ctx);

/* The console UART's init/putc are uart.h's; the default one is
 * CONSOLE_UART_DEFAULT, named CONSOLE_UART_DEFAULT_NAME, and serial=
 * knows CONSOLE_UART_NAMED (the arch's arch_console.h, pure). */
static inline bool harness_listening(bool in_vm);                  /* a test harness waits for the exit value (only asked in a VM) */
static inline void harness_exit(uint8_t code);                     /* hands it HARNESS_EXIT_COMPLETE or HARNESS_EXIT_FAILED */

/* ---- discovery ---- */
void arch_discover_cpu(struct run_results *r);                     /* the CPU and hypervisor identity, confidential computing */
void arch_discover_late(struct run_results *r);                    /* after the tables: hypervisor back doors (VMware) */
void arch_capture_raw(struct run_results *r);                      /* the raw identification registers, for replay */

/* Implemented by each arch outside this header: the timers stage (arm,
 * wait, acknowledge: include/timers.h), starting and running work on the
 * other CPUs (struct platform, include/platform.h, from the arch's boot
 * code or the firmware), the guarded accesses (fault.h), the console UART
 * (uart.h) and the list of clock sources (source_registry.h, the arch's). */

#include "arch_impl.h"
#endif
