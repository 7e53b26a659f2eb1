/* Watch mode's pure parts (the RTC decode it shares with the run
 * identity is tested in test_identity.c): the event rules on series
 * shaped like the runs recorded under TCG and the nested KVM here, the
 * Linux watchdog replay per era, the record's JSON and the settings. */
#include "check.h"
#include "settings.h"
#include "report.h"

/* ---- events ------------------------------------------------------------ */

#define MS 1000000ull

struct series_ref {
	const char *name;
	bool wall;
	uint64_t ref_ms, tsc_ms;
};

static void interval(struct watch_interval *iv, uint32_t seq, const struct series_ref *refs, unsigned n)
{
	memset(iv, 0, sizeof *iv);
	iv->seq = seq;
	iv->start_ms = (seq - 1) * 2000;
	iv->end_ms = seq * 2000;
	iv->ref_count = n;
	for (unsigned i = 0; i < n; i++) {
		iv->ref[i].name = refs[i].name;
		iv->ref[i].is_wall = refs[i].wall;
		iv->ref[i].valid = true;
		iv->ref[i].ref_ns = refs[i].ref_ms * MS;
		iv->ref[i].tsc_ns = refs[i].tsc_ms * MS;
		iv->ref[i].uncertainty_ns = refs[i].wall ? 40000 : 200;
	}
	str_copy(iv->identity.signature, sizeof iv->identity.signature, "TCGTCGTCGTCG");
}

static struct watch_detector det;

static void start(void)
{
	struct watch_config cfg;
	watch_config_default(&cfg);
	watch_detector_init(&det, &cfg);
}

TEST(events_tcg_stop_cont_is_a_pause_seen_by_wall_time)
{
	/* Recorded shape, QEMU TCG, QMP stop for 3 s in interval 2: TSC, HPET
	 * and PM timer all froze (2 s each), the RTC counted 5 s. */
	start();
	struct watch_interval iv;
	struct series_ref quiet[] = { { "hpet", false, 2000, 2000 }, { "acpi_pm", false, 2000, 2000 },
				      { "cmos_rtc", true, 2000, 2000 } };
	interval(&iv, 1, quiet, 3);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 0);
	struct series_ref stopped[] = { { "hpet", false, 2000, 2000 }, { "acpi_pm", false, 2000, 2000 },
					{ "cmos_rtc", true, 5000, 2000 } };
	interval(&iv, 2, stopped, 3);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 1);
	CHECK_EQ_U64(det.events[0].type, WATCH_EVENT_PAUSE);
	CHECK(det.events[0].has_duration);
	CHECK_EQ_U64(det.events[0].duration_us, 3000000);
	CHECK_EQ_U64(det.events[0].at_ms, 2000);
	CHECK(strstr(det.events[0].evidence, "wall time") != NULL);
	CHECK_EQ_I64(det.ref[2].cumulative_offset_ns, -3000 * (int64_t)MS);
	CHECK_EQ_U64(det.paused_us, 3000000);
}

TEST(events_kvm_stop_cont_is_a_pause_the_tsc_jumped_through)
{
	/* Under KVM the TSC runs on through a stop while QEMU's HPET, PM timer
	 * and kvm-clock stand still: the TSC agrees with wall time and jumps
	 * against the counters. */
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "kvm-clock", false, 2000, 5000 }, { "hpet", false, 2000, 5000 },
				  { "acpi_pm", false, 2000, 5000 }, { "cmos_rtc", true, 5000, 5000 } };
	interval(&iv, 1, s, 4);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 1);
	CHECK_EQ_U64(det.events[0].type, WATCH_EVENT_PAUSE);
	CHECK_EQ_U64(det.events[0].duration_us, 3000000);
	CHECK(strstr(det.events[0].evidence, "jumped against") != NULL);
}

TEST(events_tsc_jump_against_everything)
{
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2500 }, { "cmos_rtc", true, 2000, 2500 } };
	interval(&iv, 1, s, 2);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 1);
	CHECK_EQ_U64(det.events[0].type, WATCH_EVENT_TSC_JUMP);
	CHECK(!det.events[0].has_duration);
	/* Below the threshold (25 ms + uncertainty): nothing. */
	start();
	struct series_ref small[] = { { "hpet", false, 2000, 2020 }, { "cmos_rtc", true, 2000, 2020 } };
	interval(&iv, 1, small, 2);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 0);
}

