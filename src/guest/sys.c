/* The Linux system calls and instructions clockprobe-guest needs, each in
 * one small wrapper (sys.h). */
#define _GNU_SOURCE
#include "sys.h"
#include "gparse.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef ARCH_GET_CPUID
#define ARCH_GET_CPUID 0x1011
#endif

int sys_read_file(const char *path, char *buf, size_t cap, size_t *len)
{
	size_t got = 0;
	if (len)
		*len = 0;
	if (!cap)
		return EINVAL;
	buf[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (got + 1 < cap) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	if (len)
		*len = got;
	return 0;
}

int sys_write_file(const char *path, const char *data, size_t len)
{
	/* O_TRUNC as a shell's '>' does: sysfs ignores it, a plain file (the
	 * tests' stand-in directory) needs it. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = write(fd, data, len);
	int e = n < 0 ? errno : ((size_t)n != len ? EIO : 0);
	close(fd);
	return e;
}

int sys_can_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

#if defined(__aarch64__)
bool sys_cpuid_usable(char *why, size_t cap)
{
	snprintf(why, cap, "no CPUID on arm64 (the CPU is named by MIDR_EL1, read from sysfs)");
	return false;
}

void sys_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	(void)leaf;
	(void)subleaf;
	regs[0] = regs[1] = regs[2] = regs[3] = 0;
}

bool sys_rdtsc_usable(char *why, size_t cap)
{
	(void)why;
	(void)cap;
	return true;
}
#else
bool sys_cpuid_usable(char *why, size_t cap)
{
	/* 1: CPUID runs; 0: it faults (ARCH_SET_CPUID 0).  Kernels before
	 * 4.12 do not know the call: CPUID cannot be turned off there. */
	long r = syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0);
	if (r == 0) {
		snprintf(why, cap, "CPUID faults in this process (arch_prctl ARCH_GET_CPUID = 0)");
		return false;
	}
	return true;
}

void sys_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	__asm__ __volatile__("cpuid"
			     : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3])
			     : "a"(leaf), "c"(subleaf));
}

bool sys_rdtsc_usable(char *why, size_t cap)
{
	int v = 0;
	if (prctl(PR_GET_TSC, &v, 0, 0, 0) == 0 && v == PR_TSC_SIGSEGV) {
		snprintf(why, cap, "RDTSC faults in this process (prctl PR_GET_TSC = PR_TSC_SIGSEGV)");
		return false;
	}
	return true;
}
#endif

uint64_t sys_now_ns(clockid_t clk)
{
	struct timespec ts;
	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int sys_pin_cpu(int cpu, char *why, size_t cap)
{
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0) {
		snprintf(why, cap, "sched_getcpu: %s", strerror(errno));
		return -1;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		snprintf(why, cap, "sched_setaffinity(CPU %d): %s", cpu, strerror(errno));
		return -1;
	}
	return cpu;
}

/* The [vdso] mapping's length from /proc/self/maps, so that the ELF
 * reader never looks past it. */
static size_t vdso_length(uintptr_t base)
{
	static char maps[65536];
	size_t len;
	if (sys_read_file("/proc/self/maps", maps, sizeof maps, &len) != 0)
		return 0;
	for (char *line = maps; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		unsigned long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base && hi > lo)
			return hi - lo;
		line = next;
	}
	return 0;
}

clock_gettime_fn sys_vdso_clock_gettime(bool *mapped, char *why, size_t cap)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	*mapped = base != 0;
	if (!base) {
		snprintf(why, cap, "no vDSO mapped (AT_SYSINFO_EHDR is 0: vdso=0 on the kernel command line?)");
		return NULL;
	}
	size_t len = vdso_length(base);
	if (!len) {
		snprintf(why, cap, "vDSO at %#lx not found in /proc/self/maps", (unsigned long)base);
		return NULL;
	}
	uint64_t off = vdso_symbol_offset((const void *)base, len, SYS_VDSO_CLOCK_GETTIME);
	if (!off) {
		snprintf(why, cap, SYS_VDSO_CLOCK_GETTIME " not in the vDSO's symbol table");
		return NULL;
	}
	return (clock_gettime_fn)(base + off);
}

