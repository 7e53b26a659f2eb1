/* The devicetree reader (src/decode/fdt.c) on QEMU's own DTBs and on
 * broken ones.
 *
 * The fixtures are QEMU 7.2's -machine virt trees, dumped by QEMU itself
 * (no dtc; tests/fixtures/arm64/README says so too):
 *   qemu-system-aarch64 -machine virt,dumpdtb=tests/fixtures/arm64/qemu72-virt-max-smp4.dtb \
 *       -cpu max -smp 4 -m 512M
 *   qemu-system-aarch64 -machine virt,dumpdtb=tests/fixtures/arm64/qemu72-virt-a53-smp4.dtb \
 *       -cpu cortex-a53 -smp 4 -m 512M
 *   qemu-system-aarch64 -machine virt,gic-version=3,dumpdtb=tests/fixtures/arm64/qemu72-virt-gicv3-max-smp4.dtb \
 *       -cpu max -smp 4 -m 512M
 * (QEMU 7.2.22, Debian 1:7.2+dfsg-7+deb12u18.)  This is the tree AAVMF
 * hands on under -machine virt,acpi=off.  The broken trees are that one
 * cut, bent, or built here by a small writer (struct dtb below). */
#include "check.h"
#include "arm64.h"
#include "fdt.h"
#include <stdlib.h>

