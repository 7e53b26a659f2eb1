/* Minimal host unit-test harness.  Each TEST registers itself; check_main
 * (in check.c) runs them all and prints one line per test:
 *   PASS <binary>:<test>      or      FAIL <binary>:<test>: <first failure>
 * tests/run.py counts those lines into the final "N passed, N failed". */
#ifndef CP_CHECK_H
#define CP_CHECK_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>

void test_register(const char *name, void (*fn)(void));
void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)                                                        \
	static void name(void);                                           \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		test_register(#name, name);                               \
	}                                                                 \
	static void name(void)

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond))                                              \
			check_fail(__FILE__, __LINE__, "%s", #cond);      \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                \
	do {                                                              \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);          \
		if (a_ != b_)                                             \
			check_fail(__FILE__, __LINE__,                    \
				   "%s == %s (0x%" PRIx64 " != 0x%" PRIx64 \
				   ", %" PRIu64 " != %" PRIu64 ")",       \
				   #a, #b, a_, b_, a_, b_);               \
	} while (0)

#define CHECK_EQ_I64(a, b)                                                \
	do {                                                              \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);             \
		if (a_ != b_)                                             \
			check_fail(__FILE__, __LINE__,                    \
				   "%s == %s (%" PRId64 " != %" PRId64 ")", \
				   #a, #b, a_, b_);                       \
	} while (0)

#define CHECK_STR(a, b)                                                   \
	do {                                                              \
		const char *a_ = (a), *b_ = (b);                          \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                    \
			check_fail(__FILE__, __LINE__,                    \
				   "%s == %s (\"%s\" != \"%s\")", #a, #b, \
				   a_ ? a_ : "(null)", b_ ? b_ : "(null)");  \
	} while (0)

/* Reads a whole fixture file (path relative to the repository root or
 * absolute); aborts the test binary if it is missing. Caller frees. */
void *read_fixture(const char *path, size_t *len);
#endif
