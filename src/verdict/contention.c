/* Clock reads under load, judged: what one read costs when every vCPU
 * reads at once (verdict.large_guest), and CLOCK_READ_CONTENDED for a
 * source whose reads grow more than 2x from one CPU to all of them.
 * Inputs: each source's contention curve (verdict_source_fact.alone_*,
 * contended_*, curve_*) and whether its CPUs really ran together. */
#include "verdict_model.h"
#include "json.h"
#include "stats.h"

/* "more than 2x" must also be more than the noise: the growth over twice
 * the lone cost beyond two standard errors of that difference. */
#define CONTENDED_FACTOR 2
#define CONTENDED_SIGMAS 2

/* " +/- SE", or that there is none: the report gives an SE the engine
 * could not measure (one sample window) as null, and it arrives here as
 * 0; the 2x test then stands without its noise margin. */
static void sb_se(struct strbuf *sb, uint64_t se_ns_milli)
{
	if (!se_ns_milli) {
		sb_str(sb, " (SE unknown)");
		return;
	}
	sb_str(sb, " +/- ");
	sb_ns(sb, se_ns_milli);
}

static bool has_curve(const struct verdict_input *in, int s)
{
	const struct verdict_source_fact *f = &in->sources[s];
	return in->contention_cpus >= 2 && f->alone_ns_milli && f->contended_ns_milli;
}

/* Contended: over CONTENDED_FACTOR x alone, and by more than the noise. */
static bool contended(const struct verdict_source_fact *f)
{
	uint64_t limit = CONTENDED_FACTOR * f->alone_ns_milli;
	if (f->contended_ns_milli <= limit)
		return false;
	unsigned __int128 var = (unsigned __int128)f->contended_se_ns_milli * f->contended_se_ns_milli +
				(unsigned __int128)CONTENDED_FACTOR * CONTENDED_FACTOR * f->alone_se_ns_milli *
					f->alone_se_ns_milli;
	return f->contended_ns_milli - limit > CONTENDED_SIGMAS * stats_isqrt_u128(var);
}

/* "1 CPU 186 ns, 2 CPUs 250 ns, 4 CPUs 420 ns" */
static void sb_curve(struct strbuf *sb, const struct verdict_source_fact *f)
{
	for (uint32_t i = 0; i < f->curve_points && i < VERDICT_MAX_CURVE; i++) {
		if (i)
			sb_str(sb, ", ");
		sb_u64(sb, f->curve_cpus[i]);
		sb_str(sb, f->curve_cpus[i] == 1 ? " CPU " : " CPUs ");
		sb_ns(sb, f->curve_ns_milli[i]);
	}
}

static void sb_times(struct strbuf *sb, uint64_t num, uint64_t den)
{
	if (!den)
		return;
	sb_fixed(sb, (int64_t)mul_div_u64(num, 10, den), 1);
	sb_char(sb, 'x');
}

bool verdict_source_contended(const struct verdict_input *in, const char *name)
{
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (str_equal(verdict_source_name(s), name))
			return has_curve(in, s) && contended(&in->sources[s]);
	return false;
}

void decide_large_guest(const struct verdict_input *in, const struct model *m, struct verdict *v)
{
	struct verdict_large_guest *g = &v->large_guest;
	struct strbuf sb;
	memset(g, 0, sizeof *g);
	if (m->chosen < 0 || !has_curve(in, m->chosen))
		return;
	const struct verdict_source_fact *f = &in->sources[m->chosen];
	g->measured = true;
	g->cpus = in->contention_cpus;
	g->alone_ns_milli = f->alone_ns_milli;
	g->read_ns_milli = f->contended_ns_milli;
	g->read_se_ns_milli = f->contended_se_ns_milli;
	g->measured_read_ns_milli = f->contended_ns_milli;
	g->syscall_added = !m->vdso;
	if (!m->vdso)
		g->read_ns_milli += v->syscall_overhead_ns_estimate * 1000ull;
	g->ratio_milli = mul_div_u64(f->contended_ns_milli, 1000, f->alone_ns_milli);
	g->per_added_cpu_ns_milli = f->contended_ns_milli > f->alone_ns_milli
					    ? (f->contended_ns_milli - f->alone_ns_milli) / (g->cpus - 1)
					    : 0;
	g->outnumbered = in->contention_outnumbered;
	sb_init(&sb, g->basis, sizeof g->basis);
	sb_str(&sb, verdict_source_name(m->chosen));
	sb_str(&sb, " read by ");
	sb_u64(&sb, g->cpus);
	sb_str(&sb, " CPUs at once (the contention stage's top level)");
	if (!m->vdso)
		sb_str(&sb, ", plus the syscall estimate");
	/* Stated only within the counts measured (issue 40): lock and exit
	 * contention is not shown to be linear, so the straight line from 1
	 * CPU is no model for a guest larger than the stage reached. */
	g->range_min_cpus = 1;
	g->range_max_cpus = g->cpus;
	sb_str(&sb, "; stated for 1 to ");
	sb_u64(&sb, g->cpus);
	sb_str(&sb, " CPUs reading at once, the counts measured, and not extrapolated beyond: per_added_cpu_ns is the mean step "
		    "between the measured ends, not a slope for more CPUs (contention is not shown to be linear)");
}

