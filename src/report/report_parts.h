/* What the report's files share: the section writers, each a pure
 * function of the results, and the small field helpers they use. */
#ifndef CP_REPORT_PARTS_H
#define CP_REPORT_PARTS_H
#include "report.h"
#include "freq.h"
#include "hpet_regs.h"
#include "fault_names.h"
#include "probe.h"
#include "rate.h"
#include "strbuf.h"

/* The rate every ns figure of the report is converted at. */
uint64_t tsc_hz_for_ns(const struct run_results *r);

/* Field helpers (report_fields.c). */
void dist_json(struct json *j, const char *key, const struct dist *d, uint64_t hz, bool as_ns, bool quantized);
void histogram_json(struct json *j, const struct log2_hist *h);
void harness_pairing_json(struct json *j, const struct op_cost *c);
void estimate_json(struct json *j, const struct op_cost *c, uint64_t hz);
void measured_json(struct json *j, const char *cycles_key, const char *cycles_se_key, const char *ns_key,
		   const char *ns_se_key, int64_t milli, uint64_t se_milli, bool se_known, uint64_t hz);
/* A hardware identifier (leaf, address, flags) as "0x..." text, written
 * next to its number: people compare these with datasheets and dmesg. */
void hex_json(struct json *j, const char *key, uint64_t value);
/* The same, or null when there is none (have false). */
void hex_or_null_json(struct json *j, const char *key, bool have, uint64_t value);
void baseline_json(struct json *j, const char *key, const struct op_cost *c, uint64_t hz, bool paired);
/* The batch figures, net with its standard error and raw to the same precision. */
void throughput_json(struct json *j, const char *raw_key, const char *raw_se_key, const char *net_key,
		     const char *net_se_key, const char *net_ns_key, const char *net_se_ns_key,
		     const struct op_cost *c, uint64_t hz);

/* A source's "read_cost" object and the batch figures beside it, as x86's
 * sources[] and arm64's reads[] give them (unit: the timebase's ticks). */
void read_cost_json(struct json *j, const char *unit, const struct op_cost *c, const char *method, uint64_t hz);
/* The timebase's step as measure_tsc_step found it, an object named key. */
void tsc_step_json(struct json *j, const char *key, const struct tsc_step *s);

/* Sections. */
void platform_json(struct json *j, const struct run_results *r);       /* report_platform.c */
void baselines_json(struct json *j, const struct run_results *r);      /* report_fields.c */
void source_json(struct json *j, const struct source_result *s, const struct run_results *r); /* report_sources.c */
void cross_cpu_json(struct json *j, const struct crosscpu_result *x); /* report_timing.c */
void drift_json(struct json *j, const struct freq_result *f, const struct run_results *r);
void gaps_json(struct json *j, const struct gaps_report *g, const struct gaps_per_cpu *all,
	       const struct kvm_steal_window *steal);
void raw_json(struct json *j, const struct run_results *r);
void acpi_vmclock_json(struct json *j, const struct acpi_info *a);     /* report_devices.c */
void confidential_json(struct json *j, const struct run_results *r);
/* KVM steal time over the gap window (inside gaps) and clock pairing. */
void steal_json(struct json *j, const struct kvm_steal_window *s);
void kvm_clock_pairing_json(struct json *j, const struct run_results *r);
/* Under load (report_load.c): a source's contention curve inside its
 * sources[] entry; the stage's own section. */
void contention_source_json(struct json *j, const struct source_result *s, const struct run_results *r);
void contention_json(struct json *j, const struct run_results *r);
/* A summary line wrapped at spaces to the summary's 100 columns, the
 * continuation lines indented (summary_wrap.c: a leaf every summary
 * writer calls). */
#define SUMMARY_COLUMNS 100
void summary_emit_wrapped(const char *text, size_t indent, bool screen, void (*emit)(const char *, bool));
/* The LAPIC's timers (report_timers.c). */
void timers_json(struct json *j, const struct run_results *r);
#endif
