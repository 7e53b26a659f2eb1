#include "readpath.h"

/* hi is clearly above lo: more than 25 % higher. */
static bool clearly_above(uint64_t hi, uint64_t lo)
{
	return (unsigned __int128)hi * 4 > (unsigned __int128)lo * 5;
}

/* cost below the geometric mean of a and b, without a square root. */
static bool below_geometric_mean(uint64_t cost, uint64_t a, uint64_t b)
{
	return (unsigned __int128)cost * cost < (unsigned __int128)a * b;
}

/* A zero RDTSC cost (fully hidden by the harness subtraction) would make
 * the native band empty; one cycle is the finest the TSC can say. */
static uint64_t rdtsc_floor(const struct read_path_baselines *b)
{
	return b->rdtsc ? b->rdtsc : 1;
}

bool read_path_baselines_usable(const struct read_path_baselines *b)
{
	return clearly_above(b->cpuid, rdtsc_floor(b)) &&
	       clearly_above(b->port, b->cpuid) &&
	       (unsigned __int128)b->port >= (unsigned __int128)b->harness * 2;
}

/* Under emulation (QEMU TCG) nothing exits: CPUID is a helper call that
 * costs about what RDTSC costs, while a port access still goes through the
 * device model.  Then only native and device_model can be told apart. */
bool read_path_emulated(const struct read_path_baselines *b)
{
	return !clearly_above(b->cpuid, rdtsc_floor(b)) &&
	       clearly_above(b->port, rdtsc_floor(b)) &&
	       (unsigned __int128)b->port >= (unsigned __int128)b->harness * 2;
}

enum read_path read_path_classify(uint64_t cost,
				  const struct read_path_baselines *b)
{
	if (read_path_emulated(b))
		return below_geometric_mean(cost, rdtsc_floor(b), b->port) ? READ_PATH_NATIVE
									    : READ_PATH_DEVICE_MODEL;
	if (!read_path_baselines_usable(b))
		return READ_PATH_UNKNOWN;
	if (below_geometric_mean(cost, rdtsc_floor(b), b->cpuid))
		return READ_PATH_NATIVE;
	if (below_geometric_mean(cost, b->cpuid, b->port))
		return READ_PATH_EXIT;
	return READ_PATH_DEVICE_MODEL;
}

const char *read_path_name(enum read_path path)
{
	switch (path) {
	case READ_PATH_NATIVE:
		return "native";
	case READ_PATH_EXIT:
		return "exit";
	case READ_PATH_DEVICE_MODEL:
		return "device_model";
	case READ_PATH_UNKNOWN:
		break;
	}
	return "unknown";
}
