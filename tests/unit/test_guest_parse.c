/* clockprobe-guest's text parsers on recorded text: available_clocksource
 * and current_clocksource as sysfs prints them, /proc/cpuinfo of a TCG
 * guest and of a KVM guest, and the numbers inside kernel lines. */
#include "check.h"
#include "gparse.h"
#include <stdlib.h>

TEST(available_clocksource_as_sysfs_prints_it)
{
	struct cs_list l;
	/* sysfs: every name followed by a blank, then "\n" (recorded with od -c
	 * from 6.1 on q35,hpet=off: "acpi_pm \n"). */
	cs_list_parse(&l, "acpi_pm \n", 9);
	CHECK_EQ_U64(l.n, 1);
	CHECK_STR(l.name[0], "acpi_pm");
	CHECK_EQ_U64(l.invalid + l.dropped, 0);

	const char *three = "tsc hpet acpi_pm \n";
	cs_list_parse(&l, three, strlen(three));
	CHECK_EQ_U64(l.n, 3);
	CHECK_STR(l.name[0], "tsc");
	CHECK_STR(l.name[1], "hpet");
	CHECK_STR(l.name[2], "acpi_pm");
	CHECK(cs_list_has(&l, "hpet"));
	CHECK(!cs_list_has(&l, "kvm-clock"));

	const char *kvm = "kvm-clock \n";
	cs_list_parse(&l, kvm, strlen(kvm));
	CHECK_EQ_U64(l.n, 1);
	CHECK_STR(l.name[0], "kvm-clock");

	cs_list_parse(&l, "", 0);
	CHECK_EQ_U64(l.n, 0);
}

TEST(clocksource_names_refused_when_not_names)
{
	struct cs_list l;
	/* A name that could not be written back to sysfs safely, or one longer
	 * than the kernel's CS_NAME_LEN, is counted and never kept. */
	const char *bad = "tsc ../../etc/passwd hpet$(reboot) 0123456789012345678901234567890123 acpi_pm\n";
	cs_list_parse(&l, bad, strlen(bad));
	CHECK_EQ_U64(l.n, 2);
	CHECK_STR(l.name[1], "acpi_pm");
	CHECK_EQ_U64(l.invalid, 3);
	CHECK(cs_name_valid("hyperv_clocksource_tsc_page", 27));
	CHECK(!cs_name_valid("", 0));
	CHECK(!cs_name_valid("a b", 3));

	char many[512] = "";
	for (int i = 0; i < 20; i++)
		strcat(many, "tsc ");
	cs_list_parse(&l, many, strlen(many));
	CHECK_EQ_U64(l.n, GUEST_CS_MAX);
	CHECK_EQ_U64(l.dropped, 20 - GUEST_CS_MAX);
}

TEST(current_clocksource_one_word)
{
	char cur[GUEST_CS_NAME];
	CHECK(cs_current_parse(cur, "kvm-clock\n", 10));
	CHECK_STR(cur, "kvm-clock");
	CHECK(cs_current_parse(cur, "tsc", 3));
	CHECK_STR(cur, "tsc");
	CHECK(!cs_current_parse(cur, "tsc hpet\n", 9));
	CHECK_STR(cur, "");
	CHECK(!cs_current_parse(cur, "\n", 1));
	CHECK(!cs_current_parse(cur, "x;y\n", 4));
}

TEST(cpuinfo_tcg_qemu64)
{
	size_t len;
	char *text = read_fixture("tests/fixtures/guest/cpuinfo-tcg-qemu64-smp2.txt", &len);
	struct cpuinfo_facts f;
	cpuinfo_parse(&f, text, len);
	CHECK(f.flags_found);
	CHECK_EQ_U64(f.processors, 2);
	/* qemu64 under TCG: a TSC, no invariant bit, no RDTSCP, and Linux
	 * added neither constant_tsc nor tsc_known_freq. */
	CHECK(f.flag[CPUF_TSC]);
	CHECK(!f.flag[CPUF_CONSTANT_TSC]);
	CHECK(!f.flag[CPUF_NONSTOP_TSC]);
	CHECK(!f.flag[CPUF_TSC_KNOWN_FREQ]);
	CHECK(!f.flag[CPUF_TSC_RELIABLE]);
	CHECK(!f.flag[CPUF_TSC_ADJUST]);
	CHECK(!f.flag[CPUF_RDTSCP]);
	CHECK(f.flag[CPUF_HYPERVISOR]);
	CHECK_EQ_U64(f.flags_differ, 0);
	free(text);
}

