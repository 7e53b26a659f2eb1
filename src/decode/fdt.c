/* The flattened devicetree reader (include/fdt.h).  Every value comes
 * from outside: each read is checked against the block it must lie in
 * before it is made, offsets are compared as 64-bit sums (no wrap), and
 * every walk advances at least one 4-byte token per step through a block
 * of bounded size, so none can loop forever. */
#include "fdt.h"
#include "arm64.h"
#include "util.h"

#define TOK_BEGIN_NODE 1u
#define TOK_END_NODE 2u
#define TOK_PROP 3u
#define TOK_NOP 4u
#define TOK_END 9u
/* Header fields (DT spec 5.2): version 16 ends after size_dt_strings,
 * 17 adds size_dt_struct. */
#define HDR_V16_SIZE 36u
#define HDR_V17_SIZE 40u

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

const char *fdt_error_name(enum fdt_error e)
{
	static const char *const names[FDT_E_COUNT] = {
		[FDT_OK] = "ok",
		[FDT_E_NULL] = "no buffer",
		[FDT_E_SHORT] = "shorter than a DTB header",
		[FDT_E_MAGIC] = "bad magic (not 0xd00dfeed)",
		[FDT_E_VERSION] = "version below 16 or last_comp_version above 17",
		[FDT_E_TOTALSIZE] = "totalsize past the readable bytes or below the header",
		[FDT_E_BLOCK] = "a block's offset or size runs past totalsize",
		[FDT_E_ALIGN] = "a block is misaligned",
		[FDT_E_TRUNCATED] = "a token runs past the structure block",
		[FDT_E_TOKEN] = "an unknown token",
		[FDT_E_NAME] = "a node name is unterminated",
		[FDT_E_PROP_LEN] = "a property's value runs past the structure block",
		[FDT_E_PROP_NAME] = "a property name is outside the strings block or unterminated",
		[FDT_E_PROP_PLACE] = "a property outside a node or after a subnode",
		[FDT_E_DEPTH] = "nested too deep",
		[FDT_E_NODES] = "too many nodes",
		[FDT_E_UNBALANCED] = "unbalanced FDT_BEGIN_NODE/FDT_END_NODE",
		[FDT_E_NO_ROOT] = "no single root node",
		[FDT_E_NO_END] = "no FDT_END",
		[FDT_E_NOT_FOUND] = "not found",
		[FDT_E_CELLS] = "#address-cells or #size-cells out of range",
		[FDT_E_BAD_VALUE] = "a property's value is malformed",
	};
	return (unsigned)e < FDT_E_COUNT && names[e] ? names[e] : "unknown error";
}

/* The strings block's string at off, or NULL when it does not end inside. */
static const char *string_at(const struct fdt *f, uint32_t off)
{
	if (off >= f->strings_size)
		return NULL;
	const uint8_t *s = f->base + f->strings_off;
	for (uint32_t i = off; i < f->strings_size; i++)
		if (!s[i])
			return (const char *)s + off;
	return NULL;
}

void fdt_cursor_init(struct fdt_cursor *c, const struct fdt *f)
{
	*c = (struct fdt_cursor){.f = f};
}

enum fdt_error fdt_next(struct fdt_cursor *c, struct fdt_step *s)
{
	const struct fdt *f = c->f;
	const uint8_t *blk = f->base + f->struct_off;
	uint32_t size = f->struct_size;
	if (c->done)
		return FDT_E_NOT_FOUND;
	/* Each pass consumes at least one token: at most size / 4 passes. */
	for (;;) {
		if ((uint64_t)c->off + 4 > size)
			return FDT_E_NO_END;
		uint32_t at = c->off;
		uint32_t tok = be32(blk + at);
		c->off += 4;
		switch (tok) {
		case TOK_NOP:
			continue;
		case TOK_BEGIN_NODE: {
			uint32_t i = c->off;
			while (i < size && blk[i])
				i++;
			if (i >= size)
				return FDT_E_NAME;
			/* Only the root sits at depth 0, and only once. */
			if (c->depth == 0 && c->nodes)
				return FDT_E_NO_ROOT;
			if (c->depth >= FDT_MAX_DEPTH)
				return FDT_E_DEPTH;
			if (++c->nodes > FDT_MAX_NODES)
				return FDT_E_NODES;
			if (c->depth)
				c->child_seen[c->depth] = true;
			*s = (struct fdt_step){.tok = FDT_TOK_BEGIN, .node = at, .depth = c->depth + 1,
					       .name = (const char *)blk + c->off};
			c->depth++;
			c->stack[c->depth] = at;
			c->child_seen[c->depth] = false;
			/* The name's NUL, then padding to 4 (may end the block:
			 * the next read is checked). */
			c->off = (i + 1 + 3) & ~3u;
			return FDT_OK;
		}
		case TOK_END_NODE:
			if (!c->depth)
				return FDT_E_UNBALANCED;
			*s = (struct fdt_step){.tok = FDT_TOK_END_NODE, .node = c->stack[c->depth],
					       .depth = c->depth};
			c->depth--;
			return FDT_OK;
		case TOK_PROP: {
			if ((uint64_t)c->off + 8 > size)
				return FDT_E_TRUNCATED;
			uint32_t len = be32(blk + c->off), nameoff = be32(blk + c->off + 4);
			c->off += 8;
			if ((uint64_t)c->off + len > size)
				return FDT_E_PROP_LEN;
			if (!c->depth || c->child_seen[c->depth])
				return FDT_E_PROP_PLACE;
			const char *name = string_at(f, nameoff);
			if (!name)
				return FDT_E_PROP_NAME;
			*s = (struct fdt_step){.tok = FDT_TOK_PROP, .node = c->stack[c->depth], .depth = c->depth,
					       .name = name, .value = blk + c->off, .len = len};
			c->off = (uint32_t)(((uint64_t)c->off + len + 3) & ~3ull);
			return FDT_OK;
		}
		case TOK_END:
			if (c->depth)
				return FDT_E_UNBALANCED;
			if (!c->nodes)
				return FDT_E_NO_ROOT;
			c->done = true;
			*s = (struct fdt_step){.tok = FDT_TOK_END};
			return FDT_OK;
		default:
			return FDT_E_TOKEN;
		}
	}
}

