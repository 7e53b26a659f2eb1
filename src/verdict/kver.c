/* Kernel releases as the rule tables name them: whether one release
 * carries a change.  Its own file so that predict.c (which runs the step
 * tables) and watchdog.c (whose era figures ask the same question) both
 * depend on it and not on each other. */
#include "verdict_model.h"

bool kernel_has(unsigned kver, unsigned since, const unsigned *backported)
{
	if (since == KV_OPEN || kver >= since)
		return true;
	for (size_t i = 0; backported && i < MAX_BACKPORT_LINES && backported[i]; i++)
		if (backported[i] == kver)
			return true;
	return false;
}
