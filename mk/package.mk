# Installing clockprobe like a tool: make install, make deb, make dist.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#       PREFIX/bin/clockprobe             the one command (scripts/clockprobe)
#       PREFIX/lib/clockprobe/            its Python package (cptools/), the
#                                         tools it dispatches to, boot/'s image
#                                         builders, verdict-judge (built here
#                                         without the sanitizers),
#                                         clockprobe-guest, VERSION
#       PREFIX/share/clockprobe/          the images, the PVH ELF, matrix.conf,
#                                         report-schema.json,
#                                         guest-report-schema.json
#       PREFIX/share/man/man1, man5       clockprobe(1), clockprobe-COMMAND(1),
#                                         clockprobe-report(5)
#       PREFIX/share/doc/clockprobe/      README.md and docs/ as README links
#                                         them (docs/platforms/, the verdict
#                                         rules, ...), under docs/ so that
#                                         README's relative links hold
#       PREFIX/share/bash-completion/completions/clockprobe
#   make deb    build/clockprobe_VERSION_ARCH.deb: `make install` into a
#               staged root, then Debian's dpkg-shlibdeps, dpkg-gencontrol
#               and dpkg-deb; lintian checks it (LINTIAN=no skips that)
#   make dist   build/dist/: every image, the .deb, SHA256SUMS, README
#
# The version is the probe's PROBE_VERSION (include/probe.h), the one
# source: PKG_VERSION here, PREFIX/lib/clockprobe/VERSION for the
# installed tools, the package (debian/changelog must name it: make deb
# refuses otherwise) and the release files.
#
# The Python package goes to PREFIX/lib/clockprobe/, not to Debian's
# python3 path: cptools is clockprobe's private plumbing, not a library for
# other programs (Debian's Python policy puts such private modules in
# /usr/lib/PACKAGE or /usr/share/PACKAGE), and it ships an arch-dependent
# helper (verdict-judge) next to it, hence lib rather than share.

