/* pit: the 8254's counter read with the latch command (three port
 * accesses, each an exit to the device model under any hypervisor).
 * Channel 2, the one Linux calibrates with, programmed here as a
 * free-running 16-bit rate generator with the speaker off: channel 0 runs
 * with whatever reload the firmware chose, which is not a full 16-bit
 * range and would look like steps backwards.  Absent when nothing counts
 * (QEMU -machine pit=off leaves the ports unanswered). */
#include "ioports.h"
#include "source.h"
#include "x86.h"
#include "rate.h"


static uint16_t pit_data_port;
static uint8_t pit_latch_cmd;
static uint8_t saved_gate;
static bool ch2_programmed;

static uint64_t pit_read_latched(void)
{
	outb(PIT_MODE_PORT, pit_latch_cmd);
	uint8_t lo = inb(pit_data_port);
	uint8_t hi = inb(pit_data_port);
	return (uint64_t)(lo | (hi << 8));
}

static bool channel_counts(const struct probe_facts *f, uint16_t port, uint8_t latch)
{
	pit_data_port = port;
	pit_latch_cmd = latch;
	uint64_t first = pit_read_latched();
	/* 2 ms is ~2400 ticks: any live channel moves. */
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 2);
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, 2)); /* the 2 ms at the spin cost: a stopped TSC */
	for (uint64_t i = 0; i < cap && rdtsc() < deadline; i++) {
		uint64_t v = pit_read_latched();
		if (v != first)
			return true;
	}
	return false;
}

static enum source_status pit_prepare(struct source_desc *d, const struct probe_facts *f)
{
	d->width_bits = 16;
	d->counts_down = true;
	d->freq_hz = RATE_PIT_HZ;
	d->freq_origin = "8254 input clock (1.193182 MHz)";
	d->read = pit_read_latched;
	/* Channel 2, mode 2, lobyte/hibyte, reload 0 (= 65536): a free-running
	 * 16-bit down-counter. */
	saved_gate = inb(PIT_GATE_PORT);
	outb(PIT_GATE_PORT, (uint8_t)((saved_gate & ~0x02) | 0x01));
	outb(PIT_MODE_PORT, 0xb4);
	outb(PIT_CH2_PORT, 0);
	outb(PIT_CH2_PORT, 0);
	ch2_programmed = true;
	if (channel_counts(f, PIT_CH2_PORT, 0x80))
		return SOURCE_OK;
	str_copy(d->reason, sizeof d->reason,
		 "no 8254 PIT counts: channel 2 stays constant after programming and latching (ports 0x42/0x43)");
	return SOURCE_ABSENT;
}

static void pit_finish(void)
{
	if (ch2_programmed)
		outb(PIT_GATE_PORT, saved_gate);
	ch2_programmed = false;
}

/* A constant of this file's programming, not a fact it learned. */
static void pit_report_extra(struct json *j, const union source_facts *f)
{
	json_u64(j, "pit_channel", 2);
}

const struct clock_source source_pit = {
	.name = "pit",
	.prepare = pit_prepare,
	.finish = pit_finish,
	.report_extra = pit_report_extra,
};
