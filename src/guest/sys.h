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

/* RDTSC is usable unless the process was set to PR_TSC_SIGSEGV. */
bool sys_rdtsc_usable(char *why, size_t cap);
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

uint64_t sys_now_ns(clockid_t clk);

/* Pins the calling thread to cpu (-1: the CPU it runs on now); returns the
 * CPU, or -1 with why filled. */
int sys_pin_cpu(int cpu, char *why, size_t cap);

/* The vDSO's __vdso_clock_gettime, or NULL with why (no vDSO mapped,
 * symbol missing). *mapped: a vDSO image is present at all. */
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