static uint8_t *fixture(const char *name, size_t *n)
{
	char path[128];
	snprintf(path, sizeof path, "tests/fixtures/arm64/%s", name);
	return read_fixture(path, n);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The tree as QEMU dumped it and AAVMF hands it over: the packed fixture
 * (tests/fixtures/arm64/README) given back its megabyte of zero padding
 * and totalsize 0x100000, which is all the packing removed. */
static uint8_t *unpacked_fixture(const char *name, size_t *n)
{
	size_t packed;
	uint8_t *p = fixture(name, &packed);
	CHECK(packed <= 0x100000);
	uint8_t *b = calloc(1, 0x100000);
	memcpy(b, p, packed);
	wr32(b + 4, 0x100000);
	free(p);
	*n = 0x100000;
	return b;
}

/* ----------------------------------------------------- a DTB writer */
/* Enough of dtc's output to build the trees QEMU does not make: header,
 * an empty reserve map, the structure block, the strings block. */
struct dtb {
	uint8_t *s;
	size_t slen, scap;
	char strs[4096];
	size_t strlen_;
};

static void put(struct dtb *d, const void *p, size_t n)
{
	if (d->slen + n + 8 > d->scap) {
		d->scap = (d->slen + n + 8) * 2;
		d->s = realloc(d->s, d->scap);
	}
	memcpy(d->s + d->slen, p, n);
	d->slen += n;
	while (d->slen & 3)
		d->s[d->slen++] = 0;
}

static void tok(struct dtb *d, uint32_t t)
{
	uint8_t b[4];
	wr32(b, t);
	put(d, b, 4);
}

static void begin(struct dtb *d, const char *name)
{
	tok(d, 1);
	put(d, name, strlen(name) + 1);
}

static void end(struct dtb *d)
{
	tok(d, 2);
}

static uint32_t name_off(struct dtb *d, const char *name)
{
	for (size_t i = 0; i < d->strlen_;) {
		if (!strcmp(d->strs + i, name))
			return (uint32_t)i;
		i += strlen(d->strs + i) + 1;
	}
	uint32_t off = (uint32_t)d->strlen_;
	memcpy(d->strs + off, name, strlen(name) + 1);
	d->strlen_ += strlen(name) + 1;
	return off;
}

static void prop(struct dtb *d, const char *name, const void *v, uint32_t n)
{
	uint8_t b[8];
	tok(d, 3);
	wr32(b, n);
	wr32(b + 4, name_off(d, name));
	put(d, b, 8);
	if (n)
		put(d, v, n);
}

static void prop_str(struct dtb *d, const char *name, const char *v)
{
	prop(d, name, v, (uint32_t)strlen(v) + 1);
}

static void prop_u32(struct dtb *d, const char *name, uint32_t v)
{
	uint8_t b[4];
	wr32(b, v);
	prop(d, name, b, 4);
}

/* The finished DTB in a buffer of exactly its size (ASan sees a read
 * past it); *n its length. */
static uint8_t *finish(struct dtb *d, size_t *n)
{
	tok(d, 9);
	size_t total = 40 + 16 + d->slen + d->strlen_;
	uint8_t *b = calloc(1, total);
	wr32(b, FDT_MAGIC);
	wr32(b + 4, (uint32_t)total);
	wr32(b + 8, 56);
	wr32(b + 12, (uint32_t)(56 + d->slen));
	wr32(b + 16, 40);
	wr32(b + 20, 17);
	wr32(b + 24, 16);
	wr32(b + 32, (uint32_t)d->strlen_);
	wr32(b + 36, (uint32_t)d->slen);
	memcpy(b + 56, d->s, d->slen);
	memcpy(b + 56 + d->slen, d->strs, d->strlen_);
	free(d->s);
	*d = (struct dtb){0};
	*n = total;
	return b;
}

/* -------------------------------------------------------- QEMU's DTB */

TEST(qemu_virt_max_header_and_walk)
{
	size_t n;
	uint8_t *b = unpacked_fixture("qemu72-virt-max-smp4.dtb", &n);
	struct fdt f;
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	CHECK_EQ_U64(f.totalsize, 0x100000);
	CHECK_EQ_U64(f.version, 17);
	CHECK_EQ_U64(f.last_comp_version, 16);
	CHECK(f.nodes > 20 && f.nodes < 100);
	uint32_t root, node, parent;
	CHECK_EQ_U64(fdt_path(&f, "/", 1, &root), FDT_OK);
	CHECK_STR(fdt_name(&f, root), "");
	const char *model;
	CHECK_EQ_U64(fdt_prop_string(&f, root, "model", &model), FDT_OK);
	CHECK_STR(model, "linux,dummy-virt");
	/* The PL011 by compatible, by full path and by name alone. */
	CHECK_EQ_U64(fdt_find_compatible(&f, FDT_NONE, "arm,pl011", &node), FDT_OK);
	uint32_t by_path, by_name;
	CHECK_EQ_U64(fdt_path(&f, "/pl011@9000000", 14, &by_path), FDT_OK);
	CHECK_EQ_U64(fdt_path(&f, "/pl011", 6, &by_name), FDT_OK);
	CHECK_EQ_U64(by_path, node);
	CHECK_EQ_U64(by_name, node);
	CHECK_EQ_U64(fdt_path(&f, "/pl011@9000001", 14, &by_path), FDT_E_NOT_FOUND);
	CHECK_EQ_U64(fdt_parent(&f, node, &parent), FDT_OK);
	CHECK_EQ_U64(parent, root);
	CHECK_EQ_U64(fdt_parent(&f, root, &parent), FDT_OK);
	CHECK_EQ_U64(parent, FDT_NONE);
	char path[FDT_PATH_LEN];
	fdt_node_path(&f, node, path, sizeof path);
	CHECK_STR(path, "/pl011@9000000");
	/* The root's 2/2 cells: reg = <0 0x09000000 0 0x1000>. */
	uint64_t a, s;
	CHECK_EQ_U64(fdt_reg(&f, node, 0, &a, &s), FDT_OK);
	CHECK_EQ_U64(a, 0x09000000);
	CHECK_EQ_U64(s, 0x1000);
	CHECK_EQ_U64(fdt_reg(&f, node, 1, &a, &s), FDT_E_NOT_FOUND);
	/* A later node by compatible after the first; none after the last. */
	uint32_t cpu0, cpu1;
	CHECK_EQ_U64(fdt_find_compatible(&f, FDT_NONE, "arm,cortex-a57", &cpu0), FDT_OK);
	CHECK_EQ_U64(fdt_find_compatible(&f, cpu0, "arm,cortex-a57", &cpu1), FDT_OK);
	CHECK(cpu1 > cpu0);
	fdt_node_path(&f, cpu1, path, sizeof path);
	CHECK_STR(path, "/cpus/cpu@1");
	CHECK_EQ_U64(fdt_find_compatible(&f, FDT_NONE, "no,such-device", &node), FDT_E_NOT_FOUND);
	/* A nested path, and a short buffer cut but terminated. */
	CHECK_EQ_U64(fdt_path(&f, "/cpus/cpu-map/socket0/cluster0/core3", 36, &node), FDT_OK);
	fdt_node_path(&f, node, path, 8);
	CHECK_STR(path, "/cpus/c");
	free(b);
}

TEST(qemu_virt_max_facts)
{
	size_t n;
	uint8_t *b = unpacked_fixture("qemu72-virt-max-smp4.dtb", &n);
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK_EQ_U64(x.totalsize, 0x100000);
	/* hw/arm/virt.c create_uart(): stdout-path is the UART's own path. */
	CHECK(x.stdout_path_present);
	CHECK_STR(x.stdout_path, "/pl011@9000000");
	CHECK(x.console_found);
	CHECK_STR(x.console_from, "stdout-path");
	CHECK(x.console_reason == NULL);
	CHECK_STR(x.console_node, "/pl011@9000000");
	CHECK(x.console_pl011);
	CHECK(x.console_reg_ok);
	CHECK_EQ_U64(x.console_base, 0x09000000);
	CHECK_EQ_U64(x.console_size, 0x1000);
	/* fdt_add_psci_node(): PSCI 1.0 (0.2 and 0.1 listed too) over HVC
	 * without EL2/EL3. */
	CHECK(x.psci_found);
	CHECK_STR(x.psci_compatible, "arm,psci-1.0");
	CHECK(x.psci_0_2);
	CHECK_EQ_U64(x.psci_method, FDT_PSCI_HVC);
	CHECK_STR(fdt_psci_method_name(x.psci_method), "hvc");
	CHECK(x.psci_reason == NULL);
	/* fdt_add_timer_nodes(): no clock-frequency, no errata. */
	CHECK(x.timer_found);
	CHECK_STR(x.timer_node, "/timer");
	CHECK_STR(x.timer_compatible, "arm,armv8-timer");
	CHECK(!x.clock_frequency_present);
	CHECK_EQ_U64(x.errata, 0);
	CHECK_EQ_U64(x.errata_count, 0);
	/* Four CPUs, MPIDR 0..3 (/cpus #address-cells 1). */
	CHECK_EQ_U64(x.cpu_total, 4);
	CHECK_EQ_U64(x.cpu_count, 4);
	for (uint32_t i = 0; i < 4; i++)
		CHECK_EQ_U64(x.cpu_mpidr[i], i);
	CHECK(x.cpus_reason == NULL);
	/* create_gic() for GICv2: arm,cortex-a15-gic, reg <GICD 64 KiB, GICC
	 * 64 KiB> in the root's 2/2 cells; the timer's third specifier
	 * <1 11 0xf04> is PPI 11, INTID 27. */
	CHECK(x.gic_found);
	CHECK(x.gic_ok);
	CHECK(x.gic_reason == NULL);
	CHECK_STR(x.gic_node, "/intc@8000000");
	CHECK_STR(x.gic_compatible, "arm,cortex-a15-gic");
	CHECK_EQ_U64(x.gic_version, 2);
	CHECK_EQ_U64(x.gicd_base, 0x08000000);
	CHECK_EQ_U64(x.gicd_size, 0x10000);
	CHECK_EQ_U64(x.gicc_base, 0x08010000);
	CHECK_EQ_U64(x.gicc_size, 0x10000);
	CHECK_EQ_U64(x.gicr_count, 0);
	CHECK(x.vtimer_intid_ok);
	CHECK_EQ_U64(x.vtimer_intid, 27);
	CHECK(x.vtimer_intid_reason == NULL);
	free(b);
}

TEST(qemu_virt_gicv3_facts)
{
	size_t n;
	uint8_t *b = unpacked_fixture("qemu72-virt-gicv3-max-smp4.dtb", &n);
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK_EQ_U64(x.cpu_count, 4);
	/* create_gic() for gic-version=3: arm,gic-v3, reg <GICD 64 KiB,
	 * one redistributor region 0xf60000 (123 CPUs' 128 KiB frames)>,
	 * #redistributor-regions 1, no redistributor-stride; the ITS is a
	 * child node, not the GIC. */
	CHECK(x.gic_found);
	CHECK(x.gic_ok);
	CHECK_STR(x.gic_node, "/intc@8000000");
	CHECK_STR(x.gic_compatible, "arm,gic-v3");
	CHECK_EQ_U64(x.gic_version, 3);
	CHECK_EQ_U64(x.gicd_base, 0x08000000);
	CHECK_EQ_U64(x.gicd_size, 0x10000);
	CHECK_EQ_U64(x.gicr_count, 1);
	CHECK_EQ_U64(x.gicr[0].base, 0x080a0000);
	CHECK_EQ_U64(x.gicr[0].size, 0xf60000);
	CHECK_EQ_U64(x.gicr_stride, 0);
	CHECK_EQ_U64(x.gicc_base, 0);
	/* <1 11 4>: the flags differ from GICv2's (no CPU mask), the PPI not. */
	CHECK(x.vtimer_intid_ok);
	CHECK_EQ_U64(x.vtimer_intid, 27);
	free(b);
	/* Packed as kept, the same facts. */
	b = fixture("qemu72-virt-gicv3-max-smp4.dtb", &n);
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK(x.gic_ok && x.vtimer_intid_ok);
	free(b);
}

TEST(qemu_virt_a53_facts_match_its_model)
{
	size_t n;
	uint8_t *b = unpacked_fixture("qemu72-virt-a53-smp4.dtb", &n);
	struct fdt f;
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	uint32_t cpu;
	CHECK_EQ_U64(fdt_find_compatible(&f, FDT_NONE, "arm,cortex-a53", &cpu), FDT_OK);
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK_EQ_U64(x.cpu_count, 4);
	CHECK_EQ_U64(x.console_base, 0x09000000);
	CHECK_EQ_U64(x.psci_method, FDT_PSCI_HVC);
	CHECK(x.timer_found);
	free(b);
}

/* ---------------------------------------------------- hostile trees */

/* QEMU's tree packed to its blocks (header, reserve map, structure,
 * strings: no megabyte of padding), as the fixture is kept, so that every
 * cut below lands in the data. */
static uint8_t *packed_fixture(size_t *n, uint32_t *struct_off, uint32_t *struct_size, uint32_t *strings_off)
{
	uint8_t *b = fixture("qemu72-virt-max-smp4.dtb", n);
	uint32_t so = rd32(b + 8), ss = rd32(b + 36), sto = rd32(b + 12), sts = rd32(b + 32);
	CHECK(sto == so + ss);
	CHECK(*n == (size_t)sto + sts && rd32(b + 4) == *n);
	*struct_off = so;
	*struct_size = ss;
	*strings_off = sto;
	return b;
}

TEST(every_buffer_length_short_of_totalsize_is_refused)
{
	size_t n;
	uint32_t so, ss, sto;
	uint8_t *b = packed_fixture(&n, &so, &ss, &sto);
	struct fdt f;
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	/* The caller's length below the header's totalsize: never read past
	 * it (each cut in a buffer of exactly that size, under ASan). */
	for (size_t len = 0; len < n; len++) {
		uint8_t *cut = malloc(len ? len : 1);
		memcpy(cut, b, len);
		enum fdt_error e = fdt_open(&f, cut, len);
		CHECK(e == FDT_E_SHORT || e == FDT_E_TOTALSIZE);
		struct fdt_facts x;
		fdt_facts_decode(cut, len, &x);
		CHECK(x.error != FDT_OK && !x.console_found && !x.psci_found);
		free(cut);
	}
	free(b);
}

TEST(every_structure_and_strings_cut_is_refused_by_name)
{
	size_t n;
	uint32_t so, ss, sto;
	uint8_t *b = packed_fixture(&n, &so, &ss, &sto);
	uint32_t sts = (uint32_t)(n - sto);
	struct fdt f;
	/* The structure block cut at every 4-byte step (a size the format
	 * allows), moved after the strings so the cut ends the buffer (of
	 * exactly that size: ASan sees any read past it).  FDT_END is lost
	 * at every cut, so each is refused with a reason named. */
	uint32_t so2 = (so + sts + 3) & ~3u;
	for (uint32_t cut = 0; cut < ss; cut += 4) {
		size_t total = so2 + cut;
		uint8_t *t = calloc(1, total);
		memcpy(t, b, so);
		memcpy(t + so, b + sto, sts);
		memcpy(t + so2, b + so, cut);
		wr32(t + 4, (uint32_t)total);
		wr32(t + 8, so2);
		wr32(t + 12, so);
		wr32(t + 36, cut);
		enum fdt_error e = fdt_open(&f, t, total);
		CHECK(e == FDT_E_NO_END || e == FDT_E_NAME || e == FDT_E_TRUNCATED || e == FDT_E_PROP_LEN);
		struct fdt_facts x;
		fdt_facts_decode(t, total, &x);
		CHECK_EQ_U64(x.error, e);
		free(t);
	}
	/* The whole block in that layout is whole again. */
	{
		size_t total = so2 + ss;
		uint8_t *t = calloc(1, total);
		memcpy(t, b, so);
		memcpy(t + so, b + sto, sts);
		memcpy(t + so2, b + so, ss);
		wr32(t + 4, (uint32_t)total);
		wr32(t + 8, so2);
		wr32(t + 12, so);
		CHECK_EQ_U64(fdt_open(&f, t, total), FDT_OK);
		free(t);
	}
	/* The strings block cut at every byte: the property whose name lost
	 * its NUL (or its offset) is named. */
	for (uint32_t cut = 0; cut < sts; cut++) {
		size_t total = sto + cut;
		uint8_t *t = malloc(total);
		memcpy(t, b, total);
		wr32(t + 4, (uint32_t)total);
		wr32(t + 32, cut);
		enum fdt_error e = fdt_open(&f, t, total);
		CHECK_EQ_U64(e, FDT_E_PROP_NAME);
		free(t);
	}
	free(b);
}

TEST(header_faults_are_named)
{
	size_t n;
	uint32_t so, ss, sto;
	uint8_t *b = packed_fixture(&n, &so, &ss, &sto);
	uint8_t *t = malloc(n);
	struct fdt f;
#define BENT(off, val, want)                                     \
	do {                                                     \
		memcpy(t, b, n);                                 \
		wr32(t + (off), (val));                          \
		CHECK_EQ_U64(fdt_open(&f, t, n), (want));        \
	} while (0)
	BENT(0, 0xedfe0dd0u, FDT_E_MAGIC);		/* little-endian magic */
	BENT(20, 15, FDT_E_VERSION);			/* version 15 */
	BENT(24, 18, FDT_E_VERSION);			/* last_comp_version 18 */
	BENT(4, (uint32_t)n + 1, FDT_E_TOTALSIZE);	/* totalsize past the buffer */
	BENT(4, 39, FDT_E_TOTALSIZE);			/* totalsize inside the header */
	BENT(8, (uint32_t)n, FDT_E_BLOCK);		/* structure offset at the end */
	BENT(8, 0xfffffffcu, FDT_E_BLOCK);		/* ... far past it (no wrap) */
	BENT(36, 0xfffffff0u, FDT_E_BLOCK);		/* structure size wrapping */
	BENT(12, (uint32_t)n, FDT_E_BLOCK);		/* strings offset past the end */
	BENT(32, 0xffffffffu, FDT_E_BLOCK);		/* strings size wrapping */
	BENT(16, 0xfffffff8u, FDT_E_BLOCK);		/* reserve map past the end */
	BENT(8, 0x20, FDT_E_BLOCK);			/* structure inside the header */
	BENT(8, so + 2, FDT_E_ALIGN);			/* structure misaligned */
	BENT(36, ss - 2, FDT_E_ALIGN);			/* structure size not whole tokens */
	BENT(16, 44, FDT_E_ALIGN);			/* reserve map misaligned */
	BENT(so, 7, FDT_E_TOKEN);			/* the first token unknown */
	BENT(so, 2, FDT_E_UNBALANCED);			/* END_NODE before any node */
	BENT(so, 9, FDT_E_NO_ROOT);			/* FDT_END, no root */
	BENT(so, 3, FDT_E_PROP_PLACE);			/* a PROP before any node */
#undef BENT
	CHECK_EQ_U64(fdt_open(&f, NULL, n), FDT_E_NULL);
	/* Version 16: no size_dt_struct, the structure runs to totalsize. */
	memcpy(t, b, n);
	wr32(t + 20, 16);
	wr32(t + 36, 0xdeadbeefu);
	CHECK_EQ_U64(fdt_open(&f, t, n), FDT_OK);
	CHECK_EQ_U64(f.struct_size, (n - so) & ~3u);
	free(t);
	free(b);
	/* Every fault has its words. */
	for (int e = 0; e < FDT_E_COUNT; e++)
		CHECK(strcmp(fdt_error_name((enum fdt_error)e), "unknown error") != 0);
	CHECK_STR(fdt_error_name(FDT_E_COUNT), "unknown error");
}

TEST(property_length_past_the_block_and_unterminated_strings)
{
	struct dtb d = {0};
	size_t n;
	begin(&d, "");
	prop_str(&d, "compatible", "x");
	end(&d);
	uint8_t *b = finish(&d, &n);
	struct fdt f;
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	/* The property's len (structure offset 56: BEGIN, "" padded, PROP,
	 * len at +12). */
	uint8_t *t = malloc(n);
	memcpy(t, b, n);
	wr32(t + 56 + 12, 0xfffffff0u);
	CHECK_EQ_U64(fdt_open(&f, t, n), FDT_E_PROP_LEN);
	memcpy(t, b, n);
	wr32(t + 56 + 12, 64);
	CHECK_EQ_U64(fdt_open(&f, t, n), FDT_E_PROP_LEN);
	/* Its name offset past the strings block. */
	memcpy(t, b, n);
	wr32(t + 56 + 16, 1000);
	CHECK_EQ_U64(fdt_open(&f, t, n), FDT_E_PROP_NAME);
	free(t);
	free(b);

	/* A node name running to the block's end without a NUL. */
	begin(&d, "");
	tok(&d, 1);
	uint8_t name[8];
	memset(name, 'a', sizeof name);
	put(&d, name, sizeof name);
	b = finish(&d, &n);
	/* finish() put FDT_END after it: make the name swallow it too. */
	memset(b + 56 + 12, 'a', n - 56 - 12);
	wr32(b + 12, (uint32_t)n);
	wr32(b + 32, 0);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_NAME);
	free(b);

	/* A stringlist whose last string has no NUL matches nothing, and a
	 * string property without one is no string. */
	begin(&d, "");
	prop(&d, "compatible", "arm,pl011", 9);
	prop(&d, "model", "abc", 3);
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	uint32_t node;
	CHECK_EQ_U64(fdt_find_compatible(&f, FDT_NONE, "arm,pl011", &node), FDT_E_NOT_FOUND);
	const char *s;
	CHECK_EQ_U64(fdt_path(&f, "/", 1, &node), FDT_OK);
	CHECK_EQ_U64(fdt_prop_string(&f, node, "model", &s), FDT_E_BAD_VALUE);
	CHECK(!fdt_stringlist_has((const uint8_t *)"a\0b", 3, "b"));
	CHECK(fdt_stringlist_has((const uint8_t *)"a\0b\0", 4, "b"));
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK(!x.console_found);
	CHECK_STR(x.console_reason, "no stdout-path and no arm,pl011 node");
	CHECK(!x.psci_found);
	CHECK_STR(x.psci_reason, "no psci node");
	CHECK(!x.timer_found);
	CHECK_STR(x.cpus_reason, "no /cpus node");
	free(b);
}

