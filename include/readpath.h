/* Which path one read of a clock source takes, judged by its cost against
 * three baselines measured on the same machine in the same way:
 *   RDTSC             - a read that never leaves the guest,
 *   CPUID             - a read that always exits to the hypervisor (and is
 *                       handled in the kernel part of the VMM),
 *   unassigned port   - an exit that goes all the way to the device model
 *                       (QEMU userspace under KVM).
 *
 * Rule: costs are compared on a log scale, where the natural boundary
 * between two baselines is their geometric mean:
 *   cost < sqrt(rdtsc * cpuid)             -> native
 *   cost < sqrt(cpuid * port)              -> exit
 *   otherwise                              -> device_model
 * (evaluated as cost^2 < a * b in 128 bits; no square roots).  A log scale
 * because VM-exit costs differ by orders of magnitude between hosts while
 * the ratios between the classes stay large (KVM: 20 / 1200 / 4500).
 *
 * Indeterminate baselines give READ_PATH_UNKNOWN instead of a guess:
 *   - cpuid not above rdtsc by more than 25 %, or
 *   - port not above cpuid by more than 25 % (e.g. port <= cpuid), or
 *   - port below twice the harness cost: every read is lost in the
 *     measurement's own overhead (QEMU -icount, where all costs are 3-4
 *     instructions).
 * On bare metal nothing exits; the bands then only say "as cheap as
 * RDTSC", "as dear as CPUID", "as dear as an ISA port". */
#ifndef CP_READPATH_H
#define CP_READPATH_H
#include "util.h"

enum read_path {
	READ_PATH_NATIVE,
	READ_PATH_EXIT,
	READ_PATH_DEVICE_MODEL,
	READ_PATH_UNKNOWN,
};

/* Per-read costs in TSC cycles (per-read throughput, or p50 with the
 * harness subtracted; the same kind for every field and for the source).
 * harness is the cost of the empty measurement itself. */
struct read_path_baselines {
	uint64_t harness;
	uint64_t rdtsc;
	uint64_t cpuid;
	uint64_t port;
};

bool read_path_baselines_usable(const struct read_path_baselines *b);
/* CPUID costs no more than RDTSC but a port read does: an emulator
 * without VM exits (TCG), classified native / device_model only. */
bool read_path_emulated(const struct read_path_baselines *b);
enum read_path read_path_classify(uint64_t cost,
				  const struct read_path_baselines *b);
/* "native", "exit", "device_model", "unknown" (the report's names). */
const char *read_path_name(enum read_path path);
#endif
