#include "readpath.h"
#include "strbuf.h"

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

/* cost inside the zone around sqrt(a * b) that the yardsticks' spreads
 * leave undecided: sqrt(ab) / (1 + sa) <= cost <= sqrt(ab) * (1 + sb),
 * squared so no root is taken (spreads in per mille). */
static bool in_overlap(uint64_t cost, uint64_t a, uint32_t spread_a, uint64_t b, uint32_t spread_b)
{
	if (!spread_a && !spread_b)
		return false;
	/* Clamped so the products below stay within 128 bits. */
	const uint64_t cap = 1ull << 40;
	cost = MIN(cost, cap);
	a = MIN(a, cap);
	b = MIN(b, cap);
	spread_a = MIN(spread_a, 1000000u);
	spread_b = MIN(spread_b, 1000000u);
	unsigned __int128 c2 = (unsigned __int128)cost * cost;
	unsigned __int128 ab = (unsigned __int128)a * b;
	uint64_t fa = 1000 + spread_a, fb = 1000 + spread_b;
	/* c2 * fa^2 >= ab * 1e6  and  c2 * 1e6 <= ab * fb^2 */
	bool above_low = c2 * fa * fa >= ab * 1000000;
	bool below_high = c2 * 1000000 <= ab * fb * fb;
	return above_low && below_high;
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
	return (b->cpuid_cheap || !clearly_above(b->cpuid, rdtsc_floor(b))) &&
	       clearly_above(b->port, rdtsc_floor(b)) &&
	       (unsigned __int128)b->port >= (unsigned __int128)b->harness * 2;
}

/* The exit/device_model boundary's lower yardstick: the in-kernel port
 * when it sits clearly between CPUID and the unassigned port. */
static bool kernel_port_usable(const struct read_path_baselines *b)
{
	return b->kernel_port && clearly_above(b->port, b->kernel_port) && !clearly_above(b->cpuid, b->kernel_port);
}

enum read_path read_path_classify(uint64_t cost,
				  const struct read_path_baselines *b)
{
	uint64_t lo = rdtsc_floor(b);
	if (read_path_emulated(b)) {
		if (in_overlap(cost, lo, b->rdtsc_spread, b->port, b->port_spread))
			return READ_PATH_UNKNOWN;
		return below_geometric_mean(cost, lo, b->port) ? READ_PATH_NATIVE : READ_PATH_DEVICE_MODEL;
	}
	if (!read_path_baselines_usable(b))
		return READ_PATH_UNKNOWN;
	if (in_overlap(cost, lo, b->rdtsc_spread, b->cpuid, b->cpuid_spread))
		return READ_PATH_UNKNOWN;
	if (below_geometric_mean(cost, lo, b->cpuid))
		return READ_PATH_NATIVE;
	uint64_t exit_top = b->cpuid;
	uint32_t exit_spread = b->cpuid_spread;
	if (kernel_port_usable(b)) {
		exit_top = b->kernel_port;
		exit_spread = b->kernel_port_spread;
	}
	if (in_overlap(cost, exit_top, exit_spread, b->port, b->port_spread))
		return READ_PATH_UNKNOWN;
	if (below_geometric_mean(cost, exit_top, b->port))
		return READ_PATH_EXIT;
	return READ_PATH_DEVICE_MODEL;
}

static void basis_yardsticks(struct strbuf *sb, const struct read_path_baselines *b)
{
	sb_str(sb, "; yardsticks (cycles/read): rdtsc ");
	sb_u64(sb, b->rdtsc);
	sb_str(sb, ", cpuid ");
	sb_u64(sb, b->cpuid);
	if (b->kernel_port) {
		sb_str(sb, ", kernel port ");
		sb_u64(sb, b->kernel_port);
	}
	sb_str(sb, ", port ");
	sb_u64(sb, b->port);
}

