/* clockprobe-guest: the clockprobe report from inside a running Linux
 * guest.  Orchestration only: gather the kernel's facts, measure
 * clock_gettime on the current clocksource (and, with --switch, on every
 * available one, restoring the original whatever happens), then print the
 * summary and the framed report.  See --help. */
#define _GNU_SOURCE
#include "guest.h"
#include "measure.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SYSFS "/sys/devices/system/clocksource/clocksource0"
#define DEFAULT_SAMPLES 100000u
#define DEFAULT_BUDGET_MS 250u
#define DEFAULT_TIMEOUT_S 120u
#define VDSO_CHECK_CALLS 1000u
#define JSON_CAP (2u << 20)

static struct guest_results R;
static struct klog_line klog_store[GUEST_MAX_LINES];
static int verbose;

/* --switch's lock: two concurrent runs would each record the other's
 * temporary clocksource as "original" and restore that, leaving the
 * machine on the wrong one.  /run is root's tmpfs, cleared at boot. */
#define DEFAULT_LOCK "/run/clockprobe-guest.lock"
/* Why the lock could not be taken for a reason other than another
 * holder ("" when taken or not asked): the switch is skipped with it. */
static char lock_problem[GUEST_TEXT];

static const char usage_text[] =
	"Usage: clockprobe-guest [OPTION]...\n"
	"Report how this running Linux guest keeps time: the clocksource the kernel\n"
	"chose and why (its log), the CPU flags and TSC rate it sees, the hypervisor,\n"
	"the SMBIOS UUID (to pair with a clockprobe report of the same VM), and what\n"
	"clock_gettime(CLOCK_MONOTONIC) costs through the vDSO and the raw syscall,\n"
	"with the distribution of consecutive readings.  Prints a short summary, then\n"
	"the framed one-line JSON report (==== CLOCKPROBE GUEST BEGIN schema=1 ====).\n"
	"\n"
	"  -s, --switch         as root: measure every available clocksource by writing\n"
	"                       it to current_clocksource; the original is restored at\n"
	"                       the end, on SIGINT/SIGTERM/SIGHUP/SIGQUIT, on a crash\n"
	"                       signal and on --timeout (not on SIGKILL)\n"
	"  -n, --samples N      samples per measurement, at most (default %u; 1024..10000000)\n"
	"  -b, --budget-ms MS   time per measurement and clocksource (default %u; 10..60000)\n"
	"  -w, --settle S       first watch current_clocksource for S seconds, noting each\n"
	"                       change with the uptime (default 0; at most 600)\n"
	"  -c, --cpu N          pin to CPU N (default: the CPU it starts on)\n"
	"  -l, --label TEXT     copied into guest.label (default: clockprobe.label= on the\n"
	"                       kernel command line, if any); 64 bytes at most\n"
	"  -t, --timeout S      give up after S seconds, restoring the clocksource\n"
	"                       (default %u; 1..3600)\n"
	"      --sysfs-dir DIR  the clocksource directory (default " DEFAULT_SYSFS ";\n"
	"                       tests point it at a copy)\n"
	"      --lock-file PATH with --switch: the lock two runs share (default\n"
	"                       " DEFAULT_LOCK "); a run finding it held by another\n"
	"                       refuses, naming that run's PID\n"
	"  -q, --quiet          the framed report only, no summary\n"
	"  -v, --verbose        progress on stderr\n"
	"  -h, --help           this text\n"
	"  -V, --version        the version\n"
	"\n"
	"Without root it measures the current clocksource and names what it skipped\n"
	"(the SMBIOS serial and UUID, a restricted kernel log, --switch) and why.\n"
	"\n"
	"Exit status: 0 report written; 1 report written, with errors[] entries;\n"
	"2 usage error; 3 no report (out of memory, the report did not fit);\n"
	"4 --timeout expired (clocksource restored); 5 --switch refused: another\n"
	"run holds the lock, nothing measured; 128+N killed by signal N\n"
	"(clocksource restored first).\n";

/* ------------------------------------------------------------ restoring */

/* Everything the signal handlers touch: fixed buffers, written before the
 * first switch, read with async-signal-safe calls only. */
