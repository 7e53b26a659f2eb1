/* Measuring clock reads from user space (measure.h).  Floating point is
 * allowed in this Linux program, but every figure stays an integer of TSC
 * ticks or ns, as the probe's report has them. */
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* The filter only judges calls of this process's own ABI. */
#if defined(__aarch64__)
#define SYS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define SYS_AUDIT_ARCH AUDIT_ARCH_X86_64
#endif

#define WINDOW 64
#define WARMUP_CALLS 512
#define BATCH_CAP 50000000u

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* The empty bracket calls this through the same kind of indirect call as
 * the measured one, so the call itself is subtracted too. */
static int noop_clock_gettime(clockid_t clk, struct timespec *ts)
{
	(void)clk;
	(void)ts;
	__asm__ __volatile__("" ::: "memory");
	return 0;
}
static clock_gettime_fn volatile noop_fn = noop_clock_gettime;

static void to_ns(struct dist *ns, const struct dist *c, uint64_t khz)
{
	/* ticks * 10^6 / kHz = ns; monotone, so each statistic converts alone. */
	const uint64_t *src = &c->min;
	uint64_t *dst = &ns->min;
	for (int i = 0; i < 7; i++)
		dst[i] = mul_div_u64(src[i], 1000000, khz) + (mul_div_u64(src[i], 2000000, khz) & 1);
	ns->n = c->n;
}

static bool first_call_ok(clock_gettime_fn fn, char *why, size_t cap)
{
	struct timespec ts;
	int rc = fn(CLOCK_MONOTONIC, &ts);
	if (rc != 0) {
		/* The vDSO returns -errno itself; syscall() sets errno. */
		int e = rc < -1 ? -rc : errno;
		snprintf(why, cap, "clock_gettime(CLOCK_MONOTONIC) failed: %s", strerror(e));
		return false;
	}
	return true;
}

/* An entry point to measure: there, answering, and warmed up. */
static bool ready(clock_gettime_fn fn, char *why, size_t cap)
{
	if (!fn) {
		snprintf(why, cap, "no such entry point");
		return false;
	}
	if (!first_call_ok(fn, why, cap))
		return false;
	struct timespec ts;
	for (int i = 0; i < WARMUP_CALLS; i++)
		fn(CLOCK_MONOTONIC, &ts);
	return true;
}

void measure_path(struct path_cost *out, clock_gettime_fn fn, const struct measure_cfg *cfg)
{
	memset(out, 0, sizeof *out);
	if (!ready(fn, out->reason, sizeof out->reason))
		return;
	struct timespec ts;
	uint64_t budget_ns = (uint64_t)cfg->budget_ms * 1000000u;
	if (!cfg->rdtsc_ok) {
		snprintf(out->reason, sizeof out->reason, "RDTSC is not usable here: per-call cost not bracketed");
	} else {
		uint64_t *v = cfg->scratch, *medians = cfg->scratch + cfg->samples;
		uint64_t hw[WINDOW];
		uint32_t n = 0, windows = 0;
		uint64_t deadline = sys_now_ns(CLOCK_MONOTONIC_RAW) + budget_ns;
		while (n + WINDOW <= cfg->samples) {
			clock_gettime_fn empty = noop_fn;
			for (int k = 0; k < WINDOW; k++) {
				uint64_t t0 = sys_rdtsc_ordered();
				empty(CLOCK_MONOTONIC, &ts);
				hw[k] = sys_rdtsc_ordered() - t0;
			}
			stats_sort_u64(hw, WINDOW);
			uint64_t med = hw[WINDOW / 2];
			medians[windows++] = med;
			for (int k = 0; k < WINDOW; k++) {
				uint64_t t0 = sys_rdtsc_ordered();
				fn(CLOCK_MONOTONIC, &ts);
				uint64_t d = sys_rdtsc_ordered() - t0;
				if (d < med)
					out->below_harness++;
				v[n++] = d > med ? d - med : 0;
			}
			if (sys_now_ns(CLOCK_MONOTONIC_RAW) > deadline) {
				out->deadline_hit = n + WINDOW <= cfg->samples;
				break;
			}
		}
		out->samples = n;
		out->measured = n > 0;
		stats_dist_compute(&out->cycles, v, n);
		stats_sort_u64(medians, windows);
		out->harness_p50_cycles = stats_percentile_sorted(medians, windows, STATS_P50);
		if (cfg->tsc_khz) {
			to_ns(&out->ns, &out->cycles, cfg->tsc_khz);
			out->have_ns = true;
		}
	}

	/* Back to back, timed by the clock under test: elapsed / calls. */
	uint64_t target = budget_ns / 4;
	fn(CLOCK_MONOTONIC, &ts);
	uint64_t first = ts_ns(&ts), last = first;
	uint32_t calls = 0;
	while (calls < BATCH_CAP) {
		fn(CLOCK_MONOTONIC, &ts);
		calls++;
		if ((calls & 63) == 0) {
			last = ts_ns(&ts);
			if (last - first >= target)
				break;
		}
	}
	last = ts_ns(&ts);
	out->batch_calls = calls;
	out->batch_ns = last > first ? (last - first + calls / 2) / calls : 0;
}