TEST(structure_faults_are_named)
{
	struct dtb d = {0};
	size_t n;
	struct fdt f;
	uint8_t *b;
	/* A property after a subnode. */
	begin(&d, "");
	begin(&d, "a");
	end(&d);
	prop_u32(&d, "late", 1);
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_PROP_PLACE);
	free(b);
	/* A node never closed. */
	begin(&d, "");
	begin(&d, "a");
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_UNBALANCED);
	free(b);
	/* One END_NODE too many. */
	begin(&d, "");
	end(&d);
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_UNBALANCED);
	free(b);
	/* Two roots. */
	begin(&d, "");
	end(&d);
	begin(&d, "");
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_NO_ROOT);
	free(b);
	/* NOPs anywhere are skipped. */
	tok(&d, 4);
	begin(&d, "");
	tok(&d, 4);
	prop_u32(&d, "x", 1);
	tok(&d, 4);
	end(&d);
	tok(&d, 4);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	uint32_t root, v;
	CHECK_EQ_U64(fdt_path(&f, "/", 1, &root), FDT_OK);
	CHECK_EQ_U64(fdt_prop_u32(&f, root, "x", &v), FDT_OK);
	CHECK_EQ_U64(v, 1);
	free(b);
	/* A structure of NOPs alone, no FDT_END (the size of the block
	 * bounds the walk). */
	for (int i = 0; i < 64; i++)
		tok(&d, 4);
	b = finish(&d, &n);
	wr32(b + 56 + 64 * 4, 4); /* finish()'s FDT_END turned NOP */
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_NO_END);
	free(b);
}

