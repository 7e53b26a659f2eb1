/* verdict.inputs: every fact the rules read, written into the report and
 * read back on the host, so a saved report is judged again by the same
 * rules (scripts/verdict).  One table names each field once for both
 * directions; the names are a report contract (docs/verdict-rules.md). */
#include "verdict_model.h"
#include "json.h"
#include <stddef.h>

enum field_kind {
	K_TRI,		/* true / false / null */
	K_BOOL,
	K_U32,
	K_U64,
	K_I64,
	K_I32_OR_NULL,	/* -1 = null */
	K_STR,		/* NULL = null */
	K_NAME,		/* NULL = "none" */
	K_VENDOR,
	K_FREQ_BY,
};

struct field {
	const char *name;
	enum field_kind kind;
	size_t offset;
};

#define F(name, kind, member) { name, kind, offsetof(struct verdict_input, member) }

static const struct field fields[] = {
	F("cpu_vendor", K_VENDOR, vendor),
	F("cpu_family", K_U32, family),
	F("cpu_model", K_U32, model),
	F("hypervisor", K_NAME, hypervisor),
	F("hypervisor_bit", K_TRI, hypervisor_bit),
	F("kvm_clocksource", K_TRI, kvm_clocksource),
	F("kvm_clocksource2", K_TRI, kvm_clocksource2),
	F("kvmclock_stable", K_TRI, kvm_stable_bit),
	F("pvclock_stable", K_TRI, pvclock_stable),
	F("hyperv_ref_counter", K_TRI, hv_ref_counter),
	F("hyperv_tsc_page", K_TRI, hv_tsc_page),
	F("hyperv_freq_msrs", K_TRI, hv_freq_msrs),
	F("hyperv_tsc_invariant", K_TRI, hv_tsc_invariant_control),
	F("hyperv_tsc_page_valid", K_TRI, hv_tsc_page_valid),
	F("hyperv_root", K_TRI, hv_root),
	F("hyperv_isolated", K_TRI, hv_isolated),
	F("hyperv_paravisor", K_TRI, hv_paravisor),
	F("hyperv_isolation_type", K_I32_OR_NULL, hv_isolation_type),
	F("vmware_gethz", K_TRI, vmware_gethz),
	F("xen_present", K_TRI, xen_present),
	F("xen_tsc_mode", K_I32_OR_NULL, xen_tsc_mode),
	F("tdx", K_TRI, tdx),
	F("secure_tsc", K_TRI, secure_tsc),
	F("sev_es", K_TRI, sev_es),
	F("sev_snp", K_TRI, sev_snp),
	F("pause_count", K_U32, pause_count),
	F("pause_max_ns", K_U64, pause_max_ns),
	F("pauses_tsc_stood", K_U32, pauses_tsc_stood),
	F("tsc", K_TRI, tsc),
	F("invariant_tsc", K_TRI, invariant_tsc),
	F("tsc_adjust", K_TRI, tsc_adjust),
	F("tsc_deadline", K_TRI, tsc_deadline),
	F("rdtscp", K_TRI, rdtscp),
	F("tsc_known_freq", K_TRI, tsc_known_freq),
	F("running_cpus", K_U32, logical_cpus),
	F("possible_cpus", K_U32, possible_cpus),
	F("packages", K_U32, packages),
	F("numa_nodes", K_U32, numa_nodes),
	F("legacy_pic", K_TRI, legacy_pic),
	F("acpi", K_TRI, acpi),
	F("hw_reduced", K_TRI, hw_reduced),
	F("hpet", K_TRI, sources[VERDICT_SRC_HPET].present),
	F("acpi_pm", K_TRI, sources[VERDICT_SRC_ACPI_PM].present),
	F("pit", K_TRI, sources[VERDICT_SRC_PIT].present),
	F("kvmclock_present", K_TRI, sources[VERDICT_SRC_KVMCLOCK].present),
	F("tsc_source_present", K_TRI, sources[VERDICT_SRC_TSC].present),
	F("hyperv_msr_present", K_TRI, sources[VERDICT_SRC_HV_MSR].present),
	F("hyperv_tsc_page_present", K_TRI, sources[VERDICT_SRC_HV_TSC_PAGE].present),
	F("xen_clock_present", K_TRI, sources[VERDICT_SRC_XEN].present),
	F("xcpu_tested", K_U32, xcpu_tested),
	F("tsc_warps", K_U64, xcpu_warps),
	F("tsc_max_skew_cycles", K_U64, xcpu_max_skew_cycles),
	F("tsc_not_coscheduled", K_BOOL, xcpu_not_coscheduled),
	F("kvmclock_warps", K_U64, xcpu_kvmclock_warps),
	F("kvmclock_max_warp_ns", K_U64, xcpu_kvmclock_max_warp_ns),
	F("tsc_freq_by", K_FREQ_BY, freq_by),
	F("tsc_freq_advertised_hz", K_U64, freq_advertised_hz),
	F("tsc_freq_measured_hz", K_U64, freq_measured_hz),
	F("freq_disagreement_known", K_BOOL, freq_disagreement_known),
	F("freq_disagreement_ppm", K_I64, freq_disagreement_ppm),
	F("freq_disagreement_uncertainty_ppm", K_U64, freq_disagreement_uncertainty_ppm),
	F("freq_disagreement_tolerance_ppm", K_U64, freq_disagreement_tolerance_ppm),
	F("freq_references_disagree", K_BOOL, freq_references_disagree),
	F("freq_references_ppm", K_I64, freq_references_ppm),
	F("freq_references_uncertainty_ppm", K_U64, freq_references_uncertainty_ppm),
	F("freq_references_pair", K_STR, freq_references_pair),
	F("gaps_measured", K_BOOL, gaps_measured),
	F("gap_count", K_U64, gap_count),
	F("max_gap_ns", K_U64, gap_max_ns),
	F("gap_total_ns", K_U64, gap_total_ns),
	F("gap_window_ms", K_U64, gap_window_ms),
	F("gap_share_ppm", K_U64, gap_share_ppm),
	F("hpet_freq_hz", K_U64, hpet_freq_hz),
	F("contention_cpus", K_U32, contention_cpus),
	F("contention_outnumbered", K_TRI, contention_outnumbered),
	F("harness_anomaly", K_BOOL, harness_anomaly),
	F("harness_anomaly_reason", K_STR, harness_anomaly_reason),
	F("vcpu_emulated", K_BOOL, vcpu_emulated),
	F("insn_ps", K_U64, insn_ps),
};