int sys_raw_clock_gettime(clockid_t clk, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, clk, ts);
}

static int read_kmsg(klog_cb cb, void *ctx)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno;
	/* A record is at most ~1 KiB of text plus its dictionary; 8 KiB is
	 * what dmesg(1) reads with. */
	static char rec[8192];
	for (;;) {
		ssize_t n = read(fd, rec, sizeof rec - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) /* overwritten before we read it */
				continue;
			int e = errno;
			close(fd);
			return e == EAGAIN ? 0 : e;
		}
		if (n == 0)
			break;
		rec[n] = 0;
		if (!cb(ctx, rec, (size_t)n, true))
			break;
	}
	close(fd);
	return 0;
}

static int read_syslog(klog_cb cb, void *ctx)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? errno : ENODATA;
	char *buf = malloc((size_t)size + 1);
	if (!buf)
		return ENOMEM;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		int e = errno;
		free(buf);
		return e;
	}
	buf[n] = 0;
	for (char *line = buf; *line;) {
		char *next = strchr(line, '\n');
		size_t len = next ? (size_t)(next - line) : strlen(line);
		if (len && !cb(ctx, line, len, false))
			break;
		if (!next)
			break;
		line = next + 1;
	}
	free(buf);
	return 0;
}

int sys_read_klog(klog_cb cb, void *ctx, const char **source, char *why, size_t cap)
{
	*source = "/dev/kmsg";
	int e = read_kmsg(cb, ctx);
	if (e == 0)
		return 0;
	int e2 = read_syslog(cb, ctx);
	if (e2 == 0) {
		*source = "syslog(2)";
		return 0;
	}
	snprintf(why, cap, "/dev/kmsg: %s; syslog(2): %s%s", strerror(e), strerror(e2),
		 (e == EPERM || e2 == EPERM) ? " (root only where kernel.dmesg_restrict=1)" : "");
	return e;
}

#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

const char *sys_random(void *buf, size_t n)
{
	/* Early in a guest's boot the pool may not be initialised yet: then
	 * GRND_INSECURE (5.6+) still answers at once, and older kernels
	 * always have /proc/sys/kernel/random/uuid.  A run id needs to be
	 * unique, not secret. */
	if (getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n)
		return "getrandom";
	if (getrandom(buf, n, GRND_INSECURE) == (ssize_t)n)
		return "getrandom (GRND_INSECURE: pool not initialised yet)";
	char text[64];
	size_t len, k = 0;
	if (sys_read_file("/proc/sys/kernel/random/uuid", text, sizeof text, &len) != 0)
		return NULL;
	uint8_t *out = buf;
	for (size_t i = 0; i + 1 < len && k < n; i++) {
		unsigned v;
		if (text[i] == '-' || sscanf(text + i, "%2x", &v) != 1)
			continue;
		out[k++] = (uint8_t)v;
		i++;
	}
	return k == n ? "/proc/sys/kernel/random/uuid" : NULL;
}

int sys_lock_exclusive(const char *path, long *holder)
{
	*holder = 0;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
		char buf[32];
		ssize_t n = e == EWOULDBLOCK ? pread(fd, buf, sizeof buf - 1, 0) : -1;
		if (n > 0) {
			buf[n] = 0;
			char *end;
			long pid = strtol(buf, &end, 10);
			if (end != buf && pid > 0)
				*holder = pid;
		}
		close(fd);
		return e;
	}
	/* Ours: the PID replaces whatever an earlier holder left. */
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
		int e = errno;
		close(fd);
		return e ? e : EIO;
	}
	return 0; /* fd kept open: the lock is held until the process ends */
}