TEST(deep_nesting_is_refused_at_the_limit)
{
	struct dtb d = {0};
	size_t n;
	struct fdt f;
	for (int depth = FDT_MAX_DEPTH; depth <= (int)FDT_MAX_DEPTH + 1; depth++) {
		for (int i = 0; i < depth; i++)
			begin(&d, i ? "n" : "");
		for (int i = 0; i < depth; i++)
			end(&d);
		uint8_t *b = finish(&d, &n);
		CHECK_EQ_U64(fdt_open(&f, b, n), depth <= (int)FDT_MAX_DEPTH ? FDT_OK : FDT_E_DEPTH);
		if (depth == (int)FDT_MAX_DEPTH) {
			CHECK_EQ_U64(f.max_depth, FDT_MAX_DEPTH);
			/* The deepest node by path. */
			char path[2 * FDT_MAX_DEPTH + 1];
			size_t k = 0;
			for (int i = 1; i < depth; i++) {
				path[k++] = '/';
				path[k++] = 'n';
			}
			uint32_t node;
			CHECK_EQ_U64(fdt_path(&f, path, k, &node), FDT_OK);
			char back[FDT_PATH_LEN];
			fdt_node_path(&f, node, back, sizeof back);
			path[k] = 0;
			CHECK_STR(back, path);
		}
		free(b);
	}
	/* 100 000 levels: refused at the limit, not walked. */
	for (int i = 0; i < 100000; i++)
		begin(&d, "n");
	uint8_t *b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_DEPTH);
	free(b);
}

