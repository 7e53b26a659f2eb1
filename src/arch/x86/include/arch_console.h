/* x86's console UARTs by name (pure: settings.c parses serial= with it):
 * the 16550s at the PC's conventional COM bases, COM1 the default. */
#ifndef CP_ARCH_CONSOLE_H
#define CP_ARCH_CONSOLE_H
#include "ioports.h"

#define CONSOLE_UART_DEFAULT COM1_PORT
#define CONSOLE_UART_DEFAULT_NAME "COM1 (default)"
/* { name, base } rows for serial=NAME. */
#define CONSOLE_UART_NAMED { "com1", COM1_PORT }, { "com2", COM2_PORT }, { "com3", COM3_PORT }, { "com4", COM4_PORT },
#endif
