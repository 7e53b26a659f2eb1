/* Watch mode's event detection: one call per interval with what every
 * reference measured over it, against the TSC.  Pure (host-tested on
 * recorded series in tests/unit/test_watch_events.c); the probe side that
 * gathers the numbers is src/measure/watch.c. */
#ifndef CP_WATCH_EVENTS_H
#define CP_WATCH_EVENTS_H
#include "util.h"

#define WATCH_MAX_REFS 8
#define WATCH_MAX_EVENTS 64
#define WATCH_EVIDENCE_LEN 200
#define WATCH_SIGNATURE_LEN 13

enum watch_event_type {
	WATCH_EVENT_PAUSE,            /* counters stood still while wall time went on, or the TSC jumped against the others */
	WATCH_EVENT_TSC_JUMP,         /* the TSC moved against wall time and the other counters alike */
	WATCH_EVENT_RATE_CHANGE,      /* the TSC's rate against a reference moved beyond its uncertainty */
	WATCH_EVENT_KVMCLOCK_UNSTABLE,/* the pvclock stable bit went away */
	WATCH_EVENT_IDENTITY_CHANGE,  /* hypervisor signature or advertised TSC rate changed */
	WATCH_EVENT_WARP,             /* the interval's cross-CPU re-check saw the TSC step back between CPUs */
	WATCH_EVENT_SOURCE_STOPPED,   /* a reference stopped moving for a whole interval */
	WATCH_EVENT_SOURCE_JUMP,      /* a reference jumped against the TSC and wall time */
	WATCH_EVENT_VMCLOCK_DISRUPTION, /* the VMClock disruption marker changed (live migration, loadvm) */
	WATCH_EVENT_VM_GENERATION,    /* the VMClock VM generation counter changed (restored from a snapshot) */
	WATCH_EVENT_TYPE_COUNT,
};

const char *watch_event_name(enum watch_event_type t);

struct watch_event {
	enum watch_event_type type;
	uint64_t at_ms;           /* watch time at the start of the interval it happened in */
	bool has_duration;
	uint64_t duration_us;
	/* A pause in which the TSC ran on while other counters stood still
	 * (QEMU stop/cont under KVM): what Linux's watchdog would see as the
	 * TSC jumping.  False for a pause the TSC sat out too (TCG). */
	bool tsc_ran_on;
	char evidence[WATCH_EVIDENCE_LEN];
};

/* What one reference measured over one interval. */
struct watch_ref_sample {
	const char *name;         /* Linux clocksource name, or "cmos_rtc" */
	bool is_wall;             /* the CMOS RTC: wall time */
	bool valid;               /* read this interval (false: no figure) */
	uint64_t ref_ns;          /* elapsed by the reference at its nominal rate */
	uint64_t tsc_ns;          /* the TSC over the same stamps, at the run's TSC rate */
	uint64_t uncertainty_ns;  /* both ends' read brackets and quantisation */
};

struct watch_identity {
	char signature[WATCH_SIGNATURE_LEN]; /* CPUID 0x40000000 EBX..EDX, "" when none */
	uint64_t advertised_tsc_hz;   /* CPUID 0x40000010 EAX kHz * 1000, 0 when absent */
	uint64_t pvclock_tsc_hz;      /* implied by kvm-clock's mul/shift, 0 when absent */
};

/* The interval's cross-CPU warp re-check and gap scan (watch.c runs
 * them through crosscpu.h and gapscan.h, short and bounded). */
struct watch_recheck {
	bool xcpu_ran;              /* the warp test ran over 2+ CPUs */
	const char *xcpu_reason;    /* !xcpu_ran: why */
	const char *xcpu_stopped_reason; /* ran but ended early: why, else NULL */
	uint32_t xcpu_tested;       /* CPUs that took part, the BSP included */
	uint32_t xcpu_iterations;   /* warp loop rounds per CPU and phase */
	uint64_t warps, max_warp_ns, skew_bound_ns;
	uint64_t xcpu_us;           /* how long the re-check took */
	bool gaps_measured;
	uint32_t gap_window_ms;
	uint64_t gap_count, gap_max_ns, gap_total_ns;
};

struct watch_interval {
	uint32_t seq;
	struct watch_recheck recheck;
	uint64_t start_ms, end_ms;   /* watch time (wall where the RTC works, else TSC) */
	unsigned ref_count;
	struct watch_ref_sample ref[WATCH_MAX_REFS];
	bool kvmclock_present;
	bool kvmclock_stable;        /* flag set and allowed by CPUID */
	uint32_t kvmclock_version;
	uint8_t kvmclock_flags;
	/* The VMClock page at the interval's end (a consistent snapshot). */
	bool vmclock_present;
	uint64_t vmclock_disruption_marker;
	uint64_t vmclock_generation;
	uint8_t vmclock_clock_status;
	struct watch_identity identity;
};

/* Thresholds.  Defaults (watch_config_default) are this project's choices:
 * a jump must exceed jump_min_ns plus the figures' own uncertainty; a rate
 * change must exceed rate_change_min_mppm plus three times the combined
 * uncertainty of the two intervals compared, and is judged against the
 * counters only: wall time follows the host's NTP-disciplined clock, which
 * may slew by far more than 500 ppm (chrony's default limit is 83,333 ppm),
 * and was seen moving by ~1,000 ppm from one 2 s interval to the next
 * here. */
struct watch_config {
	uint64_t jump_min_ns;
	uint64_t rate_change_min_mppm;
};
void watch_config_default(struct watch_config *c);

struct watch_ref_state {
	const char *name;
	bool is_wall;
	int64_t cumulative_offset_ns;   /* TSC minus reference, since the start */
	int64_t interval_offset_ns;     /* the same over the last interval */
	bool drift_valid;
	int64_t drift_mppm;             /* last interval's (TSC/ref - 1), milli-ppm */
	uint64_t drift_uncertainty_mppm;
	bool baseline_valid;            /* a quiet interval's drift to compare with */
	int64_t baseline_mppm;
	uint64_t baseline_uncertainty_mppm;
	bool stopped;                   /* reported stopped, not yet moving again */
	bool seen;
};

struct watch_detector {
	struct watch_config cfg;
	uint32_t intervals;
	struct watch_ref_state ref[WATCH_MAX_REFS];
	unsigned ref_count;
	bool have_prev;
	bool prev_kvm_stable;
	struct watch_identity prev_identity;
	/* The VMClock values last seen: the boot snapshot first (see
	 * watch_detector_vmclock_start), then each interval's. */
	bool vmclock_seen;
	uint64_t vmclock_marker, vmclock_generation;
	struct watch_event events[WATCH_MAX_EVENTS];
	uint32_t event_count;        /* kept */
	uint32_t events_total;       /* seen, kept or not */
	uint32_t per_type[WATCH_EVENT_TYPE_COUNT];
	uint64_t paused_us;          /* sum of pause durations */
	struct watch_recheck recheck;  /* the last interval's */
	uint32_t xcpu_rechecks;        /* intervals whose warp re-check ran */
	uint64_t warps_total;
	uint32_t gap_scans;            /* intervals whose gap scan ran */
	uint64_t gaps_total, gap_max_ns; /* gaps over all scans, the largest */
};

void watch_detector_init(struct watch_detector *d, const struct watch_config *cfg);
/* The VMClock page's values when the watch starts (the report's
 * snapshot), so a disruption during the first interval is an event too. */
void watch_detector_vmclock_start(struct watch_detector *d, uint64_t disruption_marker, uint64_t generation);
/* Folds one interval in: updates offsets and drift, appends events. */
void watch_detect(struct watch_detector *d, const struct watch_interval *iv);
#endif
