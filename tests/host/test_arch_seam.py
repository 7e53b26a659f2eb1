"""The arch seam (docs/architecture.md, "The arch seam"): outside
src/arch/x86/ no C or assembly file of the probe holds an instruction, calls
an x86 instruction wrapper or port I/O, or includes an x86 header; every
room above reaches the machine through include/arch_api.h.  The pure rooms
include neither that interface nor an arch's implementation of it.

Allowed outside src/arch/x86/, by name:
- src/arch/arm64/: the arm64 arch's own instructions (inline asm and .S);
  an x86 mnemonic, wrapper or header there is still a breach.
- src/guest/: the Linux guest's user-space counterpart, a separate program
  built for the host's own architecture (issue 37's arm64 step builds it
  for arm64 on its own).
- an asm statement with an empty template (a compiler barrier, or keeping
  a value live): it emits no instruction on any architecture.

Each check is also run on planted violations, so a scanner that stopped
finding anything fails here rather than passing quietly."""
import os
import re
import unittest

from hostlib import REPO

X86_DIR = "src/arch/x86/"
ALLOWED_DIRS = ("src/guest/",)
# Other arches: their own instructions are theirs; x86's are not.
OTHER_ARCH_DIRS = ("src/arch/arm64/",)
X86_MNEMONIC = re.compile(r"\b(rdtscp?|cpuid|rdmsr|wrmsr|in[bwl]?|out[bwl]?|cli|sti|hlt|pause|"
                          r"[lms]fence|lidt|sidt|lgdt|vmcall|vmmcall|rdrand|rdseed)\b")
# Headers every arch provides under src/arch/<arch>/include/ with the same
# name: the seam's contract, not x86's internals (docs/architecture.md).
ARCH_CONTRACT_HEADERS = {"arch_impl.h", "arch_console.h", "tsc_order.h", "source_registry.h"}
# System headers that only x86 has.
X86_SYSTEM_HEADERS = {"cpuid.h", "x86intrin.h", "immintrin.h", "ia32intrin.h", "x86gprintrin.h"}
# x86 instruction wrappers and guarded instructions (src/arch/x86/include/).
X86_CALLS = (
    "rdtsc", "rdtscp", "rdtsc_ordered_as", "rdtscp_raw", "tsc_stamp_begin", "tsc_stamp_begin_mfence",
    "tsc_stamp_end_rdtscp", "tsc_stamp_end_rdtscp_mfence", "tsc_stamp_end_lfence", "cpuid_raw",
    "cpuid_hw", "cpuid", "rdmsr", "wrmsr", "rdmsr_safe", "wrmsr_safe", "hypercall_safe", "lfence",
    "mfence", "sfence", "cli", "sti", "hlt", "halt_forever", "pause", "read_rflags", "lidt", "sidt",
    "read_cs", "idt_set_gate", "vmware_backdoor_in", "rdrand64", "rdseed64",
    "inb", "inw", "inl", "outb", "outw", "outl",
)
# Pure rooms (Makefile PURE_SRCS): they may not see an arch's instructions.
PURE_DIRS = ("src/lib/", "src/decode/", "src/analysis/", "src/verdict/", "src/results/", "src/report/")
PURE_FORBIDDEN = {"arch_api.h", "arch_impl.h"}

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
ASM = re.compile(r"\b(?:__asm__|__asm|asm)\b\s*(?:volatile|__volatile__|goto|inline|\s)*\(", re.S)


def x86_headers():
    inc = os.path.join(REPO, X86_DIR, "include")
    return {h for h in os.listdir(inc) if h.endswith(".h")} - ARCH_CONTRACT_HEADERS


def strip_comments(text):
    # Keeps line numbers: a comment becomes as many newlines as it held.
    return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n") + " ", text)


def asm_templates(code):
    """(offset, template) of each asm statement: its leading string literals."""
    for m in ASM.finditer(code):
        pos, parts = m.end(), []
        while True:
            while pos < len(code) and code[pos].isspace():
                pos += 1
            s = STRING.match(code, pos)
            if not s:
                break
            parts.append(s.group(0)[1:-1])
            pos = s.end()
        yield m.start(), "".join(parts)


