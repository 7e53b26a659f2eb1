"""The arch seam (docs/architecture.md, "The arch seam"): outside
src/arch/x86/ no C or assembly file of the probe holds an instruction, calls
an x86 instruction wrapper or port I/O, or includes an x86 header; outside
src/arch/arm64/ none holds an arm64 instruction (MRS/MSR of the counter,
timer or DAIF registers, ISB, WFI, HVC, ...), calls one of a64.h's
wrappers or includes an arm64 header.  Every room above reaches the machine
through include/arch_api.h.  The pure rooms include neither that interface
nor an arch's implementation of it.

Allowed outside an arch's directory, by name:
- the other arch's directory: its own instructions (inline asm and .S);
  the first arch's mnemonics, wrappers or headers there are still a
  breach (x86 in src/arch/arm64/, arm64 in src/arch/x86/).
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
ARM64_DIR = "src/arch/arm64/"
ALLOWED_DIRS = ("src/guest/",)
# Other arches: their own instructions are theirs; x86's are not.
OTHER_ARCH_DIRS = (ARM64_DIR,)
# arm64's instructions: the mnemonics the probe uses or could (barriers,
# waits, calls to a higher exception level), and the system registers it
# reads by name or by encoding (the counters and timers, DAIF, the ID and
# translation registers; S3_<op1>_C<n>_C<m>_<op2> is how a64.h spells them).
ARM64_MNEMONIC = re.compile(r"\b(mrs|msr|isb|dsb|dmb|wfi|wfe|sevl?|yield|hvc|smc|eret|"
                            r"daif(?:set|clr)?|cnt[a-z]*_el[012]|[a-z0-9]+_el[0123]|"
                            r"s3_\d_c\d+_c\d+_\d)\b", re.I)
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


def arm64_headers():
    """arm64's own headers (a64.h, a64_probe.h, ...), its contract ones left out."""
    found = set()
    for d in (ARM64_DIR, ARM64_DIR + "include"):
        found |= {h for h in os.listdir(os.path.join(REPO, d)) if h.endswith(".h")}
    return found - ARCH_CONTRACT_HEADERS


def arm64_calls():
    """a64.h's wrappers: every function it defines."""
    with open(os.path.join(REPO, ARM64_DIR, "a64.h"), encoding="utf-8") as f:
        text = f.read()
    return set(re.findall(r"\b(a64_\w+)\s*\([^;{]*\)\s*\{", text))


def arm64_violations(rel, text, headers, calls):
    """Every arm64 breach of the seam in a file outside src/arch/arm64/."""
    found = []
    code = strip_comments(text)
    line_of = lambda off: code.count("\n", 0, off) + 1  # noqa: E731
    if rel.endswith(".S"):
        # Preprocessor lines (#include "msr.h") are not instructions: blanked,
        # line count kept; the include check below still sees them.
        insns = re.sub(r"(?m)^[ \t]*#.*$", "", code)
        found = ["%s:%d: arm64 instruction %r" % (rel, line_of(m.start()), m.group(1))
                 for m in ARM64_MNEMONIC.finditer(insns)]
    for off, template in ([] if rel.endswith(".S") else asm_templates(code)):
        m = ARM64_MNEMONIC.search(template)
        if m:
            found.append("%s:%d: arm64 instruction %r" % (rel, line_of(off), m.group(1)))
    for m in INCLUDE.finditer(code):
        name = m.group(2)
        if os.path.basename(name) in headers or "arch/arm64/" in name:
            found.append("%s:%d: includes arm64 header %s" % (rel, line_of(m.start()), name))
    bare = STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
    if calls:
        for m in re.finditer(r"\b(%s)\s*\(" % "|".join(sorted(calls)), bare):
            found.append("%s:%d: calls arm64 %s()" % (rel, line_of(m.start()), m.group(1)))
    return found


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

    def test_nothing_arm64_outside_src_arch_arm64(self):
        headers, calls = arm64_headers(), arm64_calls()
        # the scan knows what it looks for
        self.assertIn("a64.h", headers)
        self.assertTrue({"a64_stamp", "a64_irq_save", "a64_cntvct_ordered"} <= calls, calls)
        found, scanned = [], 0
        for rel in probe_files():
            if rel.startswith(ARM64_DIR) or rel.startswith(ALLOWED_DIRS):
                continue
            scanned += 1
            with open(os.path.join(REPO, rel), encoding="utf-8", errors="replace") as f:
                found += arm64_violations(rel, f.read(), headers, calls)
        self.assertGreater(scanned, 100, "the scan found too few files to mean anything")
        self.assertEqual(found, [], "arm64 outside src/arch/arm64/:\n" + "\n".join(found))

    def test_planted_arm64_violations_are_found(self):
        headers, calls = arm64_headers(), arm64_calls()
        planted = {
            'src/measure/a.c': 'static uint64_t f(void) { uint64_t v; __asm__ volatile("isb\\n\\tmrs %0, cntvct_el0" : "=r"(v)); return v; }',
            'src/measure/b.c': 'static void f(void) { __asm__ volatile("msr daifset, #2" ::: "memory"); }',
            'src/run/c.c': 'static void f(void) { for (;;) __asm__ volatile("wfi"); }',
            'src/measure/d.c': 'uint64_t f(void) { return a64_stamp(); }',
            'src/console/e.c': '#include "a64.h"\n',
            'src/run/f.c': '#include "../arch/arm64/a64_probe.h"\n',
            'src/measure/g.S': '#include "msr.h"\n\tmrs x0, S3_3_C14_C0_2\n',
            'src/arch/x86/k.S': '#include "a64.h"\n',
            'src/measure/h.c': 'static void f(void) { asm("isb"); }',
            # arm64 in x86's directory is a breach too
            'src/arch/x86/i.c': 'static void f(void) { __asm__ volatile("yield"); }',
            'src/arch/x86/j.c': 'void f(void) { a64_irq_restore(0); }',
        }
        for rel, text in planted.items():
            with self.subTest(rel=rel):
                self.assertTrue(arm64_violations(rel, text, headers, calls), "not flagged: " + text)

    def test_arm64_allowed_stays_allowed(self):
        headers, calls = arm64_headers(), arm64_calls()
        clean = {
            # the interface, comments and strings naming instructions, a barrier
            'src/measure/a.c': '#include "arch_api.h"\nuint64_t f(void) { return tb_stamp_begin(STAMP_FENCE_LFENCE); }',
            'src/measure/b.c': '/* isb; mrs cntvct_el0; a64_stamp(); #include "a64.h" */\nconst char *m = "isb;mrs cntvct_el0";',
            'src/measure/c.c': 'static void f(uint64_t v) { __asm__ volatile("" ::"r"(v)); }',
            # x86's own instructions in its directory
            'src/arch/x86/d.c': 'static void f(void) { __asm__ volatile("lfence; rdtsc; rdmsr; wrmsr"); }',
        }
        for rel, text in clean.items():
            with self.subTest(rel=rel):
                self.assertEqual(arm64_violations(rel, text, headers, calls), [])

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