TEST(events_without_wall_time)
{
	start();
	struct watch_interval iv;
	struct series_ref ahead[] = { { "hpet", false, 2000, 4000 } };
	interval(&iv, 1, ahead, 1);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events[0].type, WATCH_EVENT_PAUSE);
	struct series_ref behind[] = { { "hpet", false, 4000, 2000 } };
	interval(&iv, 2, behind, 1);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events[1].type, WATCH_EVENT_TSC_JUMP);
}

TEST(events_a_stopped_source_is_an_event_once)
{
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 0, 2000 }, { "acpi_pm", false, 2000, 2000 },
				  { "cmos_rtc", true, 2000, 2000 } };
	for (uint32_t seq = 1; seq <= 3; seq++) {
		interval(&iv, seq, s, 3);
		watch_detect(&det, &iv);
	}
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_SOURCE_STOPPED], 1);
	CHECK_EQ_U64(det.events_total, 1); /* and no pause or jump from it */
	CHECK(det.ref[0].stopped);
	s[0].ref_ms = 2000;
	interval(&iv, 4, s, 3);
	watch_detect(&det, &iv);
	CHECK(!det.ref[0].stopped);
}

TEST(events_rate_change_after_migration)
{
	/* 2 s intervals; the TSC runs 2000 ppm fast against the HPET from
	 * interval 3 on (a host with another TSC rate and no scaling). */
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2000 }, { "cmos_rtc", true, 2000, 2000 } };
	for (uint32_t seq = 1; seq <= 2; seq++) {
		interval(&iv, seq, s, 2);
		watch_detect(&det, &iv);
	}
	interval(&iv, 3, s, 2);
	iv.ref[0].tsc_ns = 2004 * MS;
	iv.ref[1].tsc_ns = 2004 * MS;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_RATE_CHANGE], 1);
	CHECK(strstr(det.events[0].evidence, "hpet") != NULL);
	CHECK_EQ_I64(det.ref[0].drift_mppm, 2000000);
	/* Wall time alone moving by 1000 ppm (host NTP slewing) is no event. */
	start();
	for (uint32_t seq = 1; seq <= 3; seq++) {
		interval(&iv, seq, s, 2);
		if (seq == 3)
			iv.ref[1].ref_ns = 2002 * MS;
		watch_detect(&det, &iv);
	}
	CHECK_EQ_U64(det.events_total, 0);
}

TEST(events_identity_and_kvmclock)
{
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "kvm-clock", false, 2000, 2000 } };
	interval(&iv, 1, s, 1);
	iv.kvmclock_present = true;
	iv.kvmclock_stable = true;
	iv.identity.advertised_tsc_hz = 2100000000;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 0);
	interval(&iv, 2, s, 1);
	iv.kvmclock_present = true;
	iv.kvmclock_stable = false;
	iv.kvmclock_version = 42;
	iv.identity.advertised_tsc_hz = 2600000000;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_IDENTITY_CHANGE], 1);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_KVMCLOCK_UNSTABLE], 1);
	CHECK(strstr(det.events[0].evidence, "2100000000 -> 2600000000") != NULL);
}

/* QEMU's VMClock page (hw/acpi/vmclock.c): the marker is 1 after realize
 * (tests/fixtures/acpi/ovmf-q35-vmclock/VMCLOCK.bin) and post_load bumps
 * it on the destination of a live migration: 1 -> 2 there. */
TEST(events_vmclock_disruption_on_migration)
{
	start();
	watch_detector_vmclock_start(&det, 1, 0);
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2000 }, { "cmos_rtc", true, 2000, 2000 } };
	for (uint32_t seq = 1; seq <= 4; seq++) {
		interval(&iv, seq, s, 2);
		iv.vmclock_present = true;
		iv.vmclock_disruption_marker = seq < 3 ? 1 : 2;
		watch_detect(&det, &iv);
	}
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_VMCLOCK_DISRUPTION], 1);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_VM_GENERATION], 0);
	CHECK_EQ_U64(det.events_total, 1);
	CHECK_EQ_U64(det.events[0].type, WATCH_EVENT_VMCLOCK_DISRUPTION);
	CHECK_EQ_U64(det.events[0].at_ms, 4000);
	CHECK(strstr(det.events[0].evidence, "disruption_marker 1 -> 2") != NULL);
	CHECK(strstr(det.events[0].evidence, "(interval 3)") != NULL);
	CHECK_STR(watch_event_name(WATCH_EVENT_VMCLOCK_DISRUPTION), "vmclock_disruption");
	CHECK_STR(watch_event_name(WATCH_EVENT_VM_GENERATION), "vm_generation");
}

