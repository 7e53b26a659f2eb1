/* Finding __vdso_clock_gettime in the vDSO image, so that "through the
 * vDSO" is the kernel's own entry point, not whatever the C library does.
 * ELF64 little-endian field offsets are those of the System V gABI
 * (Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr, Elf64_Sym); the vDSO carries its
 * section headers, and .dynsym's sh_link names its string table.  Every
 * offset and size is checked against the image's length.  Pure. */
#include "gparse.h"

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define SHDR_SIZE 64
#define SYM_SIZE 24
#define PT_LOAD 1
#define SHT_DYNSYM 11

static bool in_range(uint64_t off, uint64_t size, size_t len)
{
	return off <= len && size <= len - off;
}

uint64_t vdso_symbol_offset(const void *image, size_t len, const char *name)
{
	const uint8_t *b = image;
	if (!b || len < EHDR_SIZE || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F' ||
	    b[4] != 2 /* ELFCLASS64 */ || b[5] != 1 /* little-endian */)
		return 0;
	uint64_t phoff = load_le64(b + 32), shoff = load_le64(b + 40);
	uint16_t phentsize = load_le16(b + 54), phnum = load_le16(b + 56);
	uint16_t shentsize = load_le16(b + 58), shnum = load_le16(b + 60);
	if (phentsize != PHDR_SIZE || shentsize != SHDR_SIZE ||
	    !in_range(phoff, (uint64_t)phnum * PHDR_SIZE, len) ||
	    !in_range(shoff, (uint64_t)shnum * SHDR_SIZE, len))
		return 0;
	/* The link-time address of the image's first byte: the PT_LOAD that
	 * maps file offset 0 (the vDSO is one such segment). */
	bool have_base = false;
	uint64_t base = 0;
	for (uint16_t i = 0; i < phnum; i++) {
		const uint8_t *ph = b + phoff + (uint64_t)i * PHDR_SIZE;
		if (load_le32(ph) == PT_LOAD && load_le64(ph + 8) == 0) {
			base = load_le64(ph + 16);
			have_base = true;
			break;
		}
	}
	if (!have_base)
		return 0;
	size_t want = str_len(name);
	for (uint16_t i = 0; i < shnum; i++) {
		const uint8_t *sh = b + shoff + (uint64_t)i * SHDR_SIZE;
		if (load_le32(sh + 4) != SHT_DYNSYM)
			continue;
		uint64_t off = load_le64(sh + 24), size = load_le64(sh + 32), entsize = load_le64(sh + 56);
		uint32_t link = load_le32(sh + 40);
		if (entsize != SYM_SIZE || link >= shnum || !in_range(off, size, len))
			return 0;
		const uint8_t *str_sh = b + shoff + (uint64_t)link * SHDR_SIZE;
		uint64_t str_off = load_le64(str_sh + 24), str_size = load_le64(str_sh + 32);
		if (!in_range(str_off, str_size, len))
			return 0;
		for (uint64_t s = 0; s + SYM_SIZE <= size; s += SYM_SIZE) {
			const uint8_t *sym = b + off + s;
			uint32_t nm = load_le32(sym);
			uint64_t value = load_le64(sym + 8);
			uint16_t shndx = load_le16(sym + 6);
			/* The name must end (NUL) inside the string table. */
			if (nm >= str_size || want >= str_size - nm || shndx == 0)
				continue;
			const uint8_t *p = b + str_off + nm;
			if (!mem_equal(p, name, want) || p[want] != 0)
				continue;
			if (value < base || value - base >= len)
				return 0;
			return value - base;
		}
		return 0;
	}
	return 0;
}
