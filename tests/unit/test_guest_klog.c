/* Kernel log -> clocksource history, on real logs: /dev/kmsg records from
 * Debian 6.1 without HPET (the acpi_pm fallback) and from this 6.18 KVM
 * host, and dmesg text from 6.1 (hpet) and 6.12 (tsc) on q35/qemu64/2 and
 * 6.12 losing the refined-jiffies watchdog race. */
#include "check.h"
#include "gparse.h"
#include <stdlib.h>

struct ev {
	uint64_t t_us;
	enum klog_kind kind;
	char cs[GUEST_CS_NAME];
	uint64_t khz;
};

/* Every event (clock lines that are not KLOG_OTHER) of a fixture. */
static uint32_t history_of(const char *path, bool kmsg, struct ev *out, uint32_t cap, uint32_t *clock_lines)
{
	size_t len;
	char *text = read_fixture(path, &len);
	uint32_t n = 0;
	*clock_lines = 0;
	for (size_t i = 0; i < len;) {
		size_t s = i;
		while (i < len && text[i] != '\n')
			i++;
		struct klog_record r;
		if (kmsg)
			CHECK(klog_parse_kmsg(&r, text + s, i - s + (i < len)));
		else
			klog_parse_text_line(&r, text + s, i - s);
		i++;
		if (!klog_is_clock_line(r.msg, r.msg_len))
			continue;
		(*clock_lines)++;
		struct klog_event e;
		klog_classify(&e, r.msg, r.msg_len);
		if (e.kind == KLOG_OTHER || n == cap)
			continue;
		CHECK(r.has_ts);
		out[n].t_us = r.t_us;
		out[n].kind = e.kind;
		str_copy(out[n].cs, GUEST_CS_NAME, e.clocksource);
		out[n].khz = e.khz;
		n++;
	}
	free(text);
	return n;
}

#define CHECK_EV(e, k, name)                                          \
	do {                                                          \
		CHECK_STR(klog_kind_names[(e).kind], klog_kind_names[k]); \
		CHECK_STR((e).cs, name);                              \
	} while (0)

TEST(kmsg_61_no_hpet_acpi_pm_fallback)
{
	struct ev e[32];
	uint32_t lines;
	uint32_t n = history_of("tests/fixtures/guest/kmsg-6.1-q35-nohpet-smp2.txt", true, e, 32, &lines);
	CHECK_EQ_U64(lines, 11);
	CHECK_EQ_U64(n, 10);
	CHECK_EV(e[0], KLOG_TSC_CALIBRATION, "");		/* Fast TSC calibration failed */
	CHECK_EV(e[1], KLOG_REGISTERED, "refined-jiffies");
	CHECK_EV(e[2], KLOG_TSC_CALIBRATION, "");		/* Unable to calibrate against PIT */
	CHECK_EV(e[3], KLOG_TSC_CALIBRATION, "");		/* using PMTIMER reference calibration */
	CHECK_EV(e[4], KLOG_TSC_DETECTED, "");
	CHECK_EQ_U64(e[4].khz, 2095982);
	CHECK_EV(e[5], KLOG_TSC_UNSTABLE, "tsc");		/* TSCs unsynchronized */
	CHECK_EQ_U64(e[5].t_us, 1447);
	CHECK_EV(e[6], KLOG_REGISTERED, "jiffies");
	CHECK_EV(e[7], KLOG_SWITCHED, "refined-jiffies");
	CHECK_EQ_U64(e[7].t_us, 1105788);
	CHECK_EV(e[8], KLOG_REGISTERED, "acpi_pm");
	CHECK_EV(e[9], KLOG_SWITCHED, "acpi_pm");
	CHECK_EQ_U64(e[9].t_us, 1177971);
}

TEST(kmsg_host_kvm_clock)
{
	struct ev e[32];
	uint32_t lines;
	uint32_t n = history_of("tests/fixtures/guest/kmsg-host-6.18-kvmclock.txt", true, e, 32, &lines);
	CHECK_EQ_U64(lines, 12); /* "sched_clock: ..." counts ("clock:"), as for grep */
	CHECK_EQ_U64(n, 6);
	CHECK_EV(e[0], KLOG_REGISTERED, "kvm-clock");
	CHECK_EQ_U64(e[0].t_us, 3);
	CHECK_EV(e[1], KLOG_TSC_DETECTED, "");
	CHECK_EQ_U64(e[1].khz, 2095993);
	CHECK_EV(e[2], KLOG_REGISTERED, "refined-jiffies");
	CHECK_EV(e[3], KLOG_TSC_UNSTABLE, "tsc");	/* tsc=unstable on the command line */
	CHECK_EV(e[4], KLOG_REGISTERED, "jiffies");
	CHECK_EV(e[5], KLOG_SWITCHED, "kvm-clock");
}

