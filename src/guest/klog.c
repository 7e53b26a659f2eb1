/* The kernel log as clocksource history: record framing (/dev/kmsg and
 * syslog(2) text) and the clock lines' meaning.  The message formats are
 * the kernel's own pr_info()/pr_warn() strings in kernel/time/clocksource.c,
 * arch/x86/kernel/tsc.c and tsc_sync.c (pr_fmt adds "clocksource: " and
 * "tsc: "); the tests hold real lines from Debian 6.1 and 6.12 guests and
 * from a 6.18 host.  Pure (see gparse.h). */
#include "gparse.h"

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

/* Index of needle in s[0..n), or -1; ci: ignore ASCII case. */
static long find(const char *s, size_t n, const char *needle, bool ci)
{
	size_t k = str_len(needle);
	if (k == 0 || k > n)
		return k == 0 ? 0 : -1;
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k && (ci ? lower(s[i + j]) == lower(needle[j]) : s[i + j] == needle[j]))
			j++;
		if (j == k)
			return (long)i;
	}
	return -1;
}

bool klog_parse_kmsg(struct klog_record *out, const char *rec, size_t len)
{
	memset(out, 0, sizeof *out);
	uint64_t pri, seq, ts;
	size_t used, i = 0;
	if (!parse_u64(rec, len, &pri, &used))
		return false;
	i = used;
	if (i >= len || rec[i++] != ',' || !parse_u64(rec + i, len - i, &seq, &used))
		return false;
	i += used;
	if (i >= len || rec[i++] != ',' || !parse_u64(rec + i, len - i, &ts, &used))
		return false;
	i += used;
	/* FLAGS and any later fields (a caller id on newer kernels) up to ';'. */
	while (i < len && rec[i] != ';' && rec[i] != '\n')
		i++;
	if (i >= len || rec[i] != ';')
		return false;
	i++;
	size_t end = i;
	while (end < len && rec[end] != '\n')
		end++;
	out->has_ts = out->has_seq = true;
	out->t_us = ts;
	out->seq = seq;
	out->level = (uint32_t)(pri & 7);
	out->msg = rec + i;
	out->msg_len = end - i;
	return true;
}

void klog_parse_text_line(struct klog_record *out, const char *line, size_t len)
{
	memset(out, 0, sizeof *out);
	out->level = 6;
	size_t i = 0;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	/* "<N>" syslog prefix (klogctl READ_ALL keeps it). */
	if (len >= 3 && line[0] == '<') {
		uint64_t pri;
		size_t used;
		if (parse_u64(line + 1, len - 1, &pri, &used) && 1 + used < len && line[1 + used] == '>') {
			out->level = (uint32_t)(pri & 7);
			i = 2 + used;
		}
	}
	/* "[ SSSSS.UUUUUU] " */
	if (i < len && line[i] == '[') {
		size_t k = i + 1;
		while (k < len && line[k] == ' ')
			k++;
		uint64_t sec, usec;
		size_t used, used2;
		if (parse_u64(line + k, len - k, &sec, &used) && k + used < len && line[k + used] == '.' &&
		    parse_u64(line + k + used + 1, len - k - used - 1, &usec, &used2) && used2 == 6 &&
		    k + used + 1 + used2 < len && line[k + used + 1 + used2] == ']' && sec < UINT64_MAX / 1000000) {
			out->has_ts = true;
			out->t_us = sec * 1000000 + usec;
			i = k + used + 1 + used2 + 1;
			if (i < len && line[i] == ' ')
				i++;
		}
	}
	out->msg = line + i;
	out->msg_len = len - i;
}

static const char *const clock_words[] = {
	"tsc", "clocksource", "hpet", "acpi_pm", "kvm-clock", "kvmclock", "watchdog", "clock:",
};

bool klog_is_clock_line(const char *msg, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(clock_words); i++)
		if (find(msg, len, clock_words[i], true) >= 0)
			return true;
	return false;
}

const char *const klog_kind_names[KLOG_KIND_COUNT] = {
	[KLOG_OTHER] = "other",
	[KLOG_REGISTERED] = "registered",
	[KLOG_SWITCHED] = "switched",
	[KLOG_CS_UNSTABLE] = "clocksource_unstable",
	[KLOG_TSC_UNSTABLE] = "tsc_unstable",
	[KLOG_WATCHDOG] = "watchdog",
	[KLOG_TSC_REFINED] = "tsc_refined",
	[KLOG_TSC_DETECTED] = "tsc_detected",
	[KLOG_TSC_CALIBRATION] = "tsc_calibration",
	[KLOG_TSC_WARP] = "tsc_warp",
	[KLOG_OVERRIDE] = "override",
};