static char cs_current_path[512];
static char restore_name[GUEST_CS_NAME];
static size_t restore_name_len;
static bool restore_by_name;		/* the boot's clocksource= override */
static volatile sig_atomic_t switched;	/* set before the first write */

static void put_err(const char *s) { (void)!write(2, s, strlen(s)); }

/* Puts the original clocksource back.  Writing "\n" clears the override
 * (kernel/time/clocksource.c sysfs_get_uname(): an empty name), handing
 * the choice back to the kernel as it was at boot; when that does not
 * give the original back (or the boot named one with clocksource=), the
 * name itself is written.  Returns true when current_clocksource reads
 * the original afterwards.  Async-signal-safe. */
static bool restore_clocksource(const char **method)
{
	char now[GUEST_CS_NAME + 2];
	*method = restore_by_name ? "wrote the boot's clocksource= override back" : "cleared the override";
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = open(cs_current_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return false;
		if (restore_by_name || attempt == 1)
			(void)!write(fd, restore_name, restore_name_len);
		else
			(void)!write(fd, "\n", 1);
		close(fd);
		fd = open(cs_current_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		ssize_t n = read(fd, now, sizeof now - 1);
		close(fd);
		if (n > 0 && now[n - 1] == '\n')
			n--;
		if (n == (ssize_t)restore_name_len && memcmp(now, restore_name, (size_t)n) == 0) {
			switched = 0;
			return true;
		}
		if (restore_by_name)
			return false;
		*method = "cleared the override, then wrote the original name (the kernel's own choice was another)";
	}
	return false;
}

static void on_signal(int sig)
{
	if (switched) {
		const char *method;
		put_err(restore_clocksource(&method) ? "clockprobe-guest: interrupted: clocksource restored to "
						      : "clockprobe-guest: interrupted: RESTORING THE CLOCKSOURCE FAILED; it was ");
		put_err(restore_name);
		put_err("\n");
	}
	if (sig == SIGALRM) {
		put_err("clockprobe-guest: --timeout expired\n");
		_exit(GUEST_EXIT_TIMEOUT);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit_restore(void)
{
	if (switched) {
		const char *method;
		restore_clocksource(&method);
	}
}

static void install_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
				   SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGUSR1, SIGUSR2};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);	/* one handler at a time */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	atexit(at_exit_restore);
}

/* -------------------------------------------------------------- helpers */

static const char *path_in(const char *dir, const char *file)
{
	static char buf[4][600];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, file);
	return buf[k];
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* A one-line file into out (cap bytes), trailing newline dropped. */
static int read_line_file(const char *path, char *out, size_t cap)
{
	size_t len;
	int e = sys_read_file(path, out, cap, &len);
	if (!e)
		chomp(out);
	return e;
}

static uint64_t uptime_ms(void)
{
	return sys_now_ns(CLOCK_BOOTTIME) / 1000000u;
}

static void progress(const char *fmt, const char *arg)
{
	if (verbose) {
		fprintf(stderr, "clockprobe-guest: ");
		fprintf(stderr, fmt, arg);
		fputc('\n', stderr);
	}
}

/* ------------------------------------------------------------- the facts */

static void identity(void)
{
	uint8_t rnd[16];
	R.run_id_source = sys_random(rnd, sizeof rnd);
	if (R.run_id_source)
		for (int i = 0; i < 16; i++)
			sprintf(R.run_id + 2 * i, "%02x", rnd[i]);
	struct timespec ts;
	struct tm tm;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0 && gmtime_r(&ts.tv_sec, &tm))
		strftime(R.started_utc, sizeof R.started_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
	R.euid = (uint32_t)geteuid();
	R.uptime_ms = uptime_ms();
}

