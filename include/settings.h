/* Run settings from the UEFI load options and \clockprobe.cfg (or the
 * direct-boot command line): whitespace-separated words, '#' comments.
 *
 * Every word is accounted for: a known key=value or flag is applied, the
 * UEFI shell's image path (the first word of its load options, a word with
 * '\' or '/' or ending in ".efi") is skipped, anything else is a named
 * problem for the report.  Order: mode= only sets defaults, so an explicit
 * samples=, window_ms= or gaps_ms= wins wherever it stands; for the same
 * key twice the later word wins. */
#ifndef CP_SETTINGS_H
#define CP_SETTINGS_H
#include "util.h"

enum run_mode { MODE_QUICK, MODE_DEFAULT, MODE_THOROUGH };

#define SETTINGS_MAX_PROBLEMS 16
/* A label names a run in a fleet's reports; longer ones are cut. */
#define SETTINGS_LABEL_MAX 64
/* kernels=: up to 16 releases, comma-separated */
#define SETTINGS_KERNELS_MAX 96
#define SETTINGS_RESEND_MAX_S 3600
/* \clockprobe.cfg is read whole up to this size; a larger one is refused
 * with a problem (a cut file could turn window_ms=1000 into window_ms=10). */
#define SETTINGS_FILE_MAX 65536u

/* Fields a mode sets unless the settings name them (explicit_mask bits). */
#define SETTINGS_EXPLICIT_SAMPLES (1u << 0)
#define SETTINGS_EXPLICIT_FREQ_WINDOW (1u << 1)
#define SETTINGS_EXPLICIT_GAPS_WINDOW (1u << 2)

enum pairing_where {
	PAIRING_AUTO, /* first on an AP with a deadline; not at all with no AP that answers */
	PAIRING_BSP,  /* pairing=bsp: on the boot CPU without that test (may never return) */
	PAIRING_OFF,  /* pairing=off: never issued */
};

struct settings {
	enum run_mode mode;
	uint32_t samples;        /* per-read cost samples per source */
	uint32_t freq_window_ms; /* TSC frequency / drift window */
	uint32_t gaps_window_ms; /* gap detection window */
	uint32_t source_budget_ms; /* time bound of one source's cost sampling */
	/* xcpu_budget_ms=: the cross-CPU pairs' overall budget; 0 = mode='s
	 * (cpu_plan_xcpu_budget_ms).  A machine owner bounds the stage on a
	 * large machine; a test exercises the budget on a small one. */
	uint32_t xcpu_budget_ms;
	bool dump;               /* raw CPUID leaves and ACPI tables in the report */
	bool selftest;           /* offset one AP's TSC to prove the warp test */
	bool gaps_all_cpus;
	/* Where KVM's clock-pairing hypercall may first be issued: a host can
	 * show the KVM signature yet retry the instruction forever, and only
	 * an AP can be abandoned (src/arch/x86/measure/kvm_pv.c). */
	enum pairing_where pairing;
	uint16_t serial_port;    /* 0 = SPCR, else COM1 */
	bool serial_from_settings;
	int32_t wait_key_seconds; /* -1 = automatic (no wait under a harness) */
	uint32_t resend_seconds;  /* re-send the report this often while waiting; 0 = only on a key */
	char label[SETTINGS_LABEL_MAX + 1]; /* "" = none */
	bool label_truncated;    /* label= was longer and holds its first bytes */
	uint32_t explicit_mask;  /* SETTINGS_EXPLICIT_* named by a word */
	unsigned linux_kernel;   /* kernel=X.Y for the verdict; 0 = newest LTS */
	unsigned windows_release; /* windows=REL for verdict.windows; 0 = the newest */
	/* kernel=X.Y's and windows=REL's values, false for a release the
	 * verdict has no rules for: the verdict owns those lists, so whoever
	 * runs the parse sets these after settings_defaults (the run:
	 * verdict_kernel_parse, verdict_windows_parse); NULL refuses the word. */
	bool (*parse_kernel)(const char *text, size_t len, unsigned *kv);
	bool (*parse_windows)(const char *text, size_t len, unsigned *release);
	/* kernels=lts|all|6.1,6.12 as given, once check_kernels (the run:
	 * verdict_kernel_set_valid) said the verdict knows it; "" = lts.  The
	 * verdict input parses it (verdict_kernel_set_parse). */
	char kernels[SETTINGS_KERNELS_MAX + 1];
	bool (*check_kernels)(const char *text, size_t len);
	uint32_t watch_seconds;  /* 0 = no watch after the report */
	uint32_t watch_interval_seconds; /* one record per interval */
	uint32_t problem_count;
	uint32_t problems_dropped; /* beyond SETTINGS_MAX_PROBLEMS; reported as a count */
	char problems[SETTINGS_MAX_PROBLEMS][80];
};

void settings_defaults(struct settings *s);
/* Applies every word of text (NUL-terminated) on top of *s. */
void settings_parse(struct settings *s, const char *text);
/* The same for UEFI load options, whose first word may be the image path. */
void settings_parse_load_options(struct settings *s, const char *text);
/* A text that a length limit cut (the direct-boot command line's 2,047
 * bytes, the UEFI load options' 4,095 characters, the settings buffer):
 * text holds the len bytes that fit (NUL-terminated), next the first one
 * that did not (0 when none did).  The cut is recorded as problem "what";
 * when it fell inside a word ("samples=200000" kept as "samples=200"),
 * that word is removed from text and named as dropped, never applied cut.
 * A comment cut short is just a shorter comment.  Returns the new length. */
size_t settings_drop_cut_word(struct settings *s, char *text, size_t len, char next, const char *what);
/* Records a problem "what: word" (word cut to 40 bytes, n may be 0). */
void settings_problem(struct settings *s, const char *what, const char *word, size_t n);
const char *settings_mode_name(enum run_mode m);
/* The keys the parse knows, i from 0 below the count (NULL past it): for a
 * host tool that checks words before a boot and names the nearest key
 * (verdict-judge --vocabulary).  values: the words a value may be, comma-
 * separated, or NULL for a number or free text; bare: the key may stand
 * alone as a flag. */
size_t settings_key_count(void);
const char *settings_key_name(size_t i);
const char *settings_key_values(size_t i);
bool settings_key_bare(size_t i);

/* \clockprobe.cfg bytes -> NUL-terminated text for settings_parse: UTF-8
 * (a BOM skipped) or UTF-16 with a BOM (either byte order), characters
 * outside ASCII become '?'.  A NUL byte in 8-bit text, an odd UTF-16
 * length or a file over SETTINGS_FILE_MAX is a problem recorded in *s;
 * an oversize file contributes no text at all.  Returns bytes written
 * (out always terminated when cap > 0). */
size_t settings_decode_file(struct settings *s, const uint8_t *raw, size_t n, char *out, size_t cap);
#endif
