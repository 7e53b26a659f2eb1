/* How this CPU orders a read of its timebase: arm64's side of the seam's
 * contract header (x86's is src/arch/x86/include/tsc_order.h).  The generic
 * engine (src/measure/engine.c) names the stamp fences and the ordered read
 * by x86's enum constants; here they carry arm64 meanings, so the engine
 * compiles unchanged.
 *
 * The timebase is CNTVCT_EL0, the virtual count.  A read of it "may occur
 * speculatively and out of order" with respect to other instructions (Arm
 * ARM D12.1.2): an ISB before it keeps it from being taken early, an ISB
 * after it keeps later instructions from starting before it.  There is no
 * choice to make per CPU (every Armv8 CPU has ISB, and nothing needs to be
 * proved the way x86's LFENCE must be), so struct serialization is the one
 * answer with its reason.
 *
 * The pure rooms are still compiled against x86's header (mk/arm64-probe.mk):
 * the only thing that crosses between them and code built with this one is
 * struct measure_ctx's two enums (int-sized alike) and struct op_cost,
 * which holds neither. */
#ifndef CP_TSC_ORDER_H
#define CP_TSC_ORDER_H
#include "util.h"

/* tb_ordered()'s read.  TSC_READ_ISB: ISB; MRS CNTVCT_EL0 (Linux's
 * __arch_counter_get_cntvct() and the vDSO's read, less the dependent-load
 * trick that orders later loads).  TSC_READ_SS: MRS CNTVCTSS_EL0, the
 * self-synchronised view (FEAT_ECV only: on a CPU without it an undefined
 * instruction; nothing chooses it unless ID_AA64MMFR0_EL1.ECV says so). */
enum tsc_read { TSC_READ_ISB, TSC_READ_SS };

/* The stamp pair's barrier, under the names the engine uses.
 * STAMP_FENCE_LFENCE (alias STAMP_FENCE_ISB): ISB; MRS CNTVCT_EL0; ISB,
 * the arm64 probe's stamp.  STAMP_FENCE_MFENCE (alias STAMP_FENCE_DSB):
 * DSB SY first as well, so earlier memory accesses have completed too, as
 * x86's MFENCE stamp waits for stores. */
enum stamp_fence { STAMP_FENCE_LFENCE, STAMP_FENCE_MFENCE };
#define STAMP_FENCE_ISB STAMP_FENCE_LFENCE
#define STAMP_FENCE_DSB STAMP_FENCE_MFENCE

/* The decision and its reason (measure_ctx_init() reads fence and read). */
struct serialization {
	enum stamp_fence fence;
	const char *evidence;     /* why that fence */
	enum tsc_read read;       /* the one ordered read */
	const char *read_why;
};

/* The one decision: ISB stamps and the ISB-ordered read. */
static inline void a64_serialization(struct serialization *out)
{
	out->fence = STAMP_FENCE_ISB;
	out->evidence = "ISB orders a counter read against the instructions around it (Arm ARM D12.1.2); every "
			"Armv8 CPU has it";
	out->read = TSC_READ_ISB;
	out->read_why = "isb; mrs cntvct_el0, as Linux's arch timer and vDSO read it";
}
#endif
