/* A recorded verdict.inputs file read into a struct verdict_input, for the
 * tests that judge a real boot's inputs (test_summary, test_verdict_kernels).
 * Header-only: each test binary is one file plus check.o and libpure. */
#ifndef VERDICT_INPUTS_FIXTURE_H
#define VERDICT_INPUTS_FIXTURE_H
#include <stdio.h>
#include <string.h>
#include "verdict.h"

/* verdict.inputs of a real q35,hpet=off boot (see the fixture's header). */
#define Q35_HPET_OFF_INPUTS "tests/fixtures/verdict/q35_hpet_off.inputs"

/* The parser keeps pointers into the lines: they live as long as the test. */
static char fixture_input_lines[256][1024];

/* False (naming the line on stderr) if the file is missing, a line does not
 * parse, or it holds too few inputs to be a real boot's. */
static bool load_verdict_inputs(const char *path, struct verdict_input *in)
{
	FILE *fp = fopen(path, "r");
	unsigned n = 0;
	if (!fp)
		return false;
	memset(in, 0, sizeof *in);
	in->xen_tsc_mode = -1;
	in->hv_isolation_type = -1;
	while (n < 256 && fgets(fixture_input_lines[n], sizeof fixture_input_lines[0], fp)) {
		char *line = fixture_input_lines[n];
		const char *why;
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (!verdict_inputs_parse_line(in, line, &why)) {
			fprintf(stderr, "inputs line \"%s\": %s\n", line, why);
			fclose(fp);
			return false;
		}
		n++;
	}
	fclose(fp);
	return n > 20;
}
#endif
