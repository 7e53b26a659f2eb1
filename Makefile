# clockprobe build.  `make run` boots the probe under QEMU and shows its
# report; `make test` runs every test.  Each target that needs packages
# installs the missing ones of its own list first (scripts/install-deps
# TARGET; `make deps` installs the test list).
#
# Outputs all go to build/ (never committed).

BUILD      := build
CC         := gcc
LD         := ld
OBJCOPY    := objcopy
EFI_INC    := /usr/include/efi
EFI_LIB    := /usr/lib
PYTHON     := python3

# The arch built: mk/arch-$(ARCH).mk holds all it decides (sources, flags,
# gnu-efi's files, the boot file's name).  x86_64 is the one built today.
ARCH       ?= x86_64
ifeq ($(wildcard mk/arch-$(ARCH).mk),)
$(error ARCH=$(ARCH) is unknown: mk/arch-$(ARCH).mk does not exist (x86_64 is built; aarch64 is issue 37's arm64 step))
endif
ARCH_MK    := mk/arch-$(ARCH).mk
include $(ARCH_MK)

WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
COMMON     := -std=gnu11 -O2 -g $(WARN) -Iinclude -I$(ARCH_DIR)/include
# The probe: freestanding, with the arch's own restrictions (ARCH_CFLAGS:
# on x86_64 no SSE/x87, no red zone), no stack protector (no runtime to
# back it).
FREESTANDING := $(COMMON) -ffreestanding -fno-stack-protector -fno-stack-check \
	-fno-strict-aliasing $(ARCH_CFLAGS) -fshort-wchar
EFI_CFLAGS := $(FREESTANDING) -fpic $(EFI_ARCH_CFLAGS) -I$(EFI_INC) -I$(EFI_INC)/$(EFI_ARCH)
HOST_CFLAGS := $(COMMON) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -Itests/unit

# Pure logic: compiled into the probe and into every host unit test.
PURE_SRCS  := $(sort $(wildcard src/lib/*.c src/decode/*.c src/analysis/*.c src/verdict/*.c \
	src/results/*.c src/report/*.c) $(ARCH_PURE_SRCS))
# Private headers of pure modules (include/ holds the public ones).
PURE_HDRS  := $(wildcard src/decode/*.h src/verdict/*.h src/report/*.h)
# Every header a probe object may include: the shared ones and the arch's.
ALL_HDRS   := $(wildcard include/*.h $(ARCH_DIR)/include/*.h)
# Hardware-touching core shared by every boot path.
# (A source's _facts.c is its pure half: JSON and verdict input.)
CORE_SRCS  := $(sort $(ARCH_CORE_SRCS) $(wildcard src/discover/*.c src/measure/*.c src/console/*.c \
	src/run/*.c) src/main.c)
CORE_ASM   := $(sort $(ARCH_CORE_ASM))
UEFI_SRCS  := src/platform/uefi.c

EFI_OBJS   := $(patsubst %.c,$(BUILD)/efi/%.o,$(PURE_SRCS) $(CORE_SRCS) $(UEFI_SRCS)) \
	      $(patsubst %.S,$(BUILD)/efi/%.o,$(CORE_ASM))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/host/%,$(wildcard tests/unit/test_*.c))

.PHONY: all efi images signed run test unit deps fuzz fuzz-build matrix qemu2 icount-compare clean
# An arch file may give its own `all` and `run` (aarch64's: its probe is
# not built through the seam yet, mk/arch-aarch64.mk).
ifndef ARCH_OWN_ALL_RUN
all: $(BUILD)/clockprobe.efi $(BUILD)/clockprobe.img $(BUILD)/clockprobe.iso $(BUILD)/host/verdict-judge
endif

DEPS       := sh scripts/install-deps

deps:
	@$(DEPS) test

efi: $(BUILD)/clockprobe.efi

$(BUILD)/efi/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) Makefile $(ARCH_MK)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"; $(CC) $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/efi/%.o: %.S Makefile $(ARCH_MK)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"; $(CC) $(EFI_CFLAGS) -c $< -o $@

# -z defs: gnu-efi links with -shared, which would otherwise accept an
# undefined symbol (say a 128-bit divide helper) and crash at run time.
$(BUILD)/clockprobe.so: $(EFI_OBJS)
	$(LD) -shared -Bsymbolic -nostdlib -z defs -z noexecstack -T $(EFI_LDS) \
		$(EFI_CRT0) $(EFI_OBJS) -o $@ -L$(EFI_LIB) -lefi -lgnuefi

$(BUILD)/clockprobe.efi: $(BUILD)/clockprobe.so
	$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target=$(EFI_TARGET) \
		--subsystem=10 $< $@

$(BUILD)/clockprobe.img $(BUILD)/clockprobe.iso &: $(BUILD)/clockprobe.efi boot/mkmedia.py
	$(PYTHON) boot/mkmedia.py --efi $< --img $(BUILD)/clockprobe.img --iso $(BUILD)/clockprobe.iso \
		--boot-name $(EFI_BOOT_NAME)

# Every VM and cloud format, from one raw disk.  SETTINGS="wait=600
# resend=30" puts those words in \clockprobe.cfg on every image made here
# (on a cloud VM the only way to pass settings).  clockprobe.ova: VMware
# (ESXi/Workstation/Fusion) and other OVF importers.
SETTINGS_ARG = $(call knob,SETTINGS,--settings)
IMAGE_FORMATS := vmdk,ova,vhdx,qcow2,vhd,gce

# One pipeline with the installed `clockprobe images` (cptools/images.py);
# build/clockprobe.img itself stays the `all` image, without SETTINGS.
# Lists every image in build/ with its size and SHA-256 at the end.
images:
	@$(DEPS) run
	$(MAKE) -j$(JOBS) all $(BUILD)/host/verdict-judge
	$(PYTHON) scripts/clockprobe images --efi $(BUILD)/clockprobe.efi --out $(BUILD) \
		--formats $(IMAGE_FORMATS) $(SETTINGS_ARG)

# The probe signed with your own key, for firmware whose Secure Boot cannot
# be turned off: build/signed/ (signed .efi, disk and CD images, db.cer and
# db.esl to enroll).  SIGN_KEY=/SIGN_CERT= (PEM) sign with a key you have;
# otherwise one is made once in build/signed/ and reused (`make clean`
# deletes it: keep a copy of the key you enroll).
SIGN_KEY   ?=
SIGN_CERT  ?=
signed: $(BUILD)/clockprobe.efi
	@$(DEPS) signed
	$(PYTHON) boot/mksigned.py --efi $< --out $(BUILD)/signed $(SETTINGS_ARG) \
		$(if $(SIGN_KEY),--key $(SIGN_KEY)) $(if $(SIGN_CERT),--cert $(SIGN_CERT))

# Host unit tests: every tests/unit/test_X.c linked against the pure
# sources, compiled once (with the sanitizers) into one archive.
HOST_OBJS  := $(patsubst %.c,$(BUILD)/host/obj/%.o,$(PURE_SRCS))

$(BUILD)/host/obj/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) Makefile
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"; $(CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/libpure.a: $(HOST_OBJS)
	@rm -f $@; $(AR) rcs $@ $^

$(BUILD)/host/check.o: tests/unit/check.c tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/%: tests/unit/%.c $(BUILD)/host/check.o $(BUILD)/host/libpure.a tests/unit/check.h tests/unit/verdict_inputs_fixture.h tests/unit/verdict_probe.h $(ALL_HDRS) $(PURE_HDRS)
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"; $(CC) $(HOST_CFLAGS) $< $(BUILD)/host/check.o $(BUILD)/host/libpure.a -o $@

# The engine's timing code on the host, each instruction wrapper of
# src/arch/x86/include/x86.h replaced by a counting hook (tests/unit/arch_hooks.h): the
# unit test proves which ordered read every stamp took.
HOOKED_SRCS := src/measure/engine.c src/measure/stamp.c src/measure/freq.c $(ARCH_HOOKED_SRCS) \
	       src/measure/crosscpu_all.c
HOOKED_OBJS := $(patsubst %.c,$(BUILD)/host/hooked/%.o,$(HOOKED_SRCS))
$(BUILD)/host/hooked/%.o: %.c $(ALL_HDRS) tests/unit/arch_hooks.h Makefile
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $< (hooked)"; $(CC) $(HOST_CFLAGS) -DCP_ARCH_HOOKS -c $< -o $@
$(BUILD)/host/test_tsc_order: tests/unit/test_tsc_order.c $(HOOKED_OBJS) $(BUILD)/host/check.o $(BUILD)/host/libpure.a \
		tests/unit/check.h tests/unit/arch_hooks.h $(ALL_HDRS)
	@echo "  HOSTLD  $@"; $(CC) $(HOST_CFLAGS) -DCP_ARCH_HOOKS $< $(HOOKED_OBJS) $(BUILD)/host/check.o \
		$(BUILD)/host/libpure.a -pthread -o $@

# The verdict rules for the host: scripts/verdict re-judges saved reports.
$(BUILD)/host/verdict-judge: src/host/verdict_judge.c $(BUILD)/host/libpure.a $(ALL_HDRS)
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"; $(CC) $(HOST_CFLAGS) $< $(BUILD)/host/libpure.a -o $@

unit: $(UNIT_TESTS) $(BUILD)/host/verdict-judge

# The packages first, then the builds in parallel (2 cores build the EFI,
# PVH and host objects in about half the time).
JOBS       := $(shell nproc 2>/dev/null || echo 2)

# `make run ACCEL=tcg SMP=4 ...`: each knob given on make's command line
# becomes scripts/run's option (`scripts/run --help`); the tools read no
# generic environment name, and neither does this (a CPU= or IMAGE= in the
# environment is someone else's: only a command-line knob is passed).
# The judge is built too: run refuses a settings word the probe would
# refuse before the boot, through it (cptools/vocabulary.py).
knob = $(if $(filter command line,$(origin $(1))),$(2)='$(subst ','\'',$($(1)))')
RUN_KNOBS = $(call knob,ACCEL,--accel) $(call knob,BOOT,--boot) \
	$(call knob,IMAGE,--image) $(call knob,SMP,--smp) \
	$(call knob,MACHINE,--machine) $(call knob,CPU,--cpu) \
	$(call knob,MEM,--mem) $(call knob,QEMU_EXTRA,--extra) \
	$(call knob,TIMEOUT,--timeout) $(call knob,RUN_DIR,--out) \
	$(call knob,FAIL_ON,--fail-on) $(call knob,KERNELS,--kernels) \
	$(call knob,SETTINGS,--settings) $(call knob,QEMU,--qemu)
MATRIX_KNOBS = $(call knob,MATRIX_CONF,--conf) $(call knob,ONLY,--only) \
	$(call knob,FAIL_ON,--fail-on) $(call knob,KERNELS,--kernels) \
	$(call knob,QEMU,--qemu) $(call knob,OUT,--out)

ifndef ARCH_OWN_ALL_RUN
run:
	@$(DEPS) run
	$(MAKE) -j$(JOBS) all $(BUILD)/host/verdict-judge
	$(PYTHON) scripts/run $(RUN_KNOBS)
endif

test:
	@$(DEPS) test
	$(MAKE) -j$(JOBS) all unit
	$(PYTHON) tests/run.py

# libFuzzer targets, one per parser or writer that takes outside bytes:
# ACPI + SMBIOS tables, the settings text, CPUID leaves, the JSON writer,
# the AML scan for the VMClock device.
# `make fuzz` runs each for FUZZ_SECONDS (default 20) from its seeds; the
# campaign figures are in docs/hostile-machine.md; seeds (crash regressions
# among them) in tests/fixtures/fuzz/<target>/.
FUZZ_TARGETS := acpi settings settings_cut cpuid json aml fdt
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -Iinclude -I$(ARCH_DIR)/include -Itests/fuzz -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
FUZZ_BINS    := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/json_check.c tests/fuzz/json_check.h \
		$(PURE_SRCS) $(ALL_HDRS) $(PURE_HDRS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $< tests/fuzz/json_check.c $(PURE_SRCS) -o $@

fuzz-build: $(FUZZ_BINS)

fuzz:
	@$(DEPS) fuzz
	$(MAKE) -j$(JOBS) fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t; \
		echo "  FUZZ    $$t"; \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$${FUZZ_SECONDS:-20} -timeout=5 \
			-print_final_stats=1 $(BUILD)/fuzz/corpus-$$t tests/fixtures/fuzz/$$t \
			$$(test $$t = acpi && echo tests/fixtures/acpi/fuzz-seeds); \
	done

# The second QEMU (bookworm-backports' QEMU 10, with -device vmclock),
# unpacked under build/qemu-10/ through the host's own apt sources, never
# installed over the system's: scripts/cptools/qemu2.py.  Tests that want
# it skip, with the reason, until it is there.
qemu2:
	$(PYTHON) scripts/cptools/qemu2.py fetch

# Whether a change kept the x86 probe's behaviour: BASE's (and HEAD's, or
# this tree's) direct-boot ELF under -icount with the RTC on virtual time,
# every report difference named or UNEXPECTED (docs/architecture.md,
# "Checking that a refactor kept behaviour").
icount-compare: $(BUILD)/clockprobe.elf
	@test -n "$(BASE)" || { echo "make icount-compare BASE=REV [HEAD=REV]" >&2; exit 2; }
	$(PYTHON) scripts/cptools/icountdiff.py compare $(BASE) $(HEAD)

# The matrix's arch = aarch64 rows boot the arm64 probe: built where the
# cross compiler is; a build that cannot finish (no arm64 gnu-efi) leaves
# those rows to say what is missing rather than stopping the x86 rows.
matrix:
	@$(DEPS) run
	$(MAKE) -j$(JOBS) all $(BUILD)/host/verdict-judge
	-@if command -v aarch64-linux-gnu-gcc >/dev/null; then $(MAKE) -j$(JOBS) arm64-probe; fi
	$(PYTHON) scripts/matrix $(MATRIX_KNOBS)

clean:
	rm -rf $(BUILD)
-include $(ARCH_EXTRA_MK)
-include mk/guest.mk
-include mk/package.mk
-include mk/arm64.mk
-include mk/arm64-probe.mk
