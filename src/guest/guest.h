/* clockprobe-guest: what one run inside a Linux guest found, as one
 * structure.  main.c fills it (through sys.c and measure.c, the only code
 * that touches the running system); report.c turns it into the framed
 * JSON report and the summary without looking anywhere else, so the
 * report is unit-tested from a structure built by hand. */
#ifndef CP_GUEST_H
#define CP_GUEST_H
#include "gparse.h"
#include "stats.h"
#include "cpuid.h"
#include "hypervisor.h"
#include "json.h"
#include "strbuf.h"

#define GUEST_VERSION "0.1.0"
#define GUEST_TEXT 256
#define GUEST_MAX_SKIPS 16
#define GUEST_MAX_ERRORS 16
#define GUEST_MAX_CHANGES 64
#define GUEST_MAX_LINES 400
#define GUEST_LINE_TEXT 320

/* Exit statuses (--help lists them). */
enum {
	GUEST_EXIT_OK = 0,	/* report written, nothing failed */
	GUEST_EXIT_ERRORS = 1,	/* report written, with entries under errors[] */
	GUEST_EXIT_USAGE = 2,	/* bad options: nothing measured */
	GUEST_EXIT_FATAL = 3,	/* no report (out of memory, the report overflowed) */
	GUEST_EXIT_TIMEOUT = 4,	/* --timeout expired: clocksource restored, no report */
	GUEST_EXIT_LOCKED = 5,	/* --switch: another run holds the lock; nothing measured */
};

struct guest_skip {
	const char *what;		/* "smbios", "kernel_log", "switch", ... */
	char reason[GUEST_TEXT];
};

struct guest_error {
	const char *code;		/* "CLOCKSOURCE_RESTORE", "SWITCH", ... */
	char message[GUEST_TEXT];
};

/* One call path's cost per clock_gettime(CLOCK_MONOTONIC). */
/* MIDRs kept (one per CPU, in CPU order). */
#define GUEST_ARM64_CPUS 16

struct path_cost {
	bool measured;
	char reason[GUEST_TEXT];	/* why not, when !measured */
	uint32_t samples;
	struct dist cycles;		/* per call, TSC ticks, bracket (harness) subtracted */
	bool have_ns;
	struct dist ns;			/* the same at tsc.khz */
	uint64_t harness_p50_cycles;	/* median of the empty bracket over all windows */
	uint32_t below_harness;		/* samples cheaper than their window's bracket (clamped to 0) */
	uint32_t batch_calls;		/* back-to-back calls timed by the clock itself */
	uint64_t batch_ns;		/* their mean per call, in ns (rounded) */
	bool deadline_hit;		/* the time budget ended sampling before the sample cap */
};

/* Did the vDSO's clock_gettime enter the kernel?  Counted, not guessed:
 * a child process under a seccomp filter that fails clock_gettime(2)
 * calls the vDSO entry; every call that fails went through the syscall. */
struct vdso_check {
	bool known;
	bool in_vdso;			/* no call entered the kernel */
	uint32_t calls, kernel_entries;
	char method[GUEST_TEXT];
	char reason[GUEST_TEXT];	/* why unknown */
};

/* Consecutive CLOCK_MONOTONIC readings through the vDSO: the jitter a
 * time.Now() loop sees. */
struct delta_stats {
	bool measured;
	char reason[GUEST_TEXT];
	uint32_t samples;
	struct dist ns;
	uint32_t zero;			/* two reads returned the same time */
	uint32_t backward;		/* a read returned less than the one before */
	uint64_t max_backward_ns;
	uint64_t min_nonzero_ns;	/* the smallest step the clock made */
	bool deadline_hit;
};

struct cs_measurement {
	char clocksource[GUEST_CS_NAME];
	const char *status;		/* "ok" | "error" */
	char reason[GUEST_TEXT];	/* for "error" */
	bool switched;			/* measured after writing it to current_clocksource */
	uint64_t resolution_ns;		/* clock_getres(CLOCK_MONOTONIC) */
	struct vdso_check vdso_check;
	struct path_cost vdso, syscall;
	struct delta_stats deltas;
};

struct klog_line {
	bool has_ts;
	uint64_t t_us;
	struct klog_event ev;
	char text[GUEST_LINE_TEXT];	/* the message, cut to fit */
};

struct cs_change {
	uint64_t uptime_ms;
	char current[GUEST_CS_NAME];
};

struct guest_results {
	/* identity */
	char run_id[33];
	const char *run_id_source;
	char started_utc[24];		/* "2026-12-01T12:00:00Z", "" when unknown */
	char label[65];
	const char *label_source;	/* "--label", "kernel command line", NULL */
	uint64_t elapsed_ms;
	uint32_t euid;

