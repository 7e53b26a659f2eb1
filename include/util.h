/* Freestanding basics shared by the probe and the host tests.
 * Only memcpy/memset come from outside (gnu-efi's libefi in the probe,
 * libc on the host): gcc may emit calls to them on its own anyway.  Every
 * other helper lives here so pure code never needs a libc. */
#ifndef CP_UTIL_H
#define CP_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* A compiler barrier: loads and stores do not move across it (x86 keeps
 * load order in hardware; this stops the compiler, as Linux's virt_rmb()
 * does on x86, between a seqcount's reads). */
#define BARRIER() __asm__ __volatile__("" ::: "memory")

/* Why something is absent, failed, stopped or left out: a member called
 * reason (<part>_reason where one struct tells several parts' outcomes:
 * stopped_reason, rtc_reason), a const char * when the text is static,
 * else char reason[REASON_LEN] composed at run time; NULL (or "") when
 * there is nothing to explain.  The report's JSON names are its own. */
#define REASON_LEN 160

bool mem_equal(const void *a, const void *b, size_t n);
size_t str_len(const char *s);
bool str_equal(const char *a, const char *b);
bool str_starts_with(const char *s, const char *prefix);
/* Copies at most cap-1 bytes and always terminates (cap > 0). */
void str_copy(char *dst, size_t cap, const char *src);

/* Unaligned little-endian loads: ACPI and SMBIOS fields are packed. */
static inline uint16_t load_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | (b[1] << 8));
}
static inline uint32_t load_le32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static inline uint64_t load_le64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)load_le32(b) | ((uint64_t)load_le32(b + 4) << 32);
}

/* Decimal digits of v into buf (no terminator), most significant first;
 * returns how many (1..20). */
size_t u64_to_decimal(uint64_t v, char buf[20]);

/* 128/64 division without libgcc's __udivti3 (gnu-efi links would
 * otherwise carry an undefined symbol).  Quotient saturates at UINT64_MAX;
 * divisor 0 yields UINT64_MAX. */
uint64_t u128_div_u64(unsigned __int128 n, uint64_t d);
/* a * b / d with a 128-bit intermediate: the workhorse of rate conversion. */
static inline uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t d)
{
	return u128_div_u64((unsigned __int128)a * b, d);
}
#endif
