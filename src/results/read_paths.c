/* Which path each measured source's read takes: the run's yardsticks
 * (harness, RDTSC, CPUID, the two ports) gathered from its results and
 * handed to the read-path rules (src/analysis/readpath.c).  Pure. */
#include "results.h"
#include "strbuf.h"

/* (p90 - p50) / p50 of a yardstick's samples, per mille: its own spread
 * widens the boundaries it draws. */
static uint32_t spread_permille(const struct op_cost *c)
{
	if (!c->cycles.p50 || c->cycles.p90 <= c->cycles.p50)
		return 0;
	/* Capped at 10 %: for a cost of a few TSC steps the quantization alone
	 * makes p90 a whole step above p50, which is no spread of the cost. */
	uint64_t s = (c->cycles.p90 - c->cycles.p50) * 1000 / c->cycles.p50;
	return (uint32_t)MIN(s, 100ull);
}

void results_judge_read_paths(struct run_results *r)
{
	const struct baselines *b = &r->baselines;
	const struct source_result *tsc = results_source_ok(r, SOURCE_ID_TSC);
	struct read_path_baselines rb = {
		.harness = b->harness.throughput_milli / 1000,
		.cpuid = b->cpuid.throughput_milli / 1000,
		.port = b->port.throughput_milli / 1000,
		.kernel_port = b->kernel_port.throughput_milli / 1000,
		.cpuid_spread = spread_permille(&b->cpuid),
		.kernel_port_spread = spread_permille(&b->kernel_port),
		.port_spread = spread_permille(&b->port),
		.no_hypervisor = !r->facts.hv.present,
		.cpuid_cheap = cpuid_is_cheap((uint64_t)b->cpuid.estimate_milli / 1000, r->facts.tsc_hz_rough),
		.port_fits_hardware = port_read_fits_hardware((uint64_t)b->port.estimate_milli / 1000, r->facts.tsc_hz_rough),
	};
	if (tsc) {
		rb.rdtsc = tsc->cost.throughput_milli / 1000;
		rb.rdtsc_spread = spread_permille(&tsc->cost);
	}
	/* Raw harness per call against CPUID net of it: where CPUID exits, a
	 * harness dearer than it can only be RDTSC exiting too. */
	r->harness_anomaly_reason = harness_anomaly(b->harness.cycles.p50, b->cpuid.cycles.p50, r->facts.tsc_hz_rough,
					     !rb.cpuid_cheap);
	rb.rdtsc_traps = r->harness_anomaly_reason != NULL;
	/* A vCPU slow at everything is not an RDTSC that exits: the
	 * reference loop (no RDTSC, nothing a hypervisor intercepts) says
	 * which. */
	const struct ref_loop *ref = &b->ref_loop;
	uint64_t insns = (uint64_t)ref->iterations * ref->insns_per_iteration;
	r->insn_ps = ref->rounds ? ref_loop_insn_ps(ref->ticks_min, insns, r->facts.tsc_hz_rough) : 0;
	r->vcpu_emulated = vcpu_emulated(r->insn_ps);
	if (r->vcpu_emulated) {
		struct strbuf sb;
		sb_init(&sb, r->vcpu_text, sizeof r->vcpu_text);
		sb_str(&sb, "this vCPU emulates every instruction: an RDTSC-free loop runs a plain one in ");
		sb_u64(&sb, (r->insn_ps + 500) / 1000);
		sb_str(&sb, " ns (a hardware core: under 1 ns), so every cost here is mostly the emulator's");
		r->harness_anomaly_reason = r->vcpu_text;
		rb.rdtsc_traps = true; /* no native yardstick either way */
		rb.all_emulated = true;
		rb.insn_ticks_milli = insns ? ref->ticks_min * 1000 / insns : 0;
	}
	for (unsigned i = 0; i < r->source_count; i++) {
		struct source_result *s = &r->sources[i];
		if (s->status == SOURCE_OK)
			s->read_path = read_path_judge(&rb, s->cost.throughput_milli / 1000, s->desc.reads_tsc,
						       s->read_path_basis, sizeof s->read_path_basis);
	}
}