static void kernel_facts(void)
{
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(R.release, sizeof R.release, "%s", u.release);
		snprintf(R.kversion, sizeof R.kversion, "%s", u.version);
		snprintf(R.machine, sizeof R.machine, "%s", u.machine);
	}
	if (read_line_file("/proc/cmdline", R.cmdline, sizeof R.cmdline))
		guest_error(&R, "KERNEL", "cannot read /proc/cmdline");
	read_line_file("/sys/devices/system/cpu/online", R.cpus_online, sizeof R.cpus_online);
	read_line_file("/sys/devices/system/cpu/possible", R.cpus_possible, sizeof R.cpus_possible);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	R.online_cpus = n > 0 ? (uint32_t)n : 0;
}

#if defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP2_ECV
#define HWCAP2_ECV (1UL << 19)	/* arch/arm64/include/uapi/asm/hwcap.h */
#endif
#define ARM64_COUNTER_READS 100000u

/* The arm64 verdict's facts from inside the guest: each CPU's MIDR_EL1 as
 * Linux exports it (sysfs regs/identification, the value the kernel's
 * erratum matching saw), CNTFRQ_EL0, whether Linux found FEAT_ECV
 * (HWCAP2_ECV), and what one CNTVCT_EL0 read costs this process: a read
 * the kernel traps and emulates (CNTKCTL_EL1.EL0VCTEN clear, an erratum
 * workaround) costs an exception each, a direct one a few cycles. */
static void arm64_facts(void)
{
	struct guest_arm64 *a = &R.arm64;
	char path[96], line[64];

	a->present = true;
	for (uint32_t cpu = 0; cpu < GUEST_ARM64_CPUS; cpu++) {
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/regs/identification/midr_el1", cpu);
		if (read_line_file(path, line, sizeof line) != 0) {
			if (cpu == 0)
				snprintf(a->midr_reason, sizeof a->midr_reason, "%s unreadable", path);
			break;
		}
		a->midr[a->n_midr++] = strtoull(line, NULL, 16);
	}
	a->cntfrq_hz = sys_cntfrq();
	a->hwcap2_ecv = (getauxval(AT_HWCAP2) & HWCAP2_ECV) != 0;
	uint64_t t0 = sys_now_ns(CLOCK_MONOTONIC_RAW);
	uint64_t sink = 0;
	for (uint32_t i = 0; i < ARM64_COUNTER_READS; i++)
		sink += sys_rdtsc();
	uint64_t t1 = sys_now_ns(CLOCK_MONOTONIC_RAW);
	__asm__ __volatile__("" : : "r"(sink));
	if (t1 > t0) {
		a->counter_reads = ARM64_COUNTER_READS;
		a->counter_read_ps = (t1 - t0) * 1000u / ARM64_COUNTER_READS;
	}
}
#endif

/* The value of NAME= on the kernel command line, or NULL. */
static const char *cmdline_value(const char *name, char *out, size_t cap)
{
	size_t k = strlen(name);
	for (const char *p = R.cmdline; p && *p;) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > k && strncmp(p, name, k) == 0 && p[k] == '=') {
			snprintf(out, cap, "%.*s", (int)(len - k - 1), p + k + 1);
			return out;
		}
		p = end;
	}
	return NULL;
}

static void label_from(const char *opt)
{
	char buf[256];
	const char *v = opt;
	R.label_source = opt ? "--label" : NULL;
	if (!v && (v = cmdline_value("clockprobe.label", buf, sizeof buf)))
		R.label_source = "kernel command line";
	if (v)
		snprintf(R.label, sizeof R.label, "%s", v);
	if (v && !R.label[0])
		R.label_source = NULL;
}

static void cpu_facts(void)
{
	R.cpuid_ok = sys_cpuid_usable(R.cpuid_reason, sizeof R.cpuid_reason);
	if (R.cpuid_ok) {
		cpuid_decode(&R.cpu, sys_cpuid, NULL);
		hypervisor_decode(&R.hv, &R.cpu, sys_cpuid, NULL);
	}
	/* /proc/cpuinfo of a large guest runs to megabytes; the flags of the
	 * first CPUs are what Linux decided (it clears a flag on all). */
	static char buf[1 << 20];
	size_t len;
	int e = sys_read_file("/proc/cpuinfo", buf, sizeof buf, &len);
	if (e) {
		snprintf(R.cpuinfo_reason, sizeof R.cpuinfo_reason, "/proc/cpuinfo: %s", strerror(e));
		return;
	}
	R.cpuinfo_ok = true;
	cpuinfo_parse(&R.cpuinfo, buf, len);
}