enum fdt_error fdt_open(struct fdt *f, const void *buf, size_t len)
{
	*f = (struct fdt){0};
	if (!buf)
		return FDT_E_NULL;
	const uint8_t *b = buf;
	if (len < HDR_V16_SIZE)
		return FDT_E_SHORT;
	if (be32(b) != FDT_MAGIC)
		return FDT_E_MAGIC;
	uint32_t total = be32(b + 4), off_struct = be32(b + 8), off_strings = be32(b + 12);
	uint32_t off_rsv = be32(b + 16), version = be32(b + 20), last_comp = be32(b + 24);
	uint32_t size_strings = be32(b + 32);
	if (version < 16 || last_comp > 17)
		return FDT_E_VERSION;
	uint32_t hdr = version >= 17 ? HDR_V17_SIZE : HDR_V16_SIZE;
	if (total > len || total < hdr)
		return FDT_E_TOTALSIZE;
	/* Version 16 has no size_dt_struct: the block may run to totalsize. */
	uint32_t size_struct = version >= 17 ? be32(b + 36) : (off_struct <= total ? (total - off_struct) & ~3u : 0);
	if (off_struct < hdr || (uint64_t)off_struct + size_struct > total || off_strings < hdr ||
	    (uint64_t)off_strings + size_strings > total || off_rsv < hdr || (uint64_t)off_rsv + 16 > total)
		return FDT_E_BLOCK;
	/* Tokens are 4-byte aligned from the block's start, the reserve map
	 * is 8-byte entries (DT spec 5.3, 5.4.1). */
	if ((off_struct & 3) || (size_struct & 3) || (off_rsv & 7))
		return FDT_E_ALIGN;
	*f = (struct fdt){.base = b, .totalsize = total, .version = version, .last_comp_version = last_comp,
			  .struct_off = off_struct, .struct_size = size_struct, .strings_off = off_strings,
			  .strings_size = size_strings};
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	enum fdt_error e;
	uint32_t max_depth = 0;
	while ((e = fdt_next(&c, &s)) == FDT_OK && s.tok != FDT_TOK_END)
		if (s.tok == FDT_TOK_BEGIN && s.depth > max_depth)
			max_depth = s.depth;
	if (e != FDT_OK) {
		*f = (struct fdt){0};
		return e;
	}
	f->nodes = c.nodes;
	f->max_depth = max_depth;
	return FDT_OK;
}

/* ------------------------------------------------------------ lookups */

/* A cursor standing on node's FDT_BEGIN_NODE, as if it were the root: a
 * node's own properties are read without walking the tree up to it (each
 * lookup costs the node's properties, not the tree: a tree of
 * FDT_MAX_NODES cpu nodes must not cost their square).  False when node
 * is no FDT_BEGIN_NODE fdt_next accepts. */
static bool cursor_at(struct fdt_cursor *c, const struct fdt *f, uint32_t node)
{
	struct fdt_step s;
	fdt_cursor_init(c, f);
	if (node == FDT_NONE || (node & 3) || node >= f->struct_size)
		return false;
	c->off = node;
	return fdt_next(c, &s) == FDT_OK && s.tok == FDT_TOK_BEGIN && s.node == node;
}

