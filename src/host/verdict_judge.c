/* The host judge: the verdict rules, compiled for the host, run on
 * verdict.inputs of a saved report.  scripts/verdict extracts the inputs
 * and feeds them here in the line format of verdict_inputs_parse_line();
 * the output is the verdict JSON the probe writes ({"verdict":{...}}) or
 * the same verdict as text.
 *
 *   verdict-judge [--kernel X.Y] [--kernels SET] [--windows REL] [--json] < inputs.txt
 *   verdict-judge --releases
 *   verdict-judge --vocabulary
 *   verdict-judge --check-settings WORD...
 *
 * --releases prints the releases the rules judge and the maintained
 * long-term lines among them as JSON, the one table host tools read
 * (cptools/kernels.py); --kernels lts|all|6.1,6.12 the set the headline
 * (verdict.headline) is for.
 *   verdict-judge [--kernel X.Y] [--windows REL] [--json] --cpuid FILE
 *
 * --cpuid judges a recorded CPUID (tests/fixtures/cpuid/ format) instead:
 * the facts CPUID alone gives, decoded by the probe's own decoders (TDX
 * from leaf 0x21 among them); every measured fact, and every MSR (Secure
 * TSC), is unknown.
 *
 * --vocabulary prints, as JSON, the words the host tools take from a user
 * and must refuse before a boot when they are not understood: the warning
 * codes and severities (--fail-on), the settings keys with their listed
 * values (--settings).  --check-settings runs the probe's own settings
 * parse (src/lib/settings.c, with the verdict's release checks the run
 * sets) on each WORD alone and prints [{"word":..., "problems":[...]}]:
 * the refusals the probe would put in its report, known before the boot.
 * Both exit 0 when they printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verdict.h"
#include "json.h"
#include "cpuid.h"
#include "hypervisor.h"
#include "coco.h"
#include "results.h"
#include "settings.h"

#define MAX_LINES 512
#define LINE_LEN 1024
#define JSON_CAP (256 * 1024)

static char lines[MAX_LINES][LINE_LEN];

static void print_text(const struct verdict *v)
{
	char buf[1024];

	verdict_summary_line(v, buf, sizeof buf);
	printf("%s\n\nLinux %s: current_clocksource %s, available_clocksource %s, vDSO %s, confidence %s\n",
	       buf, v->linux_kernel, v->current_clocksource, v->available_clocksource,
	       v->vdso ? "yes" : "no", verdict_confidence_name(v->confidence));
	printf("\nreasoning:\n");
	for (uint32_t i = 0; i < v->reasoning_count; i++)
		printf("  %s\n", v->reasoning[i]);
	printf("\nby kernel:\n");
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		printf("  %s-%s: %s%s (available: %s) %s\n", r->from, r->to ? r->to : "newest",
		       r->linux_clocksource, r->vdso ? ", vDSO" : ", no vDSO", r->available_clocksource,
		       r->note);
	}
	printf("\nwarnings:\n");
	for (uint32_t i = 0; i < v->warning_count; i++)
		printf("  %s (%s): %s\n", v->warnings[i].code, verdict_severity_name(v->warnings[i].severity),
		       v->warnings[i].message);
	verdict_windows_summary_line(v, buf, sizeof buf);
	printf("\n%s\n", buf);
}

static struct cpuid_record records[CPUID_RECORD_MAX];
static struct cpu_info cpu;
static struct hv_info hv;
static char cpuid_text[1 << 20];

static bool read_cpuid(const char *path, struct verdict_input *in)
{
	struct cpuid_recording rec;
	FILE *fp = fopen(path, "rb");

	if (!fp) {
		perror(path);
		return false;
	}
	size_t n = fread(cpuid_text, 1, sizeof cpuid_text, fp);
	bool whole = feof(fp);
	fclose(fp);
	if (!whole) {
		fprintf(stderr, "verdict-judge: %s: larger than %zu bytes\n", path, sizeof cpuid_text);
		return false;
	}
	if (!cpuid_recording_parse(&rec, records, CPUID_RECORD_MAX, cpuid_text, n)) {
		fprintf(stderr, "verdict-judge: %s: not a CPUID recording (leaf subleaf eax ebx ecx edx lines)\n", path);
		return false;
	}
	cpuid_decode(&cpu, cpuid_replay, &rec);
	hypervisor_decode(&hv, &cpu, cpuid_replay, &rec);
	verdict_input_cpuid(in, &cpu, &hv);
	/* The confidential-VM CPUID half (leaf 0x21's TDX signature); a
	 * recording has no MSRs, so Secure TSC stays unknown. */
	struct coco_raw raw;
	struct coco_info coco;
	coco_read_cpuid(&raw, &cpu, cpuid_replay, &rec);
	coco_decode(&coco, &raw);
	verdict_input_coco(in, &coco);
	return true;
}

