#ifndef CP_PROBE_H
#define CP_PROBE_H
#include "platform.h"

#define PROBE_VERSION "0.1.0"

/* The whole run: discover, measure, decide, report, leave.  Never returns. */
void probe_main(struct platform *plat) __attribute__((noreturn));

struct serialization;
struct cpu_info;
/* Picks the RDTSC fence for the measurement stamps (src/probe/serialize.c). */
void serialization_choose(struct serialization *out, const struct cpu_info *cpu);
#endif
