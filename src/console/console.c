#include "console.h"
#include "crc32.h"
#include "strbuf.h"

struct console con;

void con_log(const char *text)
{
	uart_puts(&con.uart, text);
	uart_puts(&con.uart, "\r\n");
}

void con_say(const char *text)
{
	bool screen = con.plat && con.plat->screen_write;
	/* Once, not twice, in a serial log when firmware mirrors the screen. */
	if (!screen || !con.plat->screen_mirrors_serial)
		con_log(text);
	if (screen) {
		con.plat->screen_write(text);
		con.plat->screen_write("\n");
	}
}

void con_emit_report(const char *json, size_t len)
{
	char end[96];
	struct strbuf sb;
	sb_init(&sb, end, sizeof end);
	sb_str(&sb, "==== CLOCKPROBE REPORT END crc32=");
	sb_hex(&sb, crc32_update(0, json, len), 8);
	sb_str(&sb, " bytes=");
	sb_u64(&sb, len);
	sb_str(&sb, " ====\r\n");
	/* The blank line first ends any partial line the firmware left. */
	uart_puts(&con.uart, "\r\n==== CLOCKPROBE REPORT BEGIN schema=1 ====\r\n");
	uart_write(&con.uart, json, len);
	uart_puts(&con.uart, "\r\n");
	uart_puts(&con.uart, end);
}

void con_emit_watch_record(uint32_t seq, const char *json, size_t len)
{
	char begin[80], end[96];
	struct strbuf sb;
	sb_init(&sb, begin, sizeof begin);
	sb_str(&sb, "\r\n==== CLOCKPROBE WATCH BEGIN schema=1 seq=");
	sb_u64(&sb, seq);
	sb_str(&sb, " ====\r\n");
	sb_init(&sb, end, sizeof end);
	sb_str(&sb, "==== CLOCKPROBE WATCH END crc32=");
	sb_hex(&sb, crc32_update(0, json, len), 8);
	sb_str(&sb, " bytes=");
	sb_u64(&sb, len);
	sb_str(&sb, " ====\r\n");
	uart_puts(&con.uart, begin);
	uart_write(&con.uart, json, len);
	uart_puts(&con.uart, "\r\n");
	uart_puts(&con.uart, end);
}