static void dmi_file(const char *file, char *out, size_t cap, char *reason, size_t rcap)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/class/dmi/id/%s", file);
	int e = read_line_file(path, out, cap);
	if (!e && !out[0])
		snprintf(reason, rcap, "%s is empty", path);
	else if (e == ENOENT)
		snprintf(reason, rcap, "%s: no such file (no SMBIOS, or the firmware's type 1 structure has none%s)",
			 path, strcmp(file, "product_uuid") == 0 ? " / an all-00h or all-FFh UUID" : "");
	else if (e == EACCES || e == EPERM)
		snprintf(reason, rcap, "%s: %s (readable by root only)", path, strerror(e));
	else if (e)
		snprintf(reason, rcap, "%s: %s", path, strerror(e));
	if (e)
		out[0] = 0;
}

static void smbios_facts(void)
{
	char ignore[GUEST_TEXT];
	dmi_file("sys_vendor", R.manufacturer, sizeof R.manufacturer, ignore, sizeof ignore);
	dmi_file("product_name", R.product, sizeof R.product, ignore, sizeof ignore);
	dmi_file("product_uuid", R.uuid, sizeof R.uuid, R.uuid_reason, sizeof R.uuid_reason);
	dmi_file("product_serial", R.serial, sizeof R.serial, R.serial_reason, sizeof R.serial_reason);
	/* The probe writes RFC 4122 text in lower case; so does Linux, but a
	 * patched kernel might not: compare like with like. */
	for (char *p = R.uuid; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p + 32);
	if (!R.uuid[0] && strstr(R.uuid_reason, "root only"))
		guest_skip(&R, "smbios_uuid", R.uuid_reason);
	if (!R.serial[0] && strstr(R.serial_reason, "root only"))
		guest_skip(&R, "smbios_serial", R.serial_reason);
}

static bool read_current(char out[GUEST_CS_NAME], char *why, size_t cap)
{
	char buf[128];
	size_t len;
	int e = sys_read_file(path_in(R.sysfs_dir, "current_clocksource"), buf, sizeof buf, &len);
	if (e) {
		snprintf(why, cap, "%s: %s", path_in(R.sysfs_dir, "current_clocksource"), strerror(e));
		return false;
	}
	if (!cs_current_parse(out, buf, len)) {
		snprintf(why, cap, "%s does not hold one clocksource name", path_in(R.sysfs_dir, "current_clocksource"));
		return false;
	}
	return true;
}

static void clocksource_facts(void)
{
	R.cs_ok = read_current(R.current, R.cs_reason, sizeof R.cs_reason);
	char buf[1024];
	size_t len;
	int e = sys_read_file(path_in(R.sysfs_dir, "available_clocksource"), buf, sizeof buf, &len);
	if (e) {
		if (R.cs_ok)
			snprintf(R.cs_reason, sizeof R.cs_reason, "%s: %s",
				 path_in(R.sysfs_dir, "available_clocksource"), strerror(e));
		R.cs_ok = false;
	} else {
		cs_list_parse(&R.available, buf, len);
	}
	if (!R.cs_ok)
		guest_error(&R, "CLOCKSOURCE", R.cs_reason);
}

static void note_change(const char *cs)
{
	if (R.n_changes && strcmp(R.changes[R.n_changes - 1].current, cs) == 0)
		return;
	if (R.n_changes >= GUEST_MAX_CHANGES) {
		R.changes_dropped++;
		return;
	}
	R.changes[R.n_changes].uptime_ms = uptime_ms();
	snprintf(R.changes[R.n_changes].current, GUEST_CS_NAME, "%s", cs);
	R.n_changes++;
}

/* The kernel settles its choice after init starts (the refined TSC
 * calibration about 1 s after boot, watchdog rounds every 0.5 s): watch
 * current_clocksource every 250 ms, as tests/linux/init.sh did. */
