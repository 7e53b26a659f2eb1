# x86_64: everything the build knows about the arch, in one place (the
# Makefile includes mk/arch-$(ARCH).mk).  The arch's code is src/arch/x86/;
# docs/architecture.md, "The arch seam", says what it implements.

ARCH_DIR    := src/arch/x86
# No red zone (interrupt frames land on the stack), no SSE/x87 (no floating
# point may sneak in, and direct boot starts with SSE off).
ARCH_CFLAGS := -mno-red-zone -mgeneral-regs-only
# gnu-efi for x86_64: its headers, link script, start-up object, and the
# objcopy target; the MS ABI for firmware calls.
EFI_ARCH    := x86_64
EFI_ARCH_CFLAGS := -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI
EFI_LDS     := $(EFI_LIB)/elf_x86_64_efi.lds
EFI_CRT0    := $(EFI_LIB)/crt0-efi-x86_64.o
EFI_TARGET  := efi-app-x86_64
# UEFI's removable-media boot file for this arch (boot/mkmedia.py).
EFI_BOOT_NAME := BOOTX64.EFI

# Pure halves, compiled into the probe and into every host unit test: the
# IDT table builder, the TSC-order decision, the 16550 identification, the
# sources' facts.
ARCH_PURE_SRCS := $(ARCH_DIR)/idt.c $(ARCH_DIR)/tsc_order.c $(ARCH_DIR)/uart_id.c \
	$(wildcard $(ARCH_DIR)/sources/*_facts.c)
ARCH_CORE_SRCS := $(filter-out $(ARCH_PURE_SRCS),$(wildcard $(ARCH_DIR)/*.c $(ARCH_DIR)/sources/*.c \
	$(ARCH_DIR)/measure/*.c $(ARCH_DIR)/discover/*.c))
ARCH_CORE_ASM  := $(wildcard $(ARCH_DIR)/*.S)
# The arch's files in the hooked timing test (tests/unit/arch_hooks.h).
ARCH_HOOKED_SRCS := $(ARCH_DIR)/measure/serialize.c
# Direct kernel boot (PVH) is x86's: build/clockprobe.elf.
ARCH_EXTRA_MK  := mk/pvh.mk