TEST(dmesg_61_hpet)
{
	struct ev e[32];
	uint32_t lines;
	uint32_t n = history_of("tests/fixtures/guest/dmesg-6.1-q35-qemu64-smp2.txt", false, e, 32, &lines);
	CHECK_EQ_U64(lines, 17);
	/* registered refined-jiffies, hpet; 2 calibration; detected; unstable;
	 * registered jiffies; switched hpet; registered acpi_pm. */
	CHECK_EQ_U64(n, 9);
	CHECK_EV(e[1], KLOG_REGISTERED, "hpet");
	CHECK_EV(e[5], KLOG_TSC_UNSTABLE, "tsc");
	CHECK_EV(e[7], KLOG_SWITCHED, "hpet");
	CHECK_EQ_U64(e[7].t_us, 708038);
	CHECK_EV(e[8], KLOG_REGISTERED, "acpi_pm");
}

TEST(dmesg_612_tsc_after_refinement)
{
	struct ev e[32];
	uint32_t lines;
	uint32_t n = history_of("tests/fixtures/guest/dmesg-6.12-q35-qemu64-smp2.txt", false, e, 32, &lines);
	CHECK_EQ_U64(lines, 22);
	CHECK_EQ_U64(n, 13);
	CHECK_EV(e[6], KLOG_REGISTERED, "tsc-early");
	CHECK_EV(e[8], KLOG_SWITCHED, "tsc-early");
	CHECK_EV(e[10], KLOG_TSC_REFINED, "tsc");
	CHECK_EQ_U64(e[10].khz, 2095978);
	CHECK_EQ_U64(e[10].t_us, 2273069);
	CHECK_EV(e[11], KLOG_REGISTERED, "tsc");
	CHECK_EV(e[12], KLOG_SWITCHED, "tsc");
}

TEST(dmesg_612_watchdog_demotes_the_tsc)
{
	struct ev e[8];
	uint32_t lines;
	uint32_t n = history_of("tests/fixtures/guest/dmesg-6.12-nohpet-smp1-jiffies-watchdog.txt", false, e, 8, &lines);
	CHECK_EQ_U64(n, 5);
	CHECK_EV(e[0], KLOG_CS_UNSTABLE, "tsc-early");
	CHECK_EQ_U64(e[0].t_us, 1016869);
	CHECK_EV(e[1], KLOG_WATCHDOG, "");	/* ... skewed 80233346 ns over watchdog 'refined-jiffies' */
	CHECK_EV(e[2], KLOG_TSC_UNSTABLE, "tsc");
	CHECK_EV(e[3], KLOG_SWITCHED, "refined-jiffies");
	CHECK_EV(e[4], KLOG_SWITCHED, "acpi_pm");
}

/* Lines from the kernel's format strings that the fixtures above do not
 * hold (kernel/time/clocksource.c, arch/x86/kernel/tsc.c, tsc_sync.c), as
 * the canned test logs of tests/integration/test_linux_guest.py have them. */