def violations(rel, text, headers):
    """Every breach of the seam in one file, as 'path:line: what'."""
    found = []
    line_of = lambda off: code.count("\n", 0, off) + 1  # noqa: E731
    code = strip_comments(text)
    other_arch = rel.startswith(OTHER_ARCH_DIRS)
    if rel.endswith(".S"):
        # Assembly is instructions through and through: another arch's own
        # is its business, as long as no x86 mnemonic is in it.
        if other_arch:
            return ["%s:%d: x86 instruction %r" % (rel, line_of(m.start()), m.group(1))
                    for m in X86_MNEMONIC.finditer(code)]
        return ["%s:1: assembly source outside %s" % (rel, X86_DIR)]
    for off, template in asm_templates(code):
        if other_arch:
            m = X86_MNEMONIC.search(template)
            if m:
                found.append("%s:%d: x86 instruction %r" % (rel, line_of(off), m.group(1)))
        elif template.strip():
            found.append("%s:%d: inline asm %r" % (rel, line_of(off), template))
    for m in INCLUDE.finditer(code):
        system, name = m.group(1) == "<", m.group(2)
        base = os.path.basename(name)
        if base in headers or (system and base in X86_SYSTEM_HEADERS) or "arch/x86/" in name:
            found.append("%s:%d: includes x86 header %s" % (rel, line_of(m.start()), name))
        if rel.startswith(PURE_DIRS) and base in PURE_FORBIDDEN:
            found.append("%s:%d: pure room includes %s" % (rel, line_of(m.start()), name))
    # Strings blanked to their own length, so offsets still give lines.
    bare = STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
    for m in re.finditer(r"\b(%s)\s*\(" % "|".join(X86_CALLS), bare):
        found.append("%s:%d: calls x86 %s()" % (rel, line_of(m.start()), m.group(1)))
    return found


def probe_files():
    for top in ("src", "include"):
        for d, _dirs, files in os.walk(os.path.join(REPO, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".S")):
                    yield os.path.relpath(os.path.join(d, f), REPO).replace(os.sep, "/")


class ArchSeamTest(unittest.TestCase):
    def test_nothing_x86_outside_src_arch_x86(self):
        headers = x86_headers()
        self.assertIn("x86.h", headers)  # the scan knows what it looks for
        found, scanned = [], 0
        for rel in probe_files():
            if rel.startswith(X86_DIR) or rel.startswith(ALLOWED_DIRS):
                continue
            scanned += 1
            with open(os.path.join(REPO, rel), encoding="utf-8", errors="replace") as f:
                found += violations(rel, f.read(), headers)
        self.assertGreater(scanned, 100, "the scan found too few files to mean anything")
        self.assertEqual(found, [], "x86 outside src/arch/x86/:\n" + "\n".join(found))

    def test_planted_violations_are_found(self):
        headers = x86_headers()
        planted = {
            'src/measure/a.c': 'static void f(void) { __asm__ volatile("lfence" ::: "memory"); }',
            'src/measure/b.c': 'static unsigned f(void) { return inb(0x61); }',
            'src/measure/c.c': 'uint64_t f(void) { return rdtsc(); }',
            'src/run/d.c': '#include "msr.h"\n',
            'src/console/e.c': '#include "x86.h"\n',
            'src/report/f.c': '#include "arch_api.h"\n',
            'src/measure/g.c': 'int f(uint64_t *v) { return rdmsr_safe(0x34, v); }',
            'src/measure/h.c': 'void f(void) { asm("cli; hlt"); }',
            'src/measure/i.S': 'rdtsc\n',
            'src/measure/j.c': '#include <x86intrin.h>\n',
            'src/arch/arm64/k.c': 'static void f(void) { __asm__ volatile("rdtsc"); }',
            'src/arch/arm64/l.c': '#include "x86.h"\n',
            'src/arch/arm64/m.S': 'isb\n\tcpuid\n',
            'src/arch/arm64/n.c': 'static unsigned f(void) { return inb(0x61); }',
        }
        for rel, text in planted.items():
            with self.subTest(rel=rel):
                self.assertTrue(violations(rel, text, headers), "not flagged: " + text)

    def test_what_is_allowed_stays_allowed(self):
        headers = x86_headers()
        clean = {
            # a barrier, a comment and a string naming instructions
            'src/measure/a.c': 'static void f(uint64_t v) { __asm__ volatile("" ::"r"(v)); }',
            'src/measure/b.c': '/* rdtsc(); inb(0x61); #include "msr.h" */\nconst char *m = "lfence;rdtsc()";',
            'src/measure/c.c': '#include "arch_api.h"\nuint64_t f(void) { return tb_now(); }',
            'src/lib/d.c': '#include "arch_console.h"\n',
            # another arch's own instructions, in its own directory
            'src/arch/arm64/e.c': 'static void f(void) { __asm__ volatile("isb\\n\\tmrs %0, cntvct_el0"); }',
            'src/arch/arm64/f.S': 'isb\n\tmrs x0, cntvct_el0\n\tret\n',
        }
        for rel, text in clean.items():
            with self.subTest(rel=rel):
                self.assertEqual(violations(rel, text, headers), [])


if __name__ == "__main__":
    unittest.main()
