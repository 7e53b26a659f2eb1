/* What the contention stage measures, by hypervisor (issue 40). */
#include "check.h"
#include "contention_subject.h"

TEST(tcg_names_the_emulator_lock)
{
	const char *why = NULL;
	CHECK(!strcmp(contention_subject(true, "tcg", &why), "emulator_lock"));
	CHECK(why && strstr(why, "global lock") && strstr(why, "scheduling") && strstr(why, "not the clock device"));
}

TEST(other_platforms_measure_the_read_path)
{
	const char *why = NULL;
	CHECK(!strcmp(contention_subject(true, "kvm", &why), "clock_read_path"));
	CHECK(why && !strstr(why, "emulator"));
	CHECK(!strcmp(contention_subject(false, NULL, &why), "clock_read_path"));
	CHECK(!strcmp(contention_subject(true, NULL, &why), "clock_read_path"));
	/* "tcg" only counts when a hypervisor was found */
	CHECK(!strcmp(contention_subject(false, "tcg", &why), "clock_read_path"));
}
