/* The VMClock device: the AML scan (src/decode/acpi_aml.c) on the SSDT and
 * DSDT that QEMU 10.0.2 builds for -device vmclock, and variants edited
 * here from those real bytes; the page decoder (src/decode/vmclock.c) on
 * the page QEMU 10.0.2 wrote (tests/fixtures/acpi/ovmf-q35-vmclock/VMCLOCK.bin,
 * captured by tests/fixtures/acpi/capture.py) and on pages built here
 * field by field from include/uapi/linux/vmclock-abi.h. */
#include "check.h"
#include "acpi.h"
#include "vmclock.h"
#include <stdlib.h>

#define SSDT "tests/fixtures/acpi/ovmf-q35-vmclock/SSDT.bin"
#define DSDT "tests/fixtures/acpi/ovmf-q35-vmclock/DSDT.bin"
#define PAGE "tests/fixtures/acpi/ovmf-q35-vmclock/VMCLOCK.bin"

static struct acpi_vmclock_info vc;

/* The real SSDT's AML (header cut off), in an exact-size buffer so ASan
 * sees any read past it. */
static uint8_t *ssdt_body(uint32_t *len)
{
	size_t n;
	uint8_t *t = read_fixture(SSDT, &n);
	uint8_t *b = malloc(n - 36);
	memcpy(b, t + 36, n - 36);
	free(t);
	*len = (uint32_t)(n - 36);
	return b;
}

/* Offset of a byte string inside the AML (the test's own landmarks). */
static uint32_t find(const uint8_t *b, uint32_t len, const char *s, size_t n)
{
	for (uint32_t i = 0; i + n <= len; i++)
		if (memcmp(b + i, s, n) == 0)
			return i;
	fprintf(stderr, "landmark not found\n");
	abort();
}

TEST(real_ssdt_device)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.found);
	CHECK(vc.usable);
	CHECK_EQ_U64(vc.devices, 1);
	CHECK_STR(vc.path, "\\_SB_.VCLK");
	CHECK(vc.hid_match && vc.cid_match);
	CHECK_STR(vc.resource, "qword_memory");
	CHECK_EQ_U64(vc.address, 0xfeffb000);
	CHECK_EQ_U64(vc.length, 0x1000);
	CHECK(!vc.writable);
	CHECK_EQ_U64(vc.cacheability, 1);
	/* The scan fills no table fields: acpi_scan_vmclock does. */
	CHECK_STR(vc.table, "");
	free(b);
}

TEST(real_dsdt_has_none)
{
	size_t n;
	uint8_t *t = read_fixture(DSDT, &n);

	acpi_aml_find_vmclock(t + 36, (uint32_t)(n - 36), &vc);
	CHECK(!vc.found);
	CHECK(!vc.usable);
	CHECK_EQ_U64(vc.devices, 0);
	CHECK(strstr(vc.reason, "AMZNC10C") != NULL);
	free(t);
}

/* Every prefix of the real block: never a read past it (ASan), and a
 * usable device exactly when the prefix holds the whole Device package. */
TEST(every_truncation_of_the_real_ssdt)
{
	uint32_t len;
	uint8_t *full = ssdt_body(&len);
	uint32_t dev = find(full, len, "\x5b\x82", 2);
	uint32_t dev_end = dev + 2 + ((full[dev + 2] & 0x0f) | (full[dev + 3] << 4));

	for (uint32_t cut = 0; cut <= len; cut++) {
		uint8_t *b = malloc(cut ? cut : 1);
		memcpy(b, full, cut);
		acpi_aml_find_vmclock(b, cut, &vc);
		CHECK(!vc.usable || vc.found);
		if (cut >= dev_end)
			CHECK(vc.usable);
		else
			CHECK(!vc.found);
		free(b);
	}
	free(full);
}

TEST(cid_alone_finds_it)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	b[find(b, len, "AMZNC10C", 8)] = 'X';
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.usable);
	CHECK(!vc.hid_match);
	CHECK(vc.cid_match);
	free(b);
}