static const char *const vendor_names[] = {
	[VERDICT_VENDOR_UNKNOWN] = "unknown", [VERDICT_VENDOR_INTEL] = "intel",
	[VERDICT_VENDOR_AMD] = "amd",	      [VERDICT_VENDOR_HYGON] = "hygon",
	[VERDICT_VENDOR_CENTAUR] = "centaur", [VERDICT_VENDOR_ZHAOXIN] = "zhaoxin",
	[VERDICT_VENDOR_OTHER] = "other",
};

static const char *const freq_by_names[] = {
	[VERDICT_FREQ_NONE] = "none",
	[VERDICT_FREQ_CPUID_15] = "cpuid_15",
	[VERDICT_FREQ_CPUID_16] = "cpuid_16",
	[VERDICT_FREQ_HYPERVISOR_LEAF] = "hypervisor_leaf",
	[VERDICT_FREQ_PVCLOCK] = "pvclock",
	[VERDICT_FREQ_HYPERV_MSR] = "hyperv_msr",
	[VERDICT_FREQ_VMWARE_GETHZ] = "vmware_gethz",
};

static const char *const path_names[] = {
	[VERDICT_PATH_UNKNOWN] = "unknown",
	[VERDICT_PATH_NATIVE] = "native",
	[VERDICT_PATH_EXIT] = "exit",
	[VERDICT_PATH_DEVICE_MODEL] = "device_model",
};

/* ---- writing ------------------------------------------------------------ */

static void tri_to_json(struct json *j, const char *key, enum verdict_tri t)
{
	if (t == VERDICT_UNKNOWN)
		json_null(j, key);
	else
		json_bool(j, key, t == VERDICT_YES);
}

static void field_to_json(struct json *j, const struct field *fd, const struct verdict_input *in)
{
	const char *p = (const char *)in + fd->offset;

	switch (fd->kind) {
	case K_TRI: tri_to_json(j, fd->name, *(const enum verdict_tri *)p); break;
	case K_BOOL: json_bool(j, fd->name, *(const bool *)p); break;
	case K_U32: json_u64(j, fd->name, *(const uint32_t *)p); break;
	case K_U64: json_u64(j, fd->name, *(const uint64_t *)p); break;
	case K_I64: json_i64(j, fd->name, *(const int64_t *)p); break;
	case K_I32_OR_NULL:
		if (*(const int32_t *)p < 0)
			json_null(j, fd->name);
		else
			json_u64(j, fd->name, (uint64_t)*(const int32_t *)p);
		break;
	case K_STR: json_string(j, fd->name, *(const char *const *)p); break;
	case K_NAME: {
		const char *name = *(const char *const *)p;
		json_string(j, fd->name, name ? name : "none");
		break;
	}
	case K_VENDOR: {
		unsigned v = *(const enum verdict_vendor *)p;
		json_string(j, fd->name, v < ARRAY_SIZE(vendor_names) ? vendor_names[v] : "unknown");
		break;
	}
	case K_FREQ_BY: {
		unsigned v = *(const enum verdict_freq_by *)p;
		json_string(j, fd->name, v < ARRAY_SIZE(freq_by_names) ? freq_by_names[v] : "none");
		break;
	}
	}
}