TEST(huge_node_counts_are_bounded)
{
	struct dtb d = {0};
	size_t n;
	struct fdt f;
	/* Just under the limit, every node a cpu: opened, and the facts
	 * (which look at each cpu node) come back (in linear time: each
	 * node's properties are read from the node, not from the root). */
	begin(&d, "");
	begin(&d, "cpus");
	prop_u32(&d, "#address-cells", 1);
	prop_u32(&d, "#size-cells", 0);
	for (uint32_t i = 0; i < FDT_MAX_NODES - 2; i++) {
		begin(&d, "cpu");
		prop_str(&d, "device_type", "cpu");
		prop_str(&d, "enable-method", "psci");
		prop_u32(&d, "reg", i);
		end(&d);
	}
	end(&d);
	end(&d);
	uint8_t *b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	CHECK_EQ_U64(f.nodes, FDT_MAX_NODES);
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK_EQ_U64(x.cpu_total, FDT_MAX_NODES - 2);
	CHECK_EQ_U64(x.cpu_count, FDT_MAX_CPUS);
	CHECK_EQ_U64(x.cpu_mpidr[FDT_MAX_CPUS - 1], FDT_MAX_CPUS - 1);
	free(b);
	/* One more: refused. */
	begin(&d, "");
	for (uint32_t i = 0; i < FDT_MAX_NODES; i++) {
		begin(&d, "n");
		end(&d);
	}
	end(&d);
	b = finish(&d, &n);
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_E_NODES);
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_E_NODES);
	free(b);
}