TEST(hid_alone_finds_it)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	/* "_CID" renamed to "_CIX": only the _HID is left. */
	b[find(b, len, "_CID", 4) + 3] = 'X';
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.usable);
	CHECK(vc.hid_match);
	CHECK(!vc.cid_match);
	free(b);
}

TEST(neither_id_no_device)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	b[find(b, len, "AMZNC10C", 8)] = 'X';
	b[find(b, len, "\x0dVMCLOCK", 8) + 1] = 'X';
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(!vc.found);
	free(b);
}

/* The ids outside any Device (the DeviceOp broken): nothing is a device. */
TEST(ids_outside_a_device_name_nothing)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	b[find(b, len, "\x5b\x82", 2) + 1] = 0x80;
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(!vc.found);
	free(b);
}

TEST(device_package_past_the_block)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	/* PkgLength 0x71 -> 0xf1 bytes: beyond the block. */
	b[find(b, len, "\x5b\x82", 2) + 3] = 0x0f;
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(!vc.found);
	free(b);
}

TEST(no_crs)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	b[find(b, len, "_CRS", 4) + 3] = 'X';
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.found);
	CHECK(!vc.usable);
	CHECK_STR(vc.reason, "VMClock device found, but it has no _CRS object");
	free(b);
}

TEST(crs_io_range_is_not_memory)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	/* QWord descriptor resource type 0 (memory) -> 1 (I/O). */
	b[find(b, len, "\x8a\x2b\x00", 3) + 3] = 1;
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.found);
	CHECK(!vc.usable);
	CHECK(strstr(vc.reason, "names no memory range") != NULL);
	free(b);
}

TEST(crs_zero_length)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);
	uint32_t d = find(b, len, "\x8a\x2b\x00", 3);

	memset(b + d + 38, 0, 8);
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(!vc.usable);
	CHECK(strstr(vc.reason, "length 0") != NULL);
	free(b);
}

/* A descriptor that claims more bytes than its buffer holds. */
TEST(crs_descriptor_past_its_buffer)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);

	b[find(b, len, "\x8a\x2b\x00", 3) + 1] = 0x7f;
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(!vc.usable);
	CHECK(strstr(vc.reason, "runs past its buffer") != NULL);
	free(b);
}

/* Name(_CRS) turned into a Method(_CRS) of the same length: the probe
 * evaluates no AML and says so. */
TEST(crs_method_not_evaluated)
{
	uint32_t len;
	uint8_t *b = ssdt_body(&len);
	uint32_t at = find(b, len, "\x08_CRS\x11", 6);

	/* 08 "_CRS" 11 33 ...  ->  14 05 "_CRS" 00 (a method, flags 0) and the
	 * rest of the old buffer left as the method's body bytes. */
	b[at] = 0x14;
	b[at + 1] = 0x33 + 5 - 1;
	memcpy(b + at + 2, "_CRS", 4);
	b[at + 6] = 0;
	acpi_aml_find_vmclock(b, len, &vc);
	CHECK(vc.found);
	CHECK(!vc.usable);
	CHECK(strstr(vc.reason, "is a method") != NULL);
	free(b);
}

/* Hand-built blocks, in the grammar of ACPI 6.5 section 20: a DWord
 * memory descriptor, a _CID package, a Memory32Fixed. */
static uint32_t put(uint8_t *b, uint32_t at, const void *s, size_t n)
{
	memcpy(b + at, s, n);
	return at + (uint32_t)n;
}

/* Device (NAME) { Name(_HID or _CID ...) ; Name(_CRS, Buffer() { desc, 79 00 }) }
 * with a two-byte PkgLength for the device and a one-byte one for the
 * buffer (under 64 bytes). */
