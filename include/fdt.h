/* A flattened devicetree (the DTB an arm64 firmware hands the OS through
 * the EFI configuration table, GUID b1b621d5-f19c-41a5-830b-d9152c69aae0)
 * read as hostile input: src/decode/fdt.c.  Pure: the arm64 probe hands in
 * the bytes it proved are RAM; host tests hand in QEMU's own DTBs
 * (tests/fixtures/arm64/) and broken ones.
 *
 * The format is the Devicetree Specification's (v0.4, chapter 5
 * "Flattened Devicetree (DTB) Format"): a big-endian header, a structure
 * block of FDT_BEGIN_NODE / FDT_END_NODE / FDT_PROP / FDT_NOP / FDT_END
 * tokens, and a strings block holding the property names.  fdt_open()
 * checks the header and then walks the whole structure block once, with
 * every read bounded and a depth and node limit, so that every later
 * lookup runs over a structure already proven well formed (and bounds
 * every read again all the same).  Nothing here loops longer than the
 * structure block is long. */
#ifndef CP_FDT_H
#define CP_FDT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeedu
/* Deeper than any real tree (Linux's own unflattening stops at 64). */
#define FDT_MAX_DEPTH 32u
/* Real boards carry a few thousand nodes; beyond this the tree is refused
 * rather than walked again and again by every lookup. */
#define FDT_MAX_NODES 32768u
/* A node handle: the offset of its FDT_BEGIN_NODE in the structure block. */
#define FDT_NONE 0xffffffffu

/* Why a tree (or a lookup) failed; fdt_error_name() says it in words. */
enum fdt_error {
	FDT_OK = 0,
	FDT_E_NULL,		/* no buffer */
	FDT_E_SHORT,		/* the buffer is shorter than a header */
	FDT_E_MAGIC,		/* not 0xd00dfeed */
	FDT_E_VERSION,		/* version < 16, or last_comp_version > 17 */
	FDT_E_TOTALSIZE,	/* totalsize past the buffer, or below the header */
	FDT_E_BLOCK,		/* a block's offset or size runs past totalsize */
	FDT_E_ALIGN,		/* a block is not aligned as the format requires */
	FDT_E_TRUNCATED,	/* a token or its data runs past the structure block */
	FDT_E_TOKEN,		/* an unknown token */
	FDT_E_NAME,		/* a node name without its NUL inside the block */
	FDT_E_PROP_LEN,		/* a property's value runs past the structure block */
	FDT_E_PROP_NAME,	/* a property name offset past the strings block, or unterminated */
	FDT_E_PROP_PLACE,	/* a property outside a node, or after a subnode */
	FDT_E_DEPTH,		/* nested deeper than FDT_MAX_DEPTH */
	FDT_E_NODES,		/* more nodes than FDT_MAX_NODES */
	FDT_E_UNBALANCED,	/* FDT_END_NODE without its node, or FDT_END inside one */
	FDT_E_NO_ROOT,		/* no root node, or a second one */
	FDT_E_NO_END,		/* the block ends without FDT_END */
	FDT_E_NOT_FOUND,	/* a lookup found nothing */
	FDT_E_CELLS,		/* #address-cells / #size-cells outside 0..2 (1..2 for an address) */
	FDT_E_BAD_VALUE,	/* a property's value is not what its name requires */
	FDT_E_COUNT
};
const char *fdt_error_name(enum fdt_error e);

struct fdt {
	const uint8_t *base;
	uint32_t totalsize;
	uint32_t version, last_comp_version;
	uint32_t struct_off, struct_size;
	uint32_t strings_off, strings_size;
	uint32_t nodes;		/* counted by fdt_open's walk */
	uint32_t max_depth;	/* the deepest node (the root is 1) */
};

/* Checks the header against len (the bytes the caller may read) and walks
 * the structure block once; *f is usable only on FDT_OK. */
enum fdt_error fdt_open(struct fdt *f, const void *buf, size_t len);

