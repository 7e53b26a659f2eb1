/* Watch mode, the probe side: keeps stamping every working clock source and
 * the CMOS RTC against the TSC, interval after interval, feeds the pure
 * event detector and the Linux watchdog replay, and hands each interval's
 * figures to the run, which sends them out as a framed record.  Every wait
 * has an iteration bound and a TSC deadline; a source that stops answering
 * becomes an event, not a stop. */
#include "watch.h"
#include "arch_api.h"
#include "counter.h"
#include "crosscpu.h"
#include "gapscan.h"
#include "measure.h"
#include "rate.h"
#include "results.h"
#include "strbuf.h"

#define STAMP_TRIES 8
#define FOLLOW_MS 5              /* narrow counters: far below the PIT's 55 ms wrap */
#define WATCHDOG_TICK_MS 500     /* Linux's WATCHDOG_INTERVAL */
#define RTC_EDGE_MAX_MS 1500     /* one second plus slack for a slow poll */
/* The per-interval re-checks, a tenth of the boot-time warp test and a
 * short gap scan: tens of ms of an interval of seconds.  A partner CPU
 * that does not answer costs at most RECHECK_STALL_MS. */
#define RECHECK_WARP_ITERATIONS 2000
#define RECHECK_WAIT_MS 200
#define RECHECK_STALL_MS 500
#define RECHECK_GAP_WINDOW_MS 20

struct ref_track {
	const struct source_result *s;
	struct counter_ext ext;
	uint64_t ticks, tsc_mid, bracket;     /* at the last interval boundary */
	uint64_t wd_ticks, wd_tsc;            /* at the last watchdog tick */
	bool wd_started;
};

static uint64_t stamp(const struct measure_ctx *ctx, const struct source_desc *d, uint64_t *tsc_mid, uint64_t *bracket)
{
	return measure_stamp(ctx, d, STAMP_TRIES, tsc_mid, bracket);
}

static uint64_t ns_of(uint64_t ticks, uint64_t hz) { return hz ? mul_div_u64(ticks, 1000000000ull, hz) : 0; }

static void identity_now(struct watch_identity *id, const struct probe_facts *f, const struct source_live_state *kvm)
{
	memset(id, 0, sizeof *id);
	if (!f->hv.present || !f->hv.range_count)
		return;
	/* Re-read live: a migration can land on a host that answers differently. */
	uint32_t base = f->hv.ranges[0].base, r[4];
	cpu_hv_leaf(base, r);
	uint8_t sig[12];
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	hypervisor_printable_signature(sig, id->signature);
	if (f->hv.timing.valid) {
		cpu_hv_leaf(f->hv.timing.leaf, r);
		id->advertised_tsc_hz = (uint64_t)r[0] * 1000;
	}
	if (kvm && kvm->valid)
		id->pvclock_tsc_hz = kvm->tsc_hz;
}


struct watch_ctx {
	struct watch_result *w;
	struct run_results *r;
	const struct measure_ctx *mctx;
	uint64_t tsc_hz;          /* cycles -> ns for offsets */
	uint64_t believed_hz;     /* the rate a guest kernel would use (watchdog replay) */
	uint64_t start_tsc;
	uint64_t watch_start_tsc; /* first RTC edge, or start */
	struct rtc_edge rtc_first, rtc_last;
	bool rtc_ok;
	uint64_t follow_cycles, next_follow;
	uint64_t wd_cycles, next_wd;
	struct ref_track refs[WATCH_MAX_REFS];	/* the sources compared with the TSC */
	unsigned ref_count;
};

static void follow_narrow(struct watch_ctx *c)
{
	for (unsigned i = 0; i < c->ref_count; i++)
		if (c->refs[i].s->desc.width_bits < 64)
			counter_ext_feed(&c->refs[i].ext, c->refs[i].s->desc.read());
}

static bool replay_watches(const struct wd_replay *r, const struct ref_track *t)
{
	return r->watchdog && str_equal(r->watchdog, t->s->src->name);
}