enum fdt_error fdt_prop(const struct fdt *f, uint32_t node, const char *name, const uint8_t **value,
			uint32_t *len)
{
	struct fdt_cursor c;
	struct fdt_step s;
	if (!cursor_at(&c, f, node))
		return FDT_E_NOT_FOUND;
	enum fdt_error e;
	/* Properties come first in their node (fdt_next refuses any after a
	 * subnode): the search ends at the node's first child or its end. */
	while ((e = fdt_next(&c, &s)) == FDT_OK && s.tok == FDT_TOK_PROP)
		if (str_equal(s.name, name)) {
			*value = s.value;
			*len = s.len;
			return FDT_OK;
		}
	return e == FDT_OK ? FDT_E_NOT_FOUND : e;
}

bool fdt_has_prop(const struct fdt *f, uint32_t node, const char *name)
{
	const uint8_t *v;
	uint32_t n;
	return fdt_prop(f, node, name, &v, &n) == FDT_OK;
}

enum fdt_error fdt_prop_u32(const struct fdt *f, uint32_t node, const char *name, uint32_t *v)
{
	const uint8_t *p;
	uint32_t n;
	enum fdt_error e = fdt_prop(f, node, name, &p, &n);
	if (e)
		return e;
	if (n != 4)
		return FDT_E_BAD_VALUE;
	*v = be32(p);
	return FDT_OK;
}

enum fdt_error fdt_prop_string(const struct fdt *f, uint32_t node, const char *name, const char **s)
{
	const uint8_t *p;
	uint32_t n;
	enum fdt_error e = fdt_prop(f, node, name, &p, &n);
	if (e)
		return e;
	for (uint32_t i = 0; i < n; i++)
		if (!p[i]) {
			*s = (const char *)p;
			return FDT_OK;
		}
	return FDT_E_BAD_VALUE;
}

bool fdt_stringlist_has(const uint8_t *value, uint32_t len, const char *s)
{
	uint32_t i = 0;
	while (i < len) {
		uint32_t start = i;
		while (i < len && value[i])
			i++;
		if (i >= len)
			return false; /* the last string has no NUL */
		if (str_equal((const char *)value + start, s))
			return true;
		i++;
	}
	return false;
}

bool fdt_is_compatible(const struct fdt *f, uint32_t node, const char *compat)
{
	const uint8_t *v;
	uint32_t n;
	return fdt_prop(f, node, "compatible", &v, &n) == FDT_OK && fdt_stringlist_has(v, n, compat);
}

enum fdt_error fdt_find_compatible(const struct fdt *f, uint32_t after, const char *compat, uint32_t *node)
{
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	enum fdt_error e;
	bool past = after == FDT_NONE;
	/* One walk: a node's compatible is among the properties that follow
	 * its FDT_BEGIN_NODE. */
	while ((e = fdt_next(&c, &s)) == FDT_OK && s.tok != FDT_TOK_END) {
		if (s.tok == FDT_TOK_BEGIN && s.node == after)
			past = true;
		else if (past && s.tok == FDT_TOK_PROP && s.node != after && str_equal(s.name, "compatible") &&
			 fdt_stringlist_has(s.value, s.len, compat)) {
			*node = s.node;
			return FDT_OK;
		}
	}
	return e == FDT_OK ? FDT_E_NOT_FOUND : e;
}

/* Whether a node name matches n bytes of a path component. */
static bool name_matches(const char *name, const char *comp, size_t n)
{
	size_t i = 0;
	for (; i < n; i++)
		if (name[i] != comp[i])
			return false;
	if (!name[i])
		return true;
	/* "chosen" names "chosen" alone; "pl011" also names "pl011@9000000"
	 * when the component gives no unit address of its own. */
	for (size_t k = 0; k < n; k++)
		if (comp[k] == '@')
			return false;
	return name[i] == '@';
}

enum fdt_error fdt_path(const struct fdt *f, const char *path, size_t n, uint32_t *node)
{
	if (!path || !n || path[0] != '/')
		return FDT_E_BAD_VALUE;
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	enum fdt_error e;
	/* matched: how many components of the path the open nodes match;
	 * comp/comp_len: the next component to find. */
	uint32_t matched = 0;
	size_t pos = 1;
	while ((e = fdt_next(&c, &s)) == FDT_OK && s.tok != FDT_TOK_END) {
		if (s.tok == FDT_TOK_END_NODE && s.depth <= matched)
			return FDT_E_NOT_FOUND; /* the matched node closed without the next */
		if (s.tok != FDT_TOK_BEGIN)
			continue;
		while (pos < n && path[pos] == '/')
			pos++;
		if (s.depth == 1) { /* the root */
			matched = 1;
			if (pos >= n) {
				*node = s.node;
				return FDT_OK;
			}
			continue;
		}
		if (s.depth != matched + 1)
			continue;
		size_t end = pos;
		while (end < n && path[end] != '/')
			end++;
		if (name_matches(s.name, path + pos, end - pos)) {
			matched++;
			pos = end;
			while (pos < n && path[pos] == '/')
				pos++;
			if (pos >= n) {
				*node = s.node;
				return FDT_OK;
			}
		}
	}
	return e == FDT_OK ? FDT_E_NOT_FOUND : e;
}

