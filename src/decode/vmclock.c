/* The VMClock page: decoding, validation and the seqcount read
 * (include/vmclock.h).  Layout and values: Linux
 * include/uapi/linux/vmclock-abi.h. */
#include "vmclock.h"
#include "strbuf.h"

void vmclock_decode(struct vmclock_page *out, const uint8_t *b, size_t n)
{
	memset(out, 0, sizeof *out);
	if (n < VMCLOCK_MIN_SIZE)
		return;
	out->magic = load_le32(b + VMCLOCK_OFF_MAGIC);
	out->size = load_le32(b + VMCLOCK_OFF_SIZE);
	out->version = load_le16(b + VMCLOCK_OFF_VERSION);
	out->counter_id = b[VMCLOCK_OFF_COUNTER_ID];
	out->time_type = b[VMCLOCK_OFF_TIME_TYPE];
	out->seq_count = load_le32(b + VMCLOCK_OFF_SEQ_COUNT);
	out->disruption_marker = load_le64(b + VMCLOCK_OFF_DISRUPTION_MARKER);
	out->flags = load_le64(b + VMCLOCK_OFF_FLAGS);
	out->clock_status = b[VMCLOCK_OFF_CLOCK_STATUS];
	out->leap_second_smearing_hint = b[VMCLOCK_OFF_SMEARING_HINT];
	/* "Actually two's complement signed". */
	out->tai_offset_sec = (int16_t)load_le16(b + VMCLOCK_OFF_TAI_OFFSET);
	out->leap_indicator = b[VMCLOCK_OFF_LEAP_INDICATOR];
	out->counter_period_shift = b[VMCLOCK_OFF_PERIOD_SHIFT];
	out->counter_value = load_le64(b + VMCLOCK_OFF_COUNTER_VALUE);
	out->counter_period_frac_sec = load_le64(b + VMCLOCK_OFF_PERIOD_FRAC);
	out->counter_period_esterror_rate_frac_sec = load_le64(b + VMCLOCK_OFF_PERIOD_ESTERROR);
	out->counter_period_maxerror_rate_frac_sec = load_le64(b + VMCLOCK_OFF_PERIOD_MAXERROR);
	out->time_sec = load_le64(b + VMCLOCK_OFF_TIME_SEC);
	out->time_frac_sec = load_le64(b + VMCLOCK_OFF_TIME_FRAC);
	out->time_esterror_nanosec = load_le64(b + VMCLOCK_OFF_TIME_ESTERROR);
	out->time_maxerror_nanosec = load_le64(b + VMCLOCK_OFF_TIME_MAXERROR);
	if (n >= VMCLOCK_ABI_SIZE && out->size >= VMCLOCK_ABI_SIZE)
		out->vm_generation_counter = load_le64(b + VMCLOCK_OFF_VM_GENERATION);
}

const char *vmclock_check_name(enum vmclock_check c)
{
	switch (c) {
	case VMCLOCK_OK: return "ok";
	case VMCLOCK_BAD_MAGIC: return "bad_magic";
	case VMCLOCK_BAD_VERSION: return "bad_version";
	case VMCLOCK_BAD_SIZE: return "bad_size";
	case VMCLOCK_BUSY: return "busy";
	}
	return "undefined";
}

enum vmclock_check vmclock_validate(const struct vmclock_page *p, uint64_t region_len, char *why, size_t cap)
{
	struct strbuf sb;
	sb_init(&sb, why, cap);
	if (p->magic != VMCLOCK_MAGIC) {
		sb_str(&sb, "magic 0x");
		sb_hex(&sb, p->magic, 8);
		sb_str(&sb, ", not 0x4b4c4356 (\"VCLK\")");
		return VMCLOCK_BAD_MAGIC;
	}
	/* A later version may move fields: decoding it as version 1 would
	 * report numbers that mean something else. */
	if (p->version != VMCLOCK_VERSION) {
		sb_str(&sb, "version ");
		sb_u64(&sb, p->version);
		sb_str(&sb, " (this probe knows version 1)");
		return VMCLOCK_BAD_VERSION;
	}
	if (p->size < VMCLOCK_MIN_SIZE || p->size > region_len) {
		sb_str(&sb, "size ");
		sb_u64(&sb, p->size);
		sb_str(&sb, p->size < VMCLOCK_MIN_SIZE ? " is below the structure's 104 bytes"
						       : " exceeds the range the _CRS reserves (");
		if (p->size >= VMCLOCK_MIN_SIZE) {
			sb_u64(&sb, region_len);
			sb_str(&sb, " bytes)");
		}
		return VMCLOCK_BAD_SIZE;
	}
	if (cap)
		why[0] = '\0';
	return VMCLOCK_OK;
}