TEST(cpuinfo_kvm_invariant_tsc)
{
	size_t len;
	char *text = read_fixture("tests/fixtures/guest/cpuinfo-host-6.18-kvmclock.txt", &len);
	struct cpuinfo_facts f;
	cpuinfo_parse(&f, text, len);
	CHECK(f.flags_found);
	CHECK_EQ_U64(f.processors, 2);
	CHECK(f.flag[CPUF_TSC]);
	CHECK(f.flag[CPUF_CONSTANT_TSC]);
	CHECK(f.flag[CPUF_NONSTOP_TSC]);
	CHECK(f.flag[CPUF_TSC_KNOWN_FREQ]);
	CHECK(f.flag[CPUF_TSC_RELIABLE]);
	CHECK(f.flag[CPUF_TSC_DEADLINE_TIMER]);
	/* "tsc_deadline_timer" and "tsc_known_freq" contain "tsc": whole
	 * words only, and this CPU model has no rdtscp. */
	CHECK(!f.flag[CPUF_RDTSCP]);
	CHECK(!f.flag[CPUF_TSC_ADJUST]);
	free(text);
}

TEST(cpuinfo_flags_that_differ_between_cpus)
{
	const char *text = "processor\t: 0\nflags\t\t: fpu tsc constant_tsc\n\n"
			   "processor\t: 1\nflags\t\t: fpu tsc\n\n";
	struct cpuinfo_facts f;
	cpuinfo_parse(&f, text, strlen(text));
	CHECK_EQ_U64(f.processors, 2);
	CHECK(f.flag[CPUF_CONSTANT_TSC]);
	CHECK_EQ_U64(f.flags_differ, 1u << CPUF_CONSTANT_TSC);
	/* No flags line at all (a cut file). */
	cpuinfo_parse(&f, "processor\t: 0\n", 14);
	CHECK(!f.flags_found);
	/* "flagsx : tsc" is no flags line. */
	cpuinfo_parse(&f, "flagsx\t: tsc\n", 13);
	CHECK(!f.flags_found);
}

TEST(mhz_to_khz)
{
	uint64_t khz;
	CHECK(parse_mhz_to_khz("2095.978 MHz", 12, &khz));
	CHECK_EQ_U64(khz, 2095978);
	CHECK(parse_mhz_to_khz("2594.45", 7, &khz));
	CHECK_EQ_U64(khz, 2594450);
	CHECK(parse_mhz_to_khz("3000", 4, &khz));
	CHECK_EQ_U64(khz, 3000000);
	CHECK(parse_mhz_to_khz("2445.4321", 9, &khz)); /* kept to the kHz */
	CHECK_EQ_U64(khz, 2445432);
	CHECK(!parse_mhz_to_khz("MHz", 3, &khz));
	CHECK(!parse_mhz_to_khz("12.", 3, &khz));
	CHECK(!parse_mhz_to_khz("99999999999999999999", 20, &khz));
	uint64_t v;
	size_t used;
	CHECK(parse_u64("123abc", 6, &v, &used));
	CHECK_EQ_U64(v, 123);
	CHECK_EQ_U64(used, 3);
	CHECK(!parse_u64("18446744073709551616", 20, &v, &used));
	CHECK(parse_u64("18446744073709551615", 20, &v, &used));
	CHECK_EQ_U64(v, UINT64_MAX);
}

