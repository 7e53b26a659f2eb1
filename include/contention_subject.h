/* What the contention stage's levels measure on this platform
 * (src/analysis/contention_subject.c, pure). */
#ifndef CP_CONTENTION_SUBJECT_H
#define CP_CONTENTION_SUBJECT_H
#include <stdbool.h>

/* "emulator_lock" under TCG (every emulated read, the TSC's included,
 * goes through QEMU's global lock and the host's scheduling of the vCPU
 * threads), else "clock_read_path".  *reason: the sentence the report
 * gives beside it. */
const char *contention_subject(bool hv_present, const char *hv_name, const char **reason);
#endif
