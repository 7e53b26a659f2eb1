/* Watch mode's pure parts (the RTC decode it shares with the run
 * identity is tested in test_identity.c): the event rules on series
 * shaped like the runs recorded under TCG and the nested KVM here, the
 * Linux watchdog replay per era, the record's JSON and the settings. */
#include "check.h"
#include "settings.h"
#include "watch.h"

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

/* ---- watchdog replay --------------------------------------------------- */

static const struct wd_era *era_from(const char *from)
{
	for (unsigned i = 0; i < wd_era_default_count; i++)
		if ((!from && !wd_eras_default[i].from) ||
		    (from && wd_eras_default[i].from && str_equal(from, wd_eras_default[i].from)))
			return &wd_eras_default[i];
	return NULL;
}

#define HPET_HZ 100000000ull
#define PM_HZ 3579545ull

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

TEST(replay_kvm_pause_by_era)
{
	/* The TSC jumped 3 s over a 0.5 s HPET interval (stop/cont under KVM):
	 * every era before 6.8 marks it unstable; 6.8 skips the > 1 s interval. */
	struct wd_exemption_facts ex = { 0 };
	struct wd_replay r;
	wd_replay_init(&r, era_from(NULL), "hpet", HPET_HZ, 32, &ex);
	replay_jump(&r, HPET_HZ, 3500, 500);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK_EQ_I64(r.unstable_skew_ns, 3000 * (int64_t)MS);
	CHECK_EQ_U64(r.unstable_at_ms, 5500);
	CHECK_EQ_U64(r.checks, 4); /* the first tick only initialises */
	wd_replay_init(&r, era_from("5.13"), "hpet", HPET_HZ, 32, &ex);
	replay_jump(&r, HPET_HZ, 3500, 500);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	wd_replay_init(&r, era_from("6.8"), "hpet", HPET_HZ, 32, &ex);
	replay_jump(&r, HPET_HZ, 3500, 500);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	CHECK_EQ_U64(r.skipped_long, 1);
}

TEST(replay_margins_differ_by_era)
{
	/* 1 ms of skew in 0.5 s: inside the old 62.5 ms threshold, beyond the
	 * 400 us and 248 us margins. */
	struct wd_exemption_facts ex = { 0 };
	struct wd_replay r;
	wd_replay_init(&r, era_from(NULL), "hpet", HPET_HZ, 32, &ex);
	replay_jump(&r, HPET_HZ, 501, 500);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	CHECK_EQ_I64(r.max_abs_skew_ns, 1 * (int64_t)MS);
	wd_replay_init(&r, era_from("6.8"), "hpet", HPET_HZ, 32, &ex);
	replay_jump(&r, HPET_HZ, 501, 500);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	/* 300 us: beyond 6.8's 248 us, within 5.13's 400 us. */
	wd_replay_init(&r, era_from("5.13"), "hpet", HPET_HZ, 32, &ex);
	struct wd_tick t0 = { .at_ms = 0, .cs_ns = 0, .wd_ticks = 0, .wd_read_ns = 1000 };
	struct wd_tick t1 = { .at_ms = 500, .cs_ns = 500300000, .wd_ticks = HPET_HZ / 2, .wd_read_ns = 1000 };
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	wd_replay_init(&r, era_from("6.8"), "hpet", HPET_HZ, 32, &ex);
	wd_replay_feed(&r, &t0);
	wd_replay_feed(&r, &t1);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK_EQ_I64(r.unstable_skew_ns, 300000);
}

TEST(replay_pm_timer_wrap_is_seen_through_the_mask)
{
	/* A 5 s gap with both clocks running: the 24-bit PM timer wrapped once
	 * (2^24 ticks = 4.687 s), so the kernel sees 0.313 s against 5 s. */
	struct wd_exemption_facts ex = { 0 };
	struct wd_replay r;
	wd_replay_init(&r, era_from("5.17"), "acpi_pm", PM_HZ, 24, &ex);
	replay_jump(&r, PM_HZ, 5000, 5000);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK(r.unstable_skew_ns > 4600 * (int64_t)MS && r.unstable_skew_ns < 4700 * (int64_t)MS);
	wd_replay_init(&r, era_from("6.8"), "acpi_pm", PM_HZ, 24, &ex);
	replay_jump(&r, PM_HZ, 5000, 5000);
	CHECK_EQ_U64(r.state, WD_WATCHING); /* cs_nsec 5 s > 1 s: skipped */
}

TEST(replay_read_back_and_exemptions)
{
	struct wd_exemption_facts ex = { 0 };
	struct wd_replay r;
	/* A PM timer read of 250 us (a trapped, delayed port read): wd-cs-wd
	 * ~500 us > 2*124 + 124 us, and one read alone is over 2*124 us too:
	 * 6.8 calls the system busy, skips and suspends the watchdog 5 min. */
	wd_replay_init(&r, era_from("6.8"), "acpi_pm", PM_HZ, 24, &ex);
	struct wd_tick slow = { .at_ms = 0, .cs_ns = 500 * MS, .wd_ticks = PM_HZ / 2, .wd_read_ns = 250000 };
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.skipped_readback, 1);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	/* 200 us: wd-wd fine, wd-cs-wd 400 us > 372 us: marked unstable. */
	wd_replay_init(&r, era_from("6.8"), "acpi_pm", PM_HZ, 24, &ex);
	slow.wd_read_ns = 200000;
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.state, WD_UNSTABLE);
	CHECK_STR(r.reason, "excessive watchdog read-back delay");
	/* Before 5.13 there was no such check. */
	wd_replay_init(&r, era_from(NULL), "acpi_pm", PM_HZ, 24, &ex);
	wd_replay_feed(&r, &slow);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	/* Exemptions. */
	ex.adjust_qualified = true;
	wd_replay_init(&r, era_from("5.13"), "hpet", HPET_HZ, 32, &ex);
	CHECK_EQ_U64(r.state, WD_WATCHING);
	wd_replay_init(&r, era_from("5.17"), "hpet", HPET_HZ, 32, &ex);
	CHECK_EQ_U64(r.state, WD_EXEMPT);
	ex.tsc_reliable = true;
	wd_replay_init(&r, era_from(NULL), "hpet", HPET_HZ, 32, &ex);
	CHECK_EQ_U64(r.state, WD_EXEMPT);
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
	wr.watchdog = "hpet";
	wr.fallback_read_ns = 1234;
	struct wd_exemption_facts ex = { 0 };
	wd_replay_init(&wr.replay[0], era_from("5.13"), "hpet", HPET_HZ, 32, &ex);
	wd_replay_init(&wr.replay[1], era_from("6.8"), "hpet", HPET_HZ, 32, &ex);
	wr.replay_count = 2;
	replay_jump(&wr.replay[0], HPET_HZ, 3500, 500);
	replay_jump(&wr.replay[1], HPET_HZ, 3500, 500);
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
	char sentence[320];
	watch_watchdog_sentence(sentence, sizeof sentence, &wr);
	CHECK_STR(sentence, "Linux 6.8+ would have kept tsc (3 checks against hpet, max skew 0 ns, "
			    "1 long intervals skipped); Linux 5.13-5.16 would have marked tsc unstable at 5.500 s "
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
