#ifndef CP_PROBE_H
#define CP_PROBE_H
#include "platform.h"

#define PROBE_VERSION "0.1.0"

/* The whole run: discover, measure, decide, report, leave.  Never returns. */
void probe_main(struct platform *plat) __attribute__((noreturn));

#endif