/* The open nodes when node begins: stack[1..depth], node itself last. */
static enum fdt_error ancestry(const struct fdt *f, uint32_t node, uint32_t *stack, uint32_t *depth)
{
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	enum fdt_error e;
	while ((e = fdt_next(&c, &s)) == FDT_OK && s.tok != FDT_TOK_END)
		if (s.tok == FDT_TOK_BEGIN && s.node == node) {
			for (uint32_t i = 1; i <= c.depth; i++)
				stack[i] = c.stack[i];
			*depth = c.depth;
			return FDT_OK;
		}
	return e == FDT_OK ? FDT_E_NOT_FOUND : e;
}

enum fdt_error fdt_parent(const struct fdt *f, uint32_t node, uint32_t *parent)
{
	uint32_t stack[FDT_MAX_DEPTH + 1], depth = 0;
	enum fdt_error e = ancestry(f, node, stack, &depth);
	if (e)
		return e;
	*parent = depth > 1 ? stack[depth - 1] : FDT_NONE;
	return FDT_OK;
}

const char *fdt_name(const struct fdt *f, uint32_t node)
{
	/* node is a BEGIN_NODE fdt_open proved, its name terminated. */
	if ((uint64_t)node + 4 >= f->struct_size)
		return "";
	return (const char *)f->base + f->struct_off + node + 4;
}

void fdt_node_path(const struct fdt *f, uint32_t node, char *buf, size_t cap)
{
	uint32_t stack[FDT_MAX_DEPTH + 1], depth = 0;
	size_t k = 0;
	if (!cap)
		return;
	buf[0] = 0;
	if (ancestry(f, node, stack, &depth) != FDT_OK)
		return;
	if (depth <= 1) {
		if (cap > 1)
			buf[k++] = '/';
		buf[k] = 0;
		return;
	}
	for (uint32_t i = 2; i <= depth; i++) {
		const char *name = fdt_name(f, stack[i]);
		if (k + 1 < cap)
			buf[k++] = '/';
		for (size_t j = 0; name[j] && k + 1 < cap; j++)
			buf[k++] = name[j];
	}
	buf[k] = 0;
}

enum fdt_error fdt_cells(const struct fdt *f, uint32_t node, uint32_t *address_cells, uint32_t *size_cells)
{
	uint32_t a = 2, s = 1;
	enum fdt_error e = fdt_prop_u32(f, node, "#address-cells", &a);
	if (e && e != FDT_E_NOT_FOUND)
		return e;
	e = fdt_prop_u32(f, node, "#size-cells", &s);
	if (e && e != FDT_E_NOT_FOUND)
		return e;
	*address_cells = a;
	*size_cells = s;
	return FDT_OK;
}

static uint64_t cells_value(const uint8_t *p, uint32_t cells)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < cells; i++)
		v = v << 32 | be32(p + 4 * i);
	return v;
}

static enum fdt_error reg_with_cells(const struct fdt *f, uint32_t node, uint32_t ac, uint32_t sc, uint32_t index,
				     uint64_t *addr, uint64_t *size);

enum fdt_error fdt_reg(const struct fdt *f, uint32_t node, uint32_t index, uint64_t *addr, uint64_t *size)
{
	uint32_t parent, ac, sc;
	enum fdt_error e = fdt_parent(f, node, &parent);
	if (e)
		return e;
	if (parent == FDT_NONE)
		ac = 2, sc = 1;
	else if ((e = fdt_cells(f, parent, &ac, &sc)))
		return e;
	return reg_with_cells(f, node, ac, sc, index, addr, size);
}

/* reg entry `index` with the parent's cells already known. */
static enum fdt_error reg_with_cells(const struct fdt *f, uint32_t node, uint32_t ac, uint32_t sc, uint32_t index,
				     uint64_t *addr, uint64_t *size)
{
	/* Wider than 64 bits is no address this probe can use. */
	if (ac < 1 || ac > 2 || sc > 2)
		return FDT_E_CELLS;
	const uint8_t *v;
	uint32_t n;
	enum fdt_error e;
	if ((e = fdt_prop(f, node, "reg", &v, &n)))
		return e;
	uint32_t entry = 4 * (ac + sc);
	if (n % entry)
		return FDT_E_BAD_VALUE;
	if (index >= n / entry)
		return FDT_E_NOT_FOUND;
	*addr = cells_value(v + (uint64_t)index * entry, ac);
	*size = cells_value(v + (uint64_t)index * entry + 4 * ac, sc);
	return FDT_OK;
}