/* ---------------------------------------------------- built trees */

TEST(stdout_path_alias_options_and_errata)
{
	struct dtb d = {0};
	size_t n;
	uint8_t reg[16];
	begin(&d, "");
	prop_u32(&d, "#address-cells", 2);
	prop_u32(&d, "#size-cells", 2);
	begin(&d, "aliases");
	prop_str(&d, "serial0", "/soc/serial@1c28000");
	end(&d);
	begin(&d, "chosen");
	prop_str(&d, "stdout-path", "serial0:115200n8");
	end(&d);
	begin(&d, "psci");
	prop(&d, "compatible", "arm,psci-0.2\0arm,psci", 22);
	prop_str(&d, "method", "smc");
	end(&d);
	begin(&d, "timer");
	prop(&d, "compatible", "arm,armv7-timer", 16);
	prop_u32(&d, "clock-frequency", 24000000);
	prop(&d, "allwinner,erratum-unknown1", NULL, 0);
	prop(&d, "fsl,erratum-a008585", NULL, 0);
	prop(&d, "arm,no-tick-in-suspend", NULL, 0);
	end(&d);
	begin(&d, "soc");
	prop_u32(&d, "#address-cells", 1);
	prop_u32(&d, "#size-cells", 1);
	prop(&d, "ranges", NULL, 0);
	begin(&d, "serial@1c27000");
	prop_str(&d, "compatible", "arm,pl011");
	wr32(reg, 0x1c27000);
	wr32(reg + 4, 0x400);
	prop(&d, "reg", reg, 8);
	end(&d);
	begin(&d, "serial@1c28000");
	prop(&d, "compatible", "snps,dw-apb-uart", 17);
	wr32(reg, 0x1c28000);
	wr32(reg + 4, 0x400);
	prop(&d, "reg", reg, 8);
	end(&d);
	end(&d);
	end(&d);
	uint8_t *b = finish(&d, &n);
	struct fdt_facts x;
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	/* The alias, its options cut, names the second UART (not a PL011):
	 * the probe will refuse it; it is not swapped for the first. */
	CHECK_STR(x.stdout_path, "serial0:115200n8");
	CHECK(x.console_found);
	CHECK_STR(x.console_from, "stdout-path");
	CHECK_STR(x.console_node, "/soc/serial@1c28000");
	CHECK(!x.console_pl011);
	CHECK(x.console_reg_ok);
	CHECK_EQ_U64(x.console_base, 0x1c28000);
	CHECK_EQ_U64(x.console_size, 0x400);
	CHECK_EQ_U64(x.psci_method, FDT_PSCI_SMC);
	CHECK(x.psci_0_2);
	CHECK(x.psci_reason == NULL);
	CHECK_STR(x.timer_compatible, "arm,armv7-timer");
	CHECK(x.clock_frequency_present);
	CHECK_EQ_U64(x.clock_frequency, 24000000);
	/* The errata table's own names; arm,no-tick-in-suspend is no erratum. */
	CHECK_EQ_U64(x.errata, ARM64_ERRATUM_SUN50I_UNKNOWN1 | ARM64_ERRATUM_FSL_A008585);
	CHECK_EQ_U64(x.errata_count, 2);
	CHECK_STR(x.errata_props[0], "allwinner,erratum-unknown1");
	CHECK_STR(x.errata_props[1], "fsl,erratum-a008585");
	free(b);
}