static uint32_t build(uint8_t *b, const char *name, const uint8_t *id, size_t id_len, const uint8_t *desc,
		      size_t desc_len)
{
	uint8_t tmpl[64];
	uint32_t t = 0, at = 0;

	t = put(tmpl, t, desc, desc_len);
	t = put(tmpl, t, "\x79\x00", 2);
	at = put(b, at, "\x5b\x82", 2);
	uint32_t dev_len_at = at;
	at += 2;
	at = put(b, at, name, 4);
	at = put(b, at, id, id_len);
	at = put(b, at, "\x08_CRS\x11", 6);
	b[at++] = (uint8_t)(1 + 2 + t); /* PkgLength: itself, BytePrefix+size, bytes */
	b[at++] = 0x0a;
	b[at++] = (uint8_t)t;
	at = put(b, at, tmpl, t);
	uint32_t dev_len = at - dev_len_at;
	b[dev_len_at] = (uint8_t)(0x40 | (dev_len & 0x0f));
	b[dev_len_at + 1] = (uint8_t)(dev_len >> 4);
	return at;
}

TEST(dword_descriptor_and_cid_package)
{
	uint8_t b[128];
	/* Name(_CID, Package(2) { EISAID("PNP0C02"), "VMCLOCK" }) */
	static const uint8_t cid[] = { 0x08, '_', 'C', 'I', 'D', 0x12, 0x10, 0x02, 0x0c, 0x41, 0xd0, 0x0c, 0x02,
				       0x0d, 'V', 'M', 'C', 'L', 'O', 'C', 'K', 0x00 };
	/* DWordMemory: type 0, flags 0x0c, RW + non-cacheable (0x01), gran 0,
	 * min 0x80000000, max 0x80000fff, translation 0, length 0x1000. */
	uint8_t d[26] = { 0x87, 23, 0, 0, 0x0c, 0x01 };
	uint32_t v = 0x80000000u;
	memcpy(d + 10, &v, 4);
	v = 0x80000fffu;
	memcpy(d + 14, &v, 4);
	v = 0x1000;
	memcpy(d + 22, &v, 4);
	uint32_t n = build(b, "VCK0", cid, sizeof cid, d, sizeof d);

	uint8_t *exact = malloc(n);
	memcpy(exact, b, n);
	acpi_aml_find_vmclock(exact, n, &vc);
	CHECK(vc.usable);
	CHECK(vc.cid_match);
	CHECK_STR(vc.path, "VCK0");
	CHECK_STR(vc.resource, "dword_memory");
	CHECK_EQ_U64(vc.address, 0x80000000u);
	CHECK_EQ_U64(vc.length, 0x1000);
	CHECK(vc.writable);
	CHECK_EQ_U64(vc.cacheability, 0);
	free(exact);
}

TEST(memory32_fixed_descriptor)
{
	uint8_t b[128];
	static const uint8_t hid[] = { 0x08, '_', 'H', 'I', 'D', 0x0d, 'A', 'M', 'Z', 'N', 'C', '1', '0', 'C', 0 };
	uint8_t d[12] = { 0x86, 9, 0, 0 };
	uint32_t v = 0xfed10000u;
	memcpy(d + 4, &v, 4);
	v = 0x1000;
	memcpy(d + 8, &v, 4);
	uint32_t n = build(b, "VCLK", hid, sizeof hid, d, sizeof d);

	acpi_aml_find_vmclock(b, n, &vc);
	CHECK(vc.usable);
	CHECK_STR(vc.resource, "memory32_fixed");
	CHECK_EQ_U64(vc.address, 0xfed10000u);
	CHECK(!vc.writable);
}

/* Two devices in one block: both counted, the first reported. */
TEST(two_devices_in_one_block)
{
	uint8_t b[256];
	static const uint8_t hid[] = { 0x08, '_', 'H', 'I', 'D', 0x0d, 'A', 'M', 'Z', 'N', 'C', '1', '0', 'C', 0 };
	uint8_t d[12] = { 0x86, 9, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0 };
	uint32_t n = build(b, "VCK1", hid, sizeof hid, d, sizeof d);
	n += build(b + n, "VCK2", hid, sizeof hid, d, sizeof d);

	acpi_aml_find_vmclock(b, n, &vc);
	CHECK(vc.usable);
	CHECK_EQ_U64(vc.devices, 2);
	CHECK_STR(vc.path, "VCK1");
}