/* A change inside the first interval is measured against the report's
 * snapshot; an interval whose page could not be read changes nothing;
 * the marker need not grow ("another non-repeating value"). */
TEST(events_vmclock_first_interval_unread_and_any_change)
{
	start();
	watch_detector_vmclock_start(&det, 7, 3);
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2000 } };
	interval(&iv, 1, s, 1);
	iv.vmclock_present = true;
	iv.vmclock_disruption_marker = 5;
	iv.vmclock_generation = 4;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_VMCLOCK_DISRUPTION], 1);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_VM_GENERATION], 1);
	CHECK(strstr(det.events[1].evidence, "vm_generation_counter 3 -> 4") != NULL);
	interval(&iv, 2, s, 1); /* the page not read this time */
	watch_detect(&det, &iv);
	interval(&iv, 3, s, 1);
	iv.vmclock_present = true;
	iv.vmclock_disruption_marker = 5;
	iv.vmclock_generation = 4;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 2);
	/* No VMClock at all: never an event. */
	start();
	interval(&iv, 1, s, 1);
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 0);
}

TEST(events_warp_from_the_recheck)
{
	/* A re-check that saw warps is a warp event; gap figures add up; an
	 * absent re-check (one CPU, UEFI after ExitBootServices) is none. */
	start();
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2000 }, { "cmos_rtc", true, 2000, 2000 } };
	interval(&iv, 1, s, 2);
	iv.recheck.xcpu_reason = "no AP start-up after ExitBootServices on the UEFI build";
	iv.recheck.gaps_measured = true;
	iv.recheck.gap_count = 5;
	iv.recheck.gap_max_ns = 8087779;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.events_total, 0);
	CHECK_EQ_U64(det.xcpu_rechecks, 0);
	interval(&iv, 2, s, 2);
	iv.recheck.xcpu_ran = true;
	iv.recheck.xcpu_tested = 2;
	iv.recheck.xcpu_iterations = 2000;
	iv.recheck.warps = 3;
	iv.recheck.max_warp_ns = 1250;
	iv.recheck.gaps_measured = true;
	iv.recheck.gap_count = 4;
	iv.recheck.gap_max_ns = 4078013;
	watch_detect(&det, &iv);
	CHECK_EQ_U64(det.per_type[WATCH_EVENT_WARP], 1);
	CHECK_EQ_U64(det.events[0].at_ms, 2000);
	CHECK(!det.events[0].has_duration);
	CHECK_STR(det.events[0].evidence, "3 TSC warps between 2 CPUs, the largest 1250 ns (interval 2, 2000 rounds per CPU)");
	CHECK_EQ_U64(det.xcpu_rechecks, 1);
	CHECK_EQ_U64(det.warps_total, 3);
	CHECK_EQ_U64(det.gap_scans, 2);
	CHECK_EQ_U64(det.gaps_total, 9);
	CHECK_EQ_U64(det.gap_max_ns, 8087779);
}

/* ---- watchdog replay --------------------------------------------------- */

#define Y VERDICT_YES
#define N VERDICT_NO

static void present(struct verdict_input *in, enum verdict_source s, uint64_t cost_milli)
{
	in->sources[s].present = Y;
	in->sources[s].read_ns_milli = cost_milli;
}

/* The facts of the recorded TCG run (tests/fixtures/watch/tcg-stop-cont.log):
 * qemu64 (AuthenticAMD family 15), one vCPU, q35 with HPET and PM timer, no
 * invariant TSC, nothing paravirt. */
static struct verdict_input tcg_facts(void)
{
	struct verdict_input in = { 0 };
	in.vendor = VERDICT_VENDOR_AMD;
	in.family = 0xf;
	in.model = 107;
	in.logical_cpus = in.possible_cpus = in.xcpu_tested = 1;
	in.packages = 1;
	in.tsc = in.acpi = in.legacy_pic = in.hypervisor_bit = Y;
	in.hw_reduced = in.invariant_tsc = in.tsc_adjust = N;
	in.hypervisor = in.signatures[0] = "tcg";
	in.signature_count = 1;
	present(&in, VERDICT_SRC_TSC, 20000);
	present(&in, VERDICT_SRC_PIT, 0);
	present(&in, VERDICT_SRC_HPET, 500000);
	present(&in, VERDICT_SRC_ACPI_PM, 3000000);
	return in;
}

