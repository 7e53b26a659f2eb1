/* Run settings from the UEFI load options and \clockprobe.cfg (or the
 * direct-boot command line): whitespace-separated key=value words, '#'
 * comments.  Unknown keys and bad values are kept as named problems for the
 * report instead of being silently ignored. */
#ifndef CP_SETTINGS_H
#define CP_SETTINGS_H
#include "util.h"

enum run_mode { MODE_QUICK, MODE_DEFAULT, MODE_THOROUGH };

#define SETTINGS_MAX_PROBLEMS 8

struct settings {
	enum run_mode mode;
	uint32_t samples;        /* per-read cost samples per source */
	uint32_t freq_window_ms; /* TSC frequency / drift window */
	uint32_t gaps_window_ms; /* gap detection window */
	uint32_t source_budget_ms; /* time bound of one source's cost sampling */
	bool dump;               /* raw CPUID leaves and ACPI tables in the report */
	bool selftest;           /* offset one AP's TSC to prove the warp test */
	bool gaps_all_cpus;
	uint16_t serial_port;    /* 0 = SPCR, else COM1 */
	bool serial_from_settings;
	int32_t wait_key_seconds; /* -1 = automatic (no wait under a harness) */
	uint32_t watch_seconds;  /* 0 = no watch after the report */
	uint32_t watch_interval_seconds; /* one record per interval */
	uint32_t problem_count;
	char problems[SETTINGS_MAX_PROBLEMS][80];
};

void settings_defaults(struct settings *s);
/* Applies every key=value word of text (NUL-terminated) on top of *s. */
void settings_parse(struct settings *s, const char *text);
const char *settings_mode_name(enum run_mode m);
#endif