	/* options as used */
	bool opt_switch;
	uint32_t opt_samples, opt_budget_ms, opt_settle_s, opt_timeout_s;
	const char *sysfs_dir;
	int32_t pinned_cpu;		/* -1: not pinned */
	char pin_reason[GUEST_TEXT];

	/* kernel */
	char release[65], kversion[GUEST_TEXT], machine[65];
	char cmdline[1024];
	char cpus_online[64], cpus_possible[64];
	uint64_t uptime_ms;		/* at start */

	/* CPU */
	bool cpuid_ok;
	char cpuid_reason[GUEST_TEXT];
	struct cpu_info cpu;
	struct hv_info hv;
	bool cpuinfo_ok;
	char cpuinfo_reason[GUEST_TEXT];
	struct cpuinfo_facts cpuinfo;
	uint32_t online_cpus;		/* sysconf(_SC_NPROCESSORS_ONLN) */

	/* arm64 only (present false on x86-64, where nothing of it is
	 * written): what the arm64 verdict reads of the CPU and counter. */
	struct guest_arm64 {
		bool present;
		uint32_t n_midr;	/* CPUs whose MIDR_EL1 sysfs exported */
		uint64_t midr[GUEST_ARM64_CPUS];
		char midr_reason[GUEST_TEXT];
		uint64_t cntfrq_hz;	/* CNTFRQ_EL0 as EL0 reads it */
		bool hwcap2_ecv;	/* AT_HWCAP2 HWCAP2_ECV: Linux found FEAT_ECV */
		uint64_t counter_reads;	/* back-to-back CNTVCT_EL0 reads timed */
		uint64_t counter_read_ps;	/* their mean, picoseconds per read */
	} arm64;

	/* SMBIOS (/sys/class/dmi/id) */
	char uuid[37], serial[65], manufacturer[65], product[65];
	char uuid_reason[GUEST_TEXT], serial_reason[GUEST_TEXT];

	/* TSC */
	uint64_t tsc_khz;		/* what converts ticks to ns */
	const char *tsc_khz_source;
	char tsc_khz_line[GUEST_LINE_TEXT];	/* the log line it came from, if one */
	bool rdtsc_ok;
	char rdtsc_reason[GUEST_TEXT];
	uint64_t tsc_measured_khz;	/* against CLOCK_MONOTONIC_RAW */
	uint64_t tsc_measured_window_ms;
	uint64_t tsc_measured_uncertainty_ppm;
	struct guest_step step;

	/* clocksources */
	bool cs_ok;
	char cs_reason[GUEST_TEXT];
	char current[GUEST_CS_NAME];
	struct cs_list available;
	uint32_t n_changes, changes_dropped;
	struct cs_change changes[GUEST_MAX_CHANGES];
	char restore_method[GUEST_TEXT];	/* set when --switch changed anything */
	bool restored;
	char current_after[GUEST_CS_NAME];

	/* the kernel log */
	const char *history_status;	/* "ok" | "skipped" | "error" */
	char history_reason[GUEST_TEXT];
	const char *history_source;	/* "/dev/kmsg" | "syslog(2)" */
	uint32_t records_read;
	bool first_seq_known;
	uint64_t first_seq;		/* > 0: older records were overwritten */
	uint32_t n_lines, lines_dropped;
	struct klog_line *lines;	/* GUEST_MAX_LINES of them */

	/* measurements, the current clocksource first */
	uint32_t n_meas;
	struct cs_measurement meas[GUEST_CS_MAX];

	uint32_t n_skips, n_errors, errors_dropped;
	struct guest_skip skips[GUEST_MAX_SKIPS];
	struct guest_error errors[GUEST_MAX_ERRORS];
};

/* Where the next kernel-log clock line goes.  A VM up for months logs far
 * more than GUEST_MAX_LINES: the first half is kept (the boot's choice),
 * the rest is a ring of the latest lines (*ring_next, start at 0), and
 * lines_dropped counts what falls out in between.  history_finish() puts
 * the ring in log order. */
struct klog_line *history_slot(struct guest_results *r, uint32_t *ring_next);
void history_finish(struct guest_results *r, uint32_t ring_next);

void guest_skip(struct guest_results *r, const char *what, const char *reason);
void guest_error(struct guest_results *r, const char *code, const char *message);

/* The one-line JSON report; false when it did not fit. */
bool guest_report_json(struct json *j, const struct guest_results *r);
/* "==== CLOCKPROBE GUEST END crc32=XXXXXXXX bytes=N ====" for json[0..len). */
void guest_frame_end(struct strbuf *sb, const char *json, size_t len);
#define GUEST_FRAME_BEGIN "==== CLOCKPROBE GUEST BEGIN schema=1 ===="
/* A few lines for a person, before the frame. */
void guest_summary(struct strbuf *sb, const struct guest_results *r);
#endif