/* The nested KVM here: kvm-clock with the stable bit (its frequency, so
 * TSC_KNOWN_FREQ), no invariant TSC, Skylake-Server, 2 vCPUs. */
static struct verdict_input kvm_facts(void)
{
	struct verdict_input in = tcg_facts();
	in.vendor = VERDICT_VENDOR_INTEL;
	in.family = 6;
	in.model = 0x55;
	in.logical_cpus = in.possible_cpus = in.xcpu_tested = 2;
	in.hypervisor = in.signatures[0] = "kvm";
	in.kvm_clocksource = in.kvm_clocksource2 = in.kvm_stable_bit = in.pvclock_stable = Y;
	in.freq_by = VERDICT_FREQ_PVCLOCK;
	in.tsc_known_freq = Y;
	in.tsc_adjust = Y;
	present(&in, VERDICT_SRC_KVMCLOCK, 30000);
	return in;
}

static struct verdict_wd_era eras[VERDICT_MAX_WD_ERAS];
static unsigned era_count;

static void eras_of(const struct verdict_input *in)
{
	era_count = verdict_watchdog_eras(in, eras, VERDICT_MAX_WD_ERAS);
}

/* The era that holds `kernel`. */
static const struct verdict_wd_era *era_for(const char *kernel)
{
	unsigned kv = 0;
	CHECK(verdict_kernel_parse(kernel, strlen(kernel), &kv));
	const struct verdict_wd_era *found = NULL;
	for (unsigned i = 0; i < era_count; i++)
		if (eras[i].kver <= kv)
			found = &eras[i];
	CHECK(found != NULL);
	return found;
}

static const char *range_of(const struct verdict_wd_era *e)
{
	static char buf[24];
	wd_era_range(buf, sizeof buf, e);
	return buf;
}

#define HPET_HZ 100000000ull
#define PM_HZ 3579545ull
#define KVMCLOCK_HZ 1000000000ull

/* Feeds ticks of 0.5 s where the TSC and the watchdog agree, then one
 * where the TSC ran cs_ms while the watchdog ran wd_ms. */
static void replay_jump(struct wd_replay *r, uint64_t hz, uint64_t cs_ms, uint64_t wd_ms)
{
	for (int i = 0; i < 4; i++) {
		struct wd_tick t = { .at_ms = (uint64_t)i * 500, .cs_ns = 500 * MS, .wd_ticks = hz / 2, .wd_read_ns = 1000 };
		wd_replay_feed(r, &t);
	}
	struct wd_tick t = { .at_ms = 2000 + cs_ms, .cs_ns = cs_ms * MS, .wd_ticks = hz / 1000 * wd_ms,
			     .wd_read_ns = 1000 };
	wd_replay_feed(r, &t);
}

