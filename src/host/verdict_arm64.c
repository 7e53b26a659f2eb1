/* The arm64 verdict on the host: facts in, {"verdict":{"arm64":{...}}}
 * out.  The arm64 ground-truth test (tests/integration/
 * test_linux_arm64.py) feeds it what each real Debian arm64 guest
 * recorded (tests/linux/expected-arm64.json) and compares the verdict's
 * by_kernel[] with what the kernel did.
 *
 *   verdict-arm64 [--kernel X.Y] < facts.txt
 *
 * facts, one per line (any may be absent; unknown then):
 *   midr 0x410fd090          one per CPU: the errata are decoded here
 *   dt_property NAME         a timer-node property (fsl,erratum-a008585 ...)
 *   acpi_oem OEMID TABLEID REV   the GTDT's ids, '_' standing for a space
 *   ecv 0|1|2                ID_AA64MMFR0_EL1.ECV (or HWCAP2_ECV: 0/1)
 *   cntfrq HZ, dt_clock_frequency HZ
 *   cntvct_trapped 0|1, counter_read_ps PS, counter_read_se_ps PS, syscall_ps PS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arm64.h"
#include "json.h"
#include "verdict.h"
#include "verdict_arm64.h"

static void pad(char *dst, size_t n, const char *src)
{
	size_t k = 0;
	for (; k < n && src[k]; k++)
		dst[k] = src[k] == '_' ? ' ' : src[k];
	for (; k < n; k++)
		dst[k] = ' ';
}

int main(int argc, char **argv)
{
	const char *kernel = "6.18";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
			kernel = argv[++i];
		else {
			fprintf(stderr, "usage: verdict-arm64 [--kernel X.Y] < facts\n");
			return 2;
		}
	}
	unsigned kv;
	if (!verdict_kernel_parse(kernel, strlen(kernel), &kv)) {
		fprintf(stderr, "verdict-arm64: unknown kernel %s\n", kernel);
		return 2;
	}
	struct verdict_arm64_input in = {0};
	char line[512], a[128], b[128], c[128], d[128];
	while (fgets(line, sizeof line, stdin)) {
		int n = sscanf(line, "%127s %127s %127s %127s", a, b, c, d);
		if (n < 2 || a[0] == '#')
			continue;
		if (!strcmp(a, "midr"))
			in.errata |= arm64_errata_from_midr((uint32_t)strtoul(b, NULL, 0));
		else if (!strcmp(a, "dt_property"))
			in.errata |= arm64_errata_from_dt_property(b);
		else if (!strcmp(a, "acpi_oem") && n == 4) {
			char oem[6], table[8];
			pad(oem, sizeof oem, b);
			pad(table, sizeof table, c);
			in.errata |= arm64_errata_from_acpi_oem(oem, table, (uint32_t)strtoul(d, NULL, 0));
		} else if (!strcmp(a, "ecv")) {
			struct arm64_ecv e;
			arm64_ecv_decode(strtoull(b, NULL, 0) << 60, &e);
			in.ecv = e.cntvctss ? VERDICT_YES : VERDICT_NO;
		} else if (!strcmp(a, "cntfrq"))
			in.cntfrq_hz = strtoull(b, NULL, 0);
		else if (!strcmp(a, "dt_clock_frequency"))
			in.dt_clock_frequency = strtoull(b, NULL, 0);
		else if (!strcmp(a, "cntvct_trapped"))
			in.cntvct_trapped = atoi(b) ? VERDICT_YES : VERDICT_NO;
		else if (!strcmp(a, "counter_read_ps"))
			in.counter_read_ps = strtoull(b, NULL, 0);
		else if (!strcmp(a, "counter_read_se_ps")) {
			in.counter_read_se_ps = strtoull(b, NULL, 0);
			in.counter_read_se_known = true;
		}
		else if (!strcmp(a, "syscall_ps"))
			in.syscall_ps = strtoull(b, NULL, 0);
		else {
			fprintf(stderr, "verdict-arm64: unknown fact %s\n", a);
			return 2;
		}
	}
	static struct verdict_arm64 v;
	static char buf[64 * 1024];
	struct json j;
	verdict_arm64_decide(&in, kv, &v);
	json_init(&j, buf, sizeof buf);
	json_object_begin(&j, NULL);
	json_object_begin(&j, "verdict");
	verdict_arm64_json(&j, &v);
	json_object_end(&j);
	json_object_end(&j);
	if (!json_ok(&j)) {
		fprintf(stderr, "verdict-arm64: JSON did not fit\n");
		return 1;
	}
	printf("%s\n", buf);
	return 0;
}