/* A hostile block: thousands of matching _HID names.  Past the scan's
 * bound they are counted, not resolved, so the cost stays linear. */
TEST(many_matches_are_bounded)
{
	static const uint8_t hid[] = { 0x08, '_', 'H', 'I', 'D', 0x0d, 'A', 'M', 'Z', 'N', 'C', '1', '0', 'C', 0 };
	uint32_t count = 20000, n = count * sizeof hid;
	uint8_t *b = malloc(n);

	for (uint32_t i = 0; i < count; i++)
		memcpy(b + i * sizeof hid, hid, sizeof hid);
	acpi_aml_find_vmclock(b, n, &vc);
	CHECK(!vc.found); /* in no Device */
	CHECK(vc.unresolved > 0);
	CHECK_EQ_U64(vc.unresolved + 16, count);
	free(b);
}

/* ---- the page ---- */

static struct vmclock_page pg;

TEST(qemu10_page_decoded)
{
	size_t n;
	uint8_t *p = read_fixture(PAGE, &n);
	char why[96];

	CHECK_EQ_U64(n, 4096);
	vmclock_decode(&pg, p, n);
	/* hw/acpi/vmclock.c realize: magic, size, version 1, counter id
	 * invalid, status unknown, then one update (seq 0 -> 1 -> 2, marker
	 * 0 -> 1); nothing else is filled. */
	CHECK_EQ_U64(pg.magic, VMCLOCK_MAGIC);
	CHECK_EQ_U64(pg.size, 4096);
	CHECK_EQ_U64(pg.version, 1);
	CHECK_EQ_U64(pg.counter_id, VMCLOCK_COUNTER_INVALID);
	CHECK_STR(vmclock_counter_name(pg.counter_id), "invalid");
	CHECK_EQ_U64(pg.time_type, 0);
	CHECK_STR(vmclock_time_type_name(pg.time_type), "utc");
	CHECK_EQ_U64(pg.seq_count, 2);
	CHECK_EQ_U64(pg.disruption_marker, 1);
	CHECK_EQ_U64(pg.flags, 0);
	CHECK_EQ_U64(pg.clock_status, 0);
	CHECK_STR(vmclock_status_name(pg.clock_status), "unknown");
	CHECK_EQ_U64(pg.counter_period_frac_sec, 0);
	CHECK_EQ_U64(pg.vm_generation_counter, 0);
	CHECK_EQ_U64(vmclock_validate(&pg, 4096, why, sizeof why), VMCLOCK_OK);
	CHECK_STR(why, "");
	CHECK_EQ_U64(vmclock_counter_hz(pg.counter_period_frac_sec, pg.counter_period_shift), 0);

	uint32_t retries = 7;
	CHECK_EQ_U64(vmclock_snapshot(p, n, &pg, 4, &retries), VMCLOCK_OK);
	CHECK_EQ_U64(retries, 0);
	CHECK_EQ_U64(pg.disruption_marker, 1);
	/* The same page at an odd address: the bytewise copy. */
	uint8_t *odd = malloc(n + 1);
	memcpy(odd + 1, p, n);
	CHECK_EQ_U64(vmclock_snapshot(odd + 1, n, &pg, 4, &retries), VMCLOCK_OK);
	CHECK_EQ_U64(pg.magic, VMCLOCK_MAGIC);
	CHECK_EQ_U64(pg.disruption_marker, 1);
	CHECK_EQ_U64(pg.seq_count, 2);
	free(odd);
	/* A structure shorter than a whole number of 8-byte words. */
	CHECK_EQ_U64(vmclock_snapshot(p, 105, &pg, 4, &retries), VMCLOCK_OK);
	CHECK_EQ_U64(pg.size, 4096);
	free(p);
}