TEST(eras_are_the_verdicts)
{
	/* TCG: the TSC is watched by hpet in every era; the boundaries are
	 * the verdict's (docs/verdict-rules.md, "Kernel eras"): 5.10 carries
	 * the 100 us margins, read-back check and skip; 5.14 the read-back
	 * check and the 50 us margins; 5.15 (5.15.y) the 100 us ones and the
	 * skip; 5.16 (5.16.y carries c86ff8c55b8a) as 5.17, the 100 us
	 * margins; 6.1 the skip; 6.3 the
	 * 125 us margins; 6.6 and 6.7 the skip; 6.8 the skip; 6.12 the
	 * margins-based read-back bound at 500/250 us (6.12.y carries
	 * c06343be0b4e), 6.13-6.17 at 4ac1dd3245b9's 750/500 us, 6.18 (6.18.y)
	 * and 6.19 (c06343be0b4e) at 500/250 us again; 7.1 the rewrite. */
	struct verdict_input in = tcg_facts();
	eras_of(&in);
	static const char *const want[] = { "4.19-5.9", "5.10", "5.11-5.13", "5.14", "5.15", "5.16-6.0",
					    "6.1", "6.2", "6.3-6.5", "6.6-6.11", "6.12", "6.13-6.17", "6.18-7.0", "7.1+" };
	CHECK_EQ_U64(era_count, ARRAY_SIZE(want));
	for (unsigned i = 0; i < era_count && i < ARRAY_SIZE(want); i++) {
		CHECK_STR(range_of(&eras[i]), want[i]);
		CHECK(eras[i].watched);
		CHECK_STR(eras[i].watchdog, "hpet");
		CHECK_STR(eras[i].fallback, "hpet");
	}
	CHECK_EQ_U64(era_for("4.19")->margin_ns, 62500000);
	CHECK_EQ_U64(era_for("5.14")->margin_ns, 200000);
	CHECK_EQ_U64(era_for("5.16")->margin_ns, 400000);
	CHECK_EQ_U64(era_for("5.17")->margin_ns, 400000);
	CHECK_EQ_U64(era_for("6.12")->margin_ns, 500000);
	CHECK_EQ_U64(era_for("6.12")->readback_bound_ns, 500000);
	CHECK_EQ_U64(era_for("6.12")->readback_skip_ns, 250000);
	CHECK_EQ_U64(era_for("6.13")->readback_bound_ns, 750000);
	CHECK_EQ_U64(era_for("6.17")->readback_skip_ns, 500000);
	CHECK_EQ_U64(era_for("6.18")->readback_bound_ns, 500000);
	CHECK_EQ_U64(era_for("7.0")->readback_skip_ns, 250000);
	CHECK_EQ_U64(era_for("5.14")->readback_bound_ns, 50000);
	CHECK_EQ_U64(era_for("5.17")->readback_bound_ns, 100000);
	CHECK_EQ_U64(era_for("6.3")->readback_bound_ns, 125000);
	CHECK(!era_for("5.13")->readback_check);
	CHECK(era_for("6.1")->skip_long_interval);
	CHECK(!era_for("6.2")->skip_long_interval);
	/* 7.2: hpet and a TSC refined against it are both calibrated. */
	CHECK_EQ_U64(era_for("7.2")->check, VERDICT_WD_FREQ);
	CHECK_EQ_U64(era_for("7.2")->freq_shift, 11);
	CHECK_EQ_U64(era_for("7.2")->skew_ppm, 488);
	CHECK_EQ_U64(era_for("7.2")->readout_retry_ns, 50000);
	CHECK_EQ_U64(era_for("6.3")->skew_ppm, 1000);
}

TEST(eras_kvm_watchdog_is_kvmclock_and_uncalibrated)
{
	struct verdict_input in = kvm_facts();
	eras_of(&in);
	const struct verdict_wd_era *e = era_for("7.2");
	CHECK_STR(e->watchdog, "kvm-clock");
	CHECK_STR(e->clocksource, "kvm-clock"); /* 400 beats the TSC: a demotion changes no read */
	CHECK_EQ_U64(e->freq_shift, 8);
	CHECK_EQ_U64(e->skew_ppm, 3906);
	/* Invariant TSC with TSC_ADJUST on one node: exempt from 5.16 (and
	 * the 5.10/5.15 backports), kvm-clock 299 so tsc is read. */
	in.invariant_tsc = Y;
	eras_of(&in);
	CHECK(era_for("5.9")->watched);
	CHECK(era_for("5.10")->exempt);
	CHECK(era_for("5.11")->watched);
	CHECK(era_for("6.12")->exempt);
	CHECK_STR(era_for("6.12")->clocksource, "tsc");
	struct wd_replay r;
	wd_replay_init(&r, era_for("6.12"), KVMCLOCK_HZ, 64);
	CHECK_EQ_U64(r.state, WD_EXEMPT);
	wd_replay_init(&r, era_for("5.9"), 0, 0);
	CHECK_EQ_U64(r.state, WD_ABSENT);
}

/* The outcome per era of the nested-KVM stop/cont series: the TSC ran on
 * 3 s while kvm-clock stood still (events_kvm_stop_cont_...). */
