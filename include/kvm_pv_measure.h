/* KVM clock pairing and steal time as the run measures them (hardware:
 * src/arch/x86/measure/kvm_pv.c over the instruction wrappers of
 * src/arch/x86/kvm_hypercall.c; the arithmetic is include/kvm_pv.h's).  The
 * measuring code keeps no state of its own: the results and the steal
 * session are the caller's. */
#ifndef CP_KVM_PV_MEASURE_H
#define CP_KVM_PV_MEASURE_H
#include "kvm_pv.h"
#include "measure.h"
#include "platform.h"

#define KVM_PAIRING_SAMPLES 16

struct probe_facts;

/* The first hypercall, handed to an AP: it lives in the run's results,
 * never on a stack, because an AP the host never lets out of the
 * instruction still holds a pointer to it. */
struct kvm_pairing_first_call {
	int vmmcall;
	int fault;
	struct kvm_pairing_sample sample;
	bool returned;            /* written by the AP, after the rest */
};

struct kvm_pairing_result {
	bool attempted;           /* CPUID showed KVM: the hypercall was made */
	bool not_issued;          /* KVM is there, but the call was not made (reason says why) */
	/* Where the first call ran: "ap" (the default: an AP that may be
	 * abandoned), "bsp" (pairing=bsp), NULL when none ran. */
	const char *first_on;
	uint32_t first_cpu, first_apic_id;
	bool first_lost;          /* the AP never came back from the instruction */
	uint64_t first_deadline_ms, first_waited_us;
	struct kvm_pairing_first_call first;
	const char *reason;       /* why not, or why no figures; NULL when measured */
	const char *instruction;  /* "vmcall" | "vmmcall" */
	int fault;                /* vector the first hypercall raised, 0 when none */
	uint64_t first_ret;       /* its RAX */
	struct op_cost cost;      /* one hypercall, measured through the engine */
	uint64_t tsc_hz;          /* the rate the offsets are computed at */
	struct kvm_pairing_sample samples[KVM_PAIRING_SAMPLES];
	struct kvm_pairing_summary summary;
};

/* How long the AP has to come back from the first call: a hypercall
 * that returns costs microseconds even emulated; a quarter of a second
 * covers waking the AP on a loaded host. */
#define KVM_PAIRING_FIRST_DEADLINE_MS 250

/* After the frequency stage: needs the measured TSC rate.  The first call
 * runs on an AP of cpus[] (src/arch/x86/measure/kvm_pv.c says why); returns false
 * when that AP did not come back (out->reason says so, and the caller
 * names it in errors[]). */
bool kvm_pairing_run(struct kvm_pairing_result *out, const struct measure_ctx *ctx, const struct probe_facts *f,
		     const struct platform_cpu *cpus, unsigned cpu_count, uint64_t tsc_hz);

/* Steal time around one window: the area the host writes while it is
 * registered, and what begin found.  Held by the run (identity-mapped,
 * like every static of the image), handed back by kvm_steal_end. */
struct kvm_steal_session {
	struct kvm_steal_time area __attribute__((aligned(64)));
	bool registered;          /* the MSR holds the area's address */
	bool started;             /* a first consistent reading was taken */
	uint64_t steal_before;
	uint32_t version_start;
	const char *reason;       /* why not registered or not started */
};
/* Registers the area (when CPUID allows it) and reads it before the
 * window; end reads it after, hands the area back (MSR written 0) and
 * explains the window's gaps with it. */
void kvm_steal_begin(struct kvm_steal_session *s, const struct probe_facts *f);
void kvm_steal_end(struct kvm_steal_session *s, struct kvm_steal_window *out, uint64_t gap_total_ns,
		   uint64_t window_ns);

/* src/arch/x86/kvm_hypercall.c: one pairing through the fault guard (returns
 * the vector, 0 when none; *out gets RAX and the page's fields), and the
 * same call as the engine's argument-less op, returning RAX. */
int kvm_clock_pairing_once(int vmmcall, struct kvm_pairing_sample *out);
uint64_t kvm_clock_pairing_vmcall(void);
uint64_t kvm_clock_pairing_vmmcall(void);
#endif