PREFIX     ?= /usr/local
DESTDIR    ?=
PKG_BIN     = $(PREFIX)/bin
PKG_LIB     = $(PREFIX)/lib/clockprobe
PKG_DATA    = $(PREFIX)/share/clockprobe
PKG_MAN     = $(PREFIX)/share/man
PKG_DOC     = $(PREFIX)/share/doc/clockprobe
PKG_COMP    = $(PREFIX)/share/bash-completion/completions
PKG_DOCFILES ?= README.md LICENSE
# The documents README links, installed under PKG_DOC/docs/ with their
# folders (a package user has no source tree to follow a link into): every
# one in docs/, so a new document README links is shipped without a line
# here (test_package checks each link); the two schemas README links are
# in PKG_DATA already: linked, not copied.
PKG_DOCS    = $(wildcard docs/*.md docs/platforms/*.md docs/ci/*)
PKG_DOC_SCHEMAS = report-schema.json guest-report-schema.json
# `#!/usr/bin/env python3` finds a python3 on PATH (fine under /usr/local);
# the .deb says /usr/bin/python3, Debian's python3 package.
PYTHON_SHEBANG ?= /usr/bin/env python3

PKG_VERSION := $(shell sed -n 's/^\#define PROBE_VERSION "\(.*\)"/\1/p' include/probe.h)
# The commands cptools/cli.py loads from their files, and what they import.
PKG_SCRIPTS := run matrix compare verdict watch
PKG_MODULES := $(wildcard scripts/cpqemu.py)
PKG_IMAGES   = $(addprefix $(BUILD)/,clockprobe.efi clockprobe.img clockprobe.iso) \
	$(BUILD)/pkg/clockprobe.elf

# Reproducible images and packages: mtools, xorriso, help2man, gzip and
# dpkg-deb take their dates from SOURCE_DATE_EPOCH (the last commit's,
# unless one is given).
# (:= so that git runs once, not for every recipe line the export reaches.)
ifeq ($(origin SOURCE_DATE_EPOCH),undefined)
SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null)
endif
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif

.PHONY: install deb dist

# verdict-judge for an installed copy: the same sources as
# build/host/verdict-judge, without ASan/UBSan (which need their runtime
# libraries and slow every call) and with Debian's hardening flags where
# dpkg-buildflags is there.  The pure sources go into an archive, so the
# link takes what the judge uses (its verdict rules, and the decoders for
# --cpuid) whatever that grows to.  The flags are asked for once, at
# their first use (the $(eval) keeps the answer).
PKG_HARDENING = DEB_BUILD_MAINT_OPTIONS=hardening=+all
PKG_FLAGS    = $(shell $(PKG_HARDENING) dpkg-buildflags --get $(1) 2>/dev/null || echo $(2))
PKG_CFLAGS   = $(eval PKG_CFLAGS := $(call PKG_FLAGS,CFLAGS,-O2 -g))$(PKG_CFLAGS)
PKG_CPPFLAGS = $(eval PKG_CPPFLAGS := $(call PKG_FLAGS,CPPFLAGS,))$(PKG_CPPFLAGS)
PKG_LDFLAGS  = $(eval PKG_LDFLAGS := $(call PKG_FLAGS,LDFLAGS,))$(PKG_LDFLAGS)
PKG_PURE_OBJS := $(patsubst %.c,$(BUILD)/pkg/obj/%.o,$(PURE_SRCS))

$(BUILD)/pkg/obj/%.o: %.c $(ALL_HDRS) $(PURE_HDRS) mk/package.mk
	@mkdir -p $(dir $@)
	@echo "  PKGCC   $<"; $(CC) -std=gnu11 $(WARN) -Iinclude -I$(ARCH_DIR)/include $(PKG_CPPFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/pkg/libpure.a: $(PKG_PURE_OBJS)
	@rm -f $@; $(AR) rcs $@ $^

$(BUILD)/pkg/verdict-judge: $(BUILD)/pkg/obj/src/host/verdict_judge.o $(BUILD)/pkg/libpure.a
	@echo "  PKGLD   $@"; $(CC) $(PKG_CFLAGS) $(PKG_LDFLAGS) $^ -o $@

# The PVH ELF as installed and released: stripped of its symbols and
# debug information (1.2 MB -> ~190 KB), as dh_strip would; the loaded
# segments and the PVH note are build/clockprobe.elf's, byte for byte
# (tests/host/test_package.py checks), and build/ keeps the unstripped one
# for gdb.
$(BUILD)/pkg/clockprobe.elf: $(BUILD)/clockprobe.elf
	@mkdir -p $(dir $@)
	strip --strip-all --remove-section=.comment -o $@ $<

# The command, with its shebang set to PYTHON_SHEBANG.
define pkg_script
	sed '1s|^#!/usr/bin/env python3$$|#!$(PYTHON_SHEBANG)|' $(1) > $(2) && chmod 0755 $(2)
endef
# A tool the command loads as a module (cptools/cli.py reads scripts/run
# and the others from their files; images.py runs boot/'s builders with
# python3): no shebang, not executable -- `clockprobe COMMAND` is the way
# in, and nothing in PREFIX/lib/clockprobe pretends to be a program.
define pkg_module
	sed '1{/^#!/d}' $(1) > $(2) && chmod 0644 $(2)
endef

install:
	@$(DEPS) install
	$(MAKE) -j$(JOBS) all $(BUILD)/pkg/verdict-judge $(BUILD)/pkg/clockprobe.elf
	install -d $(DESTDIR)$(PKG_BIN) $(DESTDIR)$(PKG_LIB)/cptools/templates $(DESTDIR)$(PKG_LIB)/boot \
		$(DESTDIR)$(PKG_DATA) $(DESTDIR)$(PKG_MAN)/man1 $(DESTDIR)$(PKG_MAN)/man5 \
		$(DESTDIR)$(PKG_DOC) $(DESTDIR)$(PKG_COMP)
	install -m 0644 scripts/cptools/*.py $(DESTDIR)$(PKG_LIB)/cptools/
	install -m 0644 scripts/cptools/templates/*.html $(DESTDIR)$(PKG_LIB)/cptools/templates/
	$(if $(PKG_MODULES),install -m 0644 $(PKG_MODULES) $(DESTDIR)$(PKG_LIB)/)
	@set -e; for s in $(PKG_SCRIPTS); do \
		echo "  INSTALL $(DESTDIR)$(PKG_LIB)/$$s"; \
		$(call pkg_module,scripts/$$s,$(DESTDIR)$(PKG_LIB)/$$s); done
	@set -e; for s in mkmedia.py mkova.py; do \
		echo "  INSTALL $(DESTDIR)$(PKG_LIB)/boot/$$s"; \
		$(call pkg_module,boot/$$s,$(DESTDIR)$(PKG_LIB)/boot/$$s); done
	$(call pkg_script,scripts/clockprobe,$(DESTDIR)$(PKG_BIN)/clockprobe)
	echo "$(PKG_VERSION)" > $(DESTDIR)$(PKG_LIB)/VERSION && chmod 0644 $(DESTDIR)$(PKG_LIB)/VERSION
	install -m 0755 $(BUILD)/pkg/verdict-judge $(DESTDIR)$(PKG_LIB)/verdict-judge
	install -m 0755 $(BUILD)/clockprobe-guest $(DESTDIR)$(PKG_LIB)/clockprobe-guest
	install -m 0644 $(PKG_IMAGES) $(DESTDIR)$(PKG_DATA)/
	install -m 0644 tests/matrix.conf docs/report-schema.json docs/guest-report-schema.json \
		$(DESTDIR)$(PKG_DATA)/
	$(if $(PKG_DOCFILES),install -m 0644 $(PKG_DOCFILES) $(DESTDIR)$(PKG_DOC)/)
	@set -e; for d in $(PKG_DOCS); do \
		install -D -m 0644 $$d $(DESTDIR)$(PKG_DOC)/$$d; done
	@# PKG_DOC/docs -> PREFIX/share/clockprobe: ../../../clockprobe
	@set -e; for j in $(PKG_DOC_SCHEMAS); do \
		ln -sf ../../../clockprobe/$$j $(DESTDIR)$(PKG_DOC)/docs/$$j; done
	@# The manual pages and completion from the copy just installed, so
	@# they show its defaults (PREFIX/share/clockprobe/...).
	$(PYTHON) mk/pkgdocs.py man --bin $(DESTDIR)$(PKG_BIN)/clockprobe --out $(DESTDIR)$(PKG_MAN) \
		--prefix $(PREFIX)
	$(PYTHON) mk/pkgdocs.py completion --bin $(DESTDIR)$(PKG_BIN)/clockprobe \
		--out $(DESTDIR)$(PKG_COMP)/clockprobe
	@find $(DESTDIR)$(PKG_LIB) -name __pycache__ -prune -exec rm -rf {} +

# ------------------------------------------------------------------ .deb
# dpkg-deb --build of a staged `make install`, not dpkg-buildpackage: the
# build already lives in this Makefile (and writes only under build/),
# dpkg-buildpackage would want a debian/rules driving it and put its
# outputs in the parent folder, outside build/.  The metadata is still
# Debian's own: debian/control and debian/changelog through
# dpkg-gencontrol (Installed-Size, the version), dpkg-shlibdeps for what
# verdict-judge links against (libc6), and dpkg-deb --root-owner-group
# (no fakeroot needed).
DEB_ARCH    = $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB         = $(BUILD)/clockprobe_$(PKG_VERSION)_$(DEB_ARCH).deb
DEB_WORK    = $(BUILD)/deb
DEB_ROOT    = $(DEB_WORK)/root
LINTIAN    ?= yes

deb:
	@$(DEPS) deb
	@changelog="$$(dpkg-parsechangelog -l debian/changelog -S Version)"; \
	if [ "$$changelog" != "$(PKG_VERSION)" ]; then \
		echo "deb: debian/changelog is at $$changelog, include/probe.h's PROBE_VERSION at $(PKG_VERSION):"; \
		echo "deb: add a debian/changelog entry for $(PKG_VERSION) (dch -v $(PKG_VERSION))"; exit 1; fi
	rm -rf $(DEB_WORK)
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr \
		PKG_DOCFILES=README.md PYTHON_SHEBANG=/usr/bin/python3
	@# What debhelper's dh_strip, dh_installman, dh_installchangelogs,
	@# dh_lintian and dh_md5sums would do, on this one package.
	strip --remove-section=.comment --remove-section=.note --strip-unneeded \
		$(DEB_ROOT)/usr/lib/clockprobe/verdict-judge $(DEB_ROOT)/usr/lib/clockprobe/clockprobe-guest
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/*.1 $(DEB_ROOT)/usr/share/man/man5/*.5
	install -m 0644 debian/copyright $(DEB_ROOT)/usr/share/doc/clockprobe/copyright
	gzip -9n -c debian/changelog > $(DEB_ROOT)/usr/share/doc/clockprobe/changelog.gz
	install -D -m 0644 debian/clockprobe.lintian-overrides \
		$(DEB_ROOT)/usr/share/lintian/overrides/clockprobe
	install -d $(DEB_ROOT)/DEBIAN
	dpkg-shlibdeps -T$(DEB_WORK)/substvars $(DEB_ROOT)/usr/lib/clockprobe/verdict-judge
	@# clockprobe-guest links glibc statically: name the glibc it holds.
	echo "static:Built-Using=$$(dpkg-query -W -f='$${source:Package} (= $${source:Version})' libc6-dev)" \
		>> $(DEB_WORK)/substvars
	dpkg-gencontrol -pclockprobe -T$(DEB_WORK)/substvars -P$(DEB_ROOT) -f$(DEB_WORK)/files
	cd $(DEB_ROOT) && find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums
	chmod 0644 $(DEB_ROOT)/DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)
	@# Every finding shown, overridden ones (O:, with their reasons) too;
	@# an error or a warning fails the build.  (lintian's own --fail-on
	@# would count the overridden ones once --show-overrides is given.)
	@if [ "$(LINTIAN)" = yes ]; then echo "  LINTIAN $(DEB)"; \
		out="$$(lintian --fail-on none --display-info --show-overrides $(DEB) 2>&1)"; \
		echo "$$out"; if echo "$$out" | grep -q '^[EW]: '; then \
		echo "deb: lintian found errors or warnings (above)"; exit 1; fi; fi

# ------------------------------------------------------------------ dist
DIST        = $(BUILD)/dist
DIST_FILES  = $(PKG_IMAGES) $(addprefix $(BUILD)/,clockprobe.ova clockprobe.vmdk clockprobe.vhdx \
	clockprobe.qcow2 clockprobe.vhd clockprobe-gce.tar.gz)

dist:
	@$(DEPS) dist
	$(MAKE) --no-print-directory images $(BUILD)/pkg/clockprobe.elf
	$(MAKE) --no-print-directory deb
	rm -rf $(DIST) && mkdir -p $(DIST)
	cp $(DIST_FILES) $(DEB) $(DIST)/
	sed 's/@VERSION@/$(PKG_VERSION)/g' docs/dist-README.txt > $(DIST)/README
	cd $(DIST) && sha256sum $$(ls | grep -vx SHA256SUMS) > SHA256SUMS
	@echo "dist: clockprobe $(PKG_VERSION) in $(DIST)/:"
	@cd $(DIST) && while read sum name; do \
		printf '  %-34s %10d  %s\n' "$${name#\*}" "$$(stat -c %s "$${name#\*}")" "$$sum"; \
		done < SHA256SUMS