static void watchdog_tick(struct watch_ctx *c)
{
	struct watch_result *w = c->w;
	w->watchdog_ticks++;
	for (unsigned i = 0; i < c->ref_count; i++) {
		struct ref_track *t = &c->refs[i];
		bool fed = false;
		for (unsigned k = 0; k < w->replay_count; k++)
			fed |= replay_watches(&w->replay[k], t);
		if (!fed)
			continue;
		uint64_t mid, bracket;
		uint64_t ticks = counter_ext_feed(&t->ext, stamp(c->mctx, &t->s->desc, &mid, &bracket));
		if (t->wd_started) {
			struct wd_tick tick = {
				.at_ms = rate_cycles_to_ns(mid - c->watch_start_tsc, c->tsc_hz) / 1000000,
				.cs_ns = ns_of(mid - t->wd_tsc, c->believed_hz),
				.wd_ticks = ticks - t->wd_ticks,
				.wd_read_ns = ns_of(bracket, c->tsc_hz),
			};
			for (unsigned k = 0; k < w->replay_count; k++)
				if (replay_watches(&w->replay[k], t))
					wd_replay_feed(&w->replay[k], &tick);
		} else {
			/* The first tick initialises both sides, as Linux's does. */
			struct wd_tick tick = { .at_ms = 0, .wd_read_ns = ns_of(bracket, c->tsc_hz) };
			for (unsigned k = 0; k < w->replay_count; k++)
				if (replay_watches(&w->replay[k], t))
					wd_replay_feed(&w->replay[k], &tick);
		}
		t->wd_started = true;
		t->wd_ticks = ticks;
		t->wd_tsc = mid;
	}
}

/* The periodic work of every wait: narrow counters followed, watchdog
 * ticks run. */
static void periodic(void *arg)
{
	struct watch_ctx *c = arg;
	uint64_t now = tb_now();
	if (now >= c->next_follow) {
		follow_narrow(c);
		c->next_follow = now + c->follow_cycles;
	}
	if (now >= c->next_wd) {
		watchdog_tick(c);
		/* Linux re-arms from the previous expiry; one that is long past
		 * fires at once, then the cadence resumes. */
		c->next_wd += c->wd_cycles;
		if (c->next_wd < now)
			c->next_wd = now;
	}
}

/* Waits until the TSC reaches target, doing the periodic work. */
static void wait_until(struct watch_ctx *c, uint64_t target)
{
	uint64_t now = tb_now();
	/* The wait's own ticks at the spin cost: ends it should the TSC stop. */
	uint64_t bound = facts_spin_cap(&c->r->facts, target > now ? target - now : 0);
	for (uint64_t spins = 0; spins < bound; spins++) {
		if (tb_now() >= target)
			return;
		periodic(c);
		cpu_relax();
	}
}

static const struct source_result *source_named(const struct run_results *r, const char *name)
{
	for (unsigned i = 0; name && i < r->source_count; i++)
		if (r->sources[i].status == SOURCE_OK && str_equal(r->sources[i].src->name, name))
			return &r->sources[i];
	return NULL;
}

/* One replay per era of the verdict's watchdog rules, each against the
 * clock that era's Linux would watch with (the sources' names are
 * Linux's), with the figures and exemptions the verdict's rules give for
 * the facts of this run. */
static void choose_watchdogs(struct watch_ctx *c)
{
	struct watch_result *w = c->w;
	const struct run_results *r = c->r;
	struct verdict_wd_era eras[VERDICT_MAX_WD_ERAS];
	unsigned n = verdict_watchdog_eras(&r->verdict.inputs, eras, VERDICT_MAX_WD_ERAS);
	unsigned main_kv = 0;
	w->main_kernel = r->verdict.linux_kernel;
	if (w->main_kernel)
		verdict_kernel_parse(w->main_kernel, str_len(w->main_kernel), &main_kv);
	for (unsigned e = 0; e < n && w->replay_count < WATCH_MAX_REPLAYS; e++) {
		const struct source_result *wd = NULL;
		for (unsigned i = 0; eras[e].watchdog && i < c->ref_count && !wd; i++)
			if (str_equal(c->refs[i].s->src->name, eras[e].watchdog))
				wd = c->refs[i].s;
		unsigned k = w->replay_count++;
		wd_replay_init(&w->replay[k], &eras[e], wd ? wd->desc.freq_hz : 0, wd ? wd->desc.width_bits : 0);
		const struct source_result *fb = source_named(r, eras[e].fallback);
		w->fallback_read_ns[k] = fb ? rate_cycles_to_ns(fb->cost.throughput_milli / 1000, c->tsc_hz) : 0;
		if (!main_kv || eras[e].kver <= main_kv)
			w->watchdog = eras[e].watchdog;
	}
}

