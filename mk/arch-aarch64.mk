# aarch64: `make ARCH=aarch64` (or `all`) builds the arm64 probe and
# `make run ARCH=aarch64` boots it under AAVMF (TCG) and prints the verified
# report: the arm64 probe's own build, mk/arm64-probe.mk (`arm64-probe`,
# `arm64-run`).  Its machine code implements and uses include/arch_api.h
# (src/arch/arm64/include/: arch_impl.h, tsc_order.h) and runs the generic
# engine through it, but it is not yet built as the x86 probe is, from
# this file's ARCH_* lists: it compiles the pure rooms exactly as `make
# arm64-probe` does under x86_64, against the x86 seam's contract headers
# (src/lib/settings.c's arch_console.h, include/facts.h's tsc_order.h;
# arm64 has no arch_console.h or source_registry.h yet), so the x86 arch
# file gives those settings and this one takes over only the goals.  Every other
# goal (test, unit, images, deb, signed, matrix, ...) builds or boots the
# x86 probe: it stops here, named.
include mk/arch-x86_64.mk
# Direct kernel boot (PVH) is x86's alone.
ARCH_EXTRA_MK :=

# The Makefile leaves `all` and `run` to this file.
ARCH_OWN_ALL_RUN := aarch64
A64_GOALS := all run clean arm64-deps arm64-probe arm64-run
A64_X86_ONLY := $(filter-out $(A64_GOALS),$(MAKECMDGOALS))
ifneq ($(A64_X86_ONLY),)
$(error ARCH=aarch64: $(A64_X86_ONLY) is x86-only; ARCH=aarch64 builds all, run, clean, arm64-deps, arm64-probe and arm64-run)
endif

all: arm64-probe

# SMP=, CPU= and MACHINE= (virt,gic-version=3: a GICv3) pass to the boot;
# the x86 run's other knobs have no arm64 meaning yet.
run:
	@$(DEPS) arm64
	$(MAKE) -j$(JOBS) all
	$(PYTHON) scripts/cptools/arm64efi.py run $(call knob,SMP,--smp) $(call knob,CPU,--cpu) \
		$(call knob,MACHINE,--machine)
