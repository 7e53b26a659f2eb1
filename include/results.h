/* Everything one run found and measured, as the report writer and the
 * verdict see it.  Filled by main.c in order: discover, measure, decide. */
#ifndef CP_RESULTS_H
#define CP_RESULTS_H
#include "facts.h"
#include "fault.h"
#include "measure.h"
#include "readpath.h"
#include "source.h"
#include "smbios.h"
#include "verdict.h"
#include "freq.h"
#include "crosscpu.h"
#include "gapscan.h"
#include "kvm_pv_measure.h"
#include "uart.h"
#include "identity.h"
#include "contention.h"
#include "timers.h"

#define MAX_SOURCES 12
#define MAX_RUN_ERRORS 24

/* One source of the registry as the run found and measured it. */
struct source_result {
	const struct clock_source *src;
	struct source_desc desc;
	enum source_status status;
	struct op_cost cost;
	struct behaviour behaviour;
	union source_facts facts;
	enum read_path read_path;
	char read_path_basis[200]; /* which yardsticks decided the label */
};

struct run_error {
	const char *code;
	/* A source's whole reason (REASON_LEN) fits: a refusal copied from
	 * one (HPET_NOT_PROVEN's two-map reason, issue 41) is not cut. */
	char message[REASON_LEN];
};

struct vmware_backdoor {
	bool probed;
	bool present;
	uint32_t version, type;
	bool gethz_valid;
	uint64_t tsc_hz, apic_hz;
};

/* The dump setting's raw material, captured during discovery so the report
 * writer only formats: every CPUID leaf and how undefined leaves answer.
 * (ACPI tables are dumped from the firmware's own copies in memory, at the
 * addresses discovery recorded.) */
struct raw_capture {
	bool captured;
	bool cpuid_unrecorded_zero;
	/* Bytes of base64 table data the report may carry; 0 = no limit.
	 * Set by report_build_whole() when everything does not fit. */
	size_t data_budget;
	size_t cpuid_count;
	struct cpuid_record cpuid[CPUID_RECORD_MAX];
};

/* What tells this run's report from every other. */
struct run_identity {
	char run_id[RUN_ID_TEXT];
	const char *run_id_source;      /* "rdseed" | "rdrand" | "tsc+rtc" */
	char started_utc[UTC_TIME_TEXT]; /* "" when no clock answered */
	const char *started_utc_source; /* how it was read, or why there is none */
};
struct watch_result;

#define RUN_MAX_STAGES 24

struct stage_time {
	const char *name;
	uint64_t start_tsc, end_tsc;
};

struct run_results {
	/* Every source this probe knows, measured or not (a source's own
	 * report section stands in every report); sources[] below holds the
	 * ones this run set up, in the same order. */
	const struct clock_source *const *registry;
	unsigned registry_count;
	struct probe_facts facts;
	uint64_t start_tsc;
	const char *phase;
	struct run_identity identity;
	struct smbios_info smbios;
	struct platform_cpu cpus[PLATFORM_MAX_CPUS];
	unsigned cpu_count, cpus_enabled;
	const char *cpu_count_source;
	unsigned packages;
	struct vmware_backdoor vmware;
	struct fault_selfcheck selfcheck;
	const char *method;
	struct serialization serialization;
	/* Why the empty harness looks wrong (an RDTSC that traps), or NULL. */
	const char *harness_anomaly_reason;
	/* One plain instruction's cost from the baselines' reference loop (ps,
	 * 0 unknown), and whether that makes this a vCPU whose every
	 * instruction is emulated (vcpu_emulated); the words in vcpu_text. */
	uint64_t insn_ps;
	bool vcpu_emulated;
	char vcpu_text[200];
	struct baselines baselines;
	struct source_result sources[MAX_SOURCES];
	unsigned source_count;
	struct freq_result freq;
	struct crosscpu_result xcpu;
	struct gaps_report gaps;
	struct kvm_steal_window steal;       /* over the gap window (gaps.steal_ns) */
	struct kvm_pairing_result pairing;   /* KVM clock pairing */
	struct gaps_per_cpu gaps_cpus;
	/* Every ok source read from 1, 2, 4, ... N CPUs at once; NULL until
	 * the stage ran (its figures live in pages of their own). */
	struct contention_result *contention;
	/* The LAPIC's timers: arming cost and wake-up latency (timers.c). */
	struct timers_result timers;
	struct verdict verdict;
	struct raw_capture raw;
	uint32_t error_count;
	uint32_t errors_dropped; /* results_error() calls past MAX_RUN_ERRORS */
	struct run_error errors[MAX_RUN_ERRORS];
	uint64_t elapsed_ms;
	/* Each stage of src/main.c's list, in order, with the TSC at its
	 * start and end (end 0: still running as the report was built), so
	 * a report says where the run's time went. */
	struct stage_time stages[RUN_MAX_STAGES];
	uint32_t stage_count;
	uint32_t faults_caught;  /* by the fault guard, as the report is built */
	struct uart serial;      /* the UART the report goes to */
	struct watch_result *watch; /* NULL unless watch= was asked for */
};

/* The measured source, or NULL when it is absent or failed. */
const struct source_result *results_source_ok(const struct run_results *r, enum source_id id);
/* The source's report name (Linux's clocksource name), "?" if never set up. */
const char *results_source_name(const struct run_results *r, enum source_id id);
/* What a source learned beyond its cost (all zero for one never prepared). */
const union source_facts *results_facts(const struct run_results *r, enum source_id id);
/* The TSC rate used to turn cycles into ns everywhere in the report. */
uint64_t results_tsc_hz(const struct run_results *r);
/* Labels every measured source's read path (native, exit, device_model,
 * ...) against the run's yardsticks, and names a harness anomaly
 * (read_paths.c). */
void results_judge_read_paths(struct run_results *r);
/* Fills the verdict's plain-fact input from everything measured. */
void results_verdict_input(const struct run_results *r, struct verdict_input *in);
/* The CPUID part of it alone (also the host judge's, on a recording). */
void verdict_input_cpuid(struct verdict_input *in, const struct cpu_info *c, const struct hv_info *h);
/* tdx and secure_tsc from the confidential-VM facts (coco.h), where they
 * were read; also the host judge's, on a recording's CPUID half. */
void verdict_input_coco(struct verdict_input *in, const struct coco_info *coco);
void results_error(struct run_results *r, const char *code, const char *message);
#endif