static void settle(uint32_t seconds)
{
	char cs[GUEST_CS_NAME], why[GUEST_TEXT];
	if (read_current(cs, why, sizeof why))
		note_change(cs);
	for (uint32_t i = 0; i < seconds * 4; i++) {
		struct timespec q = {0, 250000000};
		nanosleep(&q, NULL);
		if (read_current(cs, why, sizeof why))
			note_change(cs);
	}
	/* The final answer is what it reads now. */
	if (seconds && read_current(cs, why, sizeof why))
		snprintf(R.current, sizeof R.current, "%s", cs);
}

static uint32_t klog_ring_next;	/* history_slot()'s ring position */

static bool klog_record_cb(void *ctx, const char *rec, size_t len, bool kmsg)
{
	(void)ctx;
	struct klog_record kr;
	if (kmsg) {
		if (!klog_parse_kmsg(&kr, rec, len))
			return true;
		if (!R.first_seq_known) {
			R.first_seq_known = true;
			R.first_seq = kr.seq;
		}
	} else {
		klog_parse_text_line(&kr, rec, len);
	}
	R.records_read++;
	if (!klog_is_clock_line(kr.msg, kr.msg_len))
		return true;
	struct klog_line *l = history_slot(&R, &klog_ring_next);
	l->has_ts = kr.has_ts;
	l->t_us = kr.t_us;
	klog_classify(&l->ev, kr.msg, kr.msg_len);
	size_t n = kr.msg_len < sizeof l->text - 1 ? kr.msg_len : sizeof l->text - 1;
	memcpy(l->text, kr.msg, n);
	l->text[n] = 0;
	return true;
}

static void history(void)
{
	R.lines = klog_store;
	int e = sys_read_klog(klog_record_cb, NULL, &R.history_source, R.history_reason, sizeof R.history_reason);
	if (e) {
		R.history_source = NULL;
		R.history_status = (e == EPERM || e == EACCES) ? "skipped" : "error";
		if (e == EPERM || e == EACCES)
			guest_skip(&R, "kernel_log", R.history_reason);
		else
			guest_error(&R, "KERNEL_LOG", R.history_reason);
		return;
	}
	R.history_status = "ok";
	history_finish(&R, klog_ring_next);
}

/* tsc_khz as the kernel uses it: a sysfs file where a kernel exports it,
 * else the log: the refined calibration (final), else "Detected X MHz TSC"
 * (tsc_khz when it differs from cpu_khz), else "Detected X MHz processor"
 * (cpu_khz, which tsc_khz equals then). */
static void tsc_rate(void)
{
	char buf[64];
	size_t len;
	uint64_t khz;
	if (sys_read_file("/sys/devices/system/cpu/cpu0/tsc_freq_khz", buf, sizeof buf, &len) == 0 &&
	    parse_u64(buf, len, &khz, NULL) && khz) {
		R.tsc_khz = khz;
		R.tsc_khz_source = "/sys/devices/system/cpu/cpu0/tsc_freq_khz";
		return;
	}
	const struct klog_line *best = NULL;
	int rank = 0;
	for (uint32_t i = 0; i < R.n_lines; i++) {
		const struct klog_line *l = &R.lines[i];
		int r = l->ev.kind == KLOG_TSC_REFINED ? 3
			: l->ev.kind == KLOG_TSC_DETECTED ? (l->ev.khz_is_tsc ? 2 : 1) : 0;
		if (r && l->ev.khz && r >= rank) {
			best = l;
			rank = r;
		}
	}
	if (best) {
		R.tsc_khz = best->ev.khz;
		R.tsc_khz_source = rank == 3 ? "kernel log: refined calibration"
				   : rank == 2 ? "kernel log: detected TSC rate"
					       : "kernel log: detected processor rate (tsc_khz = cpu_khz)";
		snprintf(R.tsc_khz_line, sizeof R.tsc_khz_line, "%s", best->text);
	} else if (R.tsc_measured_khz) {
		R.tsc_khz = R.tsc_measured_khz;
		R.tsc_khz_source = "measured against CLOCK_MONOTONIC_RAW (the kernel's own rate is not exposed)";
	}
}

/* ---------------------------------------------------------- measuring */

