/* libFuzzer target for the AML scans (src/decode/acpi_aml.c), VMClock's
 * and the HPET devices' (issue 41):
 * the input is one definition block's AML (a DSDT or SSDT without its
 * 36-byte header), copied into an exact-size heap buffer so ASan flags any
 * read past its end.  Then the promises of include/acpi.h are checked on
 * the result: usable implies found, a usable range has a length and a
 * descriptor kind, every string is terminated inside its field, and a
 * reason is given exactly when nothing usable was found.  Seeds:
 * tests/fixtures/fuzz/aml/ (QEMU 10's real SSDT and DSDT bodies, and
 * variants of the SSDT; see tests/fuzz/README). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "acpi.h"

static struct acpi_vmclock_info vc;
static struct acpi_hpet_devices hd;

static void check_terminated(const char *s, size_t cap)
{
	if (strnlen(s, cap) == cap)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	acpi_aml_find_vmclock(copy, (uint32_t)size, &vc);
	memset(&hd, 0, sizeof hd);
	acpi_aml_find_hpet(copy, (uint32_t)size, &hd);
	free(copy);
	/* HPET devices: every kept range has a length and a terminated path;
	 * kept and dropped ranges never outnumber the devices found; a device
	 * without a range leaves a reason. */
	if (hd.stored > ACPI_MAX_HPET_DEVICES || hd.stored + hd.ranges_dropped > hd.devices)
		abort();
	for (uint32_t i = 0; i < hd.stored; i++) {
		check_terminated(hd.range[i].path, sizeof hd.range[i].path);
		if (!hd.range[i].length)
			abort();
	}
	check_terminated(hd.reason, sizeof hd.reason);
	if (hd.devices > hd.stored + hd.ranges_dropped && hd.devices <= 8 && !hd.reason[0])
		abort();
	check_terminated(vc.path, sizeof vc.path);
	check_terminated(vc.reason, sizeof vc.reason);
	check_terminated(vc.table, sizeof vc.table);
	if (vc.usable && (!vc.found || !vc.length || !vc.resource || vc.reason[0]))
		abort();
	if (!vc.usable && !vc.reason[0])
		abort();
	if (vc.found != (vc.devices > 0) || (vc.found && !vc.hid_match && !vc.cid_match))
		abort();
	if (vc.cacheability > 3)
		abort();
	return 0;
}