TEST(classify_other_kernel_lines)
{
	static const struct {
		const char *line;
		enum klog_kind kind;
		const char *cs;
		uint64_t khz;
	} cases[] = {
		{"clocksource: Marking clocksource tsc-early unstable due to frequency skew", KLOG_CS_UNSTABLE, "tsc-early", 0},
		{"clocksource: Override clocksource acpi_pm is not currently HRT compatible - deferring", KLOG_OVERRIDE, "acpi_pm", 0},
		{"clocksource: Override clocksource hpet is unstable and not HRT compatible - cannot switch while in HRT/NOHZ mode", KLOG_OVERRIDE, "hpet", 0},
		{"TSC synchronization [CPU#0 -> CPU#1]:", KLOG_TSC_WARP, "tsc", 0},
		{"Measured 6752 cycles TSC warp between CPUs, turning off TSC clock.", KLOG_TSC_WARP, "tsc", 0},
		{"tsc: Detected 2445.445 MHz TSC", KLOG_TSC_DETECTED, "", 2445445},
		{"clocksource:                       'refined-jiffies' wd_nsec: 512032000 wd_now: ffff", KLOG_WATCHDOG, "", 0},
		{"clocksource: Long readout interval, skipping watchdog check: cs_nsec: 1 wd_nsec: 2", KLOG_WATCHDOG, "", 0},
		{"clocksource: Switched to clocksource hyperv_clocksource_tsc_page", KLOG_SWITCHED, "hyperv_clocksource_tsc_page", 0},
		{"tsc: PIT calibration matches HPET. 1 loops", KLOG_TSC_CALIBRATION, "", 0},
		{"hpet0: 3 comparators, 64-bit 100.000000 MHz counter", KLOG_OTHER, "", 0},
		{"clocksource: tsc: mask: 0xffffffffffffffff max_cycles: 0x1e3, max_idle_ns: 4 ns", KLOG_REGISTERED, "tsc", 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *l = cases[i].line;
		CHECK(klog_is_clock_line(l, strlen(l)));
		struct klog_event e;
		klog_classify(&e, l, strlen(l));
		CHECK_STR(klog_kind_names[e.kind], klog_kind_names[cases[i].kind]);
		CHECK_STR(e.clocksource, cases[i].cs);
		CHECK_EQ_U64(e.khz, cases[i].khz);
	}
	struct klog_event e;
	klog_classify(&e, "tsc: Detected 2445.445 MHz TSC", 30);
	CHECK(e.khz_is_tsc);
	klog_classify(&e, "tsc: Detected 2095.993 MHz processor", 36);
	CHECK(!e.khz_is_tsc);
	CHECK(!klog_is_clock_line("virtio_blk virtio1: [vda] 4096 blocks", 37));
	CHECK(klog_is_clock_line("NMI WATCHDOG: enabled", 21)); /* case-insensitive, like grep -i */
}

TEST(record_framing)
{
	struct klog_record r;
	/* A /dev/kmsg record with a dictionary line after the message. */
	const char *rec = "4,101,40000,-;tsc: Unable to calibrate against PIT\n SUBSYSTEM=cpu\n";
	CHECK(klog_parse_kmsg(&r, rec, strlen(rec)));
	CHECK_EQ_U64(r.seq, 101);
	CHECK_EQ_U64(r.t_us, 40000);
	CHECK_EQ_U64(r.level, 4);
	CHECK_EQ_U64(r.msg_len, strlen("tsc: Unable to calibrate against PIT"));
	/* A newer kernel's caller field before ';'. */
	const char *caller = "6,7,8,-,caller=T1;clocksource: Switched to clocksource tsc\n";
	CHECK(klog_parse_kmsg(&r, caller, strlen(caller)));
	CHECK_EQ_U64(r.seq, 7);
	CHECK(r.msg[0] == 'c');
	CHECK(!klog_parse_kmsg(&r, "6,7;x\n", 6));
	CHECK(!klog_parse_kmsg(&r, "garbage", 7));
	CHECK(!klog_parse_kmsg(&r, "6,7,8,-", 7));

	/* syslog(2) READ_ALL keeps the <level>; printk.time=0 leaves no stamp. */
	const char *sys = "<6>[    1.177971] clocksource: Switched to clocksource acpi_pm\n";
	klog_parse_text_line(&r, sys, strlen(sys));
	CHECK(r.has_ts);
	CHECK_EQ_U64(r.t_us, 1177971);
	CHECK_EQ_U64(r.level, 6);
	CHECK(r.msg_len == strlen("clocksource: Switched to clocksource acpi_pm"));
	klog_parse_text_line(&r, "[12345.000001] x", 16);
	CHECK_EQ_U64(r.t_us, 12345000001ull);
	klog_parse_text_line(&r, "clocksource: Switched to clocksource tsc", 40);
	CHECK(!r.has_ts);
	CHECK_EQ_U64(r.msg_len, 40);
	klog_parse_text_line(&r, "[ 1.2] short stamp", 18); /* not dmesg's six digits */
	CHECK(!r.has_ts);
	CHECK(r.msg[0] == '[');
}