/* The contention stage's per-source figures, ns x1000 each. */
static const struct {
	const char *name;
	size_t offset;
} contention_maps[] = {
	{ "contention_alone_ns", offsetof(struct verdict_source_fact, alone_ns_milli) },
	{ "contention_alone_se_ns", offsetof(struct verdict_source_fact, alone_se_ns_milli) },
	{ "contended_read_ns", offsetof(struct verdict_source_fact, contended_ns_milli) },
	{ "contended_se_ns", offsetof(struct verdict_source_fact, contended_se_ns_milli) },
};

static void sources_to_json(struct json *j, const struct verdict_input *in)
{
	json_object_begin(j, "read_ns");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (in->sources[s].read_ns_milli)
			json_fixed(j, verdict_source_name(s), (int64_t)in->sources[s].read_ns_milli, 3);
	json_object_end(j);
	/* The SE of each read_ns: the headline states a cost to it. */
	json_object_begin(j, "read_se_ns");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (in->sources[s].read_se_ns_milli)
			json_fixed(j, verdict_source_name(s), (int64_t)in->sources[s].read_se_ns_milli, 3);
	json_object_end(j);
	json_object_begin(j, "read_path");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (in->sources[s].read_path != VERDICT_PATH_UNKNOWN)
			json_string(j, verdict_source_name(s), path_names[in->sources[s].read_path]);
	json_object_end(j);
	json_object_begin(j, "read_p99_ns");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (in->sources[s].read_p99_ns)
			json_u64(j, verdict_source_name(s), in->sources[s].read_p99_ns);
	json_object_end(j);
	json_object_begin(j, "read_max_ns");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (in->sources[s].read_max_ns)
			json_u64(j, verdict_source_name(s), in->sources[s].read_max_ns);
	json_object_end(j);
	json_object_begin(j, "contention_curve_ns");
	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		const struct verdict_source_fact *f = &in->sources[s];
		char text[VERDICT_MAX_CURVE * 24];
		struct strbuf sb;
		if (!f->curve_points)
			continue;
		sb_init(&sb, text, sizeof text);
		for (uint32_t i = 0; i < f->curve_points && i < VERDICT_MAX_CURVE; i++) {
			if (i)
				sb_char(&sb, ',');
			sb_u64(&sb, f->curve_cpus[i]);
			sb_char(&sb, ':');
			sb_fixed(&sb, (int64_t)f->curve_ns_milli[i], 3);
		}
		json_string(j, verdict_source_name(s), text);
	}
	json_object_end(j);
	for (size_t m = 0; m < ARRAY_SIZE(contention_maps); m++) {
		json_object_begin(j, contention_maps[m].name);
		for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
			uint64_t v = *(const uint64_t *)((const char *)&in->sources[s] + contention_maps[m].offset);
			if (v)
				json_fixed(j, verdict_source_name(s), (int64_t)v, 3);
		}
		json_object_end(j);
	}
}

/* A drift pair's key: "tsc/hpet". */
static void pair_key(char *buf, size_t cap, const struct verdict_drift *d)
{
	struct strbuf sb;

	sb_init(&sb, buf, cap);
	sb_str(&sb, d->a ? d->a : "?");
	sb_char(&sb, '/');
	sb_str(&sb, d->b ? d->b : "?");
}

static void drift_to_json(struct json *j, const struct verdict_input *in)
{
	static const char *const maps[] = { "drift_ppm", "drift_uncertainty_ppm", "drift_window_ms" };
	char key[64];
	uint32_t n = in->drift_count < VERDICT_MAX_DRIFT ? in->drift_count : VERDICT_MAX_DRIFT;

	for (size_t m = 0; m < ARRAY_SIZE(maps); m++) {
		json_object_begin(j, maps[m]);
		for (uint32_t i = 0; i < n; i++) {
			const struct verdict_drift *d = &in->drift[i];
			pair_key(key, sizeof key, d);
			if (m == 0)
				json_i64(j, key, d->ppm);
			else if (m == 1)
				json_u64(j, key, d->uncertainty_ppm);
			else
				json_u64(j, key, d->window_ms);
		}
		json_object_end(j);
	}
}