enum read_path read_path_judge(const struct read_path_baselines *b, uint64_t cost, bool reads_tsc,
			       char *basis, size_t cap)
{
	struct strbuf sb;
	char none[1];
	if (!cap) {
		basis = none;
		cap = sizeof none;
	}
	sb_init(&sb, basis, cap);
	if (b->no_hypervisor) {
		/* The bit alone is not proof: a hypervisor can hide it.  The
		 * label says hardware only when the costs fit hardware too. */
		if (!b->cpuid_cheap) {
			sb_str(&sb, "no hypervisor bit, but CPUID takes 100 ns+ (a VM exit's cost): a hidden hypervisor?");
			basis_yardsticks(&sb, b);
			return READ_PATH_UNKNOWN;
		}
		if (!b->port_fits_hardware) {
			sb_str(&sb, "no hypervisor bit, but a port reads in under 300 ns (LPC: ~1 us): an emulator?");
			basis_yardsticks(&sb, b);
			return READ_PATH_UNKNOWN;
		}
		sb_str(&sb, "no hypervisor (CPUID.1:ECX[31] clear), CPUID under 100 ns, a port at LPC speed: "
			    "nothing exits");
		return READ_PATH_HARDWARE;
	}
	if (b->all_emulated && reads_tsc && b->insn_ticks_milli) {
		/* Everything goes through the emulator here, CPUID too; RDTSC
		 * exits on its own only if it is clearly dearer than that. */
		bool exits = b->cpuid && (unsigned __int128)b->rdtsc > (unsigned __int128)b->cpuid * EMULATED_RDTSC_EXIT_CPUIDS;
		sb_str(&sb, "this vCPU emulates every instruction (a plain one costs ");
		sb_u64(&sb, (b->insn_ticks_milli + 500) / 1000);
		sb_str(&sb, " ticks): this read costs ");
		sb_u64(&sb, b->rdtsc);
		sb_str(&sb, " ticks, about ");
		sb_u64(&sb, (b->rdtsc * 1000 + b->insn_ticks_milli / 2) / b->insn_ticks_milli);
		sb_str(&sb, " plain instructions, CPUID ");
		sb_u64(&sb, b->cpuid);
		sb_str(&sb, exits ? ": more than twice CPUID, so RDTSC exits on top of the emulation"
				  : ": no more than twice CPUID, no exit of its own beyond the emulation");
		return exits ? READ_PATH_EXIT : READ_PATH_EMULATED;
	}
	if (b->rdtsc_traps && reads_tsc) {
		sb_str(&sb, "RDTSC traps (harness anomaly) and this read executes RDTSC");
		return READ_PATH_EXIT;
	}
	if (b->rdtsc_traps) {
		/* No native yardstick: RDTSC itself exits.  What does not read
		 * the TSC is told apart as exit or device_model only. */
		uint64_t exit_top = kernel_port_usable(b) ? b->kernel_port : b->cpuid;
		sb_str(&sb, "RDTSC traps, so no native yardstick: cost ");
		sb_u64(&sb, cost);
		sb_str(&sb, kernel_port_usable(b) ? " split at sqrt(kernel_port*port)" : " split at sqrt(cpuid*port)");
		basis_yardsticks(&sb, b);
		if (!clearly_above(b->port, exit_top))
			return READ_PATH_UNKNOWN;
		return below_geometric_mean(cost, exit_top, b->port) ? READ_PATH_EXIT : READ_PATH_DEVICE_MODEL;
	}
	enum read_path p = read_path_classify(cost, b);
	sb_str(&sb, "cost ");
	sb_u64(&sb, cost);
	if (read_path_emulated(b))
		sb_str(&sb, " under emulation (cpuid ~ rdtsc): native/device_model split at sqrt(rdtsc*port)");
	else if (!read_path_baselines_usable(b))
		sb_str(&sb, ": yardsticks not ordered rdtsc < cpuid < port, or lost in the harness");
	else if (kernel_port_usable(b))
		sb_str(&sb, ": exit/device_model split at sqrt(kernel_port*port)");
	else
		sb_str(&sb, ": exit/device_model split at sqrt(cpuid*port)");
	if (p == READ_PATH_UNKNOWN && (read_path_emulated(b) || read_path_baselines_usable(b)))
		sb_str(&sb, ", inside the overlap of two yardsticks' spreads");
	basis_yardsticks(&sb, b);
	return p;
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
	case READ_PATH_HARDWARE:
		return "hardware";
	case READ_PATH_EMULATED:
		return "emulated";
	case READ_PATH_UNKNOWN:
		break;
	}
	return "unknown";
}

uint64_t ref_loop_insn_ps(uint64_t ticks, uint64_t insns, uint64_t tsc_hz)
{
	if (!ticks || !insns || !tsc_hz || ticks == UINT64_MAX || insns > UINT32_MAX || tsc_hz > UINT32_MAX * 8ull)
		return 0;
	/* ticks * 1e12 / (insns * hz): the divisor fits 64 bits (insns and
	 * hz bounded above); the quotient saturates. */
	return u128_div_u64((unsigned __int128)ticks * 1000000000000ull, insns * tsc_hz);
}

bool vcpu_emulated(uint64_t insn_ps)
{
	return insn_ps >= VCPU_EMULATED_INSN_PS;
}

/* No CPU's RDTSC takes a microsecond; a trapped one takes several. */
#define HARNESS_MAX_NS 1000

/* No VM exit round trip takes under 100 ns on any hardware (a fast one is
 * several hundred). */
#define CPUID_EXIT_MIN_NS 100

/* This project's threshold, well under the ~1 us of an LPC cycle and
 * well over what QEMU's TCG takes for an unassigned port (~60 ns here). */
#define PORT_HARDWARE_MIN_NS 300

bool port_read_fits_hardware(uint64_t port_cycles, uint64_t tsc_hz)
{
	return tsc_hz && (unsigned __int128)port_cycles * 1000000000u >= (unsigned __int128)PORT_HARDWARE_MIN_NS * tsc_hz;
}

bool cpuid_is_cheap(uint64_t cpuid_cycles, uint64_t tsc_hz)
{
	return tsc_hz && (unsigned __int128)cpuid_cycles * 1000000000u < (unsigned __int128)CPUID_EXIT_MIN_NS * tsc_hz;
}

const char *harness_anomaly(uint64_t harness, uint64_t cpuid, uint64_t tsc_hz, bool cpuid_exits)
{
	if (tsc_hz && (unsigned __int128)harness * 1000000000u >= (unsigned __int128)HARNESS_MAX_NS * tsc_hz)
		return "the empty harness (two serialized RDTSCs) costs over 1 us: RDTSC traps to the hypervisor";
	if (cpuid_exits && cpuid && harness > cpuid)
		return "the empty harness costs more than a CPUID exit: RDTSC traps to the hypervisor";
	return NULL;
}
