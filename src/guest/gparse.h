/* clockprobe-guest's pure pieces: text a running Linux kernel hands out
 * (the kernel log, /proc/cpuinfo, the clocksource sysfs files) turned into
 * facts, and the TSC step from recorded intervals.  Like src/lib, these
 * compile freestanding (no libc, no floating point) and are unit-tested on
 * the host on recorded text (tests/unit/test_guest_*.c); only
 * src/guest/sys.c and measure.c touch the running system. */
#ifndef CP_GUEST_GPARSE_H
#define CP_GUEST_GPARSE_H
#include "util.h"

/* ---- clocksource names (available_clocksource, current_clocksource) ---- */

/* The kernel's CS_NAME_LEN is 32 including the NUL. */
#define GUEST_CS_NAME 32
#define GUEST_CS_MAX 16

struct cs_list {
	uint32_t n;
	char name[GUEST_CS_MAX][GUEST_CS_NAME];
	uint32_t dropped;	/* valid words past GUEST_CS_MAX */
	uint32_t invalid;	/* words that are no clocksource name (see below) */
};

/* A clocksource name as the kernel prints it: 1..31 bytes of letters,
 * digits, '_', '-' and '.'.  Anything else is refused, so a name read
 * from sysfs can be written back there and into the report safely. */
bool cs_name_valid(const char *s, size_t n);

/* Splits available_clocksource ("tsc hpet acpi_pm \n") on blanks.
 * Invalid words are counted, never kept. */
void cs_list_parse(struct cs_list *out, const char *text, size_t len);

/* current_clocksource's one word, trailing newline and blanks dropped.
 * False (out = "") when it is not exactly one valid name. */
bool cs_current_parse(char out[GUEST_CS_NAME], const char *text, size_t len);

bool cs_list_has(const struct cs_list *l, const char *name);

/* ---- /proc/cpuinfo ---- */

/* The flags that decide how Linux treats the TSC (arch/x86/kernel/tsc.c;
 * the names are the kernel's X86_FEATURE_* names as cpuinfo prints them). */
enum cpu_flag {
	CPUF_TSC,
	CPUF_CONSTANT_TSC,
	CPUF_NONSTOP_TSC,
	CPUF_TSC_KNOWN_FREQ,
	CPUF_TSC_RELIABLE,
	CPUF_TSC_ADJUST,
	CPUF_RDTSCP,
	CPUF_TSC_DEADLINE_TIMER,
	CPUF_HYPERVISOR,
	CPUF_COUNT
};
extern const char *const cpu_flag_names[CPUF_COUNT];

struct cpuinfo_facts {
	bool flags_found;		/* a "flags" line was seen */
	bool flag[CPUF_COUNT];		/* on the first processor's line */
	uint32_t processors;		/* "processor" lines */
	/* The flags of the first processor that differ on a later one
	 * (bit i = cpu_flag i): Linux clears a flag on every CPU, a mismatch
	 * means the CPUs were set up differently. */
	uint32_t flags_differ;
};

void cpuinfo_parse(struct cpuinfo_facts *out, const char *text, size_t len);

/* ---- the kernel log ---- */

/* One record.  msg points into the caller's text (not terminated). */
struct klog_record {
	bool has_ts;
	uint64_t t_us;		/* the kernel's timestamp (local_clock), in us */
	bool has_seq;
	uint64_t seq;		/* /dev/kmsg sequence number */
	uint32_t level;		/* syslog priority & 7; 6 (info) when not given */
	const char *msg;
	size_t msg_len;
};

/* One /dev/kmsg record: "PRI,SEQ,TS_US,FLAGS[,...];MESSAGE\n" followed by
 * optional " KEY=VALUE\n" dictionary lines (Documentation/ABI/testing/
 * dev-kmsg).  False when the prefix is malformed. */
bool klog_parse_kmsg(struct klog_record *out, const char *rec, size_t len);

