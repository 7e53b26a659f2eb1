/* How a run ends: the wait for consoles that attach late, the exit value
 * for a harness that listens, power off. */
#include "run.h"
#include "arch_api.h"
#include "console.h"
#include "fault.h"
#include "strbuf.h"

#define DEFAULT_WAIT_KEY_SECONDS 30

/* Only asked inside a VM: on bare metal the harness's port may belong to
 * something else, so the probe neither reads nor writes it there. */
static bool harness_attached(const struct probe_facts *f)
{
	return harness_listening(f->hv.present);
}

/* wait=N (0..3600 s) holds the machine that long before power-off, with
 * the report re-sent on a key and every resend= seconds; wait=0 powers off
 * (or, under a harness, exits) the moment the report is out.  Without
 * wait=, a machine with a firmware screen waits DEFAULT_WAIT_KEY_SECONDS
 * unless a harness is attached; the direct-boot build, whose users read a
 * serial log, does not wait. */
void run_leave(struct run *run)
{
	const struct run_results *r = &run->results;
	struct platform *plat = r->facts.plat;
	int code = run->complete ? HARNESS_EXIT_COMPLETE : HARNESS_EXIT_FAILED;
	bool harness = harness_attached(&r->facts);
	int32_t wait_s = r->facts.settings.wait_key_seconds;
	if (wait_s < 0)
		wait_s = harness || !plat->wait_key ? 0 : DEFAULT_WAIT_KEY_SECONDS;
	if (wait_s > 0) {
		uint64_t hz = results_tsc_hz(r);
		con_linger((uint32_t)wait_s, r->facts.settings.resend_seconds, hz ? hz : FACTS_ASSUMED_TSC_HZ,
			   run->report_len ? run->report : NULL, run->report_len);
	}
	/* Hand the firmware its own IDT back before it runs the last calls. */
	fault_guard_remove();
	if (harness)
		harness_exit((uint8_t)code);
	plat->power_off();
}

void run_fail(struct run *run, int vector, uint64_t rip, uint64_t error_code)
{
	const struct probe_facts *f = &run->results.facts;
	char line[128];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: FATAL unexpected ");
	sb_str(&sb, fault_name(vector));
	sb_str(&sb, " (vector ");
	sb_u64(&sb, (uint64_t)vector);
	sb_str(&sb, ") at rip 0x");
	sb_hex(&sb, rip, 1);
	sb_str(&sb, " error 0x");
	sb_hex(&sb, error_code, 1);
	con_log(line);
	if (harness_attached(f))
		harness_exit(HARNESS_EXIT_FAILED);
	/* No harness: leave the message up for a while, then power off rather
	 * than hold a VM (or a cloud instance) forever.  Bounded by the TSC at
	 * the rough rate; firmware state after an unexpected fault is suspect,
	 * so no key wait. */
	uint64_t hz = f->tsc_hz_rough ? f->tsc_hz_rough : FACTS_ASSUMED_TSC_HZ; /* not known yet */
	uint64_t until = tb_now() + hz * DEFAULT_WAIT_KEY_SECONDS;
	while (tb_now() < until)
		cpu_relax();
	fault_guard_remove();
	f->plat->power_off();
}