TEST(console_fallbacks_and_reasons)
{
	struct dtb d = {0};
	size_t n;
	uint8_t reg[8];
	struct fdt_facts x;
	/* stdout-path to an alias that is not there; a PL011 behind a bus
	 * that translates addresses; PSCI 0.1 alone; a hisilicon erratum. */
	begin(&d, "");
	begin(&d, "chosen");
	prop_str(&d, "stdout-path", "serial3");
	end(&d);
	begin(&d, "psci");
	prop_str(&d, "compatible", "arm,psci");
	prop_str(&d, "method", "hvc");
	end(&d);
	begin(&d, "timer");
	prop_str(&d, "compatible", "arm,armv8-timer");
	prop(&d, "hisilicon,erratum-161010101", NULL, 0);
	prop(&d, "clock-frequency", "\0\0", 2);
	end(&d);
	begin(&d, "bus");
	prop_u32(&d, "#address-cells", 1);
	prop_u32(&d, "#size-cells", 1);
	prop(&d, "ranges", "\0\0\0\0\0\0\0\1\0\0\0\0", 12);
	begin(&d, "uart@0");
	prop_str(&d, "compatible", "arm,pl011");
	wr32(reg, 0);
	wr32(reg + 4, 0x1000);
	prop(&d, "reg", reg, 8);
	end(&d);
	end(&d);
	end(&d);
	uint8_t *b = finish(&d, &n);
	fdt_facts_decode(b, n, &x);
	CHECK_EQ_U64(x.error, FDT_OK);
	CHECK(x.stdout_path_present);
	CHECK(x.console_found);
	CHECK_STR(x.console_from, "first arm,pl011");
	CHECK_STR(x.console_node, "/bus/uart@0");
	CHECK(x.console_pl011);
	CHECK(!x.console_reg_ok);
	CHECK_STR(x.console_reg_reason, "a parent bus translates addresses (non-empty ranges): not decoded");
	CHECK(x.psci_found);
	CHECK(!x.psci_0_2);
	CHECK_EQ_U64(x.psci_method, FDT_PSCI_HVC);
	CHECK(x.psci_reason != NULL);
	CHECK(!x.clock_frequency_present); /* two bytes: not a cell */
	CHECK_EQ_U64(x.errata, ARM64_ERRATUM_HISI_161010101);
	free(b);

	/* stdout-path to a path the tree lacks, no PL011 anywhere; cells out
	 * of range on the UART's parent. */
	begin(&d, "");
	begin(&d, "chosen");
	prop_str(&d, "stdout-path", "/serial@0:9600");
	end(&d);
	begin(&d, "cpus");
	prop_u32(&d, "#address-cells", 3);
	begin(&d, "cpu@0");
	prop_str(&d, "device_type", "cpu");
	prop_str(&d, "enable-method", "spin-table");
	prop_u32(&d, "reg", 0);
	end(&d);
	end(&d);
	end(&d);
	b = finish(&d, &n);
	fdt_facts_decode(b, n, &x);
	CHECK(!x.console_found);
	CHECK_STR(x.console_reason, "stdout-path names no node of the tree");
	CHECK_EQ_U64(x.cpu_total, 1);
	CHECK_EQ_U64(x.cpu_count, 0);
	CHECK_STR(x.cpus_reason, "cpu nodes are not started through PSCI (enable-method)");
	struct fdt f;
	CHECK_EQ_U64(fdt_open(&f, b, n), FDT_OK);
	uint32_t cpu;
	uint64_t a, s;
	CHECK_EQ_U64(fdt_path(&f, "/cpus/cpu@0", 11, &cpu), FDT_OK);
	CHECK_EQ_U64(fdt_reg(&f, cpu, 0, &a, &s), FDT_E_CELLS);
	free(b);
}

/* ------------------------------------------------- the GIC, hostile */

/* A tree as QEMU's virt lays out its GIC and timer, bent one way at a
 * time (enum gic_bend). */
enum gic_bend {
	GB_NONE, GB_V3, GB_V3_STRIDE, GB_V3_STRIDE_CELL, GB_V3_REGIONS_SHORT, GB_REG_ONE, GB_REG_PARTIAL,
	GB_CELLS_3, GB_NO_INTERRUPTS, GB_PPI_16, GB_SPI, GB_TWO_SPECS, GB_INT_CELLS_2, GB_PARENT_MISSING,
	GB_PARENT_LOOP, GB_DISABLED, GB_NO_GIC, GB_NO_CONTROLLER, GB_CHILD_PARENT
};

static void cells_prop(struct dtb *d, const char *name, const uint32_t *v, uint32_t n)
{
	uint8_t b[64];
	for (uint32_t i = 0; i < n; i++)
		wr32(b + 4 * i, v[i]);
	prop(d, name, b, 4 * n);
}

static uint8_t *gic_tree(enum gic_bend bend, size_t *n)
{
	struct dtb d = {0};
	bool v3 = bend == GB_V3 || bend == GB_V3_STRIDE || bend == GB_V3_STRIDE_CELL || bend == GB_V3_REGIONS_SHORT;
	begin(&d, "");
	prop_u32(&d, "#address-cells", bend == GB_CELLS_3 ? 3 : 2);
	prop_u32(&d, "#size-cells", 2);
	prop_u32(&d, "interrupt-parent", bend == GB_PARENT_MISSING ? 0x99 : bend == GB_PARENT_LOOP ? 2 : 1);
	if (bend == GB_PARENT_LOOP) {
		/* Two nodes pointing at each other, neither a controller. */
		begin(&d, "a");
		prop_u32(&d, "phandle", 2);
		prop_u32(&d, "interrupt-parent", 3);
		end(&d);
		begin(&d, "b");
		prop_u32(&d, "phandle", 3);
		prop_u32(&d, "interrupt-parent", 2);
		end(&d);
	}
	if (bend != GB_NO_GIC) {
		begin(&d, "intc@8000000");
		prop_str(&d, "compatible", v3 ? "arm,gic-v3" : "arm,cortex-a15-gic");
		if (bend != GB_NO_CONTROLLER)
			prop(&d, "interrupt-controller", NULL, 0);
		prop_u32(&d, "#interrupt-cells", bend == GB_INT_CELLS_2 ? 2 : 3);
		prop_u32(&d, "phandle", 1);
		if (bend == GB_DISABLED)
			prop_str(&d, "status", "disabled");
		if (v3)
			prop_u32(&d, "#redistributor-regions", bend == GB_V3_REGIONS_SHORT ? 2 : 1);
		if (bend == GB_V3_STRIDE)
			cells_prop(&d, "redistributor-stride", (const uint32_t[]){0, 0x40000}, 2);
		if (bend == GB_V3_STRIDE_CELL)
			cells_prop(&d, "redistributor-stride", (const uint32_t[]){0x40000}, 1);
		const uint32_t reg[] = {0, 0x08000000, 0, 0x10000, 0, v3 ? 0x080a0000 : 0x08010000, 0,
					v3 ? 0xf60000 : 0x10000};
		cells_prop(&d, "reg", reg, bend == GB_REG_ONE ? 4 : bend == GB_REG_PARTIAL ? 6 : 8);
		end(&d);
	}
	begin(&d, "timer");
	prop_str(&d, "compatible", "arm,armv8-timer");
	if (bend == GB_CHILD_PARENT)
		prop_u32(&d, "interrupt-parent", 4);
	uint32_t ints[] = {1, 13, 0xf04, 1, 14, 0xf04, 1, 11, 0xf04, 1, 10, 0xf04};
	if (bend == GB_PPI_16)
		ints[7] = 16;
	if (bend == GB_SPI)
		ints[6] = 0;
	if (bend != GB_NO_INTERRUPTS)
		cells_prop(&d, "interrupts", ints, bend == GB_TWO_SPECS ? 6 : 12);
	end(&d);
	if (bend == GB_CHILD_PARENT) {
		/* A second controller the timer names: not the GIC found. */
		begin(&d, "other-intc");
		prop(&d, "interrupt-controller", NULL, 0);
		prop_u32(&d, "#interrupt-cells", 3);
		prop_u32(&d, "phandle", 4);
		end(&d);
	}
	end(&d);
	return finish(&d, n);
}

