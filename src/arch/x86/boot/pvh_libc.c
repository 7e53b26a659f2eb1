/* The two libc functions the core needs (include/util.h): libefi supplies
 * them in the UEFI build, nothing does under direct boot.  rep movs/stos
 * rather than loops, which gcc may turn back into calls to these very
 * functions; eight bytes an iteration and the tail by bytes, because a
 * hypervisor that emulates the guest (a nested KVM of the PVM kind) pays
 * per iteration: the verdict clears and copies a few MB. */
#include "util.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, b = n % 8;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(b) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	size_t q = n / 8, b = n % 8;
	uint64_t v = (uint8_t)c * 0x0101010101010101ull;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(b) : "a"(v) : "memory");
	return dst;
}
