/* Replay: a cpuid_fn answering from a recording as the recorded CPU
 * would, including the leaves it was never asked (above a range's maximum,
 * in the hypervisor window), so decoders run on the host unchanged. */
#include "cpuid_internal.h"

/* Leaves whose ECX input selects a subleaf (Linux's
 * cpuid_function_is_indexed() plus the newer AMD ones). */
static bool is_indexed_leaf(uint32_t leaf)
{
	static const uint32_t indexed[] = {
		4, 7, 0xb, 0xd, 0xf, 0x10, 0x12, 0x14, 0x17, 0x18, 0x1d, 0x1e,
		0x1f, 0x20, 0x23, 0x24, 0x8000001d, 0x80000020, 0x80000026,
	};

	for (size_t i = 0; i < ARRAY_SIZE(indexed); i++)
		if (indexed[i] == leaf)
			return true;
	return false;
}

static void record_to_regs(const struct cpuid_record *rec, uint32_t regs[4])
{
	regs[CPUID_EAX] = rec->eax;
	regs[CPUID_EBX] = rec->ebx;
	regs[CPUID_ECX] = rec->ecx;
	regs[CPUID_EDX] = rec->edx;
}

/* The recorded answer for leaf/subleaf without any out-of-range rule:
 * exact match, else subleaf 0 for a leaf the CPU does not index. */
static const struct cpuid_record *find_recorded(const struct cpuid_recording *rec,
						uint32_t leaf, uint32_t subleaf)
{
	const struct cpuid_record *sub0 = NULL;
	bool indexed = is_indexed_leaf(leaf);

	for (size_t i = 0; i < rec->count; i++) {
		const struct cpuid_record *r = &rec->records[i];

		if (r->leaf != leaf)
			continue;
		if (r->subleaf == subleaf)
			return r;
		if (r->subleaf == 0)
			sub0 = r;
		else
			indexed = true;	/* e.g. Xen's base+3 */
	}
	return indexed ? NULL : sub0;
}

static bool leaf_is_recorded(const struct cpuid_recording *rec, uint32_t leaf)
{
	for (size_t i = 0; i < rec->count; i++)
		if (rec->records[i].leaf == leaf)
			return true;
	return false;
}

static uint32_t recorded_eax(const struct cpuid_recording *rec, uint32_t leaf)
{
	const struct cpuid_record *r = find_recorded(rec, leaf, 0);

	return r ? r->eax : 0;
}

/* Is leaf above the maximum of the range it belongs to? */
static bool beyond_range(const struct cpuid_recording *rec, uint32_t leaf)
{
	uint32_t range_base;

	if (leaf >= HV_WINDOW_FIRST && leaf <= HV_WINDOW_LAST)
		return true;	/* see enum cpuid_unrecorded */
	if (leaf < 0x80000000)
		return leaf > recorded_eax(rec, 0);
	range_base = leaf >= 0xc0000000 ? 0xc0000000 : 0x80000000;
	if (!leaf_is_recorded(rec, range_base))
		return true;
	return leaf > recorded_eax(rec, range_base);
}

void cpuid_replay(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	const struct cpuid_recording *rec = ctx;
	const struct cpuid_record *r = find_recorded(rec, leaf, subleaf);

	regs[0] = regs[1] = regs[2] = regs[3] = 0;
	if (r) {
		record_to_regs(r, regs);
		return;
	}
	if (leaf_is_recorded(rec, leaf) || !beyond_range(rec, leaf))
		return;
	if (rec->unrecorded == CPUID_UNRECORDED_CLAMP) {
		r = find_recorded(rec, recorded_eax(rec, 0), subleaf);
		if (r)
			record_to_regs(r, regs);
	}
}