static void boundary(struct watch_ctx *c, struct watch_interval *iv, const struct rtc_edge *edge)
{
	iv->ref_count = 0;
	for (unsigned i = 0; i < c->ref_count; i++) {
		struct ref_track *t = &c->refs[i];
		struct watch_ref_sample *s = &iv->ref[iv->ref_count++];
		uint64_t mid, bracket;
		uint64_t ticks = counter_ext_feed(&t->ext, stamp(c->mctx, &t->s->desc, &mid, &bracket));
		uint64_t hz = t->s->desc.freq_hz;
		s->name = t->s->src->name;
		s->valid = true;
		s->ref_ns = ns_of(ticks - t->ticks, hz);
		s->tsc_ns = ns_of(mid - t->tsc_mid, c->tsc_hz);
		/* Each end: half its bracket plus one reference tick. */
		s->uncertainty_ns = ns_of((t->bracket + bracket) / 2, c->tsc_hz) + 2 * ns_of(1, hz) + 1;
		t->ticks = ticks;
		t->tsc_mid = mid;
		t->bracket = bracket;
	}
	if (iv->ref_count < WATCH_MAX_REFS) {
		struct watch_ref_sample *s = &iv->ref[iv->ref_count++];
		s->name = RTC_NAME;
		s->is_wall = true;
		if (edge && edge->ok && c->rtc_ok && edge->unix_seconds >= c->rtc_last.unix_seconds) {
			s->valid = true;
			s->ref_ns = (edge->unix_seconds - c->rtc_last.unix_seconds) * 1000000000ull;
			s->tsc_ns = ns_of(edge->tsc - c->rtc_last.tsc, c->tsc_hz);
			s->uncertainty_ns = ns_of(edge->poll_cycles + c->rtc_last.poll_cycles, c->tsc_hz) + 1;
			c->rtc_last = *edge;
		}
	}
}

static uint64_t watch_ms(const struct watch_ctx *c)
{
	if (c->rtc_ok)
		return (c->rtc_last.unix_seconds - c->rtc_first.unix_seconds) * 1000;
	return rate_cycles_to_ns(tb_now() - c->watch_start_tsc, c->tsc_hz) / 1000000;
}

static void live_state(const struct watch_ctx *c, struct watch_interval *iv, const struct run_results *r)
{
	struct source_live_state kvm = { 0 };
	for (unsigned i = 0; i < c->ref_count; i++)
		if (c->refs[i].s->src->live_state)
			c->refs[i].s->src->live_state(&kvm);
	iv->kvmclock_present = kvm.valid;
	iv->kvmclock_stable = kvm.stable;
	iv->kvmclock_version = kvm.version;
	iv->kvmclock_flags = kvm.flags;
	identity_now(&iv->identity, &r->facts, &kvm);
	/* The VMClock page is state, not a reference: asked on its own. */
	const struct source_result *vc = results_source_ok(r, SOURCE_ID_VMCLOCK);
	if (vc && vc->src->live_state) {
		struct source_live_state v;
		vc->src->live_state(&v);
		iv->vmclock_present = v.vmclock_valid;
		iv->vmclock_disruption_marker = v.disruption_marker;
		iv->vmclock_generation = v.vm_generation_counter;
		iv->vmclock_clock_status = v.clock_status;
	}
}

/* The cross-CPU warp test and the gap scan again, through their own
 * modules, each bounded by its count and deadline. */