/* ------------------------------------------------------------- facts */

const char *fdt_psci_method_name(enum fdt_psci_method m)
{
	return m == FDT_PSCI_HVC ? "hvc" : m == FDT_PSCI_SMC ? "smc" : "none";
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	str_copy(dst, cap, src ? src : "");
}

/* Whether reg's addresses are the CPU's: every node between the root and
 * this one maps its children's addresses 1:1 (an empty `ranges`); a bus
 * with real ranges would need a translation this reader does not make. */
static const char *reg_is_cpu_address(const struct fdt *f, uint32_t node)
{
	uint32_t stack[FDT_MAX_DEPTH + 1], depth = 0;
	if (ancestry(f, node, stack, &depth) != FDT_OK)
		return "the node's ancestry could not be walked";
	for (uint32_t i = 2; i < depth; i++) {
		const uint8_t *v;
		uint32_t n;
		if (fdt_prop(f, stack[i], "ranges", &v, &n) != FDT_OK)
			return "a parent bus has no ranges: its addresses are not the CPU's";
		if (n)
			return "a parent bus translates addresses (non-empty ranges): not decoded";
	}
	return NULL;
}

static void console_facts(const struct fdt *f, struct fdt_facts *out)
{
	uint32_t chosen, node = FDT_NONE;
	const char *sp = NULL;
	if (fdt_path(f, "/chosen", 7, &chosen) == FDT_OK &&
	    (fdt_prop_string(f, chosen, "stdout-path", &sp) == FDT_OK ||
	     fdt_prop_string(f, chosen, "linux,stdout-path", &sp) == FDT_OK)) {
		out->stdout_path_present = true;
		copy_str(out->stdout_path, sizeof out->stdout_path, sp);
		/* "serial0:115200n8": the options follow the first ':'. */
		size_t n = 0;
		while (sp[n] && sp[n] != ':')
			n++;
		const char *path = sp;
		if (n && sp[0] != '/') {
			/* An alias: /aliases names it by a property holding a path. */
			uint32_t aliases;
			const uint8_t *v;
			uint32_t vlen;
			path = NULL;
			if (fdt_path(f, "/aliases", 8, &aliases) == FDT_OK) {
				char alias[64];
				if (n < sizeof alias) {
					for (size_t i = 0; i < n; i++)
						alias[i] = sp[i];
					alias[n] = 0;
					if (fdt_prop(f, aliases, alias, &v, &vlen) == FDT_OK && vlen &&
					    !v[vlen - 1])
						path = (const char *)v;
				}
			}
			if (path)
				for (n = 0; path[n] && path[n] != ':'; n++)
					;
		}
		if (!path)
			out->console_reason = "stdout-path names an alias /aliases does not hold";
		else if (fdt_path(f, path, n, &node) == FDT_OK)
			out->console_from = "stdout-path";
		else
			out->console_reason = "stdout-path names no node of the tree";
	}
	if (node == FDT_NONE && fdt_find_compatible(f, FDT_NONE, "arm,pl011", &node) == FDT_OK) {
		out->console_from = "first arm,pl011";
		out->console_reason = NULL;
	}
	if (node == FDT_NONE) {
		if (!out->console_reason)
			out->console_reason = "no stdout-path and no arm,pl011 node";
		return;
	}
	out->console_found = true;
	fdt_node_path(f, node, out->console_node, sizeof out->console_node);
	out->console_pl011 = fdt_is_compatible(f, node, "arm,pl011");
	enum fdt_error e = fdt_reg(f, node, 0, &out->console_base, &out->console_size);
	if (e)
		out->console_reg_reason = e == FDT_E_NOT_FOUND ? "no reg" : fdt_error_name(e);
	else if (!(out->console_reg_reason = reg_is_cpu_address(f, node)))
		out->console_reg_ok = true;
}

static void psci_facts(const struct fdt *f, struct fdt_facts *out)
{
	uint32_t node;
	/* Linux finds it by compatible (psci_of_match), not by its path. */
	if (fdt_find_compatible(f, FDT_NONE, "arm,psci-1.0", &node) != FDT_OK &&
	    fdt_find_compatible(f, FDT_NONE, "arm,psci-0.2", &node) != FDT_OK &&
	    fdt_find_compatible(f, FDT_NONE, "arm,psci", &node) != FDT_OK &&
	    fdt_path(f, "/psci", 5, &node) != FDT_OK) {
		out->psci_reason = "no psci node";
		return;
	}
	out->psci_found = true;
	const char *compat = NULL;
	if (fdt_prop_string(f, node, "compatible", &compat) == FDT_OK)
		copy_str(out->psci_compatible, sizeof out->psci_compatible, compat);
	out->psci_0_2 = fdt_is_compatible(f, node, "arm,psci-1.0") || fdt_is_compatible(f, node, "arm,psci-0.2");
	const char *method = NULL;
	if (fdt_prop_string(f, node, "method", &method) != FDT_OK) {
		out->psci_reason = "the psci node has no method";
		return;
	}
	if (str_equal(method, "hvc"))
		out->psci_method = FDT_PSCI_HVC;
	else if (str_equal(method, "smc"))
		out->psci_method = FDT_PSCI_SMC;
	else {
		out->psci_reason = "the psci node's method is neither hvc nor smc";
		return;
	}
	/* PSCI 0.1 (compatible "arm,psci" alone) takes its function ids from
	 * the node and has no PSCI_VERSION: the probe's calls would be
	 * undefined there, as Linux's psci_0_1_init() knows. */
	if (!out->psci_0_2)
		out->psci_reason = "PSCI 0.1 only (no arm,psci-0.2 or -1.0): no PSCI_VERSION to call";
}