TEST(replay_kvm_pause_by_era)
{
	struct verdict_input in = kvm_facts();
	eras_of(&in);
	static const struct {
		const char *kernel;
		enum wd_state state;
	} want[] = { { "4.19", WD_UNSTABLE }, { "5.10", WD_WATCHING }, { "5.13", WD_UNSTABLE },
		     { "5.14", WD_UNSTABLE }, { "5.15", WD_WATCHING }, { "5.16", WD_UNSTABLE },
		     { "6.1", WD_WATCHING },  { "6.2", WD_UNSTABLE },  { "6.3", WD_UNSTABLE },
		     { "6.6", WD_WATCHING },  { "6.12", WD_WATCHING }, { "7.2", WD_WATCHING } };
	for (unsigned i = 0; i < ARRAY_SIZE(want); i++) {
		struct wd_replay r;
		wd_replay_init(&r, era_for(want[i].kernel), KVMCLOCK_HZ, 64);
		replay_jump(&r, KVMCLOCK_HZ, 3500, 500);
		CHECK_EQ_U64(r.state, want[i].state);
		if (r.state == WD_UNSTABLE) {
			CHECK_EQ_I64(r.unstable_skew_ns, 3000 * (int64_t)MS);
			CHECK_EQ_U64(r.unstable_at_ms, 5500);
			CHECK_EQ_U64(r.checks, 4); /* the first tick only initialises */
		} else {
			CHECK_EQ_U64(r.skipped_long, 1);
		}
	}
}

/* The TCG stop/cont series: every counter and the TSC stood still, so
 * each watchdog round sees 0.5 s on both sides; no era objects. */
TEST(replay_tcg_pause_is_invisible_to_every_era)
{
	struct verdict_input in = tcg_facts();
	eras_of(&in);
	for (unsigned i = 0; i < era_count; i++) {
		struct wd_replay r;
		wd_replay_init(&r, &eras[i], HPET_HZ, 32);
		replay_jump(&r, HPET_HZ, 500, 500);
		CHECK_EQ_U64(r.state, WD_WATCHING);
		CHECK_EQ_U64(r.checks, 4);
	}
}

TEST(replay_margins_differ_by_era)
{
	struct verdict_input in = tcg_facts();
	eras_of(&in);
	struct wd_replay r;
	/* 1 ms of skew in 0.5 s: inside 62.5 ms, beyond 400 us and 500 us,
	 * beyond 7.2's 500 ms >> 11 = 244 us (+ the 1 us read). */
	static const char *const kept[] = { "4.19", "5.13" };
	static const char *const lost[] = { "5.10", "5.14", "5.16", "6.3", "6.12", "7.2" };
	for (unsigned i = 0; i < ARRAY_SIZE(kept); i++) {
		wd_replay_init(&r, era_for(kept[i]), HPET_HZ, 32);
		replay_jump(&r, HPET_HZ, 501, 500);
		CHECK_EQ_U64(r.state, WD_WATCHING);
		CHECK_EQ_I64(r.max_abs_skew_ns, 1 * (int64_t)MS);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(lost); i++) {
		wd_replay_init(&r, era_for(lost[i]), HPET_HZ, 32);
		replay_jump(&r, HPET_HZ, 501, 500);
		CHECK_EQ_U64(r.state, WD_UNSTABLE);
	}
	/* 300 us: within 5.17's (and 5.16.y's) 400 us, beyond 5.14's 200 us
	 * (WATCHDOG_MAX_SKEW 50 us) and 7.2's 244 us + 1 us. */
	struct wd_tick t0 = { .at_ms = 0, .cs_ns = 0, .wd_ticks = 0, .wd_read_ns = 1000 };
	struct wd_tick t1 = { .at_ms = 500, .cs_ns = 500300000, .wd_ticks = HPET_HZ / 2, .wd_read_ns = 1000 };
	wd_replay_init(&r, era_for("5.17"), HPET_HZ, 32);
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	wd_replay_init(&r, era_for("5.16"), HPET_HZ, 32);
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	wd_replay_init(&r, era_for("5.14"), HPET_HZ, 32);
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	wd_replay_init(&r, era_for("7.2"), HPET_HZ, 32);
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK_EQ_I64(r.unstable_skew_ns, 300000);
	CHECK_STR(r.reason, "frequency skew beyond delta >> shift");
	/* Without HPET, kvm-clock watching on 7.2: delta >> 8 = 1.95 ms. */
	struct verdict_input k = kvm_facts();
	eras_of(&k);
	wd_replay_init(&r, era_for("7.2"), KVMCLOCK_HZ, 64);
	replay_jump(&r, KVMCLOCK_HZ, 501, 500);
	CHECK_EQ_U64(r.state, WD_WATCHING);
}