static void recheck(struct watch_ctx *c, struct watch_recheck *out)
{
	struct run_results *r = c->r;
	struct crosscpu_result *xcpu = &c->w->recheck_xcpu;
	struct gaps_report *gaps = &c->w->recheck_gaps;
	const struct platform *p = r->facts.plat;
	memset(out, 0, sizeof *out);
	out->xcpu_iterations = RECHECK_WARP_ITERATIONS;
	if (r->cpus_enabled < 2) {
		out->xcpu_reason = "only one CPU: nothing to compare";
	} else if (!p->ap_start || !p->aps_wait) {
		/* UEFI's MP services are boot services: gone with them. */
		out->xcpu_reason = p->leave_firmware ? "no AP start-up after ExitBootServices on the UEFI build"
						     : "this boot path cannot run code on other CPUs";
	} else {
		uint64_t t0 = tb_now();
		/* Half the interval for the pairs (issue 41: hundreds of CPUs
		 * would otherwise make one record late); the rest are named in
		 * the record's stopped reason. */
		crosscpu_recheck(xcpu, r, RECHECK_WARP_ITERATIONS, RECHECK_WAIT_MS, RECHECK_STALL_MS,
				 MAX(r->facts.settings.watch_interval_seconds, 1u) * 500);
		out->xcpu_us = ns_of(tb_now() - t0, c->tsc_hz) / 1000;
		if (xcpu->ran && xcpu->tested >= 2) {
			out->xcpu_ran = true;
			out->xcpu_tested = xcpu->tested;
			out->warps = xcpu->warps;
			out->max_warp_ns = ns_of(xcpu->max_warp, c->tsc_hz);
			out->skew_bound_ns = ns_of(xcpu->max_skew_cycles, c->tsc_hz);
			out->xcpu_stopped_reason = xcpu->stopped_reason[0] ? xcpu->stopped_reason : NULL;
		} else {
			out->xcpu_reason = xcpu->reason ? xcpu->reason
					   : xcpu->stopped_reason[0] ? xcpu->stopped_reason
									    : "no other CPU answered the re-check";
		}
	}
	gapscan_run(gaps, c->mctx, c->tsc_hz, RECHECK_GAP_WINDOW_MS, r->facts.cpu.is_intel);
	out->gaps_measured = gaps->measured;
	out->gap_window_ms = RECHECK_GAP_WINDOW_MS;
	out->gap_count = gaps->g.count;
	out->gap_max_ns = ns_of(gaps->g.max, c->tsc_hz);
	out->gap_total_ns = ns_of(gaps->g.total, c->tsc_hz);
}

static void tsc_rate(struct watch_result *w, const struct watch_interval *iv, uint64_t tsc_hz)
{
	/* Against the first counter that moved (HPET before the PM timer in
	 * registry order), unless the interval jumped. */
	for (unsigned i = 0; i < iv->ref_count; i++) {
		const struct watch_ref_sample *s = &iv->ref[i];
		if (!s->valid || s->is_wall || !s->ref_ns || !w->det.ref[i].drift_valid)
			continue;
		uint64_t diff = s->tsc_ns > s->ref_ns ? s->tsc_ns - s->ref_ns : s->ref_ns - s->tsc_ns;
		if (diff > w->det.cfg.jump_min_ns)
			return;
		w->tsc_hz = rate_from_window(rate_ns_to_cycles(s->tsc_ns, tsc_hz), 1000000000ull, s->ref_ns);
		w->tsc_hz_against = s->name;
		return;
	}
}