static void timer_facts(const struct fdt *f, struct fdt_facts *out)
{
	uint32_t node;
	/* drivers/clocksource/arm_arch_timer.c: both compatibles, v8 first. */
	if (fdt_find_compatible(f, FDT_NONE, "arm,armv8-timer", &node) == FDT_OK)
		out->timer_compatible = "arm,armv8-timer";
	else if (fdt_find_compatible(f, FDT_NONE, "arm,armv7-timer", &node) == FDT_OK)
		out->timer_compatible = "arm,armv7-timer";
	else
		return;
	out->timer_found = true;
	fdt_node_path(f, node, out->timer_node, sizeof out->timer_node);
	uint32_t hz;
	if (fdt_prop_u32(f, node, "clock-frequency", &hz) == FDT_OK) {
		out->clock_frequency_present = true;
		out->clock_frequency = hz;
	}
	/* Every property of the node, asked of the errata table
	 * (arm64_errata_from_dt_property): the one list of what Linux matches. */
	struct fdt_cursor c;
	struct fdt_step s;
	if (!cursor_at(&c, f, node))
		return;
	while (fdt_next(&c, &s) == FDT_OK && s.tok == FDT_TOK_PROP) {
		uint32_t bit = arm64_errata_from_dt_property(s.name);
		if (!bit)
			continue;
		out->errata |= bit;
		if (out->errata_count < FDT_MAX_ERRATA)
			out->errata_props[out->errata_count] = s.name;
		out->errata_count++;
	}
}

static void cpu_facts(const struct fdt *f, struct fdt_facts *out)
{
	uint32_t cpus;
	if (fdt_path(f, "/cpus", 5, &cpus) != FDT_OK) {
		out->cpus_reason = "no /cpus node";
		return;
	}
	/* The cpu nodes' reg is in /cpus' cells (1 or 2: the MPIDR's
	 * affinity fields, size 0). */
	uint32_t ac, sc;
	if (fdt_cells(f, cpus, &ac, &sc) != FDT_OK) {
		out->cpus_reason = "/cpus has a malformed #address-cells or #size-cells";
		return;
	}
	struct fdt_cursor c;
	struct fdt_step s;
	if (!cursor_at(&c, f, cpus))
		return;
	const char *why = NULL;
	/* /cpus stands at depth 1 here: its children at 2. */
	while (fdt_next(&c, &s) == FDT_OK && s.tok != FDT_TOK_END) {
		if (s.tok == FDT_TOK_END_NODE && s.node == cpus)
			break;
		if (s.tok != FDT_TOK_BEGIN || s.depth != 2)
			continue;
		const char *dt = NULL;
		if (fdt_prop_string(f, s.node, "device_type", &dt) != FDT_OK || !str_equal(dt, "cpu"))
			continue; /* cpu-map and the like */
		out->cpu_total++;
		const char *status = NULL, *method = NULL;
		if (fdt_prop_string(f, s.node, "status", &status) == FDT_OK && !str_equal(status, "okay") &&
		    !str_equal(status, "ok")) {
			why = "cpu nodes are disabled";
			continue;
		}
		if (fdt_prop_string(f, s.node, "enable-method", &method) != FDT_OK || !str_equal(method, "psci")) {
			why = "cpu nodes are not started through PSCI (enable-method)";
			continue;
		}
		uint64_t mpidr, size;
		if (reg_with_cells(f, s.node, ac, sc, 0, &mpidr, &size) != FDT_OK) {
			why = "a cpu node's reg does not decode";
			continue;
		}
		if (out->cpu_count < FDT_MAX_CPUS)
			out->cpu_mpidr[out->cpu_count++] = mpidr;
	}
	if (!out->cpu_count)
		out->cpus_reason = why ? why : "no cpu node under /cpus";
}