/* One step of the structure block (fdt_next). */
enum fdt_tok { FDT_TOK_BEGIN = 1, FDT_TOK_END_NODE = 2, FDT_TOK_PROP = 3, FDT_TOK_END = 9 };
struct fdt_step {
	enum fdt_tok tok;
	uint32_t node;		/* BEGIN: this node; PROP, END_NODE: the node it belongs to */
	uint32_t depth;		/* BEGIN: the node's depth (root 1); PROP: its node's */
	const char *name;	/* BEGIN: the node's name; PROP: the property's */
	const uint8_t *value;	/* PROP */
	uint32_t len;		/* PROP */
};
/* A walk from the start of the structure block, NOPs skipped. */
struct fdt_cursor {
	const struct fdt *f;
	uint32_t off;		/* next token, from the structure block's start */
	uint32_t depth;
	uint32_t stack[FDT_MAX_DEPTH + 1];	/* the open nodes */
	bool child_seen[FDT_MAX_DEPTH + 1];	/* a subnode began: no property may follow */
	uint32_t nodes;
	bool done;
};
void fdt_cursor_init(struct fdt_cursor *c, const struct fdt *f);
/* FDT_OK with *s filled, FDT_E_NOT_FOUND once FDT_END was passed, or the
 * structure's fault (on a tree fdt_open accepted: never). */
enum fdt_error fdt_next(struct fdt_cursor *c, struct fdt_step *s);

/* The node's own property (not a subnode's); FDT_E_NOT_FOUND if absent. */
enum fdt_error fdt_prop(const struct fdt *f, uint32_t node, const char *name, const uint8_t **value,
			uint32_t *len);
bool fdt_has_prop(const struct fdt *f, uint32_t node, const char *name);
/* A one-cell property (big-endian u32); FDT_E_BAD_VALUE unless 4 bytes. */
enum fdt_error fdt_prop_u32(const struct fdt *f, uint32_t node, const char *name, uint32_t *v);
/* The first string of a string(list) property, NUL inside the value;
 * FDT_E_BAD_VALUE otherwise. */
enum fdt_error fdt_prop_string(const struct fdt *f, uint32_t node, const char *name, const char **s);
/* Whether a stringlist value (NUL-separated, NUL-ended) holds s exactly;
 * an unterminated last string is not matched. */
bool fdt_stringlist_has(const uint8_t *value, uint32_t len, const char *s);
/* The node's `compatible` holds compat. */
bool fdt_is_compatible(const struct fdt *f, uint32_t node, const char *compat);

/* The first node after `after` (FDT_NONE: from the root) whose
 * compatible holds compat. */
enum fdt_error fdt_find_compatible(const struct fdt *f, uint32_t after, const char *compat, uint32_t *node);
/* A node by its full path ("/", "/chosen", "/pl011@9000000"), n bytes of
 * path (it need not be NUL-ended: stdout-path's ":options" are cut by the
 * caller).  A component without '@' also matches a node whose name is it
 * plus a unit address, as libfdt's lookups do. */
enum fdt_error fdt_path(const struct fdt *f, const char *path, size_t n, uint32_t *node);
/* The node's parent (FDT_NONE for the root). */
enum fdt_error fdt_parent(const struct fdt *f, uint32_t node, uint32_t *parent);
/* The node's name ("" for the root). */
const char *fdt_name(const struct fdt *f, uint32_t node);
/* The node's full path into buf (always NUL-ended; cut short if cap is). */
void fdt_node_path(const struct fdt *f, uint32_t node, char *buf, size_t cap);
/* #address-cells / #size-cells a node gives its children (defaults 2 / 1,
 * the specification's). */
enum fdt_error fdt_cells(const struct fdt *f, uint32_t node, uint32_t *address_cells, uint32_t *size_cells);
/* The node's reg entry `index`, decoded with its parent's cells. */
enum fdt_error fdt_reg(const struct fdt *f, uint32_t node, uint32_t index, uint64_t *addr, uint64_t *size);

/* ------------------------------------------------------------------ */
/* What the arm64 probe takes from a tree: fdt_facts_decode(). */

#define FDT_PATH_LEN 96
#define FDT_MAX_ERRATA 8
#define FDT_MAX_CPUS 64
/* Redistributor regions kept (a GICv3 node may list more; a probe needs
 * the one its CPU is in, and QEMU's virt has one or two). */
#define FDT_MAX_GICR 8

