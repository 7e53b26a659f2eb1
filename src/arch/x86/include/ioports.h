/* Legacy PC I/O ports the probe touches, in one place. */
#ifndef CP_IOPORTS_H
#define CP_IOPORTS_H

/* 16550 UARTs at their conventional bases. */
#define COM1_PORT 0x3f8
#define COM2_PORT 0x2f8
#define COM3_PORT 0x3e8
#define COM4_PORT 0x2e8

/* 8254 PIT: channel 2 data, mode/command, and the gate on port B. */
#define PIT_CH2_PORT 0x42
#define PIT_MODE_PORT 0x43
#define PIT_GATE_PORT 0x61 /* bit 0: channel 2 gate, bit 1: speaker */

/* Linux's alternative io_delay port: no PC device decodes it, so a read is
 * harmless everywhere and, in a VM, an exit the device model answers with
 * nobody behind it. */
#define UNASSIGNED_PORT 0xed
/* The 8259 PIC's ELCR: KVM answers it in the kernel when the irqchip is
 * in-kernel (kvm-unit-tests' vmexit "inl_from_kernel" reads it); reading
 * it changes nothing on any PC. */
#define ELCR_PORT 0x4d0
/* The 8259 pair's data ports: a read gives the interrupt mask (OCW1),
 * a write sets it. */
#define PIC1_DATA_PORT 0x21
#define PIC2_DATA_PORT 0xa1

/* QEMU's isa-debug-exit (kvm-unit-tests convention): QEMU exits with
 * (value << 1) | 1. */
#define DEBUG_EXIT_PORT 0xf4
#define DEBUG_EXIT_REPORT_COMPLETE 0x10 /* QEMU status 33 */
#define DEBUG_EXIT_PROBE_FAILED 0x11    /* QEMU status 35 */

/* VMware backdoor: IN from this port with the magic in EAX. */
#define VMWARE_BACKDOOR_PORT 0x5658
#define VMWARE_BACKDOOR_MAGIC 0x564d5868u

/* The highest port a 32-bit IN can read whole (a PM timer's GAS). */
#define IOPORT_LAST_DWORD 0xfffc

#endif
