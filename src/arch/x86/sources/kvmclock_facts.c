/* What kvm-clock learned beyond its read cost, as the report and the
 * verdict take it.  Pure: a function of its facts alone (the hardware side
 * is kvmclock.c). */
#include "kvmclock.h"
#include "results.h"

void kvmclock_report_extra(struct json *j, const union source_facts *f)
{
	json_u64(j, "msr", f->kvmclock.msr);
	json_bool(j, "stable", f->kvmclock.stable);
	json_u64(j, "version_retries", f->kvmclock.retries);
}

/* A figure x1000 and its SE, to the SE's precision. */
static void milli_se_json(struct json *j, const char *key, const char *se_key, int64_t milli, uint64_t se_milli)
{
	unsigned dec = stats_se_decimals(se_milli);
	json_fixed(j, key, stats_round_milli(milli > 0 ? milli : 0, dec), dec);
	json_fixed(j, se_key, stats_round_milli((int64_t)se_milli, dec), dec);
}

void kvmclock_report_section(struct json *j, const union source_facts *f, uint64_t tsc_hz)
{
	const struct kvmclock_facts *k = &f->kvmclock;
	json_object_begin(j, "kvmclock");
	json_bool(j, "registered", k->registered);
	if (!k->registered) {
		/* The contract's names stay present, null, when there is nothing. */
		json_null(j, "msr_write_cycles");
		json_null(j, "msr_read_cycles");
		json_null(j, "pvclock");
	} else {
		json_u64(j, "msr", k->msr);
		json_u64(j, "msr_write_cycles", k->msr_write.cycles.p50);
		json_u64(j, "msr_read_cycles", k->msr_read.cycles.p50);
		json_object_begin(j, "msr_write");
		json_u64(j, "min", k->msr_write.cycles.min);
		json_u64(j, "p50", k->msr_write.cycles.p50);
		json_u64(j, "p99", k->msr_write.cycles.p99);
		json_u64(j, "samples", k->msr_write.cycles.n);
		/* What it is: the page re-registered, after which KVM updates the
		 * clock (on every vCPU under the master clock), not a bare exit. */
		json_string(j, "what", "re-registering the pvclock page: a WRMSR exit plus KVM's clock update "
				       "(KVM_REQ_CLOCK_UPDATE; with the master clock, on every vCPU), not an MSR-exit "
				       "yardstick");
		json_u64(j, "p90", k->msr_write.cycles.p90);
		json_u64(j, "p999", k->msr_write.cycles.p999);
		json_u64(j, "max", k->msr_write.cycles.max);
		json_u64(j, "mean", k->msr_write.cycles.mean);
		milli_se_json(j, "estimate_cycles", "estimate_se_cycles", k->msr_write.estimate_milli,
			      k->msr_write.estimate_se_milli);
		json_object_end(j);
		/* The read a guest pays without the stable bit: the fast path
		 * plus Linux's global last_value cmpxchg. */
		if (!k->unstable_measured) {
			json_null(j, "unstable_read");
		} else {
			json_object_begin(j, "unstable_read");
			json_string(j, "what", "pvclock read plus Linux's global last_value compare-and-swap "
					       "(pvclock.c, stable bit clear)");
			milli_se_json(j, "estimate_cycles", "estimate_se_cycles", k->unstable_read.estimate_milli,
				      k->unstable_read.estimate_se_milli);
			json_u64(j, "p50", k->unstable_read.cycles.p50);
			json_u64(j, "p99", k->unstable_read.cycles.p99);
			json_u64(j, "samples", k->unstable_read.cycles.n);
			json_object_end(j);
		}
		json_object_begin(j, "pvclock");
		json_u64(j, "version", k->snapshot.version);
		json_u64(j, "tsc_to_system_mul", k->snapshot.tsc_to_system_mul);
		json_i64(j, "tsc_shift", k->snapshot.tsc_shift);
		json_u64(j, "flags", k->snapshot.flags);
		json_bool(j, "stable", k->stable);
		json_u64(j, "tsc_hz", k->tsc_hz);
		json_object_end(j);
	}
	json_object_end(j);
}

/* The flag as the page showed it after registration; unknown when the
 * page was never registered. */
void kvmclock_verdict_facts(struct verdict_input *in, const struct source_result *s)
{
	const struct kvmclock_facts *k = &s->facts.kvmclock;
	in->pvclock_stable = !k->registered ? VERDICT_UNKNOWN
			     : k->snapshot.flags & PVCLOCK_TSC_STABLE_BIT ? VERDICT_YES
									   : VERDICT_NO;
}
