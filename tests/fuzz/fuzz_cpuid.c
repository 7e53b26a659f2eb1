/* libFuzzer target for the CPUID decoders on arbitrary leaf values.
 *
 * Input: one byte of mode (bit 0: unrecorded leaves read as zeros or as a
 * clamp to the highest basic leaf), then 24-byte records "leaf subleaf
 * eax ebx ecx edx" (little-endian), answered through cpuid_replay exactly
 * by a lookup that answers unrecorded leaves with zeros or with the
 * highest basic leaf, as AMD and Intel CPUs do (cpuid_replay's finer rules
 * cost a linear scan per call, and the decoders need thousands of calls
 * per input: too slow for a campaign).  Every decoder the probe runs on CPUID is driven:
 * the CPU decode, the package shift, the hypervisor window scan (with the
 * timing leaves that size deadlines), the recording walk and its text form
 * round trip.  Seeds: tests/fixtures/cpuid/fuzz-seeds/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cpuid.h"
#include "hypervisor.h"
#include "rate.h"

#define MAX_INPUT_RECORDS 40
/* Lines round-tripped through the text form per input. */
#define ROUND_TRIP_MAX 16

/* Open-addressed table of the input's records: the decoders ask
 * thousands of leaves per input, so the lookup must cost O(1). */
#define SLOTS 128

struct leaves {
	const struct cpuid_record *slot[SLOTS];
	const struct cpuid_record *top; /* highest basic leaf, subleaf 0 */
	bool zero_unrecorded;
};

__attribute__((no_sanitize("coverage")))
static unsigned slot_of(uint32_t leaf, uint32_t subleaf)
{
	return (leaf * 2654435761u ^ subleaf * 40503u) % SLOTS;
}

__attribute__((no_sanitize("coverage")))
static const struct cpuid_record *find(const struct leaves *l, uint32_t leaf, uint32_t subleaf)
{
	for (unsigned s = slot_of(leaf, subleaf), k = 0; k < SLOTS && l->slot[s]; s = (s + 1) % SLOTS, k++)
		if (l->slot[s]->leaf == leaf && l->slot[s]->subleaf == subleaf)
			return l->slot[s];
	return NULL;
}

/* Later duplicates lose, like the first match of a linear scan. */
static void index_records(struct leaves *l, const struct cpuid_record *r, size_t n)
{
	memset(l->slot, 0, sizeof l->slot);
	l->top = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!find(l, r[i].leaf, r[i].subleaf)) {
			unsigned s = slot_of(r[i].leaf, r[i].subleaf);
			while (l->slot[s])
				s = (s + 1) % SLOTS;
			l->slot[s] = &r[i];
		}
		if (r[i].leaf < 0x80000000u && r[i].subleaf == 0 && (!l->top || r[i].leaf > l->top->leaf))
			l->top = &r[i];
	}
}

/* Not instrumented: its comparisons are the harness's, not the decoders',
 * and tracing them cost most of the time. */
__attribute__((no_sanitize("coverage")))
static void answer(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	const struct leaves *l = ctx;
	const struct cpuid_record *r = find(l, leaf, subleaf);

	if (!r && subleaf)
		r = find(l, leaf, 0);
	if (!r && !l->zero_unrecorded && leaf != 0)
		r = l->top;
	regs[CPUID_EAX] = r ? r->eax : 0;
	regs[CPUID_EBX] = r ? r->ebx : 0;
	regs[CPUID_ECX] = r ? r->ecx : 0;
	regs[CPUID_EDX] = r ? r->edx : 0;
}

static struct leaves rec;
static struct cpuid_record walked[CPUID_RECORD_MAX];
static struct cpuid_record reparsed[CPUID_RECORD_MAX];
static char text[CPUID_RECORD_MAX * CPUID_RECORD_LINE_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpuid_record in[MAX_INPUT_RECORDS];
	struct cpu_info cpu;
	struct hv_info hv;
	size_t n = 0;

	if (size < 1)
		return 0;
	for (size_t off = 1; off + 24 <= size && n < MAX_INPUT_RECORDS; off += 24, n++) {
		in[n].leaf = load_le32(data + off);
		in[n].subleaf = load_le32(data + off + 4);
		in[n].eax = load_le32(data + off + 8);
		in[n].ebx = load_le32(data + off + 12);
		in[n].ecx = load_le32(data + off + 16);
		in[n].edx = load_le32(data + off + 20);
	}
	index_records(&rec, in, n);
	rec.zero_unrecorded = data[0] & 1;

	cpuid_decode(&cpu, answer, &rec);
	if (cpu.vendor[12] || cpu.brand[48])
		abort();
	enum cpuid_topo_source src;
	uint32_t shift = cpuid_package_shift(&cpu, answer, &rec, &src);
	if (shift > 32 || !cpuid_topo_source_name(src))
		abort();
	hypervisor_decode(&hv, &cpu, answer, &rec);
	(void)cpuid_detect_unrecorded(answer, &rec);

	/* The dump's round trip: each walked record (the first
	 * ROUND_TRIP_MAX) formats to a line that
	 * parses back to the same record. */
	size_t w = cpuid_record_leaves(answer, &rec, walked, CPUID_RECORD_MAX);
	if (w > CPUID_RECORD_MAX)
		abort();
	size_t len = 0;
	w = w < ROUND_TRIP_MAX ? w : ROUND_TRIP_MAX;
	for (size_t i = 0; i < w; i++) {
		len += cpuid_record_format(&walked[i], text + len, sizeof text - len);
		text[len++] = '\n';
	}
	struct cpuid_recording back;
	if (!cpuid_recording_parse(&back, reparsed, CPUID_RECORD_MAX, text, len) || back.count != w ||
	    (w && memcmp(walked, reparsed, w * sizeof walked[0])))
		abort();

	/* Rates decoded from leaf 0x15/0x16 as the probe derives them. */
	struct rate_cpuid15 r15;
	rate_cpuid15_decode(&r15, cpuid_reg(answer, &rec, 0x15, 0, CPUID_EAX),
			    cpuid_reg(answer, &rec, 0x15, 0, CPUID_EBX),
			    cpuid_reg(answer, &rec, 0x15, 0, CPUID_ECX),
			    cpuid_reg(answer, &rec, 0x16, 0, CPUID_EAX));
	return 0;
}