TEST(replay_pm_timer_wrap_is_seen_through_the_mask)
{
	/* A 5 s gap with both clocks running: the 24-bit PM timer wrapped once
	 * (2^24 ticks = 4.687 s), so the kernel sees 0.313 s against 5 s. */
	struct verdict_input in = tcg_facts();
	in.sources[VERDICT_SRC_HPET].present = N;
	eras_of(&in);
	CHECK_STR(era_for("6.2")->watchdog, "acpi_pm");
	struct wd_replay r;
	wd_replay_init(&r, era_for("6.2"), PM_HZ, 24);
	replay_jump(&r, PM_HZ, 5000, 5000);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK(r.unstable_skew_ns > 4600 * (int64_t)MS && r.unstable_skew_ns < 4700 * (int64_t)MS);
	wd_replay_init(&r, era_for("6.8"), PM_HZ, 24);
	replay_jump(&r, PM_HZ, 5000, 5000);
	CHECK_EQ_U64(r.state, WD_WATCHING); /* 5 s > 1 s: skipped */
}

TEST(replay_read_back_by_era)
{
	struct verdict_input in = tcg_facts();
	in.sources[VERDICT_SRC_HPET].present = N;
	eras_of(&in);
	struct wd_replay r;
	/* A PM timer read of 300 us (a trapped, delayed port read): over
	 * 6.12's 500 us bound? no; over its 250 us skip? no -- kept.  5.17:
	 * over the 100 us bound and the 50 us skip: skipped, the watchdog
	 * suspended. */
	struct wd_tick slow = { .at_ms = 0, .cs_ns = 500 * MS, .wd_ticks = PM_HZ / 2, .wd_read_ns = 300000 };
	wd_replay_init(&r, era_for("6.12"), PM_HZ, 24);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 0);
	/* 5.14 had no wd-wd skip yet (c86ff8c55b8a, 5.17): never skipped */
	wd_replay_init(&r, era_for("5.14"), PM_HZ, 24);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 0);
	wd_replay_init(&r, era_for("5.17"), PM_HZ, 24);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 1);
	CHECK_EQ_U64(r.suspended_until_ms, 300000);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	/* 600 us: over 6.12's bound and skip: skipped too. */
	slow.wd_read_ns = 600000;
	wd_replay_init(&r, era_for("6.12"), PM_HZ, 24);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 1);
	/* Before 5.14 there was no such check. */
	wd_replay_init(&r, era_for("5.13"), PM_HZ, 24);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 0);
	CHECK(r.started);
	/* 7.2: over 50 us is retried next round, never fatal. */
	slow.wd_read_ns = 60000;
	wd_replay_init(&r, era_for("7.2"), PM_HZ, 24);
	for (int i = 0; i < 10; i++) {
		slow.at_ms = (uint64_t)i * 500;
		wd_replay_feed(&r, &slow);
	}
	CHECK_EQ_U64(r.retried_readout, 10);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	CHECK_EQ_U64(r.checks, 0);
}

/* ---- record JSON and sentence ------------------------------------------ */

static struct watch_result wr;

