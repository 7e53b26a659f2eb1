# Direct kernel boot (PVH): build/clockprobe.elf for QEMU -kernel,
# Firecracker and Cloud Hypervisor.  The same pure and core sources as the
# UEFI build, compiled as a static non-PIC image at 1 MiB (no GOT, no
# relocations to apply: nothing runs before our own code to apply them).

PVH_CFLAGS := $(FREESTANDING) -fno-pic -fno-pie -mcmodel=small \
	-fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns
PVH_SRCS   := $(sort $(wildcard $(ARCH_DIR)/boot/pvh*.c))
PVH_ASM    := $(sort $(wildcard $(ARCH_DIR)/boot/pvh*.S))
PVH_OBJS   := $(patsubst %.c,$(BUILD)/pvh/%.o,$(PURE_SRCS) $(CORE_SRCS) $(PVH_SRCS)) \
	      $(patsubst %.S,$(BUILD)/pvh/%.o,$(CORE_ASM) $(PVH_ASM))

.PHONY: pvh
pvh: $(BUILD)/clockprobe.elf
all: $(BUILD)/clockprobe.elf

$(BUILD)/pvh/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) Makefile mk/pvh.mk $(ARCH_MK)
	@mkdir -p $(dir $@)
	@echo "  CC      $< (pvh)"; $(CC) $(PVH_CFLAGS) -c $< -o $@

$(BUILD)/pvh/%.o: %.S Makefile mk/pvh.mk $(ARCH_MK)
	@mkdir -p $(dir $@)
	@echo "  AS      $< (pvh)"; $(CC) $(PVH_CFLAGS) -c $< -o $@

# A static link already refuses undefined symbols; the nm check keeps that
# promise explicit (a libgcc helper such as __udivti3 must never appear).
$(BUILD)/clockprobe.elf: $(PVH_OBJS) linker/pvh.ld
	$(LD) -nostdlib -static -z noexecstack -z max-page-size=4096 \
		-T linker/pvh.ld $(PVH_OBJS) -o $@
	@undefined="$$(nm -u $@)"; if [ -n "$$undefined" ]; then \
		echo "clockprobe.elf: undefined symbols: $$undefined"; rm -f $@; exit 1; fi
