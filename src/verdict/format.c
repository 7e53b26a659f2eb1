/* Numbers and names as the verdict writes them for people: durations, cost
 * ratios, ppm, and the names of the severity and confidence enums (the only
 * place they become strings).  A leaf: every file of the module may call it. */
#include "verdict_model.h"
#include "stats.h"

const char *verdict_severity_name(enum verdict_severity s)
{
	static const char *const names[] = {
		[VERDICT_INFO] = "info",
		[VERDICT_WARNING] = "warning",
		[VERDICT_CRITICAL] = "critical",
	};
	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "?";
}

const char *verdict_confidence_name(enum verdict_confidence c)
{
	static const char *const names[] = {
		[VERDICT_CONFIDENCE_HIGH] = "high",
		[VERDICT_CONFIDENCE_MEDIUM] = "medium",
		[VERDICT_CONFIDENCE_LOW] = "low",
	};
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

/* A measured cost with its standard error, to the SE's precision (two
 * significant digits of the SE, as the summary's table writes its
 * estimates): "135.0+-5.3 ns"; without an SE the value as sb_ns() writes
 * it and "(SE unknown)", never a precision that was not measured. */
void sb_ns_se(struct strbuf *sb, uint64_t ns_milli, uint64_t se_milli)
{
	if (!se_milli) {
		sb_ns(sb, ns_milli);
		sb_str(sb, " (SE unknown)");
		return;
	}
	unsigned dec = stats_se_decimals(se_milli);
	sb_fixed(sb, stats_round_milli((int64_t)ns_milli, dec), dec);
	sb_str(sb, "+-");
	sb_fixed(sb, stats_round_milli((int64_t)se_milli, dec), dec);
	sb_str(sb, " ns");
}

/* " + syscall 50-300 ns (not measured)": a term added to a measured read
 * that the probe cannot measure (it has no kernel to call), stated as the
 * range it is instead of one figure folded into the measurement.  what
 * names it ("syscall", "kernel call"); brief leaves the range out where
 * the same line already stated it. */
void sb_unmeasured_term(struct strbuf *sb, const char *what, uint64_t low_ns, uint64_t high_ns, bool brief)
{
	sb_str(sb, " + ");
	sb_str(sb, what);
	if (brief)
		return;
	sb_char(sb, ' ');
	sb_u64(sb, low_ns);
	sb_char(sb, '-');
	sb_u64(sb, high_ns);
	sb_str(sb, " ns (not measured)");
}

/* "= 140x a TSC read" when both costs are known. */
void sb_ratio(struct strbuf *sb, uint64_t num_milli, uint64_t den_milli)
{
	if (!num_milli || !den_milli)
		return;
	uint64_t tenths = mul_div_u64(num_milli, 10, den_milli);
	if (tenths >= 100)
		sb_u64(sb, (tenths + 5) / 10);
	else
		sb_fixed(sb, (int64_t)tenths, 1);
	sb_str(sb, "x a TSC read");
}

/* "612 ppm", or "612 +/- 155 ppm" when the uncertainty is known (ASCII:
 * the JSON writer escapes anything else). */
void sb_ppm(struct strbuf *sb, int64_t ppm, uint64_t uncertainty_ppm)
{
	sb_i64(sb, ppm);
	if (uncertainty_ppm) {
		sb_str(sb, " +/- ");
		sb_u64(sb, uncertainty_ppm);
	}
	sb_str(sb, " ppm");
}
