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
 * A fourth yardstick, a port the hypervisor's kernel answers (the PIC's
 * ELCR at 0x4D0 under KVM), moves the exit/device_model boundary to
 * sqrt(kernel_port * port) when it is clearly cheaper than the unassigned
 * port: then "exit" means handled in the hypervisor's kernel and
 * "device_model" handled in its userspace.
 *
 * Margins: each yardstick's own spread (p90 over p50 of its per-call
 * samples, in per mille) widens a boundary into a zone [b / (1 + s_low),
 * b * (1 + s_high)]; a cost inside it is READ_PATH_UNKNOWN.
 *
 * read_path_judge() adds what costs alone cannot say: with no hypervisor
 * nothing exits (READ_PATH_HARDWARE); an RDTSC that traps makes every read
 * that executes RDTSC an exit, whatever it costs. */
#ifndef CP_READPATH_H
#define CP_READPATH_H
#include "util.h"

enum read_path {
	READ_PATH_NATIVE,
	READ_PATH_EXIT,
	READ_PATH_DEVICE_MODEL,
	READ_PATH_UNKNOWN,
	READ_PATH_HARDWARE,	/* no hypervisor: the read goes to hardware */
	/* The vCPU emulates every instruction (vcpu_emulated) and the read
	 * costs about what any emulated instruction costs: no exit of its own. */
	READ_PATH_EMULATED,
};

/* Per-read costs in TSC cycles (per-read throughput, or p50 with the
 * harness subtracted; the same kind for every field and for the source).
 * harness is the cost of the empty measurement itself. */
struct read_path_baselines {
	uint64_t harness;
	uint64_t rdtsc;
	uint64_t cpuid;
	uint64_t port;
	uint64_t kernel_port;	/* 0 = not measured */
	/* (p90 - p50) / p50 of each yardstick's samples, per mille; 0 = none */
	uint32_t rdtsc_spread, cpuid_spread, kernel_port_spread, port_spread;
	bool no_hypervisor;	/* CPUID.1:ECX[31] clear: bare metal as far as we can tell */
	/* CPUID costs under 100 ns (cpuid_is_cheap): no VM exit is that cheap,
	 * so nothing exits here (an emulator such as QEMU TCG).  Decided in
	 * absolute time because TCG's relative costs shift during a run. */
	bool cpuid_cheap;
	/* The unassigned port read costs what hardware's LPC bus takes (at
	 * least 300 ns, port_read_fits_hardware): with no hypervisor bit, the
	 * label hardware needs this and a cheap CPUID, else it is unknown. */
	bool port_fits_hardware;
	bool rdtsc_traps;	/* the harness showed a trapping RDTSC */
	/* The vCPU runs a plain instruction in insn_ps picoseconds or more
	 * (vcpu_emulated): then the reads that execute RDTSC are labelled by
	 * what RDTSC costs against rdtsc_insns plain instructions. */
	bool all_emulated;
	uint64_t insn_ticks_milli;	/* one plain instruction, TSC ticks x1000 */
};

/* One plain instruction's cost in picoseconds from the reference loop
 * (ticks for insns instructions at tsc_hz); 0 when unknown. */
uint64_t ref_loop_insn_ps(uint64_t ticks, uint64_t insns, uint64_t tsc_hz);
/* No core takes 20 ns for a dependent add (hardware: about a cycle, QEMU
 * TCG a few ns): a vCPU that does runs its code through an emulator. */
#define VCPU_EMULATED_INSN_PS 20000
bool vcpu_emulated(uint64_t insn_ps);
/* On an emulated vCPU every instruction goes through the emulator, CPUID
 * too (it costs tens of plain instructions there, not a thousand as a
 * hardware VM exit does): a TSC read dearer than this many CPUIDs traps on
 * its own, on top of the emulation. */
#define EMULATED_RDTSC_EXIT_CPUIDS 2

bool read_path_baselines_usable(const struct read_path_baselines *b);
/* CPUID costs no more than RDTSC but a port read does: an emulator
 * without VM exits (TCG), classified native / device_model only. */
bool read_path_emulated(const struct read_path_baselines *b);
enum read_path read_path_classify(uint64_t cost,
				  const struct read_path_baselines *b);
/* The label for one source, with the yardsticks that decided it written
 * to basis ("" when cap is 0). */
enum read_path read_path_judge(const struct read_path_baselines *b, uint64_t cost, bool reads_tsc,
			       char *basis, size_t cap);
/* "native", "exit", "device_model", "unknown", "hardware" (the report's names). */
const char *read_path_name(enum read_path path);

/* The empty harness (two serialized RDTSCs around an empty call) looks
 * wrong: it costs at least a microsecond, which no RDTSC does on any CPU,
 * or (where CPUID is an exit: cpuid_exits) more than a CPUID exit does.  Either way
 * RDTSC traps.  harness and cpuid are per-call cycles (cpuid net of the
 * harness); tsc_hz 0 skips the microsecond rule.  Returns the reason, or
 * NULL when the harness looks sane. */
const char *harness_anomaly(uint64_t harness, uint64_t cpuid, uint64_t tsc_hz, bool cpuid_exits);

/* cpuid_cycles (per call, net) take under 100 ns at tsc_hz; false when the
 * rate is unknown (0). */
bool cpuid_is_cheap(uint64_t cpuid_cycles, uint64_t tsc_hz);
/* An I/O read of an unassigned port at least 300 ns: what a PC's LPC/ISA
 * decode takes (about a microsecond: Linux's port-0x80 io_delay relies on
 * it), where an emulator answers in tens of ns. */
bool port_read_fits_hardware(uint64_t port_cycles, uint64_t tsc_hz);
#endif
