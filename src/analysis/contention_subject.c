/* Under TCG the contention levels measure QEMU, not the device: each
 * vCPU is a host thread, an I/O or MMIO read (PM timer, PIT, HPET) takes
 * the emulator's global lock (the BQL), and how many of the threads run
 * at once is the host's scheduling (issue 40).  The report names it. */
#include "contention_subject.h"
#include "util.h"

const char *contention_subject(bool hv_present, const char *hv_name, const char **reason)
{
	if (hv_present && hv_name && str_equal(hv_name, "tcg")) {
		*reason = "TCG (QEMU's emulator, no hardware virtualization): each level measures the emulator's global "
			  "lock and the host's scheduling of the vCPU threads, not the clock device; no hardware's "
			  "contention is shown";
		return "emulator_lock";
	}
	*reason = hv_present ? "the clock's read path as this hypervisor serves it to several CPUs at once"
			     : "the clock's read path with several CPUs reading at once";
	return "clock_read_path";
}
