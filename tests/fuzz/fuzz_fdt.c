/* libFuzzer target for the devicetree reader (src/decode/fdt.c): the
 * input is a whole DTB, copied into an exact-size heap buffer so ASan
 * flags any read past its end (the arm64 probe hands fdt.c the firmware's
 * tree as bytes it may read, up to the header's totalsize).  Then the
 * promises of include/fdt.h are checked: a tree fdt_open() accepts walks
 * to FDT_END within its node count and depth, the facts' strings are
 * terminated inside their fields, a reason is given exactly where a fact
 * is missing, no more cpus, errata or redistributor regions are stored
 * than fit, and a timer INTID taken is a PPI's.  Seeds:
 * tests/fixtures/fuzz/fdt/ (QEMU's own virt trees, packed; see
 * tests/fuzz/README). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fdt.h"

static struct fdt_facts x;

static void check_terminated(const char *s, size_t cap)
{
	if (strnlen(s, cap) == cap)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	struct fdt f;
	enum fdt_error e = fdt_open(&f, copy, size);
	if (e == FDT_OK) {
		struct fdt_cursor c;
		struct fdt_step s;
		uint32_t begins = 0, steps = 0;
		fdt_cursor_init(&c, &f);
		while (fdt_next(&c, &s) == FDT_OK && s.tok != FDT_TOK_END) {
			begins += s.tok == FDT_TOK_BEGIN;
			/* Every step takes a token of 4 bytes at least. */
			if (++steps > f.struct_size / 4)
				abort();
			if (s.tok == FDT_TOK_BEGIN) {
				char path[FDT_PATH_LEN];
				uint32_t back;
				fdt_node_path(&f, s.node, path, sizeof path);
				check_terminated(path, sizeof path);
				/* Looked up again: it may not resolve (a name
				 * holding '/' or empty), but it must end. */
				(void)fdt_path(&f, path, strlen(path), &back);
			}
		}
		if (!c.done || begins != f.nodes || f.nodes > FDT_MAX_NODES || f.max_depth > FDT_MAX_DEPTH)
			abort();
	} else if (e >= FDT_E_COUNT || !strcmp(fdt_error_name(e), "unknown error")) {
		abort();
	}
	fdt_facts_decode(copy, size, &x);
	if (x.error != e)
		abort();
	if (x.error == FDT_OK) {
		check_terminated(x.stdout_path, sizeof x.stdout_path);
		check_terminated(x.console_node, sizeof x.console_node);
		check_terminated(x.timer_node, sizeof x.timer_node);
		check_terminated(x.psci_compatible, sizeof x.psci_compatible);
		if (x.console_found == (x.console_reason != NULL))
			abort();
		if (x.console_found && !x.console_reg_ok && !x.console_reg_reason)
			abort();
		if (!x.psci_found && !x.psci_reason)
			abort();
		if (x.cpu_count > FDT_MAX_CPUS || x.cpu_count > x.cpu_total || (!x.cpu_count && !x.cpus_reason))
			abort();
		for (uint32_t i = 0; i < x.errata_count && i < FDT_MAX_ERRATA; i++)
			if (!x.errata_props[i])
				abort();
		if ((x.errata != 0) != (x.errata_count != 0))
			abort();
		/* The GIC: a reason exactly where it is not usable, a version
		 * the probe knows, its regions counted within what fits; the
		 * timer's INTID a PPI's (16..31) or a reason. */
		check_terminated(x.gic_node, sizeof x.gic_node);
		if (x.gic_ok == (x.gic_reason != NULL) || (x.gic_ok && !x.gic_found))
			abort();
		if (x.gic_found && x.gic_version != 2 && x.gic_version != 3)
			abort();
		if (x.gic_ok && (!x.gicd_base || (x.gic_version == 3 ? !x.gicr_count || x.gicr_count > FDT_MAX_GICR
								       : x.gicr_count != 0)))
			abort();
		if (x.vtimer_intid_ok == (x.vtimer_intid_reason != NULL) ||
		    (x.vtimer_intid_ok && (x.vtimer_intid < 16 || x.vtimer_intid > 31 || !x.gic_found)))
			abort();
	}
	free(copy);
	return 0;
}