static void gic_facts_of(enum gic_bend bend, struct fdt_facts *x)
{
	size_t n;
	uint8_t *b = gic_tree(bend, &n);
	fdt_facts_decode(b, n, x);
	CHECK_EQ_U64(x->error, FDT_OK);
	free(b);
}

TEST(gic_and_vtimer_from_built_trees)
{
	struct fdt_facts x;
	/* The built tree itself reads as QEMU's. */
	gic_facts_of(GB_NONE, &x);
	CHECK(x.gic_ok);
	CHECK_EQ_U64(x.gic_version, 2);
	CHECK_EQ_U64(x.gicc_base, 0x08010000);
	CHECK(x.vtimer_intid_ok);
	CHECK_EQ_U64(x.vtimer_intid, 27);
	gic_facts_of(GB_V3, &x);
	CHECK(x.gic_ok);
	CHECK_EQ_U64(x.gic_version, 3);
	CHECK_EQ_U64(x.gicr_count, 1);
	CHECK_EQ_U64(x.gicr[0].base, 0x080a0000);
	CHECK_EQ_U64(x.gicr_stride, 0);
	/* A 64-bit stride is taken; a one-cell one is not the binding's. */
	gic_facts_of(GB_V3_STRIDE, &x);
	CHECK(x.gic_ok);
	CHECK_EQ_U64(x.gicr_stride, 0x40000);
	gic_facts_of(GB_V3_STRIDE_CELL, &x);
	CHECK(!x.gic_ok);
	CHECK_STR(x.gic_reason, "redistributor-stride is not a non-zero 64-bit multiple of 64 KiB");
	gic_facts_of(GB_V3_REGIONS_SHORT, &x);
	CHECK(!x.gic_ok);
	CHECK_STR(x.gic_reason,
		  "the GICv3 node's reg has fewer redistributor regions than #redistributor-regions");
}

TEST(gic_reg_too_short_or_in_wrong_cells_is_refused)
{
	struct fdt_facts x;
	/* GICD alone: no CPU interface address to prove. */
	gic_facts_of(GB_REG_ONE, &x);
	CHECK(x.gic_found);
	CHECK(!x.gic_ok);
	CHECK_STR(x.gic_reason, "the GICv2 node's reg has no second entry (the CPU interface)");
	/* Six cells in 2/2: not whole entries, nothing taken from it. */
	gic_facts_of(GB_REG_PARTIAL, &x);
	CHECK(!x.gic_ok);
	CHECK_STR(x.gic_reason, "the GIC node's reg does not decode (not whole entries of the parent's cells)");
	/* #address-cells 3: wider than an address this probe can use. */
	gic_facts_of(GB_CELLS_3, &x);
	CHECK(!x.gic_ok);
	CHECK_STR(x.gic_reason, "the GIC's parent has #address-cells/#size-cells this reader does not decode");
	gic_facts_of(GB_DISABLED, &x);
	CHECK(x.gic_found && !x.gic_ok);
	CHECK_STR(x.gic_reason, "the GIC node is disabled (status)");
	gic_facts_of(GB_NO_GIC, &x);
	CHECK(!x.gic_found && !x.gic_ok);
	CHECK_STR(x.gic_reason, "no interrupt-controller node with a GIC compatible");
	CHECK(!x.vtimer_intid_ok);
	CHECK_STR(x.vtimer_intid_reason, "no GIC node: the timer's interrupts cannot be read");
	/* A GIC compatible without interrupt-controller is no controller. */
	gic_facts_of(GB_NO_CONTROLLER, &x);
	CHECK(!x.gic_found);
}

TEST(vtimer_interrupt_faults_are_named)
{
	static const struct {
		enum gic_bend bend;
		const char *reason;
	} cases[] = {
		{GB_NO_INTERRUPTS, "the timer node has no interrupts property"},
		{GB_PPI_16, "the virtual timer's PPI number is past 15"},
		{GB_SPI, "the virtual timer's interrupt is not a PPI (type cell not 1)"},
		{GB_TWO_SPECS, "the timer's interrupts is not whole 3-cell specifiers, or has no third (the "
			       "virtual timer's)"},
		{GB_INT_CELLS_2, "the GIC's #interrupt-cells is not 3 (<type number flags>)"},
		{GB_PARENT_MISSING, "the timer's interrupt parent is not the GIC node"},
		{GB_PARENT_LOOP, "the timer's interrupt parent is not the GIC node"},
		{GB_CHILD_PARENT, "the timer's interrupt parent is not the GIC node"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fdt_facts x;
		gic_facts_of(cases[i].bend, &x);
		/* The GIC itself stays good: only the INTID is refused. */
		CHECK(x.gic_ok);
		CHECK(!x.vtimer_intid_ok);
		CHECK_EQ_U64(x.vtimer_intid, 0);
		CHECK_STR(x.vtimer_intid_reason, cases[i].reason);
	}
}