void warn_contended(const struct verdict_input *in, const struct model *m, struct verdict *v)
{
	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		const struct verdict_source_fact *f = &in->sources[s];
		if (!has_curve(in, s) || !contended(f))
			continue;
		bool used = s == m->chosen;
		bool outnumbered = in->contention_outnumbered == VERDICT_YES;
		struct verdict_warning *w =
			verdict_add_warning(v, WARN_CLOCK_READ_CONTENDED, used && !outnumbered ? VERDICT_WARNING : VERDICT_INFO);
		if (!w)
			return;
		struct strbuf sb;
		sb_init(&sb, w->message, sizeof w->message);
		sb_str(&sb, verdict_source_name(s));
		sb_str(&sb, " reads slow down ");
		sb_times(&sb, f->contended_ns_milli, f->alone_ns_milli);
		sb_str(&sb, " when ");
		sb_u64(&sb, in->contention_cpus);
		sb_str(&sb, " CPUs read it at once");
		if (used)
			sb_str(&sb, ", and Linux reads it here");
		if (outnumbered)
			sb_str(&sb, " (fewer CPUs ran together than read: host scheduling is in the figure too)");
		sb_init(&sb, w->evidence, sizeof w->evidence);
		sb_str(&sb, "cost per read with that many CPUs reading at once: ");
		sb_curve(&sb, f);
		sb_str(&sb, "; 1 CPU ");
		sb_ns(&sb, f->alone_ns_milli);
		sb_se(&sb, f->alone_se_ns_milli);
		sb_str(&sb, ", ");
		sb_u64(&sb, in->contention_cpus);
		sb_str(&sb, " CPUs ");
		sb_ns(&sb, f->contended_ns_milli);
		sb_se(&sb, f->contended_se_ns_milli);
	}
}

void large_guest_to_json(struct json *j, const struct verdict_large_guest *g)
{
	if (!g->measured) {
		json_null(j, "large_guest");
		return;
	}
	json_object_begin(j, "large_guest");
	json_u64(j, "cpus", g->cpus);
	json_fixed(j, "predicted_read_ns", (int64_t)g->read_ns_milli, 3);
	json_fixed(j, "measured_read_ns", (int64_t)g->measured_read_ns_milli, 3);
	json_bool(j, "syscall_estimate_included", g->syscall_added);
	if (g->read_se_ns_milli)
		json_fixed(j, "predicted_read_se_ns", (int64_t)g->read_se_ns_milli, 3);
	else
		json_null(j, "predicted_read_se_ns"); /* unknown, never a claimed 0 */
	json_fixed(j, "alone_read_ns", (int64_t)g->alone_ns_milli, 3);
	json_fixed(j, "ratio", (int64_t)g->ratio_milli, 3);
	json_fixed(j, "per_added_cpu_ns", (int64_t)g->per_added_cpu_ns_milli, 3);
	if (g->outnumbered == VERDICT_UNKNOWN)
		json_null(j, "outnumbered");
	else
		json_bool(j, "outnumbered", g->outnumbered == VERDICT_YES);
	json_string(j, "basis", g->basis);
	json_object_begin(j, "range");
	json_u64(j, "min_cpus", g->range_min_cpus);
	json_u64(j, "max_cpus", g->range_max_cpus);
	json_bool(j, "extrapolated", false);
	json_null(j, "model");
	json_null(j, "model_error_ns");
	json_object_end(j);
	json_object_end(j);
}
