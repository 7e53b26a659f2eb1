/* The HPET source (src/arch/x86/sources/hpet.c, the hardware; hpet_facts.c, its
 * JSON, pure): what it learned beyond its read cost. */
#ifndef CP_HPET_H
#define CP_HPET_H
#include "util.h"
#include "pci.h"

struct hpet_facts {
	bool read;                /* capabilities were read */
	uint64_t capabilities;    /* the general capabilities register */
	bool enabled_by_probe;    /* the probe started a halted counter */
	/* Which firmware map set the block aside (issue 41): the HPET
	 * device's _CRS, or the memory map where the AML has none; "" when
	 * the proof did not get that far. */
	char set_aside_by[REASON_LEN];
	/* The PCI functions read to show no BAR or bridge window claims the
	 * block (pci.h); pci.ran false when no window could be read. */
	bool pci_checked;
	struct pci_scan pci;
};

struct json;
struct acpi_info;
union source_facts;
struct source_result;
struct verdict_input;
/* Its "hpet" member in its sources[] entry, and its rate for the verdict
 * when the device is there (hpet_facts.c). */
void hpet_report_extra(struct json *j, const union source_facts *f);
void hpet_verdict_facts(struct verdict_input *in, const struct source_result *s);

/* The proof the HPET source asks before it writes at, or trusts, a base
 * the ACPI table gives (src/decode/hpet_proof.c, pure).  Each returns
 * NULL when it holds, else `why` filled with the reason (n bytes).
 * Address: the 1 KiB block lies outside every PCI configuration window
 * the MCFG declares and outside the local APIC and I/O APIC pages the
 * MADT gives (and the default local APIC page).  Registers: the
 * capabilities read there name a vendor, a non-zero revision and a valid
 * period, and agree with the table's Event Timer Block ID in vendor,
 * counter size and number of comparators. */
const char *hpet_address_refusal(const struct acpi_info *a, uint64_t base, char *why, size_t n);
const char *hpet_registers_refusal(uint64_t caps, uint32_t block_id, char *why, size_t n);

/* Set aside: whether the HPET Devices the AML declares (acpi.h,
 * acpi_hpet_devices) hold the 1 KiB block at base in their _CRS.  BY_AML:
 * text says which device's range; REFUSED: text is why (outside every
 * range, each device's _CRS read); ASK_MAP: the AML cannot say (no such
 * device, a _CRS it cannot read), text says why, and the firmware's
 * memory map must set the block aside (reserved or MMIO) instead. */
enum hpet_set_aside { HPET_SET_ASIDE_BY_AML, HPET_SET_ASIDE_REFUSED, HPET_SET_ASIDE_ASK_MAP };
struct acpi_hpet_devices;
enum hpet_set_aside hpet_set_aside(const struct acpi_hpet_devices *d, uint64_t base, char *text, size_t n);
/* The refusal when neither the AML nor the memory map set the block
 * aside: both reasons, in why. */
const char *hpet_map_refusal(uint64_t base, const char *aml_why, const char *map_why, char *why, size_t n);
#endif