void watch_run(struct watch_result *w, struct run_results *r, const struct measure_ctx *ctx,
	       void (*record)(void *arg, const struct watch_result *w), void *arg)
{
	const struct probe_facts *f = &r->facts;
	struct watch_ctx c = { .w = w, .r = r, .mctx = ctx };
	w->status = "ok";
	w->watch_s = f->settings.watch_seconds;
	w->interval_s = f->settings.watch_interval_seconds;
	w->run_id = r->identity.run_id;
	c.tsc_hz = results_tsc_hz(r);
	c.believed_hz = r->freq.believed_hz ? r->freq.believed_hz : c.tsc_hz;
	if (!c.tsc_hz || !results_source_ok(r, SOURCE_ID_TSC)) {
		w->status = "error";
		w->reason = "the TSC did not measure ok: nothing to watch against";
		return;
	}
	struct watch_config cfg;
	watch_config_default(&cfg);
	watch_detector_init(&w->det, &cfg);
	/* The report's VMClock snapshot is the first value compared. */
	const struct vmclock_facts *vf = &results_facts(r, SOURCE_ID_VMCLOCK)->vmclock;
	if (vf->page_read)
		watch_detector_vmclock_start(&w->det, vf->page.disruption_marker, vf->page.vm_generation_counter);

	c.ref_count = 0;
	for (unsigned i = 0; i < r->source_count && c.ref_count < WATCH_MAX_REFS - 1; i++) {
		const struct source_result *s = &r->sources[i];
		/* The PIT wraps every 55 ms: a vCPU descheduled for longer (a
		 * loaded TCG host does that) loses wraps no reader can see, and
		 * no Linux on x86-64 keeps time or watches with it. */
		if (s->status != SOURCE_OK || s->desc.is_tsc || !s->desc.freq_hz || s->src == clock_sources[SOURCE_ID_PIT])
			continue;
		c.refs[c.ref_count++].s = s;
	}
	choose_watchdogs(&c);

	/* Start on an RTC second edge so wall time is known to the poll's
	 * resolution rather than to a whole second. */
	uint64_t edge_max = rate_ns_to_cycles(RTC_EDGE_MAX_MS * 1000000ull, c.tsc_hz);
	uint64_t edge_polls = facts_spin_cap(&r->facts, edge_max); /* the edge wait's spin cap */
	rtc_wait_edge(&c.rtc_first, edge_max, edge_polls, NULL, NULL);
	c.rtc_ok = c.rtc_first.ok;
	c.rtc_last = c.rtc_first;
	w->rtc_valid = c.rtc_ok;
	if (!c.rtc_ok)
		w->rtc_reason = c.rtc_first.reason;
	c.watch_start_tsc = c.rtc_ok ? c.rtc_first.tsc : tb_now();
	for (unsigned i = 0; i < c.ref_count; i++) {
		uint64_t raw = stamp(ctx, &c.refs[i].s->desc, &c.refs[i].tsc_mid, &c.refs[i].bracket);
		counter_ext_init(&c.refs[i].ext, c.refs[i].s->desc.width_bits, c.refs[i].s->desc.counts_down, raw);
		c.refs[i].ticks = 0;
	}
	uint64_t interval_cycles = rate_ns_to_cycles((uint64_t)w->interval_s * 1000000000ull, c.tsc_hz);
	c.follow_cycles = rate_ns_to_cycles(FOLLOW_MS * 1000000ull, c.tsc_hz);
	c.wd_cycles = rate_ns_to_cycles(WATCHDOG_TICK_MS * 1000000ull, c.tsc_hz);
	c.next_follow = c.next_wd = c.watch_start_tsc;
	/* Aim half a second before the boundary: the RTC edge wait that
	 * follows then takes about that long instead of a whole second. */
	uint64_t lead = c.rtc_ok ? c.wd_cycles : 0;
	uint32_t max_seq = w->watch_s / w->interval_s + 2;
	uint64_t start_ms = 0;
	for (uint32_t seq = 1; seq <= max_seq; seq++) {
		wait_until(&c, c.watch_start_tsc + seq * interval_cycles - lead);
		struct rtc_edge edge = { 0 };
		if (c.rtc_ok)
			rtc_wait_edge(&edge, edge_max, edge_polls, periodic, &c);
		struct watch_interval *iv = &w->last;
		memset(iv, 0, sizeof *iv);
		iv->seq = seq;
		boundary(&c, iv, c.rtc_ok ? &edge : NULL);
		live_state(&c, iv, r);
		recheck(&c, &iv->recheck);
		iv->start_ms = start_ms;
		iv->end_ms = watch_ms(&c);
		watch_detect(&w->det, iv);
		tsc_rate(w, iv, c.tsc_hz);
		start_ms = iv->end_ms;
		w->seq = seq;
		w->elapsed_tsc_ms = rate_cycles_to_ns(tb_now() - c.watch_start_tsc, c.tsc_hz) / 1000000;
		if (c.rtc_ok)
			w->elapsed_rtc_ms = (c.rtc_last.unix_seconds - c.rtc_first.unix_seconds) * 1000;
		record(arg, w);
		uint64_t done_ms = w->elapsed_tsc_ms > w->elapsed_rtc_ms ? w->elapsed_tsc_ms : w->elapsed_rtc_ms;
		if (done_ms >= (uint64_t)w->watch_s * 1000)
			break;
	}
}