void verdict_inputs_to_json(struct json *j, const struct verdict_input *in)
{
	json_object_begin(j, "inputs");
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		field_to_json(j, &fields[i], in);
	json_array_begin(j, "hypervisor_signatures");
	for (uint32_t i = 0; i < in->signature_count && i < VERDICT_MAX_SIGNATURES; i++)
		json_string(j, NULL, in->signatures[i]);
	json_array_end(j);
	sources_to_json(j, in);
	drift_to_json(j, in);
	json_object_end(j);
}

/* ---- reading the line format ----------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
	uint64_t v;
	bool neg = *s == '-';

	if (!parse_u64(s + neg, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* "12.345" -> 12345: the report's read costs carry three decimals. */
static bool parse_milli(const char *s, uint64_t *out)
{
	uint64_t whole = 0, frac = 0;
	unsigned digits = 0;

	for (; *s && *s != '.'; s++) {
		if (*s < '0' || *s > '9' || whole > UINT64_MAX / 10000)
			return false;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.')
		for (s++; *s; s++) {
			if (*s < '0' || *s > '9' || digits >= 3)
				return false;
			frac = frac * 10 + (uint64_t)(*s - '0');
			digits++;
		}
	while (digits++ < 3)
		frac *= 10;
	*out = whole * 1000 + frac;
	return true;
}

static int name_index(const char *const *names, size_t n, const char *word)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && str_equal(names[i], word))
			return (int)i;
	return -1;
}

static bool parse_field(const struct field *fd, struct verdict_input *in, char *val)
{
	char *p = (char *)in + fd->offset;
	uint64_t u;
	int64_t i;
	int idx;

	switch (fd->kind) {
	case K_TRI:
	case K_BOOL:
		if (!str_equal(val, "true") && !str_equal(val, "false") &&
		    !(fd->kind == K_TRI && str_equal(val, "null")))
			return false;
		if (fd->kind == K_BOOL)
			*(bool *)p = str_equal(val, "true");
		else
			*(enum verdict_tri *)p = str_equal(val, "null") ? VERDICT_UNKNOWN :
						 str_equal(val, "true") ? VERDICT_YES : VERDICT_NO;
		return true;
	case K_U32:
		if (!parse_u64(val, &u) || u > UINT32_MAX)
			return false;
		*(uint32_t *)p = (uint32_t)u;
		return true;
	case K_U64:
		if (!parse_u64(val, &u))
			return false;
		*(uint64_t *)p = u;
		return true;
	case K_I64:
		if (!parse_i64(val, &i))
			return false;
		*(int64_t *)p = i;
		return true;
	case K_I32_OR_NULL:
		if (str_equal(val, "null")) {
			*(int32_t *)p = -1;
			return true;
		}
		if (!parse_u64(val, &u) || u > INT32_MAX)
			return false;
		*(int32_t *)p = (int32_t)u;
		return true;
	case K_STR:
		*(const char **)p = str_equal(val, "null") ? NULL : val;
		return true;
	case K_NAME:
		*(const char **)p = str_equal(val, "none") ? NULL : val;
		return true;
	case K_VENDOR:
		idx = name_index(vendor_names, ARRAY_SIZE(vendor_names), val);
		if (idx < 0)
			return false;
		*(enum verdict_vendor *)p = (enum verdict_vendor)idx;
		return true;
	case K_FREQ_BY:
		idx = name_index(freq_by_names, ARRAY_SIZE(freq_by_names), val);
		if (idx < 0)
			return false;
		*(enum verdict_freq_by *)p = (enum verdict_freq_by)idx;
		return true;
	}
	return false;
}

/* Splits off the first space-separated word; returns the rest. */
static char *next_word(char **rest)
{
	char *w = *rest;

	while (*w == ' ')
		w++;
	char *e = w;
	while (*e && *e != ' ')
		e++;
	if (*e)
		*e++ = '\0';
	*rest = e;
	return w;
}

static int source_index(const char *name)
{
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (str_equal(verdict_source_name(s), name))
			return s;
	return -1;
}

/* "1:186.234,2:250.3,4:420.1": CPUs and ns per read, in order. */
static bool parse_curve(char *text, struct verdict_source_fact *f)
{
	f->curve_points = 0;
	while (*text) {
		char *colon = text, *end;
		uint64_t cpus;
		while (*colon && *colon != ':')
			colon++;
		if (!*colon || f->curve_points >= VERDICT_MAX_CURVE)
			return false;
		*colon = '\0';
		end = colon + 1;
		while (*end && *end != ',')
			end++;
		bool last = !*end;
		*end = '\0';
		if (!parse_u64(text, &cpus) || !cpus || cpus > UINT32_MAX ||
		    !parse_milli(colon + 1, &f->curve_ns_milli[f->curve_points]))
			return false;
		f->curve_cpus[f->curve_points++] = (uint32_t)cpus;
		if (last)
			break;
		text = end + 1;
	}
	return f->curve_points > 0;
}

