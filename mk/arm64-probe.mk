# The arm64 probe (issue 37): build/aarch64/clockprobe.efi for AAVMF and
# any arm64 UEFI, and build/aarch64/clockprobe.img, a FAT disk holding it
# as \EFI\BOOT\BOOTAA64.EFI.  Built from src/arch/arm64/*.c and the pure
# rooms (the same PURE_SRCS the x86 probe and the host tests compile),
# with the cross compiler; nothing here touches the x86 build.
#
#   make arm64-deps     gnu-efi's aarch64 crt0, linker script, libraries and
#                       headers, from Debian's arm64 gnu-efi package
#                       (scripts/cptools/gnuefi_arm64.py; the amd64 package
#                       has only x86_64's), unpacked under build/aarch64/
#   make arm64-probe    the .efi and the disk image
#   make arm64-run      boots it under qemu-system-aarch64 -machine virt,
#                       TCG, AAVMF, and prints the verified report

A64        := $(BUILD)/aarch64
A64_CC     := aarch64-linux-gnu-gcc
A64_LD     := aarch64-linux-gnu-ld
A64_OBJCOPY := aarch64-linux-gnu-objcopy
A64_AR     := aarch64-linux-gnu-ar
A64_GNUEFI := $(A64)/gnu-efi/root/usr
A64_STAMP  := $(A64_GNUEFI)/lib/crt0-efi-aarch64.o
A64_VERSION := $(shell sed -n 's/^\#define PROBE_VERSION "\(.*\)"/\1/p' include/probe.h)
# As the x86 probe's FREESTANDING, less what is x86's alone (-mno-red-zone:
# AAPCS64 has no red zone): -mgeneral-regs-only keeps floating point and
# SIMD out (UEFI does not promise the FP state to applications that
# touch it through the compiler); -fpic for gnu-efi's self-relocation.
A64_CFLAGS := $(COMMON) -ffreestanding -fno-stack-protector -fno-stack-check \
	-fno-strict-aliasing -mgeneral-regs-only -fshort-wchar -fpic \
	-I$(A64_GNUEFI)/include/efi -I$(A64_GNUEFI)/include/efi/aarch64 \
	-DA64_PROBE_VERSION='"$(A64_VERSION)"'
# The seam (include/arch_api.h): arm64's contract headers (arch_impl.h,
# tsc_order.h) come before x86's for the machine code built here, the
# arm64 room's own and the generic engine's.  The pure rooms (libpure.a)
# stay compiled against x86's, as the x86 probe and the host tests
# compile them: nothing of tsc_order.h crosses between the two but
# struct measure_ctx's int-sized enums (src/arch/arm64/include/tsc_order.h).
A64_SEAM   := -Isrc/arch/arm64/include
A64_SRCS   := $(sort $(wildcard src/arch/arm64/*.c))
A64_HDRS   := $(wildcard src/arch/arm64/*.h src/arch/arm64/include/*.h)
A64_ASM    := $(sort $(wildcard src/arch/arm64/*.S))
# The generic machine code the arm64 probe runs through the seam.
A64_GENERIC_SRCS := src/measure/engine.c
A64_OBJS   := $(patsubst %.c,$(A64)/obj/%.o,$(A64_SRCS) $(A64_GENERIC_SRCS)) \
	$(patsubst %.S,$(A64)/obj/%.o,$(A64_ASM))
A64_PURE_OBJS := $(patsubst %.c,$(A64)/obj/%.o,$(PURE_SRCS))
A64_LIBGCC = $(shell $(A64_CC) -print-libgcc-file-name)

.PHONY: arm64-deps arm64-probe arm64-run
arm64-deps: $(A64_STAMP)
arm64-probe: $(A64)/clockprobe.efi $(A64)/clockprobe.img

$(A64_STAMP):
	$(PYTHON) scripts/cptools/gnuefi_arm64.py fetch

$(A64)/obj/src/arch/arm64/%.o: src/arch/arm64/%.c $(A64_HDRS) $(ALL_HDRS) $(A64_STAMP) mk/arm64-probe.mk
	@mkdir -p $(dir $@)
	@echo "  A64CC   $<"; $(A64_CC) $(A64_SEAM) $(A64_CFLAGS) -c $< -o $@

$(A64)/obj/src/measure/%.o: src/measure/%.c $(A64_HDRS) $(ALL_HDRS) $(A64_STAMP) mk/arm64-probe.mk
	@mkdir -p $(dir $@)
	@echo "  A64CC   $<"; $(A64_CC) $(A64_SEAM) $(A64_CFLAGS) -c $< -o $@

$(A64)/obj/src/arch/arm64/%.o: src/arch/arm64/%.S $(A64_STAMP) mk/arm64-probe.mk
	@mkdir -p $(dir $@)
	@echo "  A64AS   $<"; $(A64_CC) $(A64_CFLAGS) -c $< -o $@

$(A64)/obj/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) mk/arm64-probe.mk
	@mkdir -p $(dir $@)
	@echo "  A64CC   $<"; $(A64_CC) $(A64_CFLAGS) -c $< -o $@

# The pure rooms as an archive: only what the arm64 probe calls is linked.
$(A64)/libpure.a: $(A64_PURE_OBJS)
	@rm -f $@; $(A64_AR) rcs $@ $^

# gnu-efi's aarch64 layout: crt0 carries a PE/COFF header of its own and
# the image is the linked file's bytes (objcopy -O binary), as gnu-efi's
# own Make.defaults builds it; EFI_SUBSYSTEM 10 is an application.
# --no-undefined: -shared would otherwise accept a missing helper (a
# 128-bit divide) and crash at run time; libgcc supplies those.
$(A64)/clockprobe.so: $(A64_OBJS) $(A64)/libpure.a $(A64_STAMP)
	$(A64_LD) -shared -Bsymbolic -nostdlib --no-undefined -z noexecstack \
		--defsym=EFI_SUBSYSTEM=0xa -T $(A64_GNUEFI)/lib/elf_aarch64_efi.lds \
		$(A64_GNUEFI)/lib/crt0-efi-aarch64.o $(A64_OBJS) $(A64)/libpure.a \
		-L$(A64_GNUEFI)/lib -lefi -lgnuefi $(A64_LIBGCC) -o $@

# The linker script ends the image (crt0's SizeOfImage, the .data
# section's raw size) at _edata, aligned to 512; the last section copied
# ends before that, and AAVMF refuses (EFI_UNSUPPORTED) a file shorter
# than its sections claim: the file is padded to the 512-byte boundary.
$(A64)/clockprobe.efi: $(A64)/clockprobe.so
	$(A64_OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .rodata -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc -O binary $< $@
	truncate -s %512 $@

$(A64)/clockprobe.img: $(A64)/clockprobe.efi boot/mkmedia_aa64.py
	$(PYTHON) boot/mkmedia_aa64.py --efi $< --img $@

arm64-run: arm64-probe
	$(PYTHON) scripts/cptools/arm64efi.py run
