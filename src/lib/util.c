#include "util.h"

bool mem_equal(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

bool str_equal(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

bool str_starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

void str_copy(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	if (!cap)
		return;
	for (; i + 1 < cap && src[i]; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

size_t u64_to_decimal(uint64_t v, char buf[20])
{
	char rev[20];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = rev[n - 1 - i];
	return n;
}

uint64_t u128_div_u64(unsigned __int128 n, uint64_t d)
{
	if (!d || (n >> 64) >= d)
		return UINT64_MAX;
	/* Restoring long division, one quotient bit per step; rare and off the
	 * measured paths, so clarity beats speed. */
	unsigned __int128 rem = 0;
	uint64_t q = 0;
	for (int bit = 127; bit >= 0; bit--) {
		rem = (rem << 1) | (uint64_t)((n >> bit) & 1);
		if (rem >= d) {
			rem -= d;
			if (bit < 64)
				q |= (uint64_t)1 << bit;
		}
	}
	return q;
}