static void print_releases(void)
{
	printf("{\"releases\":[");
	for (size_t i = 0; i < verdict_release_count(); i++)
		printf("%s\"%s\"", i ? "," : "", verdict_release_name(i));
	printf("],\"longterm\":[");
	for (size_t i = 0, n = 0; i < verdict_release_count(); i++)
		if (verdict_release_maintained_longterm(i))
			printf("%s\"%s\"", n++ ? "," : "", verdict_release_name(i));
	printf("]}\n");
}

/* A JSON string of a word given on the command line: quotes, backslashes
 * and control bytes escaped, anything else as it came. */
static void print_json_string(const char *t)
{
	putchar('"');
	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_vocabulary(void)
{
	printf("{\"warning_codes\":[");
	for (size_t i = 0; i < verdict_warning_code_count(); i++)
		printf("%s\"%s\"", i ? "," : "", verdict_warning_code_name(i));
	printf("],\"severities\":[");
	for (int i = VERDICT_INFO; i <= VERDICT_CRITICAL; i++)
		printf("%s\"%s\"", i ? "," : "", verdict_severity_name((enum verdict_severity)i));
	printf("],\"modes\":[");
	for (int m = MODE_QUICK; m <= MODE_THOROUGH; m++)
		printf("%s\"%s\"", m ? "," : "", settings_mode_name((enum run_mode)m));
	printf("],\"settings\":[");
	for (size_t i = 0; i < settings_key_count(); i++) {
		const char *v = settings_key_values(i);
		printf("%s{\"name\":\"%s\",\"bare\":%s,\"values\":", i ? "," : "", settings_key_name(i),
		       settings_key_bare(i) ? "true" : "false");
		if (!v) {
			printf("null}");
			continue;
		}
		printf("[\"");
		for (; *v; v++)
			printf(*v == ',' ? "\",\"" : "%c", *v);
		printf("\"]}");
	}
	printf("]}\n");
}

/* Each word parsed alone, as the run parses it (src/run/run.c sets the
 * same release checks): a word's problems do not depend on its
 * neighbours, so each refusal is tied to the word that caused it. */
static void check_settings(int argc, char **argv)
{
	static struct settings s;
	printf("[");
	for (int i = 0; i < argc; i++) {
		settings_defaults(&s);
		s.parse_kernel = verdict_kernel_parse;
		s.parse_windows = verdict_windows_parse;
		s.check_kernels = verdict_kernel_set_valid;
		settings_parse(&s, argv[i]);
		printf("%s{\"word\":", i ? "," : "");
		print_json_string(argv[i]);
		printf(",\"problems\":[");
		for (uint32_t p = 0; p < s.problem_count; p++) {
			printf("%s", p ? "," : "");
			print_json_string(s.problems[p]);
		}
		printf("]}");
	}
	printf("]\n");
}

/* Read by AddressSanitizer before main (the host build has it): this is a
 * one-shot process that scripts/verdict, compare and the fleet loaders
 * start once per report and kernel, and the leak scan at its exit took
 * 70 of every call's ~100 ms (120 calls in one integration test).  The
 * unit tests, which run the same verdict code, keep leak detection. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(int argc, char **argv)
{
	const char *cpuid_path = NULL;
	static struct verdict_input in;
	static struct verdict v;
	bool as_json = false;
	uint32_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			as_json = true;
		} else if (!strcmp(argv[i], "--releases")) {
			print_releases();
			return 0;
		} else if (!strcmp(argv[i], "--vocabulary")) {
			print_vocabulary();
			return 0;
		} else if (!strcmp(argv[i], "--check-settings")) {
			check_settings(argc - i - 1, argv + i + 1);
			return 0;
		} else if (!strcmp(argv[i], "--kernels") && i + 1 < argc) {
			i++;
			if (!verdict_kernel_set_parse(argv[i], strlen(argv[i]), &in.kernels)) {
				fprintf(stderr, "verdict-judge: kernels %s: not lts, all or releases from 4.19 to the "
						"newest (6.1,6.12)\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			i++;
			if (!verdict_kernel_parse(argv[i], strlen(argv[i]), &in.kernel)) {
				fprintf(stderr, "verdict-judge: kernel %s: not a release from 4.19 to the newest\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--cpuid") && i + 1 < argc) {
			cpuid_path = argv[++i];
		} else if (!strcmp(argv[i], "--windows") && i + 1 < argc) {
			i++;
			if (!verdict_windows_parse(argv[i], strlen(argv[i]), &in.windows)) {
				fprintf(stderr, "verdict-judge: windows %s: not a release the Windows verdict knows "
						"(vista, 2008, 7, 2008r2, 8, 8.1, 2012, 2012r2, 10, 2016, 2019, 2022, 11, 2025)\n",
					argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: verdict-judge [--kernel X.Y] [--kernels SET] [--windows REL] [--json] "
					"[--cpuid FILE | < inputs] | --releases | --vocabulary | --check-settings WORD...\n");
			return 2;
		}
	}
	in.xen_tsc_mode = -1;
	in.hv_isolation_type = -1;
	if (cpuid_path && !read_cpuid(cpuid_path, &in))
		return 2;
	while (!cpuid_path && n < MAX_LINES && fgets(lines[n], LINE_LEN, stdin)) {
		const char *why;
		/* A line that filled the buffer without its newline would be
		 * read on as the next "line": refuse it under its own number. */
		if (!strchr(lines[n], '\n') && !feof(stdin)) {
			fprintf(stderr, "verdict-judge: line %u is longer than %d bytes\n", n + 1,
				LINE_LEN - 2);
			return 2;
		}
		lines[n][strcspn(lines[n], "\n")] = '\0';
		char copy[LINE_LEN];
		memcpy(copy, lines[n], LINE_LEN);
		if (!verdict_inputs_parse_line(&in, lines[n], &why)) {
			fprintf(stderr, "verdict-judge: line %u \"%s\": %s\n", n + 1, copy, why);
			return 2;
		}
		n++;
	}
	if (!cpuid_path && n == MAX_LINES && !feof(stdin)) {
		fprintf(stderr, "verdict-judge: more than %d input lines\n", MAX_LINES);
		return 2;
	}
	verdict_decide(&v, &in);
	if (!as_json) {
		print_text(&v);
		return 0;
	}
	char *buf = malloc(JSON_CAP);
	struct json j;
	if (!buf)
		return 2;
	json_init(&j, buf, JSON_CAP);
	json_object_begin(&j, NULL);
	verdict_to_json(&j, &v);
	json_object_end(&j);
	if (!json_ok(&j)) {
		fprintf(stderr, "verdict-judge: JSON buffer too small\n");
		return 2;
	}
	printf("%s\n", buf);
	free(buf);
	return 0;
}