static clock_gettime_fn vdso_fn;
static bool vdso_mapped;
static char vdso_why[GUEST_TEXT];

static void measure_current(struct cs_measurement *m, const char *name, bool was_switched,
			    const struct measure_cfg *cfg)
{
	memset(m, 0, sizeof *m);
	snprintf(m->clocksource, sizeof m->clocksource, "%s", name);
	m->switched = was_switched;
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		m->resolution_ns = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	progress("measuring %s", name);
	if (vdso_fn) {
		measure_vdso_check(&m->vdso_check, vdso_fn, VDSO_CHECK_CALLS);
		measure_path(&m->vdso, vdso_fn, cfg);
		measure_deltas(&m->deltas, vdso_fn, cfg);
	} else {
		/* No vDSO mapped: every clock_gettime() is the syscall, and that
		 * is known without a test. */
		m->vdso_check.known = !vdso_mapped;
		m->vdso_check.in_vdso = false;
		snprintf(m->vdso_check.method, sizeof m->vdso_check.method, "%s", vdso_why);
		snprintf(m->vdso_check.reason, sizeof m->vdso_check.reason, "%s", vdso_why);
		snprintf(m->vdso.reason, sizeof m->vdso.reason, "%s", vdso_why);
		measure_deltas(&m->deltas, sys_raw_clock_gettime, cfg);
	}
	measure_path(&m->syscall, sys_raw_clock_gettime, cfg);
	m->status = "ok";
	if (!m->syscall.measured && !m->syscall.batch_calls) {
		m->status = "error";
		snprintf(m->reason, sizeof m->reason, "%s", m->syscall.reason);
	}
}

static bool write_clocksource(const char *name, char *why, size_t cap)
{
	int e = sys_write_file(cs_current_path, name, strlen(name));
	if (e) {
		snprintf(why, cap, "writing %s to %s: %s", name, cs_current_path, strerror(e));
		return false;
	}
	char now[GUEST_CS_NAME];
	if (!read_current(now, why, cap))
		return false;
	if (strcmp(now, name) != 0) {
		snprintf(why, cap, "wrote %s to %s, the kernel kept %s", name, cs_current_path, now);
		return false;
	}
	return true;
}

static void switch_all(const struct measure_cfg *cfg)
{
	char why[GUEST_TEXT];
	if (!R.cs_ok || !R.current[0]) {
		guest_skip(&R, "switch", "the current clocksource is unknown");
		return;
	}
	/* Can we write at all?  An open for writing says so without changing
	 * anything; the reason names the permission when it fails. */
	int e = sys_can_write(cs_current_path);
	if (e) {
		snprintf(why, sizeof why, "%s: %s%s", cs_current_path, strerror(e),
			 (e == EACCES || e == EPERM) ? " (--switch needs root)" : "");
		guest_skip(&R, "switch", why);
		return;
	}
	/* Root, but no lock (a read-only /run): another run could be
	 * switching too, so none of this one's writes are made. */
	if (lock_problem[0]) {
		guest_skip(&R, "switch", lock_problem);
		return;
	}
	snprintf(restore_name, sizeof restore_name, "%s", R.current);
	restore_name_len = strlen(restore_name);
	char boot_cs[64];
	restore_by_name = cmdline_value("clocksource", boot_cs, sizeof boot_cs) &&
			  strcmp(boot_cs, restore_name) == 0;
	for (uint32_t i = 0; i < R.available.n && R.n_meas < GUEST_CS_MAX; i++) {
		char name[GUEST_CS_NAME];
		snprintf(name, sizeof name, "%s", R.available.name[i]);
		if (strcmp(name, restore_name) == 0)
			continue;
		progress("switching to %s", name);
		switched = 1;	/* before the write: a signal right after it restores */
		if (!write_clocksource(name, why, sizeof why)) {
			struct cs_measurement *m = &R.meas[R.n_meas++];
			memset(m, 0, sizeof *m);
			snprintf(m->clocksource, sizeof m->clocksource, "%s", name);
			m->status = "error";
			m->switched = true;
			snprintf(m->reason, sizeof m->reason, "%s", why);
			guest_error(&R, "SWITCH", why);
			continue;
		}
		measure_current(&R.meas[R.n_meas++], name, true, cfg);
	}
	const char *method = "nothing to restore";
	if (switched) {
		R.restored = restore_clocksource(&method);
		if (!R.restored) {
			snprintf(why, sizeof why, "could not restore %s (%s)", restore_name, method);
			guest_error(&R, "CLOCKSOURCE_RESTORE", why);
		}
	} else {
		R.restored = true;
	}
	snprintf(R.restore_method, sizeof R.restore_method, "%s", method);
	read_current(R.current_after, why, sizeof why);
}