void measure_deltas(struct delta_stats *out, clock_gettime_fn fn, const struct measure_cfg *cfg)
{
	memset(out, 0, sizeof *out);
	if (!ready(fn, out->reason, sizeof out->reason))
		return;
	struct timespec ts;
	uint64_t *v = cfg->scratch;
	uint64_t budget_ns = (uint64_t)cfg->budget_ms * 1000000u;
	fn(CLOCK_MONOTONIC, &ts);
	uint64_t start = ts_ns(&ts), prev = start;
	uint32_t n = 0, reads = 0;
	uint64_t min_nz = 0;
	while (n < cfg->samples) {
		fn(CLOCK_MONOTONIC, &ts);
		uint64_t cur = ts_ns(&ts);
		reads++;
		if (cur < prev) {
			out->backward++;
			if (prev - cur > out->max_backward_ns)
				out->max_backward_ns = prev - cur;
		} else {
			uint64_t d = cur - prev;
			v[n++] = d;
			if (!d)
				out->zero++;
			else if (!min_nz || d < min_nz)
				min_nz = d;
		}
		prev = cur;
		/* Bounded by the readings themselves, and by a read count for a
		 * clock that stands still or runs backwards. */
		if ((reads & 255) == 0 && (cur - start >= budget_ns || cur < start ||
					   reads >= 4 * cfg->samples)) {
			out->deadline_hit = n < cfg->samples;
			break;
		}
	}
	out->samples = n;
	out->measured = n > 0;
	out->min_nonzero_ns = min_nz;
	stats_dist_compute(&out->ns, v, n);
}

/* The child: a filter that fails clock_gettime(2) with EL3HLT (an errno
 * nothing else returns here), a self-check that the raw syscall now
 * fails, then the vDSO entry `calls` times.  Exit status: 0 ok, 10 the
 * filter could not be installed, 11 it did not take effect.  The count of
 * failed calls goes through the pipe. */
static void vdso_check_child(int wfd, clock_gettime_fn vdso, uint32_t calls)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_gettime, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EL3HLT & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		_exit(10);
	struct timespec ts;
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != -1 || errno != EL3HLT)
		_exit(11);
	uint32_t failed = 0;
	for (uint32_t i = 0; i < calls; i++)
		if (vdso(CLOCK_MONOTONIC, &ts) != 0)
			failed++;
	ssize_t w = write(wfd, &failed, sizeof failed);
	_exit(w == (ssize_t)sizeof failed ? 0 : 12);
}