/* The clocksource name at s (an optional quote around it); "" if none. */
static void name_at(char out[GUEST_CS_NAME], const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && (s[i] == '\'' || s[i] == '"'))
		i++;
	size_t start = i;
	while (i < n && i - start < GUEST_CS_NAME && cs_name_valid(s + i, 1))
		i++;
	/* A sentence's full stop is no part of the name. */
	size_t k = i - start;
	while (k && s[start + k - 1] == '.')
		k--;
	out[0] = 0;
	if (cs_name_valid(s + start, k)) {
		memcpy(out, s + start, k);
		out[k] = 0;
	}
}

/* The name after the first occurrence of marker, when marker is there. */
static bool name_after(struct klog_event *ev, const char *msg, size_t len, const char *marker)
{
	long at = find(msg, len, marker, false);
	if (at < 0)
		return false;
	size_t from = (size_t)at + str_len(marker);
	name_at(ev->clocksource, msg + from, len - from);
	return true;
}

static bool mhz_after(struct klog_event *ev, const char *msg, size_t len, const char *marker)
{
	long at = find(msg, len, marker, false);
	if (at < 0)
		return false;
	size_t from = (size_t)at + str_len(marker);
	return parse_mhz_to_khz(msg + from, len - from, &ev->khz);
}

void klog_classify(struct klog_event *ev, const char *msg, size_t len)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = KLOG_OTHER;
	if (name_after(ev, msg, len, "Switched to clocksource ")) {
		ev->kind = KLOG_SWITCHED;
		return;
	}
	if (name_after(ev, msg, len, "Marking clocksource ")) {
		ev->kind = KLOG_CS_UNSTABLE;
		return;
	}
	if (find(msg, len, "Marking TSC unstable", false) >= 0) {
		ev->kind = KLOG_TSC_UNSTABLE;
		str_copy(ev->clocksource, GUEST_CS_NAME, "tsc");
		return;
	}
	if (name_after(ev, msg, len, "Override clocksource ")) {
		ev->kind = KLOG_OVERRIDE;
		return;
	}
	if (mhz_after(ev, msg, len, "Refined TSC clocksource calibration: ")) {
		ev->kind = KLOG_TSC_REFINED;
		str_copy(ev->clocksource, GUEST_CS_NAME, "tsc");
		return;
	}
	if (mhz_after(ev, msg, len, "tsc: Detected ")) {
		ev->kind = KLOG_TSC_DETECTED;
		long mhz = find(msg, len, " MHz ", false);
		ev->khz_is_tsc = mhz >= 0 && find(msg + mhz, len - (size_t)mhz, " MHz TSC", false) == 0;
		return;
	}
	if (find(msg, len, "TSC synchronization", false) >= 0 || find(msg, len, "TSC warp", false) >= 0) {
		ev->kind = KLOG_TSC_WARP;
		str_copy(ev->clocksource, GUEST_CS_NAME, "tsc");
		return;
	}
	/* "clocksource: NAME: mask: 0x... max_cycles: ..." when NAME registers. */
	if (len > 13 && mem_equal(msg, "clocksource: ", 13)) {
		long mask = find(msg + 13, len - 13, ": mask: ", false);
		if (mask > 0) {
			name_at(ev->clocksource, msg + 13, (size_t)mask);
			if (ev->clocksource[0] && str_len(ev->clocksource) == (size_t)mask) {
				ev->kind = KLOG_REGISTERED;
				return;
			}
			ev->clocksource[0] = 0;
		}
	}
	if (len > 5 && mem_equal(msg, "tsc: ", 5) && find(msg, len, "calibrat", true) >= 0) {
		ev->kind = KLOG_TSC_CALIBRATION;
		return;
	}
	static const char *const wd_words[] = {"watchdog", "wd_nsec", "cs_nsec", "skewed",
					       "Long readout interval", "Checking clocksource"};
	if (len > 13 && mem_equal(msg, "clocksource: ", 13))
		for (size_t i = 0; i < ARRAY_SIZE(wd_words); i++)
			if (find(msg, len, wd_words[i], false) >= 0) {
				ev->kind = KLOG_WATCHDOG;
				return;
			}
}
