/* Names of the fault vectors the guard catches: shared by the guard and the
 * report writer, which runs on the host in the unit tests too. */
#include "fault_names.h"

const char *fault_name(int vector)
{
	switch (vector) {
	case FAULT_NONE: return "none";
	case FAULT_UD: return "#UD (invalid opcode)";
	case FAULT_GP: return "#GP (general protection)";
	case FAULT_PF: return "#PF (page fault)";
	default: return "unexpected exception";
	}
}