void measure_vdso_check(struct vdso_check *out, clock_gettime_fn vdso, uint32_t calls)
{
	memset(out, 0, sizeof *out);
	snprintf(out->method, sizeof out->method,
		 "a child process under a seccomp filter that fails clock_gettime(2) calls __vdso_clock_gettime %u times; each failed call entered the kernel",
		 calls);
	int p[2];
	if (pipe(p) != 0) {
		snprintf(out->reason, sizeof out->reason, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(out->reason, sizeof out->reason, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		/* The parent's handlers restore the clocksource: not the child's job. */
		for (int sig = 1; sig < 32; sig++)
			signal(sig, SIG_DFL);
		close(p[0]);
		vdso_check_child(p[1], vdso, calls);
	}
	close(p[1]);
	int status = 0;
	pid_t got = 0;
	/* Bounded: a child stuck for 5 s is killed. */
	for (int i = 0; i < 5000 && (got = waitpid(pid, &status, WNOHANG)) == 0; i++)
		usleep(1000);
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		snprintf(out->reason, sizeof out->reason, "the checking child did not finish in 5 s (killed)");
		close(p[0]);
		return;
	}
	uint32_t failed = 0;
	ssize_t n = read(p[0], &failed, sizeof failed);
	close(p[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n != (ssize_t)sizeof failed) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		snprintf(out->reason, sizeof out->reason, "%s",
			 code == 10   ? "seccomp filters are not available (prctl PR_SET_SECCOMP failed)"
			 : code == 11 ? "the seccomp filter did not stop clock_gettime(2): no verdict"
			 : WIFSIGNALED(status) ? "the checking child died of a signal"
					       : "the checking child failed");
		return;
	}
	out->known = true;
	out->calls = calls;
	out->kernel_entries = failed;
	out->in_vdso = failed == 0;
}

static void __attribute__((noinline)) spin(uint32_t n)
{
	for (volatile uint32_t k = 0; k < n; k++)
		;
}

#define STEP_READS 4096
#define STEP_SPINS 96
#define STEP_ROUNDS 4

void measure_tsc_step(struct guest_step *out, const struct measure_cfg *cfg)
{
	memset(out, 0, sizeof *out);
	if (!cfg->rdtsc_ok) {
		guest_step_find(out, NULL, 0, NULL, 0);
		return;
	}
	uint64_t *iv = cfg->scratch, *b2b = cfg->scratch + STEP_SPINS * STEP_ROUNDS;
	uint32_t ni = 0;
	for (int round = 0; round < STEP_ROUNDS; round++)
		for (uint32_t k = 0; k < STEP_SPINS; k++) {
			uint64_t t0 = sys_rdtsc_ordered();
			spin(k);
			iv[ni++] = sys_rdtsc_ordered() - t0;
		}
	uint32_t nb = MIN((uint32_t)STEP_READS, cfg->samples);
	uint64_t prev = sys_rdtsc();
	for (uint32_t i = 0; i < nb; i++) {
		uint64_t now = sys_rdtsc();
		b2b[i] = now >= prev ? now - prev : 0;
		prev = now;
	}
	guest_step_find(out, iv, ni, b2b, nb);
}

/* One (TSC, CLOCK_MONOTONIC_RAW) pair: the narrowest of 16 brackets. */
static void stamp(uint64_t *tsc, uint64_t *ns, uint64_t *width)
{
	*width = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t a = sys_rdtsc_ordered();
		uint64_t t = sys_now_ns(CLOCK_MONOTONIC_RAW);
		uint64_t b = sys_rdtsc_ordered();
		if (b - a < *width) {
			*width = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
}

uint64_t measure_tsc_khz(uint32_t window_ms, uint64_t *uncertainty_ppm, uint64_t *window_out_ms)
{
	uint64_t t0, n0, w0, t1, n1, w1;
	stamp(&t0, &n0, &w0);
	struct timespec req = {.tv_sec = window_ms / 1000, .tv_nsec = (long)(window_ms % 1000) * 1000000};
	while (nanosleep(&req, &req) != 0 && errno == EINTR)
		;
	stamp(&t1, &n1, &w1);
	if (t1 <= t0 || n1 <= n0)
		return 0;
	uint64_t ticks = t1 - t0, ns = n1 - n0;
	/* Each stamp is known to half its bracket; the clock to 1 ns. */
	uint64_t err_ticks = (w0 + w1) / 2 + 1;
	*uncertainty_ppm = mul_div_u64(err_ticks, 1000000, ticks) + mul_div_u64(2, 1000000, ns) + 1;
	*window_out_ms = ns / 1000000;
	return mul_div_u64(ticks, 1000000, ns);
}
