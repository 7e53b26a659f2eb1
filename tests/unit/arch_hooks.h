/* src/arch/x86/include/x86.h's instruction wrappers for host unit tests of the
 * timing code (built with -DCP_ARCH_HOOKS): each one counts which
 * instruction sequence the probe would have executed there, and answers
 * with the host's own TSC (RDTSC is unprivileged) or a recording.  What
 * needs ring 0 (cli/sti, lidt, port I/O, MSRs) does nothing visible. */
#ifndef CP_ARCH_HOOKS_H
#define CP_ARCH_HOOKS_H
#include <stdint.h>
#include <stdbool.h>

enum hook_kind {
	HOOK_RDTSC_RAW,          /* rdtsc(): deadlines, the raw baseline */
	HOOK_ORDERED_LFENCE,     /* rdtsc_ordered_as(TSC_READ_LFENCE) */
	HOOK_ORDERED_MFENCE,
	HOOK_ORDERED_RDTSCP,
	HOOK_STAMP_BEGIN_LFENCE, /* the engine's stamp pairs */
	HOOK_STAMP_BEGIN_MFENCE,
	HOOK_STAMP_END_RDTSCP_LFENCE,
	HOOK_STAMP_END_RDTSCP_MFENCE,
	HOOK_RDTSCP_RAW,
	HOOK_KIND_COUNT,
};

/* Counts since hooks_reset(), every thread together. */
extern uint64_t hook_counts[HOOK_KIND_COUNT];
void hooks_reset(void);
uint64_t hook_tsc(enum hook_kind k);
/* CPUID as the test wants it answered (a recording), on every thread. */
void hook_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

static inline void cpuid_raw(uint32_t leaf, uint32_t subleaf, uint32_t r[4]) { hook_cpuid(leaf, subleaf, r); }
static inline uint64_t rdtsc(void) { return hook_tsc(HOOK_RDTSC_RAW); }
static inline uint64_t rdtsc_ordered_as(enum tsc_read how)
{
	return hook_tsc(how == TSC_READ_RDTSCP ? HOOK_ORDERED_RDTSCP
			: how == TSC_READ_MFENCE ? HOOK_ORDERED_MFENCE
						 : HOOK_ORDERED_LFENCE);
}
static inline uint64_t rdtscp_raw(uint32_t *aux)
{
	*aux = 0;
	return hook_tsc(HOOK_RDTSCP_RAW);
}
static inline uint64_t tsc_stamp_begin(void) { return hook_tsc(HOOK_STAMP_BEGIN_LFENCE); }
static inline uint64_t tsc_stamp_begin_mfence(void) { return hook_tsc(HOOK_STAMP_BEGIN_MFENCE); }
static inline uint64_t tsc_stamp_end_rdtscp(void) { return hook_tsc(HOOK_STAMP_END_RDTSCP_LFENCE); }
static inline uint64_t tsc_stamp_end_rdtscp_mfence(void) { return hook_tsc(HOOK_STAMP_END_RDTSCP_MFENCE); }
static inline uint64_t tsc_stamp_end_lfence(void) { return hook_tsc(HOOK_STAMP_BEGIN_LFENCE); }
static inline void lfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void compiler_barrier(void) { __asm__ volatile("" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline uint8_t inb(uint16_t port) { (void)port; return 0xff; }
static inline uint32_t inl(uint16_t port) { (void)port; return 0xffffffffu; }
static inline void outb(uint16_t port, uint8_t v) { (void)port; (void)v; }
static inline void outl(uint16_t port, uint32_t v) { (void)port; (void)v; }
static inline uint64_t rdmsr(uint32_t msr) { (void)msr; return 0; }
static inline void wrmsr(uint32_t msr, uint64_t v) { (void)msr; (void)v; }
static inline uint64_t read_rflags(void) { return 0; }
static inline void halt_forever(void) { for (;;) ; }
static inline bool rdrand64(uint64_t *v) { *v = 0; return false; }
static inline bool rdseed64(uint64_t *v) { *v = 0; return false; }
static inline bool irq_save(void) { return false; }
static inline void irq_restore(bool was_on) { (void)was_on; }
static inline bool irq_enabled(void) { return false; }
static inline void sidt(struct descriptor_table_ptr *p) { p->limit = 0; p->base = 0; }
static inline void lidt(const struct descriptor_table_ptr *p) { (void)p; }
#endif
