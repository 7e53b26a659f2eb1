/* What the vmclock source learned, as the report takes it: the top-level
 * "vmclock" section, in every report.  Pure: a function of its facts and
 * the run's TSC rate (the hardware side is vmclock.c). */
#include "vmclock.h"
#include "json.h"
#include "rate.h"
#include "source.h"
#include "strbuf.h"

/* A hardware identifier as "0x..." text beside its number (the report's
 * convention: people compare these with dmesg and the ACPI dump). */
static void hex_field(struct json *j, const char *key, uint64_t value)
{
	char text[20];
	struct strbuf sb;
	sb_init(&sb, text, sizeof text);
	sb_hex0x(&sb, value);
	json_string(j, key, text);
}

/* Every field of the page decoded, and the counter period it advertises
 * against the TSC rate this run measured. */
void vmclock_report_section(struct json *j, const union source_facts *f, uint64_t tsc_hz)
{
	const struct vmclock_facts *v = &f->vmclock;
	json_object_begin(j, "vmclock");
	json_string(j, "status", v->status ? v->status : "absent");
	if (!v->status)
		json_string(j, "reason", "not examined");
	else if (!str_equal(v->status, "ok"))
		json_string(j, "reason", v->reason);
	if (v->address) {
		json_u64(j, "address", v->address);
		hex_field(j, "address_hex", v->address);
		json_u64(j, "length", v->length);
		json_string(j, "address_basis", v->address_basis);
	}
	if (!v->page_read) {
		json_null(j, "version");
		json_null(j, "counter_id");
		json_null(j, "clock_status");
		json_null(j, "disruption_marker");
		json_null(j, "vm_generation_counter");
		json_null(j, "flags");
		json_object_end(j);
		return;
	}
	const struct vmclock_page *p = &v->page;
	hex_field(j, "magic_hex", p->magic);
	json_u64(j, "size", p->size);
	json_u64(j, "version", p->version);
	json_u64(j, "counter_id", p->counter_id);
	json_string(j, "counter", vmclock_counter_name(p->counter_id));
	json_u64(j, "time_type", p->time_type);
	json_string(j, "time_type_name", vmclock_time_type_name(p->time_type));
	json_u64(j, "seq_count", p->seq_count);
	json_u64(j, "disruption_marker", p->disruption_marker);
	json_u64(j, "flags", p->flags);
	hex_field(j, "flags_hex", p->flags);
	json_array_begin(j, "flag_names");
	for (unsigned b = 0; b < VMCLOCK_FLAG_COUNT; b++)
		if (p->flags & (1ull << b))
			json_string(j, NULL, vmclock_flag_name(b));
	json_array_end(j);
	json_u64(j, "clock_status", p->clock_status);
	json_string(j, "clock_status_name", vmclock_status_name(p->clock_status));
	json_u64(j, "leap_second_smearing_hint", p->leap_second_smearing_hint);
	json_string(j, "leap_second_smearing_hint_name", vmclock_smearing_name(p->leap_second_smearing_hint));
	json_i64(j, "tai_offset_sec", p->tai_offset_sec);
	json_u64(j, "leap_indicator", p->leap_indicator);
	json_string(j, "leap_indicator_name", vmclock_leap_name(p->leap_indicator));
	json_u64(j, "counter_period_shift", p->counter_period_shift);
	json_u64(j, "counter_value", p->counter_value);
	json_u64(j, "counter_period_frac_sec", p->counter_period_frac_sec);
	json_u64(j, "counter_period_esterror_rate_frac_sec", p->counter_period_esterror_rate_frac_sec);
	json_u64(j, "counter_period_maxerror_rate_frac_sec", p->counter_period_maxerror_rate_frac_sec);
	json_u64(j, "time_sec", p->time_sec);
	json_u64(j, "time_frac_sec", p->time_frac_sec);
	json_u64(j, "time_esterror_nanosec", p->time_esterror_nanosec);
	json_u64(j, "time_maxerror_nanosec", p->time_maxerror_nanosec);
	json_u64(j, "vm_generation_counter", p->vm_generation_counter);
	json_bool(j, "vm_generation_counter_present", p->flags & VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT);
	json_u64(j, "snapshot_retries", v->snapshot_retries);
	json_u64(j, "read_retries", v->read_retries);
	json_u64(j, "busy_reads", v->busy_reads);
	int64_t ppm;
	if (v->counter_hz) {
		json_u64(j, "counter_hz", v->counter_hz);
		if (tsc_hz && rate_ppm_diff(v->counter_hz, tsc_hz, &ppm)) {
			json_u64(j, "measured_tsc_hz", tsc_hz);
			json_i64(j, "counter_vs_measured_ppm", ppm);
		} else {
			json_null(j, "counter_vs_measured_ppm");
			json_string(j, "counter_vs_measured_reason", "no measured TSC rate in this run");
		}
	} else {
		json_null(j, "counter_hz");
		json_null(j, "counter_vs_measured_ppm");
		json_string(j, "counter_vs_measured_reason",
			    p->counter_id != VMCLOCK_COUNTER_X86_TSC
				    ? "the page advertises no TSC relation (counter_id is not x86_tsc)"
				    : "the page's counter period is 0 or out of range");
	}
	json_object_end(j);
}