TEST(record_json_and_sentence)
{
	memset(&wr, 0, sizeof wr);
	start();
	wr.det = det;
	struct watch_interval iv;
	struct series_ref s[] = { { "hpet", false, 2000, 2000 }, { "cmos_rtc", true, 5000, 2000 } };
	interval(&iv, 1, s, 2);
	watch_detect(&wr.det, &iv);
	wr.last = iv;
	wr.status = "ok";
	wr.seq = 1;
	wr.run_id = "00000000deadbeef";
	wr.interval_s = 2;
	wr.elapsed_tsc_ms = 2000;
	wr.rtc_valid = true;
	wr.elapsed_rtc_ms = 5000;
	wr.watchdog = "kvm-clock";
	wr.main_kernel = "6.18";
	/* The nested-KVM stop/cont: 6.6-7.1 holds 6.18 and skips the 3.5 s
	 * round; 6.3-6.5 (the newest era that differs) marks tsc unstable
	 * and reads stay on kvm-clock; on TCG's facts reads fall to hpet. */
	struct verdict_input in = kvm_facts();
	eras_of(&in);
	wd_replay_init(&wr.replay[0], era_for("6.3"), KVMCLOCK_HZ, 64);
	wd_replay_init(&wr.replay[1], era_for("6.18"), KVMCLOCK_HZ, 64);
	wr.fallback_read_ns[0] = wr.fallback_read_ns[1] = 30;
	wr.replay_count = 2;
	replay_jump(&wr.replay[0], KVMCLOCK_HZ, 3500, 500);
	replay_jump(&wr.replay[1], KVMCLOCK_HZ, 3500, 500);
	static char buf[16384];
	struct json j;
	json_init(&j, buf, sizeof buf);
	watch_json_record(&j, &wr);
	CHECK(json_ok(&j));
	buf[j.len] = 0;
	static const char head[] = "{\"seq\":1,\"run_id\":\"00000000deadbeef\",\"interval_s\":2,\"elapsed_tsc_s\":2.000,"
				   "\"elapsed_rtc_s\":5.000,";
	CHECK(strncmp(buf, head, sizeof head - 1) == 0);
	CHECK(strstr(buf, "{\"type\":\"pause\",\"at_s\":0.000,\"duration_s\":3.000000,\"evidence\":") != NULL);
	CHECK(strstr(buf, "\"against\":\"cmos_rtc\",\"status\":\"ok\",\"cumulative_ns\":-3000000000") != NULL);
	CHECK(strstr(buf, "\"recheck\":{\"cross_cpu\":{\"status\":\"absent\",\"reason\":null,") != NULL);
	char sentence[400];
	watch_watchdog_sentence(sentence, sizeof sentence, &wr);
	CHECK_STR(sentence, "Linux 6.18 would have kept tsc (3 checks against kvm-clock, max skew 0.0 ns, "
			    "1 long intervals skipped); Linux 6.3-6.5 would have marked tsc unstable at 5.500 s "
			    "(skew 3.000 s against kvm-clock): clock reads stay on kvm-clock");
	CHECK(strstr(buf, "\"kernels\":\"6.3-6.5\",\"from\":\"6.3\",\"to\":\"6.5\",\"watchdog\":\"kvm-clock\","
			  "\"state\":\"unstable\"") != NULL);
	struct verdict_input t = tcg_facts();
	eras_of(&t);
	wd_replay_init(&wr.replay[0], era_for("6.3"), HPET_HZ, 32);
	wd_replay_init(&wr.replay[1], era_for("6.18"), HPET_HZ, 32);
	wr.fallback_read_ns[0] = wr.fallback_read_ns[1] = 1234;
	replay_jump(&wr.replay[0], HPET_HZ, 3500, 500);
	replay_jump(&wr.replay[1], HPET_HZ, 3500, 500);
	watch_watchdog_sentence(sentence, sizeof sentence, &wr);
	CHECK_STR(sentence, "Linux 6.18 would have kept tsc (3 checks against hpet, max skew 0.0 ns, "
			    "1 long intervals skipped); Linux 6.3-6.5 would have marked tsc unstable at 5.500 s "
			    "(skew 3.000 s against hpet): clock reads fall to hpet, ~1234 ns each");
	json_init(&j, buf, sizeof buf);
	json_object_begin(&j, NULL);
	watch_json_section(&j, &wr);
	json_object_end(&j);
	CHECK(json_ok(&j));
	buf[j.len] = 0;
	CHECK(strstr(buf, "\"event_counts\":{\"pause\":1,\"tsc_jump\":0,") != NULL);
	CHECK(strstr(buf, "\"paused_s\":3.000000") != NULL);
}

/* ---- settings ---------------------------------------------------------- */

TEST(settings_watch_and_interval)
{
	struct settings s;
	settings_defaults(&s);
	CHECK_EQ_U64(s.watch_seconds, 0);
	CHECK_EQ_U64(s.watch_interval_seconds, 10);
	settings_parse(&s, "watch=8 interval=2");
	CHECK_EQ_U64(s.watch_seconds, 8);
	CHECK_EQ_U64(s.watch_interval_seconds, 2);
	CHECK_EQ_U64(s.problem_count, 0);
	settings_parse(&s, "watch=604801 interval=0 interval=3601 watch=x");
	CHECK_EQ_U64(s.problem_count, 4);
	CHECK_EQ_U64(s.watch_seconds, 8);
	CHECK_EQ_U64(s.watch_interval_seconds, 2);
}
