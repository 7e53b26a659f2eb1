/* The two libc functions the core needs (include/util.h): libefi supplies
 * them in the UEFI build, nothing does under direct boot.  rep movsb/stosb
 * rather than loops, which gcc may turn back into calls to these very
 * functions. */
#include "util.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}
