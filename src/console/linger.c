/* The wait before power-off (see con_linger in console.h).  Input comes
 * from two places because neither covers every machine: the firmware's
 * ConIn (a keyboard, or a serial terminal the firmware owns) and our own
 * UART (the direct-boot build has no firmware; the firmware may own a
 * different port than the report's). */
#include "console.h"
#include "arch_api.h"
#include "strbuf.h"

/* Short enough that a key is answered at once, long enough that polling
 * the firmware stays cheap. */
#define SLICE_MS 100
/* Bytes one key can send (an escape sequence, a CR LF pair). */
#define DRAIN_MAX 64

/* The first byte waiting on the UART (the rest of a key's bytes are
 * dropped), or -1. */
static int uart_input(void)
{
	uint8_t b;
	int first = -1;
	for (int i = 0; i < DRAIN_MAX && uart_read_byte(&con.uart, &b); i++)
		if (first < 0)
			first = b;
	return first;
}

/* One slice of waiting: the key pressed, or -1. */
static int wait_slice(uint64_t slice_cycles)
{
	int key = uart_input();
	if (key >= 0)
		return key;
	if (con.plat->wait_key) {
		key = con.plat->wait_key(SLICE_MS);
		if (key >= 0)
			return key;
	} else {
		uint64_t until = tb_now() + slice_cycles;
		/* Each poll is a port read (~1 us, a VM exit under KVM):
		 * the count bounds the slice if the TSC stands still. */
		for (uint32_t polls = 0; polls < 1000000 && tb_now() < until; polls++) {
			key = uart_input();
			if (key >= 0)
				return key;
			cpu_relax();
		}
	}
	return uart_input();
}

static void say_wait(uint32_t wait_s, uint32_t resend_s, bool can_resend)
{
	char line[200];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: powering off in ");
	sb_u64(&sb, wait_s);
	sb_str(&sb, " s");
	if (!can_resend) {
		sb_str(&sb, "; press a key to power off now");
	} else {
		sb_str(&sb, "; press a key (screen or serial) to send the report again, q to power off now");
		if (resend_s) {
			sb_str(&sb, ", re-sent every ");
			sb_u64(&sb, resend_s);
			sb_str(&sb, " s");
		}
	}
	con_say(line);
}

static void resend(const char *report, size_t len, const char *why, uint32_t count)
{
	char line[96];
	struct strbuf sb;
	con_emit_report(report, len);
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: report sent again (");
	sb_str(&sb, why);
	sb_str(&sb, ", copy ");
	sb_u64(&sb, count + 1); /* the first copy was the original */
	sb_str(&sb, ")");
	con_say(line);
}

void con_linger(uint32_t wait_s, uint32_t resend_s, uint64_t tsc_hz, const char *report, size_t len)
{
	if (!wait_s)
		return;
	bool can_resend = report != NULL;
	/* Bytes that came before the prompt are not answers to it; drained
	 * before it is written, or a quick answer would be dropped too. */
	uart_input();
	if (con.plat->wait_key)
		con.plat->wait_key(0);
	say_wait(wait_s, resend_s, can_resend);
	uint64_t slice = tsc_hz / 1000 * SLICE_MS;
	uint64_t start = tb_now();
	uint64_t end = start + tsc_hz * wait_s;
	uint64_t next_resend = resend_s ? start + tsc_hz * resend_s : UINT64_MAX;
	/* The TSC ends the wait; the slice count also ends it if the TSC
	 * stands still (every slice takes time: a key storm at most doubles
	 * the count, and each key costs a whole report). */
	uint64_t max_slices = (uint64_t)wait_s * (1000 / SLICE_MS) * 4 + 8;
	uint32_t sent = 0;
	for (uint64_t i = 0; i < max_slices && tb_now() < end; i++) {
		int key = wait_slice(slice);
		if (key == 'q' || key == 'Q' || (key >= 0 && !can_resend))
			return;
		if (!can_resend)
			continue;
		if (key >= 0) {
			resend(report, len, "a key was pressed", ++sent);
		} else if (tb_now() >= next_resend) {
			resend(report, len, "resend interval", ++sent);
			next_resend = tb_now() + tsc_hz * resend_s;
		}
	}
}
