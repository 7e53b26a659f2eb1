/* The running Linux system, through a few small wrappers: files, the
 * kernel log, CPUID, RDTSC, CPU affinity and the vDSO.  Everything that
 * can fail returns an errno-style reason; nothing here decides anything. */
#ifndef CP_GUEST_SYS_H
#define CP_GUEST_SYS_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>

/* Reads up to cap-1 bytes of path, NUL-terminated; returns 0 or an errno. */
int sys_read_file(const char *path, char *buf, size_t cap, size_t *len);
/* Writes data to path (one write(2), as sysfs wants); 0 or an errno. */
int sys_write_file(const char *path, const char *data, size_t len);

/* Whether path opens for writing (nothing written); 0 or an errno. */
int sys_can_write(const char *path);

/* Takes an exclusive, non-blocking flock(2) on path (created 0644 when
 * missing) and writes the caller's PID into it; the lock lives as long as
 * the process (the kernel drops it on any exit, SIGKILL included, so a
 * stale file never blocks).  Returns 0, EWOULDBLOCK when another process
 * holds it (*holder: the PID that process wrote, 0 when unreadable), or
 * another errno when the file cannot be opened or locked. */
int sys_lock_exclusive(const char *path, long *holder);

/* CPUID from user space (a cpuid_fn); sys_cpuid_usable() first: the
 * kernel can make CPUID fault (arch_prctl ARCH_SET_CPUID). */
bool sys_cpuid_usable(char *why, size_t cap);
void sys_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

/* The counter every bracket is timed with: RDTSC on x86-64; on arm64 the
 * virtual counter CNTVCT_EL0 that Linux's vDSO reads itself (the guest's
 * "rdtsc" and "tsc" names stay, so the x86 report is unchanged; the arm64
 * report says which counter stood in: SYS_COUNTER_NAME).  x86: usable
 * unless the process was set to PR_TSC_SIGSEGV.  arm64: Linux always lets
 * EL0 read it, directly or by trapping and emulating the read (an erratum
 * workaround), so it is always usable; a trapped read is only slow. */
bool sys_rdtsc_usable(char *why, size_t cap);
#if defined(__aarch64__)
#define SYS_COUNTER_NAME "cntvct_el0"
static inline uint64_t sys_rdtsc_ordered(void)
{
	uint64_t v;
	/* ISB on both sides: the read is not hoisted above earlier
	 * instructions nor later ones above it (the vDSO's own
	 * __arch_get_hw_counter() puts an ISB before the read). */
	__asm__ __volatile__("isb; mrs %0, cntvct_el0; isb" : "=r"(v) :: "memory");
	return v;
}
static inline uint64_t sys_rdtsc(void)
{
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
/* CNTFRQ_EL0: the counter's rate as firmware programmed it (EL0 may read
 * it whenever it may read a counter). */
static inline uint64_t sys_cntfrq(void)
{
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}
#else
#define SYS_COUNTER_NAME "tsc"
static inline uint64_t sys_rdtsc_ordered(void)
{
	uint32_t lo, hi;
	/* LFENCE on both sides: earlier instructions are done before the
	 * stamp, later ones do not start before it (Linux's rdtsc_ordered()
	 * relies on the same LFENCE; the kernel makes it serializing on AMD). */
	__asm__ __volatile__("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t sys_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#endif

uint64_t sys_now_ns(clockid_t clk);

/* Pins the calling thread to cpu (-1: the CPU it runs on now); returns the
 * CPU, or -1 with why filled. */
int sys_pin_cpu(int cpu, char *why, size_t cap);

/* The vDSO's clock_gettime (__vdso_clock_gettime on x86-64,
 * __kernel_clock_gettime on arm64: SYS_VDSO_CLOCK_GETTIME), or NULL with why (no vDSO mapped,
 * symbol missing). *mapped: a vDSO image is present at all. */
#if defined(__aarch64__)
#define SYS_VDSO_CLOCK_GETTIME "__kernel_clock_gettime"
#else
#define SYS_VDSO_CLOCK_GETTIME "__vdso_clock_gettime"
#endif
typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
clock_gettime_fn sys_vdso_clock_gettime(bool *mapped, char *why, size_t cap);
/* clock_gettime(2) itself, never the vDSO. */
int sys_raw_clock_gettime(clockid_t clk, struct timespec *ts);

/* Every kernel log record in turn; cb returns false to stop.  Reads
 * /dev/kmsg (non-blocking, to the end), else syslog(2) READ_ALL.
 * Returns 0 or an errno (EPERM: kernel.dmesg_restrict); *source names
 * where the records came from.  For /dev/kmsg records have seq set;
 * lost (overwritten) records are skipped. */
typedef bool (*klog_cb)(void *ctx, const char *rec, size_t len, bool kmsg);
int sys_read_klog(klog_cb cb, void *ctx, const char **source, char *why, size_t cap);

/* Fills buf with random bytes; returns where they came from, or NULL. */
const char *sys_random(void *buf, size_t n);
#endif