static bool parse_source_map(struct verdict_input *in, const char *key, char *rest, const char **why)
{
	char *name = next_word(&rest);
	int s = source_index(name);
	struct verdict_source_fact *f;
	int idx;

	if (s < 0) {
		*why = "unknown clock source name";
		return false;
	}
	f = &in->sources[s];
	*why = "bad value";
	if (str_equal(key, "read_ns"))
		return parse_milli(rest, &f->read_ns_milli);
	if (str_equal(key, "read_se_ns"))
		return parse_milli(rest, &f->read_se_ns_milli);
	if (str_equal(key, "read_p99_ns"))
		return parse_u64(rest, &f->read_p99_ns);
	if (str_equal(key, "read_max_ns"))
		return parse_u64(rest, &f->read_max_ns);
	for (size_t m = 0; m < ARRAY_SIZE(contention_maps); m++)
		if (str_equal(key, contention_maps[m].name))
			return parse_milli(rest, (uint64_t *)((char *)f + contention_maps[m].offset));
	if (str_equal(key, "contention_curve_ns"))
		return parse_curve(rest, f);
	idx = name_index(path_names, ARRAY_SIZE(path_names), rest);
	if (idx < 0)
		return false;
	f->read_path = (enum verdict_read_path)idx;
	return true;
}

/* Pairs keep their first-seen order: the rules take the first pair that
 * names the TSC and the watchdog. */
static bool parse_drift_map(struct verdict_input *in, const char *key, char *rest, const char **why)
{
	char *pair = next_word(&rest);
	char *slash = pair;
	struct verdict_drift *d = NULL;

	while (*slash && *slash != '/')
		slash++;
	if (!*slash) {
		*why = "a drift pair is written a/b";
		return false;
	}
	*slash = '\0';
	for (uint32_t i = 0; i < in->drift_count; i++)
		if (str_equal(in->drift[i].a, pair) && str_equal(in->drift[i].b, slash + 1))
			d = &in->drift[i];
	if (!d) {
		if (in->drift_count >= VERDICT_MAX_DRIFT) {
			*why = "too many drift pairs";
			return false;
		}
		d = &in->drift[in->drift_count++];
		d->a = pair;
		d->b = slash + 1;
	}
	*why = "bad value";
	if (str_equal(key, "drift_ppm"))
		return parse_i64(rest, &d->ppm);
	if (str_equal(key, "drift_uncertainty_ppm"))
		return parse_u64(rest, &d->uncertainty_ppm);
	return parse_u64(rest, &d->window_ms);
}

bool verdict_inputs_parse_line(struct verdict_input *in, char *line, const char **why)
{
	char *rest = line;
	char *key = next_word(&rest);

	*why = NULL;
	if (!*key)
		return true;
	if (str_equal(key, "hypervisor_signatures")) {
		while (*rest) {
			char *w = next_word(&rest);
			if (!*w)
				break;
			if (in->signature_count >= VERDICT_MAX_SIGNATURES) {
				*why = "too many hypervisor signatures";
				return false;
			}
			in->signatures[in->signature_count++] = w;
		}
		return true;
	}
	if (str_equal(key, "read_ns") || str_equal(key, "read_se_ns") || str_equal(key, "read_path") ||
	    str_equal(key, "read_p99_ns") || str_equal(key, "read_max_ns"))
		return parse_source_map(in, key, rest, why);
	for (size_t m = 0; m < ARRAY_SIZE(contention_maps); m++)
		if (str_equal(key, contention_maps[m].name))
			return parse_source_map(in, key, rest, why);
	if (str_equal(key, "contention_curve_ns"))
		return parse_source_map(in, key, rest, why);
	if (str_equal(key, "drift_ppm") || str_equal(key, "drift_uncertainty_ppm") ||
	    str_equal(key, "drift_window_ms"))
		return parse_drift_map(in, key, rest, why);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!str_equal(fields[i].name, key))
			continue;
		/* Strings keep their spaces: the value is the rest of the line. */
		if (fields[i].kind != K_STR) {
			char *w = next_word(&rest);
			rest = w;
		}
		if (parse_field(&fields[i], in, rest))
			return true;
		*why = "bad value";
		return false;
	}
	*why = "unknown input";
	return false;
}
