/* The CMOS real-time clock (MC146818 and its descendants) at ports
 * 0x70/0x71: wall time that, under QEMU, follows the host's clock by
 * default even while the VM is stopped and its emulated counters stand
 * still.  The run identity reads the start time from it and the watch
 * mode compares the TSC with its second edges.  Decoding is pure
 * (rtc_decode in identity.h); this is the port access and the bounded
 * waits (src/arch/x86/cmos_rtc.c). */
#ifndef CP_CMOS_RTC_H
#define CP_CMOS_RTC_H
#include "identity.h"

/* One register. */
uint8_t cmos_rtc_read(uint8_t reg);
/* The six time registers in rtc_decode's order. */
void cmos_rtc_read_fields(uint8_t raw[RTC_FIELDS]);

/* The wall clock of include/arch_api.h (rtc_read_now, rtc_wait_edge) is
 * this RTC on x86. */
#endif