/* The GIC compatibles Linux's irq-gic.c and irq-gic-v3.c match; the
 * GICv1/v2 ones share the distributor and CPU interface layout, and which
 * of the two it is the probe reads from GICD_PIDR2, as under ACPI. */
static const struct {
	const char *compat;
	unsigned version;
} gic_compats[] = {
	{"arm,gic-v3", 3},	   {"arm,gic-400", 2},	      {"arm,cortex-a15-gic", 2},
	{"arm,cortex-a9-gic", 2},  {"arm,cortex-a7-gic", 2},  {"arm,arm11mp-gic", 2},
	{"arm,arm1176jzf-devchip-gic", 2}, {"arm,pl390", 2},  {"qcom,msm-8660-qgic", 2},
	{"qcom,msm-qgic2", 2},
};

/* The GIC node: the first, in tree order, that is an interrupt
 * controller with one of the compatibles above. */
static bool gic_node_find(const struct fdt *f, uint32_t *node, unsigned *version, const char **compat)
{
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	while (fdt_next(&c, &s) == FDT_OK && s.tok != FDT_TOK_END) {
		if (s.tok != FDT_TOK_BEGIN || !fdt_has_prop(f, s.node, "interrupt-controller"))
			continue;
		for (size_t i = 0; i < sizeof gic_compats / sizeof gic_compats[0]; i++)
			if (fdt_is_compatible(f, s.node, gic_compats[i].compat)) {
				*node = s.node;
				*version = gic_compats[i].version;
				*compat = gic_compats[i].compat;
				return true;
			}
	}
	return false;
}

/* The GIC node's handle (FDT_NONE when none), for the timer's interrupt. */
static uint32_t gic_facts(const struct fdt *f, struct fdt_facts *out)
{
	uint32_t node;
	if (!gic_node_find(f, &node, &out->gic_version, &out->gic_compatible)) {
		out->gic_reason = "no interrupt-controller node with a GIC compatible";
		return FDT_NONE;
	}
	out->gic_found = true;
	fdt_node_path(f, node, out->gic_node, sizeof out->gic_node);
	const char *status = NULL;
	if (fdt_prop_string(f, node, "status", &status) == FDT_OK && !str_equal(status, "okay") &&
	    !str_equal(status, "ok")) {
		out->gic_reason = "the GIC node is disabled (status)";
		return node;
	}
	if ((out->gic_reason = reg_is_cpu_address(f, node)))
		return node;
	/* The binding's reg: GICv2 <GICD GICC ...> (GICH, GICV may follow);
	 * GICv3 <GICD GICR-region... > (GICC, GICH, GICV may follow). */
	uint64_t base, size;
	enum fdt_error e = fdt_reg(f, node, 0, &out->gicd_base, &out->gicd_size);
	if (e) {
		out->gic_reason = e == FDT_E_NOT_FOUND ? "the GIC node has no reg"
				: e == FDT_E_CELLS ? "the GIC's parent has #address-cells/#size-cells this reader does not decode"
						   : "the GIC node's reg does not decode (not whole entries of the parent's cells)";
		return node;
	}
	if (out->gic_version == 2) {
		if (fdt_reg(f, node, 1, &out->gicc_base, &out->gicc_size)) {
			out->gic_reason = "the GICv2 node's reg has no second entry (the CPU interface)";
			return node;
		}
	} else {
		uint32_t regions = 1;
		e = fdt_prop_u32(f, node, "#redistributor-regions", &regions);
		if ((e && e != FDT_E_NOT_FOUND) || !regions) {
			out->gic_reason = "#redistributor-regions is not a non-zero cell";
			return node;
		}
		/* reg's entries are contiguous: the last region present proves
		 * every one before it, with one lookup (each lookup walks the
		 * tree for the parent's cells, so a hostile count must not
		 * drive one per region). */
		if (fdt_reg(f, node, regions, &base, &size)) {
			out->gic_reason = "the GICv3 node's reg has fewer redistributor regions than "
					  "#redistributor-regions";
			return node;
		}
		/* Kept: the first FDT_MAX_GICR. */
		for (uint32_t i = 0; i < regions && out->gicr_count < FDT_MAX_GICR; i++) {
			if (fdt_reg(f, node, 1 + i, &base, &size))
				break;
			out->gicr[out->gicr_count].base = base;
			out->gicr[out->gicr_count].size = size;
			out->gicr_count++;
		}
		const uint8_t *v;
		uint32_t n;
		if (fdt_prop(f, node, "redistributor-stride", &v, &n) == FDT_OK) {
			/* The binding's uint64, a multiple of 64 KiB (Linux reads it
			 * with of_property_read_u64). */
			uint64_t st = n == 8 ? (uint64_t)be32(v) << 32 | be32(v + 4) : 0;
			if (!st || st % 0x10000u) {
				out->gic_reason = "redistributor-stride is not a non-zero 64-bit multiple of 64 KiB";
				return node;
			}
			out->gicr_stride = st;
		}
	}
	if (!out->gicd_base || out->gicd_base + out->gicd_size < out->gicd_base) {
		out->gic_reason = "the GIC's distributor address is 0 or its range wraps";
		return node;
	}
	out->gic_ok = true;
	return node;
}