TEST(page_validation)
{
	size_t n;
	uint8_t *p = read_fixture(PAGE, &n);
	char why[96];

	vmclock_decode(&pg, p, n);
	/* The _CRS reserving less than the page claims. */
	CHECK_EQ_U64(vmclock_validate(&pg, 2048, why, sizeof why), VMCLOCK_BAD_SIZE);
	CHECK_STR(why, "size 4096 exceeds the range the _CRS reserves (2048 bytes)");
	pg.size = 64;
	CHECK_EQ_U64(vmclock_validate(&pg, 4096, why, sizeof why), VMCLOCK_BAD_SIZE);
	CHECK_STR(why, "size 64 is below the structure's 104 bytes");
	pg.size = 4096;
	pg.version = 2;
	CHECK_EQ_U64(vmclock_validate(&pg, 4096, why, sizeof why), VMCLOCK_BAD_VERSION);
	CHECK_STR(why, "version 2 (this probe knows version 1)");
	p[0] = 'X';
	vmclock_decode(&pg, p, n);
	CHECK_EQ_U64(vmclock_validate(&pg, 4096, why, sizeof why), VMCLOCK_BAD_MAGIC);
	CHECK_STR(why, "magic 0x4b4c4358, not 0x4b4c4356 (\"VCLK\")");
	CHECK_STR(vmclock_check_name(VMCLOCK_BAD_MAGIC), "bad_magic");
	free(p);
}

/* A page whose writer never finishes: the read gives up after its bound
 * and says so, with the odd seq_count it saw. */
TEST(seqcount_odd_is_bounded)
{
	size_t n;
	uint8_t *p = read_fixture(PAGE, &n);
	uint32_t retries;

	p[VMCLOCK_OFF_SEQ_COUNT] = 3;
	CHECK_EQ_U64(vmclock_snapshot(p, n, &pg, 1000, &retries), VMCLOCK_BUSY);
	CHECK_EQ_U64(retries, 1000);
	CHECK_EQ_U64(pg.seq_count, 3);
	CHECK_EQ_U64(vmclock_snapshot(p, 64, &pg, 10, &retries), VMCLOCK_BAD_SIZE);
	free(p);
}

static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }

/* Every field, at its offset in vmclock-abi.h, with distinct values. */
TEST(every_field_at_its_offset)
{
	uint8_t p[VMCLOCK_ABI_SIZE];

	memset(p, 0, sizeof p);
	memcpy(p, "VCLK", 4);
	p[4] = 0x00, p[5] = 0x10; /* 4096 */
	p[8] = 1;
	p[VMCLOCK_OFF_COUNTER_ID] = VMCLOCK_COUNTER_X86_TSC;
	p[VMCLOCK_OFF_TIME_TYPE] = 1;
	p[VMCLOCK_OFF_SEQ_COUNT] = 10;
	put64(p, VMCLOCK_OFF_DISRUPTION_MARKER, 0x1122334455667788ull);
	put64(p, VMCLOCK_OFF_FLAGS, 0x1ff);
	p[VMCLOCK_OFF_CLOCK_STATUS] = 2;
	p[VMCLOCK_OFF_SMEARING_HINT] = 1;
	p[VMCLOCK_OFF_TAI_OFFSET] = 0xdb, p[VMCLOCK_OFF_TAI_OFFSET + 1] = 0xff; /* -37 */
	p[VMCLOCK_OFF_LEAP_INDICATOR] = 3;
	p[VMCLOCK_OFF_PERIOD_SHIFT] = 4;
	put64(p, VMCLOCK_OFF_COUNTER_VALUE, 1000);
	put64(p, VMCLOCK_OFF_PERIOD_FRAC, 2001);
	put64(p, VMCLOCK_OFF_PERIOD_ESTERROR, 3002);
	put64(p, VMCLOCK_OFF_PERIOD_MAXERROR, 4003);
	put64(p, VMCLOCK_OFF_TIME_SEC, 1767225600);
	put64(p, VMCLOCK_OFF_TIME_FRAC, 1ull << 63);
	put64(p, VMCLOCK_OFF_TIME_ESTERROR, 5004);
	put64(p, VMCLOCK_OFF_TIME_MAXERROR, 6005);
	put64(p, VMCLOCK_OFF_VM_GENERATION, 7006);
	vmclock_decode(&pg, p, sizeof p);
	CHECK_EQ_U64(pg.counter_id, 1);
	CHECK_STR(vmclock_counter_name(pg.counter_id), "x86_tsc");
	CHECK_STR(vmclock_time_type_name(pg.time_type), "tai");
	CHECK_EQ_U64(pg.seq_count, 10);
	CHECK_EQ_U64(pg.disruption_marker, 0x1122334455667788ull);
	CHECK_EQ_U64(pg.flags, 0x1ff);
	CHECK_STR(vmclock_status_name(pg.clock_status), "synchronized");
	CHECK_STR(vmclock_smearing_name(pg.leap_second_smearing_hint), "noon_linear");
	CHECK_EQ_I64(pg.tai_offset_sec, -37);
	CHECK_STR(vmclock_leap_name(pg.leap_indicator), "pos");
	CHECK_EQ_U64(pg.counter_period_shift, 4);
	CHECK_EQ_U64(pg.counter_value, 1000);
	CHECK_EQ_U64(pg.counter_period_frac_sec, 2001);
	CHECK_EQ_U64(pg.counter_period_esterror_rate_frac_sec, 3002);
	CHECK_EQ_U64(pg.counter_period_maxerror_rate_frac_sec, 4003);
	CHECK_EQ_U64(pg.time_sec, 1767225600);
	CHECK_EQ_U64(pg.time_frac_sec, 1ull << 63);
	CHECK_EQ_U64(pg.time_esterror_nanosec, 5004);
	CHECK_EQ_U64(pg.time_maxerror_nanosec, 6005);
	CHECK_EQ_U64(pg.vm_generation_counter, 7006);
	/* A size below 112 has no generation counter to read. */
	p[4] = 104, p[5] = 0;
	vmclock_decode(&pg, p, sizeof p);
	CHECK_EQ_U64(pg.vm_generation_counter, 0);
	for (unsigned i = 0; i < VMCLOCK_FLAG_COUNT; i++)
		CHECK(vmclock_flag_name(i) != NULL);
	CHECK_STR(vmclock_flag_name(8), "vm_gen_counter_present");
	CHECK(vmclock_flag_name(VMCLOCK_FLAG_COUNT) == NULL);
	CHECK_STR(vmclock_status_name(9), "undefined");
	CHECK_STR(vmclock_counter_name(7), "undefined");
}

/* The period a hypervisor would publish for a TSC of a given rate: the
 * inverse, 2^(64+shift) / hz, and back. */
TEST(counter_period_to_hz)
{
	/* 2.5 GHz, shift 0: period = floor(2^64 / 2.5e9) = 7378697629. */
	CHECK_EQ_U64(vmclock_counter_hz(7378697629ull, 0), 2500000000ull);
	/* The same with 4 more bits of precision: floor(2^68 / 2.5e9). */
	CHECK_EQ_U64(vmclock_counter_hz(118059162071ull, 4), 2500000000ull);
	/* 2,095,078,000 Hz (the QEMU 10 TCG run's TSC): floor(2^64 / hz) = 8804800620 */
	CHECK_EQ_U64(vmclock_counter_hz(8804800620ull, 0), 2095078000ull);
	CHECK_EQ_U64(vmclock_counter_hz(0, 0), 0);
	CHECK_EQ_U64(vmclock_counter_hz(1, 0), 0);  /* 2^64 Hz does not fit */
	CHECK_EQ_U64(vmclock_counter_hz(5, 64), 0); /* shift past the numerator */
}

