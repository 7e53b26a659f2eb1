/* The HPET source (src/sources/hpet.c, the hardware; hpet_facts.c, its
 * JSON, pure): what it learned beyond its read cost. */
#ifndef CP_HPET_H
#define CP_HPET_H
#include "util.h"

struct hpet_facts {
	bool read;                /* capabilities were read */
	uint64_t capabilities;    /* the general capabilities register */
	bool enabled_by_probe;    /* the probe started a halted counter */
};

struct json;
union source_facts;
struct source_result;
struct verdict_input;
/* Its "hpet" member in its sources[] entry, and its rate for the verdict
 * when the device is there (hpet_facts.c). */
void hpet_report_extra(struct json *j, const union source_facts *f);
void hpet_verdict_facts(struct verdict_input *in, const struct source_result *s);
#endif
