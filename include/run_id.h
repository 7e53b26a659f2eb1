/* The run's identifier, shared by the report and every watch record so
 * records from one run (also across a live migration) can be told apart
 * from another run's in the same log. */
#ifndef CP_RUN_ID_H
#define CP_RUN_ID_H
/* 16 hex digits, the same string for the whole run. */
const char *probe_run_id(void);
#endif