static uint32_t vload32(const volatile uint8_t *p, size_t off)
{
	/* Byte loads: the page's 32-bit fields are aligned, but this keeps
	 * the read free of any alignment or aliasing assumption. */
	return (uint32_t)p[off] | ((uint32_t)p[off + 1] << 8) | ((uint32_t)p[off + 2] << 16) |
	       ((uint32_t)p[off + 3] << 24);
}

/* The structure's bytes: as 8-byte loads when the page is 8-byte aligned
 * (it is a page; 14 loads instead of 112 is what one read costs a guest's
 * clock code), else bytewise. */
static void copy_page(uint8_t *dst, const volatile uint8_t *src, size_t n)
{
	size_t i = 0;
	if (!((uintptr_t)src & 7)) {
		const volatile uint64_t *q = (const volatile uint64_t *)(const volatile void *)src;
		for (; i + 8 <= n; i += 8) {
			uint64_t v = q[i / 8];
			memcpy(dst + i, &v, 8);
		}
	}
	for (; i < n; i++)
		dst[i] = src[i];
}

enum vmclock_check vmclock_snapshot(const volatile uint8_t *page, size_t readable, struct vmclock_page *out,
				    uint32_t max_tries, uint32_t *retries)
{
	uint8_t copy[VMCLOCK_ABI_SIZE];
	size_t n = MIN(readable, sizeof copy);
	*retries = 0;
	memset(out, 0, sizeof *out);
	if (n < VMCLOCK_MIN_SIZE)
		return VMCLOCK_BAD_SIZE;
	for (uint32_t t = 0; t < max_tries; t++) {
		uint32_t s1 = vload32(page, VMCLOCK_OFF_SEQ_COUNT);
		BARRIER();
		if (!(s1 & 1)) {
			copy_page(copy, page, n);
			BARRIER();
			if (vload32(page, VMCLOCK_OFF_SEQ_COUNT) == s1) {
				vmclock_decode(out, copy, n);
				return VMCLOCK_OK;
			}
		}
		(*retries)++;
	}
	/* Still report what the last attempt saw (its seq_count says why). */
	copy_page(copy, page, n);
	vmclock_decode(out, copy, n);
	return VMCLOCK_BUSY;
}

const char *vmclock_counter_name(uint8_t id)
{
	switch (id) {
	case VMCLOCK_COUNTER_ARM_VCNT: return "arm_vcnt";
	case VMCLOCK_COUNTER_X86_TSC: return "x86_tsc";
	case VMCLOCK_COUNTER_INVALID: return "invalid";
	}
	return "undefined";
}

const char *vmclock_time_type_name(uint8_t t)
{
	static const char *const names[] = { "utc", "tai", "monotonic", "invalid_smeared", "invalid_maybe_smeared" };
	return t < ARRAY_SIZE(names) ? names[t] : "undefined";
}

const char *vmclock_status_name(uint8_t s)
{
	static const char *const names[] = { "unknown", "initializing", "synchronized", "freerunning", "unreliable" };
	return s < ARRAY_SIZE(names) ? names[s] : "undefined";
}

const char *vmclock_leap_name(uint8_t l)
{
	static const char *const names[] = { "none", "pre_pos", "pre_neg", "pos", "post_pos", "post_neg" };
	return l < ARRAY_SIZE(names) ? names[l] : "undefined";
}

const char *vmclock_smearing_name(uint8_t h)
{
	static const char *const names[] = { "strict", "noon_linear", "utc_sls" };
	return h < ARRAY_SIZE(names) ? names[h] : "undefined";
}

const char *vmclock_flag_name(unsigned bit)
{
	static const char *const names[VMCLOCK_FLAG_COUNT] = {
		"tai_offset_valid",      "disruption_soon",       "disruption_imminent",
		"period_esterror_valid", "period_maxerror_valid", "time_esterror_valid",
		"time_maxerror_valid",   "time_monotonic",        "vm_gen_counter_present",
	};
	return bit < ARRAY_SIZE(names) ? names[bit] : NULL;
}

uint64_t vmclock_counter_hz(uint64_t period_frac_sec, uint8_t shift)
{
	/* One tick lasts period / 2^(64 + shift) s, so the rate is
	 * 2^(64 + shift) / period; 2^(64 + shift) needs shift < 64 to fit
	 * the 128-bit numerator. */
	if (!period_frac_sec || shift >= 64)
		return 0;
	unsigned __int128 num = (unsigned __int128)1 << (64 + shift);
	uint64_t q = u128_div_u64(num, period_frac_sec);
	return q == UINT64_MAX ? 0 : q;
}