/* One line of syslog(2)/dmesg text: "<6>[    1.234567] msg",
 * "[    1.234567] msg" or a bare "msg" (no timestamp: has_ts false). */
void klog_parse_text_line(struct klog_record *out, const char *line, size_t len);

/* The lines tests/linux/init.sh's dmesg filter kept (case-insensitive
 * "tsc", "clocksource", "hpet", "acpi_pm", "kvm-clock", "kvmclock",
 * "watchdog" or "clock:"): the clock lines of the history. */
bool klog_is_clock_line(const char *msg, size_t len);

enum klog_kind {
	KLOG_OTHER,		/* a clock line with no event of its own */
	KLOG_REGISTERED,	/* "clocksource: NAME: mask: ..." */
	KLOG_SWITCHED,		/* "clocksource: Switched to clocksource NAME" */
	KLOG_CS_UNSTABLE,	/* the watchdog marked NAME unstable */
	KLOG_TSC_UNSTABLE,	/* "tsc: Marking TSC unstable due to REASON" */
	KLOG_WATCHDOG,		/* other clocksource-watchdog lines (skew detail, checks) */
	KLOG_TSC_REFINED,	/* "tsc: Refined TSC clocksource calibration: X MHz" */
	KLOG_TSC_DETECTED,	/* "tsc: Detected X MHz processor" / "... MHz TSC" */
	KLOG_TSC_CALIBRATION,	/* calibration steps and failures */
	KLOG_TSC_WARP,		/* "TSC synchronization ..." / "... TSC warp ..." */
	KLOG_OVERRIDE,		/* "Override clocksource NAME ..." */
	KLOG_KIND_COUNT
};
extern const char *const klog_kind_names[KLOG_KIND_COUNT];

struct klog_event {
	enum klog_kind kind;
	char clocksource[GUEST_CS_NAME];	/* the source named, "" when none */
	uint64_t khz;		/* REFINED/DETECTED: the rate in kHz; 0 otherwise */
	bool khz_is_tsc;	/* DETECTED: "MHz TSC" (tsc_khz) rather than "MHz processor" (cpu_khz) */
};

/* Classifies a clock line (klog_is_clock_line true). */
void klog_classify(struct klog_event *ev, const char *msg, size_t len);

/* ---- numbers in text ---- */

/* "2445.432" (MHz, up to 3 decimals) -> 2445432 kHz.  False if not a number. */
bool parse_mhz_to_khz(const char *s, size_t n, uint64_t *khz);
/* Leading decimal digits of s; false when there are none or it overflows. */
bool parse_u64(const char *s, size_t n, uint64_t *v, size_t *used);

/* ---- the TSC step (the guest's view of a counter that moves in steps) ---- */

struct guest_step {
	uint64_t ticks;		/* 0 = not observable */
	const char *method;
	uint32_t clusters;	/* interval clusters seen */
	uint32_t pairs, stalls;	/* back-to-back pairs, pairs that read the same value */
	uint64_t min_nonzero, max_nonzero;	/* of back-to-back differences */
	uint64_t bound_ticks;	/* their common divisor: the step is at most this */
};

/* From intervals of growing length (sorted in place) and back-to-back
 * differences (b2b[i] = read[i+1] - read[i], any order; compacted and
 * sorted in place), by the probe's rules (tsc_step_decide()): clusters
 * one step apart give the step (an AMD Zen TSC advances ~25 ticks at a
 * time); else repeated reads give the median non-zero difference; else a
 * common divisor of 1 is the step and a larger one only bounds it. */
void guest_step_find(struct guest_step *out, uint64_t *intervals, uint32_t ni,
		     uint64_t *b2b, uint32_t nb);

/* ---- the vDSO image ---- */

/* The address offset (from the image start) of a dynamic symbol in an ELF
 * image mapped in memory (the vDSO: AT_SYSINFO_EHDR, [vdso] in maps).
 * Every offset is checked against len; 0 when absent or malformed. */
uint64_t vdso_symbol_offset(const void *image, size_t len, const char *name);
#endif
