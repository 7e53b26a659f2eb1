#include "check.h"
#include <stdarg.h>
#include <stdlib.h>

#define MAX_TESTS 512

static struct {
	const char *name;
	void (*fn)(void);
} tests[MAX_TESTS];
static int n_tests;
static int current_failed;
static char current_msg[512];
static const char *binary_name = "unit";

void test_register(const char *name, void (*fn)(void))
{
	if (n_tests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[n_tests].name = name;
	tests[n_tests].fn = fn;
	n_tests++;
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	if (current_failed++)
		return; /* keep the first failure: later ones are usually fallout */
	int n = snprintf(current_msg, sizeof current_msg, "%s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(current_msg + n, sizeof current_msg - (size_t)n, fmt, ap);
	va_end(ap);
}

void *read_fixture(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "FAIL %s: fixture %s missing\n", binary_name, path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "FAIL %s: cannot read %s\n", binary_name, path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)size;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc > 0) {
		const char *slash = strrchr(argv[0], '/');
		binary_name = slash ? slash + 1 : argv[0];
	}
	int failed = 0;
	for (int i = 0; i < n_tests; i++) {
		current_failed = 0;
		tests[i].fn();
		if (current_failed) {
			failed++;
			printf("FAIL %s:%s: %s\n", binary_name, tests[i].name, current_msg);
		} else {
			printf("PASS %s:%s\n", binary_name, tests[i].name);
		}
	}
	return failed ? 1 : 0;
}
