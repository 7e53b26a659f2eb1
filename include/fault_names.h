/* The fault vectors the guard catches (fault.h) and their names: shared by
 * the guard and the report writer, which runs on the host in the unit
 * tests too (src/lib/fault_names.c). */
#ifndef CP_FAULT_NAMES_H
#define CP_FAULT_NAMES_H

#define FAULT_NONE 0
#define FAULT_UD 6
#define FAULT_GP 13
#define FAULT_PF 14

/* "none", "#UD (invalid opcode)", ...; "unexpected exception" for others. */
const char *fault_name(int vector);
#endif