/* ----------------------------------------------------------------- main */

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "clockprobe-guest: %s%s%s\nTry 'clockprobe-guest --help'.\n", msg, arg ? ": " : "",
		arg ? arg : "");
	return GUEST_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"switch", no_argument, NULL, 's'},	    {"samples", required_argument, NULL, 'n'},
		{"budget-ms", required_argument, NULL, 'b'}, {"settle", required_argument, NULL, 'w'},
		{"cpu", required_argument, NULL, 'c'},	    {"label", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 't'},  {"sysfs-dir", required_argument, NULL, 'S'},
		{"quiet", no_argument, NULL, 'q'},	    {"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},	    {"version", no_argument, NULL, 'V'},
		{"lock-file", required_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	uint32_t samples = DEFAULT_SAMPLES, budget = DEFAULT_BUDGET_MS, settle_s = 0, timeout_s = DEFAULT_TIMEOUT_S;
	uint32_t cpu_opt = 0;
	bool have_cpu = false, do_switch = false, quiet = false;
	const char *label = NULL, *sysfs = DEFAULT_SYSFS, *lock_path = DEFAULT_LOCK;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sn:b:w:c:l:t:qvhV", opts, NULL)) != -1) {
		switch (c) {
		case 's': do_switch = true; break;
		case 'n':
			if (!parse_u32(optarg, 1024, 10000000, &samples))
				return usage_error("--samples wants 1024..10000000", optarg);
			break;
		case 'b':
			if (!parse_u32(optarg, 10, 60000, &budget))
				return usage_error("--budget-ms wants 10..60000", optarg);
			break;
		case 'w':
			if (!parse_u32(optarg, 0, 600, &settle_s))
				return usage_error("--settle wants 0..600 seconds", optarg);
			break;
		case 'c':
			if (!parse_u32(optarg, 0, 1u << 20, &cpu_opt))
				return usage_error("--cpu wants a CPU number", optarg);
			have_cpu = true;
			break;
		case 'l': label = optarg; break;
		case 't':
			if (!parse_u32(optarg, 1, 3600, &timeout_s))
				return usage_error("--timeout wants 1..3600 seconds", optarg);
			break;
		case 'S': sysfs = optarg; break;
		case 'L': lock_path = optarg; break;
		case 'q': quiet = true; break;
		case 'v': verbose = 1; break;
		case 'h': printf(usage_text, DEFAULT_SAMPLES, DEFAULT_BUDGET_MS, DEFAULT_TIMEOUT_S); return 0;
		case 'V': printf("clockprobe-guest " GUEST_VERSION "\n"); return 0;
		case ':': return usage_error("option needs a value", argv[optind - 1]);
		default: return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (strlen(sysfs) > 400)
		return usage_error("--sysfs-dir is too long", NULL);

	/* The lock before anything reads current_clocksource: a second run
	 * that read it while the first had switched would take the first's
	 * temporary clocksource for the original. */
	if (do_switch) {
		long holder;
		int e = sys_lock_exclusive(lock_path, &holder);
		if (e == EWOULDBLOCK) {
			char who[32] = "an unknown process";
			if (holder)
				snprintf(who, sizeof who, "PID %ld", holder);
			fprintf(stderr,
				"clockprobe-guest: --switch refused: %s holds %s (another clockprobe-guest --switch\n"
				"is running; measuring now would take its temporary clocksource for the original).\n"
				"Nothing measured; run again when it has finished.\n",
				who, lock_path);
			return GUEST_EXIT_LOCKED;
		}
		if (e)
			snprintf(lock_problem, sizeof lock_problem, "cannot take the lock %s: %s", lock_path,
				 strerror(e));
	}

	uint64_t t_start = sys_now_ns(CLOCK_MONOTONIC);
	snprintf(cs_current_path, sizeof cs_current_path, "%s/current_clocksource", sysfs);
	install_handlers();
	alarm(timeout_s);

	R.sysfs_dir = sysfs;
	R.opt_switch = do_switch;
	R.opt_samples = samples;
	R.opt_budget_ms = budget;
	R.opt_settle_s = settle_s;
	R.opt_timeout_s = timeout_s;
	identity();
	kernel_facts();
#if defined(__aarch64__)
	arm64_facts();
#endif
	label_from(label);
	cpu_facts();
	smbios_facts();
	if (settle_s) {
		char secs[16];
		snprintf(secs, sizeof secs, "%u", settle_s);
		progress("watching current_clocksource for %s s", secs);
	}
	settle(settle_s);
	/* After the watch, not before: the list settles with the choice (the
	 * refined calibration replaces tsc-early by tsc about 1 s after boot,
	 * and under host load init can run before that). */
	clocksource_facts();
	history();

	uint64_t *scratch = calloc(2 * (size_t)samples + 4096, sizeof *scratch);
	char *json_buf = malloc(JSON_CAP);
	if (!scratch || !json_buf) {
		fprintf(stderr, "clockprobe-guest: out of memory\n");
		return GUEST_EXIT_FATAL;
	}
	R.pinned_cpu = sys_pin_cpu(have_cpu ? (int)cpu_opt : -1, R.pin_reason, sizeof R.pin_reason);
	if (R.pinned_cpu < 0)
		guest_error(&R, "PIN", R.pin_reason);
	R.rdtsc_ok = sys_rdtsc_usable(R.rdtsc_reason, sizeof R.rdtsc_reason);
	struct measure_cfg cfg = {.samples = samples, .budget_ms = budget, .rdtsc_ok = R.rdtsc_ok,
				  .scratch = scratch};
	measure_tsc_step(&R.step, &cfg);
	if (R.rdtsc_ok)
		R.tsc_measured_khz = measure_tsc_khz(200, &R.tsc_measured_uncertainty_ppm, &R.tsc_measured_window_ms);
	tsc_rate();
	cfg.tsc_khz = R.tsc_khz;
	vdso_fn = sys_vdso_clock_gettime(&vdso_mapped, vdso_why, sizeof vdso_why);

	if (R.cs_ok || R.current[0]) {
		measure_current(&R.meas[R.n_meas++], R.current, false, &cfg);
	} else {
		struct cs_measurement *m = &R.meas[R.n_meas++];
		measure_current(m, "unknown", false, &cfg);
	}
	if (do_switch)
		switch_all(&cfg);
	else
		guest_skip(&R, "switch", "not asked for (--switch measures every available clocksource, as root)");

	R.elapsed_ms = (sys_now_ns(CLOCK_MONOTONIC) - t_start) / 1000000u;
	struct json j;
	json_init(&j, json_buf, JSON_CAP);
	if (!guest_report_json(&j, &R)) {
		fprintf(stderr, "clockprobe-guest: the report did not fit in %u bytes\n", JSON_CAP);
		return GUEST_EXIT_FATAL;
	}
	static char text[65536];
	struct strbuf sb;
	if (!quiet) {
		sb_init(&sb, text, sizeof text);
		guest_summary(&sb, &R);
		fputs(text, stdout);
	}
	char end[128];
	sb_init(&sb, end, sizeof end);
	guest_frame_end(&sb, j.buf, j.len);
	printf("%s\n", GUEST_FRAME_BEGIN);
	fwrite(j.buf, 1, j.len, stdout);
	printf("\n%s\n", end);
	if (fflush(stdout) != 0)
		return GUEST_EXIT_FATAL;
	return R.n_errors ? GUEST_EXIT_ERRORS : GUEST_EXIT_OK;
}