enum fdt_psci_method { FDT_PSCI_NONE, FDT_PSCI_HVC, FDT_PSCI_SMC };

struct fdt_facts {
	enum fdt_error error;		/* fdt_open's; FDT_OK: the rest is filled */
	uint32_t totalsize, version, last_comp_version, nodes;

	/* The console: /chosen's stdout-path (an alias or a path, its
	 * ":options" cut), else the first arm,pl011 node. */
	bool stdout_path_present;
	char stdout_path[FDT_PATH_LEN];	/* the property as given, options and all */
	bool console_found;
	const char *console_from;	/* "stdout-path" or "first arm,pl011" */
	const char *console_reason;	/* why no console node; NULL when found */
	char console_node[FDT_PATH_LEN];
	bool console_pl011;		/* its compatible holds arm,pl011 */
	bool console_reg_ok;		/* reg[0] decoded, every ancestor's ranges identity */
	const char *console_reg_reason;
	uint64_t console_base, console_size;

	/* /psci (Documentation/devicetree/bindings/arm/psci.yaml). */
	bool psci_found;
	char psci_compatible[32];	/* its first compatible string */
	bool psci_0_2;			/* arm,psci-0.2 or arm,psci-1.0: PSCI_VERSION exists */
	enum fdt_psci_method psci_method;
	const char *psci_reason;	/* why no conduit is taken; NULL when one is */

	/* The architected timer node (arm,armv8-timer, else arm,armv7-timer). */
	bool timer_found;
	char timer_node[FDT_PATH_LEN];
	const char *timer_compatible;
	bool clock_frequency_present;
	uint32_t clock_frequency;	/* Hz: Linux takes it over CNTFRQ_EL0 */
	uint32_t errata;		/* enum arm64_erratum bits of its properties */
	uint32_t errata_count;		/* errata properties seen (stored: FDT_MAX_ERRATA) */
	const char *errata_props[FDT_MAX_ERRATA];	/* their names, inside the tree */

	/* /cpus: every cpu node's MPIDR (reg), for PSCI CPU_ON. */
	uint32_t cpu_total;		/* cpu nodes seen */
	uint32_t cpu_count;		/* stored: enabled, enable-method psci, reg decoded */
	uint64_t cpu_mpidr[FDT_MAX_CPUS];
	const char *cpus_reason;	/* why none stored; NULL when some were */

	/* The GIC, for the probe's interrupt measurement where no MADT names
	 * it (Documentation/devicetree/bindings/interrupt-controller/
	 * arm,gic.yaml and arm,gic-v3.yaml): the first node with
	 * interrupt-controller and a GIC compatible.  Addresses only: the
	 * probe proves them (mapping, ID registers) before it touches one. */
	bool gic_found;
	char gic_node[FDT_PATH_LEN];
	const char *gic_compatible;	/* the compatible it was found by */
	unsigned gic_version;		/* 2 (GICv1/v2 layout) or 3 (arm,gic-v3: v3 and v4) */
	bool gic_ok;			/* every address below decoded */
	const char *gic_reason;		/* why not; NULL when gic_ok */
	uint64_t gicd_base, gicd_size;	/* reg[0] */
	uint64_t gicc_base, gicc_size;	/* GICv2: reg[1], the CPU interface (banked per CPU) */
	uint32_t gicr_count;		/* GICv3: #redistributor-regions (default 1), reg[1..] */
	struct {
		uint64_t base, size;
	} gicr[FDT_MAX_GICR];
	uint64_t gicr_stride;		/* redistributor-stride; 0 when absent (frames by GICR_TYPER) */

	/* The EL1 virtual timer's interrupt: the timer node's third
	 * `interrupts` specifier (secure phys, non-secure phys, virtual,
	 * hyp), <type number flags> in the GIC's three cells; type 1 is a
	 * PPI, INTID = number + 16. */
	bool vtimer_intid_ok;
	uint32_t vtimer_intid;
	const char *vtimer_intid_reason;	/* why not; NULL when ok */
};
/* The facts of the tree in buf[0..len); nothing past len is read. */
void fdt_facts_decode(const void *buf, size_t len, struct fdt_facts *out);
const char *fdt_psci_method_name(enum fdt_psci_method m);
#endif