/* The node with this phandle (phandle, or the older linux,phandle). */
static bool phandle_node(const struct fdt *f, uint32_t ph, uint32_t *node)
{
	struct fdt_cursor c;
	struct fdt_step s;
	fdt_cursor_init(&c, f);
	/* 0 and ~0 are no phandle (the specification reserves them). */
	if (!ph || ph == 0xffffffffu)
		return false;
	while (fdt_next(&c, &s) == FDT_OK && s.tok != FDT_TOK_END)
		if (s.tok == FDT_TOK_PROP && s.len == 4 && be32(s.value) == ph &&
		    (str_equal(s.name, "phandle") || str_equal(s.name, "linux,phandle"))) {
			*node = s.node;
			return true;
		}
	return false;
}

/* The node's interrupt parent as Linux's of_irq_find_parent() finds it:
 * interrupt-parent's phandle, else the tree parent, until a node with
 * #interrupt-cells.  Bounded: a hostile tree may loop its phandles. */
static bool interrupt_parent(const struct fdt *f, uint32_t node, uint32_t *out)
{
	uint32_t cur = node;
	for (uint32_t step = 0; step < 2u * FDT_MAX_DEPTH; step++) {
		uint32_t ph, next;
		if (fdt_prop_u32(f, cur, "interrupt-parent", &ph) == FDT_OK) {
			if (!phandle_node(f, ph, &next))
				return false;
		} else if (fdt_parent(f, cur, &next) != FDT_OK || next == FDT_NONE) {
			return false;
		}
		cur = next;
		if (fdt_has_prop(f, cur, "#interrupt-cells")) {
			*out = cur;
			return true;
		}
	}
	return false;
}

/* The timer node's virtual interrupt (bindings/timer/arm,arch_timer.yaml:
 * the third specifier), as an INTID the GIC found above delivers. */
static void vtimer_intid_facts(const struct fdt *f, uint32_t gic, struct fdt_facts *out)
{
	uint32_t timer, parent, cells;
	if (!out->timer_found || (fdt_find_compatible(f, FDT_NONE, "arm,armv8-timer", &timer) != FDT_OK &&
				  fdt_find_compatible(f, FDT_NONE, "arm,armv7-timer", &timer) != FDT_OK)) {
		out->vtimer_intid_reason = "no timer node";
		return;
	}
	if (gic == FDT_NONE) {
		out->vtimer_intid_reason = "no GIC node: the timer's interrupts cannot be read";
		return;
	}
	if (!interrupt_parent(f, timer, &parent) || parent != gic) {
		out->vtimer_intid_reason = "the timer's interrupt parent is not the GIC node";
		return;
	}
	if (fdt_prop_u32(f, gic, "#interrupt-cells", &cells) != FDT_OK || cells != 3) {
		out->vtimer_intid_reason = "the GIC's #interrupt-cells is not 3 (<type number flags>)";
		return;
	}
	const uint8_t *v;
	uint32_t n;
	if (fdt_prop(f, timer, "interrupts", &v, &n) != FDT_OK) {
		out->vtimer_intid_reason = "the timer node has no interrupts property";
		return;
	}
	if (n % 12 || n < 3 * 12) {
		out->vtimer_intid_reason = "the timer's interrupts is not whole 3-cell specifiers, or has no third "
					   "(the virtual timer's)";
		return;
	}
	uint32_t type = be32(v + 24), num = be32(v + 28);
	/* The GIC binding: type 0 SPI, 1 PPI; a PPI's number is 0..15. */
	if (type != 1) {
		out->vtimer_intid_reason = "the virtual timer's interrupt is not a PPI (type cell not 1)";
		return;
	}
	if (num > 15) {
		out->vtimer_intid_reason = "the virtual timer's PPI number is past 15";
		return;
	}
	out->vtimer_intid = num + 16;
	out->vtimer_intid_ok = true;
}

void fdt_facts_decode(const void *buf, size_t len, struct fdt_facts *out)
{
	*out = (struct fdt_facts){0};
	struct fdt f;
	out->error = fdt_open(&f, buf, len);
	if (out->error)
		return;
	out->totalsize = f.totalsize;
	out->version = f.version;
	out->last_comp_version = f.last_comp_version;
	out->nodes = f.nodes;
	console_facts(&f, out);
	psci_facts(&f, out);
	timer_facts(&f, out);
	cpu_facts(&f, out);
	vtimer_intid_facts(&f, gic_facts(&f, out), out);
}
