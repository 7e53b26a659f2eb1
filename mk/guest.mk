# clockprobe-guest: the report from inside a running Linux guest
# (src/guest/, issue 27).  A static x86-64 Linux program (gcc and glibc's
# static libc from Debian's libc6-dev), linked with the probe's pure code
# (JSON writer, CRC-32, strbuf, statistics, CPUID and hypervisor decoding).
#
# src/guest/{gparse,klog,step,vdso_elf,report}.c are pure like src/lib:
# they are also compiled freestanding (the probe's flags: no libc, no
# floating point) to keep them so, and into the host unit tests with the
# sanitizers (tests/unit/test_guest_*.c).  sys.c, measure.c and main.c are
# the Linux side.

GUEST_PURE   := $(sort $(filter-out src/guest/sys.c src/guest/measure.c src/guest/main.c, \
	$(wildcard src/guest/*.c)))
GUEST_SYS    := src/guest/sys.c src/guest/measure.c src/guest/main.c
GUEST_HDRS   := $(wildcard src/guest/*.h)
# Reasons and paths are cut to their fixed buffers on purpose.
GUEST_CFLAGS := $(COMMON) -Isrc/guest -fno-strict-aliasing -Wno-format-truncation
GUEST_OBJS   := $(patsubst %.c,$(BUILD)/guest/obj/%.o,$(GUEST_PURE) $(GUEST_SYS))
# The probe's pure code as an archive: only what the guest uses is linked.
GUEST_LIBPURE := $(BUILD)/guest/libpure.a
GUEST_FS_OBJS := $(patsubst %.c,$(BUILD)/guest/freestanding/%.o,$(GUEST_PURE))

.PHONY: guest
guest: $(BUILD)/clockprobe-guest
# (Not in ARCH=aarch64's `all`: that is the arm64 probe, mk/arch-aarch64.mk.)
ifndef ARCH_OWN_ALL_RUN
all: $(BUILD)/clockprobe-guest
endif

$(BUILD)/guest/obj/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) $(GUEST_HDRS) Makefile mk/guest.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $< (guest)"; $(CC) $(GUEST_CFLAGS) -c $< -o $@

$(BUILD)/guest/freestanding/%.o: %.c $(ALL_HDRS) $(GUEST_HDRS) Makefile mk/guest.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $< (freestanding check)"; $(CC) $(FREESTANDING) -Isrc/guest -c $< -o $@

# The freestanding objects are only built, never linked: they prove the
# pure files need nothing of libc.
$(GUEST_LIBPURE): $(patsubst %.c,$(BUILD)/guest/obj/%.o,$(PURE_SRCS))
	@rm -f $@; $(AR) rcs $@ $^

$(BUILD)/clockprobe-guest: $(GUEST_OBJS) $(GUEST_LIBPURE) | $(GUEST_FS_OBJS)
	@echo "  LD      $@ (static)"; $(CC) -static -o $@ $(GUEST_OBJS) $(GUEST_LIBPURE)

# Host unit tests of the pure guest code: the sanitizer build of the pure
# sources (libpure.a) plus these files in their own archive.
GUEST_HOST_OBJS := $(patsubst %.c,$(BUILD)/host/obj/%.o,$(GUEST_PURE))

$(BUILD)/host/obj/src/guest/%.o: src/guest/%.c $(ALL_HDRS) $(GUEST_HDRS) Makefile mk/guest.mk
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"; $(CC) $(HOST_CFLAGS) -Isrc/guest -c $< -o $@

$(BUILD)/host/libguest.a: $(GUEST_HOST_OBJS)
	@rm -f $@; $(AR) rcs $@ $^

$(BUILD)/host/test_guest_%: tests/unit/test_guest_%.c $(BUILD)/host/check.o $(BUILD)/host/libguest.a \
		$(BUILD)/host/libpure.a tests/unit/check.h $(ALL_HDRS) $(GUEST_HDRS)
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"; $(CC) $(HOST_CFLAGS) -Isrc/guest $< $(BUILD)/host/check.o \
		$(BUILD)/host/libguest.a $(BUILD)/host/libpure.a -o $@

# clockprobe-guest for arm64 (issue 37): the same sources cross-compiled
# with Debian's aarch64-linux-gnu-gcc and static glibc
# (libc6-dev-arm64-cross; scripts/install-deps arm64), for the arm64 Linux
# guests (scripts/cptools/arm64guest.py).  Not part of `all`: the x86
# build needs no cross toolchain.  The pure files' x86-only parts are not
# reached on arm64 (sys.c and measure.c select the counter by __aarch64__).
ARM64_CC      := aarch64-linux-gnu-gcc
ARM64_AR      := aarch64-linux-gnu-ar
ARM64_OBJS    := $(patsubst %.c,$(BUILD)/arm64/obj/%.o,$(GUEST_PURE) $(GUEST_SYS))
ARM64_LIBPURE := $(BUILD)/arm64/libpure.a

.PHONY: guest-arm64
guest-arm64: $(BUILD)/arm64/clockprobe-guest

$(BUILD)/arm64/obj/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) $(GUEST_HDRS) Makefile mk/guest.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $< (guest, arm64)"; $(ARM64_CC) $(GUEST_CFLAGS) -c $< -o $@

$(ARM64_LIBPURE): $(patsubst %.c,$(BUILD)/arm64/obj/%.o,$(PURE_SRCS))
	@rm -f $@; $(ARM64_AR) rcs $@ $^

$(BUILD)/arm64/clockprobe-guest: $(ARM64_OBJS) $(ARM64_LIBPURE)
	@echo "  LD      $@ (static, arm64)"; $(ARM64_CC) -static -o $@ $(ARM64_OBJS) $(ARM64_LIBPURE)
