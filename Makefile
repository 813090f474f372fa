# cudnnvm -- GNU make. Override anything:
#   make PREFIX=$HOME/.local install     make DESTDIR=PKGDIR install
#   make WERROR=0                        make CC=clang asan
.SUFFIXES:

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share/cudnnvm
MANDIR      ?= $(PREFIX)/share/man
# where bash-completion loads completions on demand, for this prefix
BASHCOMPDIR ?= $(or $(shell pkg-config --define-variable=datadir=$(PREFIX)/share \
	--variable=completionsdir bash-completion 2>/dev/null),$(PREFIX)/share/bash-completion/completions)
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

BUILD   ?= build
WERROR  ?= 1
# Two executables, so that env, which, current and the prompt hook start
# like a tiny C program: linking libcurl, libarchive and libcrypto costs
# every start some 5-6 ms. build/cudnnvm, the front binary, links only
# inih and jansson; the commands that download, hash or unpack (marked
# HELPER_CMD in cmd/table.c) run in build/cudnnvm-helper, linked normally
# against all eight (liblzma decodes xz archives on several threads,
# libdeflate and zlib inflate a wheel's files), which the front binary execs in
# its place.
FRONT_PKGS  ?= inih jansson
HELPER_PKGS ?= libcurl libarchive libcrypto liblzma libdeflate zlib $(FRONT_PKGS)
PKG_CFLAGS  = $(shell pkg-config --cflags $(HELPER_PKGS) 2>/dev/null)
# The front binary carries inih and jansson in itself (their Debian -dev
# packages ship the static archives): the loader then maps libc alone at
# each start, the most of a hot command's time. FRONT_STATIC=0 links them
# as shared libraries, for a distribution that wants their security
# updates to reach cudnnvm without a rebuild.
FRONT_STATIC ?= $(shell for l in inih jansson; do \
	  [ -f "$$($(CC) -print-file-name=lib$$l.a)" ] || exit 0; done; echo 1)
FRONT_LIBS  = $(if $(filter 1,$(FRONT_STATIC)),-Wl$(comma)-Bstatic) \
	      $(shell pkg-config --libs $(FRONT_PKGS) 2>/dev/null) \
	      $(if $(filter 1,$(FRONT_STATIC)),-Wl$(comma)-Bdynamic)
comma := ,
# HELPER_STATIC: packages the helper links from their static archives
# (the release build's libarchive, pkg/dist.sh says why), their own
# libraries still shared
HELPER_STATIC ?=
HELPER_LIBS = $(if $(HELPER_STATIC),-Wl$(comma)-Bstatic \
	        $(shell pkg-config --libs-only-l $(HELPER_STATIC) 2>/dev/null) -Wl$(comma)-Bdynamic \
	        $(filter-out $(shell pkg-config --libs-only-l $(HELPER_STATIC) 2>/dev/null), \
	          $(shell pkg-config --static --libs $(HELPER_STATIC) 2>/dev/null))) \
	      $(shell pkg-config --libs $(filter-out $(HELPER_STATIC),$(HELPER_PKGS)) 2>/dev/null)

WARN    = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
          -Wformat=2 -Wvla -Wwrite-strings -Wno-unused-parameter \
          -Wno-format-truncation
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) \
             $(if $(filter 1,$(WERROR)),-Werror) \
             -Ilib -Icmd $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS += -ldl -lpthread

# lib/ is folders by concern, "wings", lowest first: a wing's files call
# and include only the wings before it (make lint-layers checks both).
# Each wing is an archive of its own, linked from the top down, so a call
# into a wing above is left undefined and fails the link; the front binary
# is linked from FRONT_WINGS alone, so a front command that reaches the
# install wing (libcurl, libarchive, libcrypto) fails to link at once.
WINGS       = base machine release store validate activate python install doctor
FRONT_WINGS = $(filter-out install,$(WINGS))
reverse     = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
wing_lib    = $(foreach w,$(call reverse,$(1)),$(BUILD)/lib/libcv-$(w).a)
# the Windows-only files: the install wing's backends (make windows-check)
# and base's Win32 twins (make windows-base)
WIN_ONLY = lib/install/sha256_bcrypt.c lib/install/http_winhttp.c
# JSON: jansson's backend in the Linux builds, jsmn's for Windows (the unit
# tests and the fuzz target build both: tests/unit/test_json.c)
JSON_JSMN = lib/base/json_jsmn.c
LIB_SRC  = $(filter-out $(WIN_ONLY) $(JSON_JSMN) %_win32.c,$(wildcard $(WINGS:%=lib/%/*.c)))
CMD_SRC  = $(wildcard cmd/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  = $(CMD_SRC:%.c=$(BUILD)/%.o)
# The front binary: main.c, the table built without the helper's commands,
# and from an archive only the command files that table reaches.
FRONT_OBJ = $(BUILD)/cmd/main.o $(BUILD)/cmd/table-front.o
CMDA = $(BUILD)/libcudnnvm-cmd.a
UNIT_BIN = $(UNIT_SRC:%.c=$(BUILD)/%) $(BUILD)/tests/unit/test_json_jsmn
LIBA = $(call wing_lib,$(WINGS))
FRONT_LIBA = $(call wing_lib,$(FRONT_WINGS))
BIN  = $(BUILD)/cudnnvm
HELPER = $(BUILD)/cudnnvm-helper

SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=all

# keep the unit tests' object files between runs
.SECONDARY:

.PHONY: all check test check-install unit unit-bins e2e asan deps demo bench \
        install uninstall clean format format-check lint lint-cppcheck \
        lint-tidy lint-layout lint-layers fuzz fuzz-bins fuzz-build completions \
        dist deb wheel rpm sign check-dist oldroot windows-check
all: $(BIN) $(HELPER) $(BUILD)/cudnnvm.1.txt

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/cmd/table-front.o: cmd/table.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DCUDNNVM_FRONT -c -o $@ $<
# `cudnnvm version`: the commit (make COMMIT=... where there is no git
# checkout, as in a release tarball) and inih's version (its header has
# none). build/commit changes only when the commit does, so that a build
# of the same tree relinks nothing.
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell \
	git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD 2>/dev/null && echo -dirty)
$(BUILD)/commit: FORCE
	@mkdir -p $(@D)
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' >$@
$(BUILD)/lib/base/buildinfo.o: $(BUILD)/commit
$(BUILD)/lib/base/buildinfo.o: ALL_CFLAGS += -DCV_COMMIT='"$(COMMIT)"'
$(BUILD)/lib/base/buildinfo_posix.o: ALL_CFLAGS += \
	-DCV_INIH_VERSION='"$(shell pkg-config --modversion inih 2>/dev/null)"'
.PHONY: FORCE
FORCE:
# where an installed front binary looks for the helper when it is not at
# ../libexec/cudnnvm/ beside it
$(BUILD)/cmd/handoff.o: ALL_CFLAGS += -DCV_LIBEXECDIR='"$(LIBEXECDIR)"'
define wing_archive
$(BUILD)/lib/libcv-$(1).a: $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(WIN_ONLY) $(JSON_JSMN) %_win32.c,$(wildcard lib/$(1)/*.c)))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach w,$(WINGS),$(eval $(call wing_archive,$(w))))
# and where `help <command>` finds the man page's text (lib/base/mantext.c)
$(BUILD)/lib/base/mantext.o: ALL_CFLAGS += -DCV_DATADIR='"$(DATADIR)"'
# The man page as plain text, which `help <command>` prints where man(1)
# is absent; empty where mandoc is (then help prints the options alone).
MANDOC ?= mandoc
$(BUILD)/cudnnvm.1.txt: man/cudnnvm.1
	@mkdir -p $(@D)
	@if command -v $(MANDOC) >/dev/null; then \
	  $(MANDOC) -T ascii -O width=78 man/cudnnvm.1 | sed 's/.\x08//g' >$@.tmp && mv $@.tmp $@; \
	else : >$@; fi
# a release build names the glibc its helper needs (pkg/dist.sh): the
# front binary then says so in one line on an older system
GLIBC_FLOOR ?=
$(BUILD)/cmd/handoff.o: ALL_CFLAGS += $(if $(GLIBC_FLOOR),-DCV_GLIBC_FLOOR='"$(GLIBC_FLOOR)"')
$(CMDA): $(filter-out $(FRONT_OBJ) $(BUILD)/cmd/table.o,$(CMD_OBJ))
	@rm -f $@
	$(AR) rcs $@ $^
# Linked without the install wing, libcurl, libarchive and libcrypto: a
# front command that reaches lib/install/ fails to link.
$(BIN): $(FRONT_OBJ) $(CMDA) $(FRONT_LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(FRONT_OBJ) $(CMDA) $(FRONT_LIBA) $(FRONT_LIBS) $(LDLIBS)
$(HELPER): $(CMD_OBJ) $(LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIBA) $(HELPER_LIBS) $(LDLIBS)
$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(HELPER_LIBS) $(LDLIBS)
# the same JSON vectors over jsmn's backend: its object before the
# archives, so that jansson's is never pulled in
$(BUILD)/tests/unit/test_json_jsmn: $(BUILD)/tests/unit/test_json.o \
	  $(BUILD)/$(JSON_JSMN:.c=.o) $(LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(HELPER_LIBS) $(LDLIBS)

unit-bins: $(UNIT_BIN)

# completions/ holds the scripts the binary writes from its command table
# (tests/e2e/docs.bats fails when they differ): run after changing a
# command's options.
completions: $(BIN)
	$(BIN) completions bash >completions/cudnnvm.bash
	$(BIN) completions zsh >completions/_cudnnvm
	$(BIN) completions fish >completions/cudnnvm.fish

# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang into build-fuzz/.
# `make fuzz` runs each for FUZZ_SECONDS; `make test` replays each corpus
# in tests/fuzz/corpus/ once, so every past finding stays a regression test.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_SAN     = -fsanitize=fuzzer-no-link,address,undefined \
               -fno-sanitize-recover=all
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN = $(FUZZ_SRC:%.c=$(BUILD)/%)
$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(LIBA)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer,address,undefined $(LDFLAGS) \
	  -o $@ $^ $(HELPER_LIBS) $(LDLIBS)
# The JSON target holds both backends: jsmn's object with its cv_json_*
# renamed cv_jsmn_*, beside the base archive's jansson one (base alone)
$(BUILD)/tests/fuzz/json_jsmn_renamed.o: $(BUILD)/$(JSON_JSMN:.c=.o)
	nm -P --defined-only $< | awk '$$1 ~ /^cv_json_/ { print $$1, "cv_jsmn_" substr($$1, 9) }' >$@.syms
	objcopy --redefine-syms=$@.syms $< $@
$(BUILD)/tests/fuzz/fuzz_json: $(BUILD)/tests/fuzz/fuzz_json.o \
	  $(BUILD)/tests/fuzz/json_jsmn_renamed.o $(call wing_lib,base)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer,address,undefined $(LDFLAGS) \
	  -o $@ $^ $(HELPER_LIBS) $(LDLIBS)
# The module-file target loads what the writer makes with real Tcl and Lua
# (tcl-dev and liblua5.3-dev, which tests/deps.sh installs; Lmod's Lua).
MODFUZZ_PKGS = tcl lua5.3
$(BUILD)/tests/fuzz/fuzz_modulefile.o: \
	ALL_CFLAGS += $(shell pkg-config --cflags $(MODFUZZ_PKGS) 2>/dev/null)
$(BUILD)/tests/fuzz/fuzz_modulefile: \
	LDLIBS += $(shell pkg-config --libs $(MODFUZZ_PKGS) 2>/dev/null)
fuzz-bins: $(FUZZ_BIN)

# Build the targets when clang and its libFuzzer runtime are there (the
# replay says why it skips otherwise).
fuzz-build:
	@if FUZZ_CC=$(FUZZ_CC) tests/fuzz/run.sh --check >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer -Wno-unknown-warning-option \
	    -Wno-format-nonliteral $(FUZZ_SAN)" \
	    fuzz-bins; \
	fi

fuzz: deps
	@FUZZ_CC=$(FUZZ_CC) tests/fuzz/run.sh --check
	@$(MAKE) --no-print-directory fuzz-build
	@tests/fuzz/run.sh --fuzz $(FUZZ_SECONDS)

# The builds that test and check-install start use every CPU, unless make
# was given -j (then they keep to its count); lint uses every CPU too.
NPROC  := $(shell nproc 2>/dev/null || echo 2)
SUB_J   = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

# The test suite: unit tests under ASan+UBSan, the fuzz corpora and the
# bats suites against the real binary, side by side; ends with one line
# "N passed, N failed, N skipped".
test check: deps
	@$(MAKE) --no-print-directory $(SUB_J) all
	@$(MAKE) --no-print-directory $(SUB_J) BUILD=build-asan CFLAGS="$(SAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" unit-bins
	@$(MAKE) --no-print-directory $(SUB_J) fuzz-build
	@tests/run.sh

# `make install` into a fresh prefix from a build of its own (PREFIX is
# also where the installed front binary looks for its helper), the build
# tree removed, then tests/install/ against the installed copy: what the
# e2e suites cannot check without building the project again.
check-install: deps
	@d=$$(mktemp -d "$${TMPDIR:-/tmp}/cudnnvm-check-install.XXXXXX") && \
	$(MAKE) --no-print-directory $(SUB_J) BUILD="$$d/build" PREFIX="$$d/prefix" \
	  install >"$$d/make.log" 2>&1 || { cat "$$d/make.log"; rm -rf "$$d"; exit 1; }; \
	rm -rf "$$d/build"; \
	CUDNNVM_PREFIX="$$d/prefix" CUDNNVM_BIN="$$d/prefix/bin/cudnnvm" \
	  bats --tap tests/install; rc=$$?; rm -rf "$$d"; exit $$rc

unit: $(UNIT_BIN)
	@tests/run.sh --unit-only $(BUILD)

# Windows (in progress): the install wing's Windows backends, SHA-256 with
# BCrypt and HTTPS with WinHTTP, cross-built with mingw-w64 into a test
# program that tests/win/run.sh runs under wine against the loopback HTTPS
# test mirror (TAP), linked against base's Windows archive (all of base,
# make windows-base below); of the wings above base only sha256.c and the
# two backends build for Windows so far.
WIN_CC    ?= x86_64-w64-mingw32-gcc
WIN_BUILD ?= build-win
WIN_TEST_SRC = tests/win/test_winbackends.c lib/install/sha256.c $(WIN_ONLY)
$(WIN_BUILD)/test_winbackends.exe: $(WIN_TEST_SRC) lib/base/base.h lib/base/base_int.h \
	  lib/install/backend_int.h tests/unit/sha256_vectors.h tests/unit/tap.h \
	  tests/unit/transport_cases.h $(WINBASE_A)
	@mkdir -p $(@D)
	$(WIN_CC) -std=c11 $(WARN) $(if $(filter 1,$(WERROR)),-Werror) -Ilib -Itests/unit \
	  -O2 -o $@ $(WIN_TEST_SRC) $(WINBASE_A) -lwinhttp -lcrypt32 -lbcrypt -lws2_32 -lshlwapi \
	  $(WINBASE_LIBS)
# (and base's Win32 twins first: windows-base, below; then the Windows
# validation child's steps on PE DLLs built by the suite: tests/win/suite.sh;
# then cudnnvm.exe itself, make windows's: tests/win/exe.sh and shell.sh;
# then the JSON vectors over jsmn and the project's zip reader, both
# cross-built: windows-json, windows-zip-check)
windows-check: deps windows-base $(WIN_BUILD)/test_winbackends.exe \
	  $(WIN_BUILD)/winprobe.exe $(WIN_BUILD)/test_pe.exe $(WIN_BUILD)/windoctor.exe \
	  $(WIN_BUILD)/winexec.exe $(WIN_BUILD)/winjunction.exe windows
	@WIN_BUILD=$(WIN_BUILD) tests/win/run.sh $(WIN_BUILD)/test_winbackends.exe
	@tests/win/suite.sh $(WIN_BUILD)
	@tests/win/exe.sh $(WIN_BUILD)
	@tests/win/shell.sh $(WIN_BUILD)
	@$(MAKE) --no-print-directory windows-json windows-zip-check

e2e: $(BIN) $(HELPER)
	@tests/run.sh --e2e-only

asan:
	$(MAKE) BUILD=build-asan CFLAGS="$(SAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" all unit-bins
	tests/run.sh --unit-only build-asan

deps:
	@tests/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@tests/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh

install: $(BIN) $(HELPER) $(BUILD)/cudnnvm.1.txt
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/cudnnvm $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/shims \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cudnnvm
	install -m 755 $(HELPER) $(DESTDIR)$(LIBEXECDIR)/cudnnvm/cudnnvm-helper
	install -m 644 man/cudnnvm.1 $(DESTDIR)$(MANDIR)/man1/cudnnvm.1
	if [ -f man/cudnnvm.ini.5 ]; then install -m 644 man/cudnnvm.ini.5 $(DESTDIR)$(MANDIR)/man5/cudnnvm.ini.5; fi
	if [ -f completions/cudnnvm.bash ]; then install -m 644 completions/cudnnvm.bash $(DESTDIR)$(BASHCOMPDIR)/cudnnvm; fi
	if [ -f completions/_cudnnvm ]; then install -m 644 completions/_cudnnvm $(DESTDIR)$(ZSHCOMPDIR)/_cudnnvm; fi
	if [ -f completions/cudnnvm.fish ]; then install -m 644 completions/cudnnvm.fish $(DESTDIR)$(FISHCOMPDIR)/cudnnvm.fish; fi
	if [ -s $(BUILD)/cudnnvm.1.txt ]; then install -m 644 $(BUILD)/cudnnvm.1.txt $(DESTDIR)$(DATADIR)/cudnnvm.1.txt; fi
	for f in shims/*; do [ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(DATADIR)/shims/; done; true

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cudnnvm $(DESTDIR)$(MANDIR)/man1/cudnnvm.1 \
	  $(DESTDIR)$(MANDIR)/man5/cudnnvm.ini.5 \
	  $(DESTDIR)$(BASHCOMPDIR)/cudnnvm $(DESTDIR)$(ZSHCOMPDIR)/_cudnnvm \
	  $(DESTDIR)$(FISHCOMPDIR)/cudnnvm.fish
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR)/cudnnvm
	# the folders install made, and those above them up to DESTDIR (or
	# PREFIX), once they are empty
	top=$(patsubst %/,%,$(or $(DESTDIR),$(PREFIX))); \
	for d in $(BINDIR) $(LIBEXECDIR) $(MANDIR)/man1 $(MANDIR)/man5 \
	  $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR); do \
	  d="$(DESTDIR)$$d"; \
	  while [ "$$d" != "$$top" ] && [ "$${d#$$top/}" != "$$d" ] && \
	    rmdir "$$d" 2>/dev/null; do d=$${d%/*}; done; \
	done; true

# Release files (pkg/dist.sh says how each is made), built apart from
# build/ in $(DIST_BUILD), written to $(DISTDIR): `make dist` gives the
# source and binary archives, the .deb, the wheel, the .rpm, the SPDX SBOM
# and SHA256SUMS; `make deb`, `make wheel` and `make rpm` one file each.
# Reproducible from one commit (SOURCE_DATE_EPOCH: the commit's time
# unless set). The wheel, the binary archive and the .rpm are built in the
# Debian 11 root `make oldroot` makes (debootstrap, as root; kept in
# OLDROOT and reused), for glibc 2.28; OLDROOT=none builds them here.
DIST_BUILD ?= build-dist
DISTDIR    ?= $(DIST_BUILD)/out
OLDROOT    ?=
dist deb wheel rpm: deps
	@DIST_BUILD=$(DIST_BUILD) DISTDIR=$(DISTDIR) MAKE="$(MAKE)" CC=$(CC) \
	  $(if $(OLDROOT),OLDROOT=$(OLDROOT)) pkg/dist.sh $@
oldroot:
	@$(if $(OLDROOT),OLDROOT=$(OLDROOT)) pkg/oldroot.sh

# SHA256SUMS.minisig, with the secret key in MINISIGN_KEY (minisign asks
# for its password), and beside it the public key users check it with
# (pkg/minisign.pub), as minisign.pub: the README's command finds both.
MINISIGN_KEY ?= $(HOME)/.minisign/cudnnvm.key
MINISIGN_PUB ?= pkg/minisign.pub
sign:
	minisign -S -s $(MINISIGN_KEY) -m $(DISTDIR)/SHA256SUMS \
	  -t "cudnnvm $$(sed -n 's/^#define CV_VERSION_STRING "\(.*\)"$$/\1/p' lib/base/base.h)"
	cp $(MINISIGN_PUB) $(DISTDIR)/minisign.pub

# The release files built twice from this commit, compared byte for byte,
# then tests/dist/ against them: the .deb unpacked, the wheel in every
# layout pip, uv and pipx make, the binary archive unpacked, each
# installing from the test mirror; the wheel, the archive and the .rpm
# again in the Debian 11 root (older than this system); the SBOM, the
# glibc floor of every ELF file, minisign with a throwaway key. Slow (four
# builds, two in the root; the root itself once): CI runs it after make test.
check-dist: deps
	@d=$$(mktemp -d "$${TMPDIR:-/tmp}/cudnnvm-check-dist.XXXXXX") && \
	export SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct)} && \
	for n in a b; do \
	  $(MAKE) --no-print-directory $(SUB_J) DIST_BUILD="$$d/$$n" dist >"$$d/$$n.log" 2>&1 || \
	    { cat "$$d/$$n.log"; rm -rf "$$d"; exit 1; }; \
	done; \
	CUDNNVM_DIST="$$d/a/out" CUDNNVM_DIST2="$$d/b/out" CUDNNVM_DIST_BUILD="$$d/a" \
	  $(if $(OLDROOT),OLDROOT=$(OLDROOT)) bats --tap tests/dist; rc=$$?; rm -rf "$$d"; exit $$rc

clean:
	rm -rf build build-asan build-fuzz build-dist build-win

STYLE_SRC  = $(wildcard lib/*/*.[ch] cmd/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] tests/fixtures/*.c tests/gpu/*.c tests/win/*.c)
TEST_CSRC  = $(wildcard tests/unit/*.c tests/fuzz/*.c tests/fixtures/*.c tests/gpu/*.c)
LINT_FLAGS = -std=c11 -D_GNU_SOURCE -Ilib -Icmd $(PKG_CFLAGS) \
	     $(shell pkg-config --cflags $(MODFUZZ_PKGS) 2>/dev/null)
format:
	clang-format -i $(STYLE_SRC)
format-check:
	clang-format --dry-run --Werror $(STYLE_SRC)
# cppcheck and clang-tidy use every CPU (clang-tidy one process per file;
# tests/ has a .clang-tidy of its own); `make -j lint` also runs the three
# parts side by side.
lint: lint-cppcheck lint-tidy lint-layout lint-layers
lint-cppcheck:
	cppcheck --quiet -j$(NPROC) --enable=warning,performance,portability \
	  --error-exitcode=1 --inline-suppr --std=c11 -D_GNU_SOURCE \
	  -Ilib -Icmd lib cmd $(sort $(dir $(TEST_CSRC)))
lint-tidy:
	@echo "clang-tidy --quiet FILE -- $(LINT_FLAGS)   # each file, $(NPROC) at a time"
	@printf '%s\n' $(LIB_SRC) $(JSON_JSMN) $(CMD_SRC) $(TEST_CSRC) | \
	  xargs -P$(NPROC) -I{} clang-tidy --quiet {} -- $(LINT_FLAGS)
lint-layout:
	@# lib/ never prints or exits
	@! grep -nE '\b(printf|fprintf|puts|exit)\(' lib/*/*.c | grep -v 'snprintf'
	@# jansson only behind base's JSON functions: the Windows build has none
	@! grep -ln '^#include <jansson.h>' lib/*/*.[ch] cmd/*.[ch] | \
	  grep -vx 'lib/base/json_jansson.c'
# Which wing may include and call which (tests/lint-layers.sh says how);
# the calls are read from the objects of a build.
lint-layers: $(LIB_OBJ)
	@tests/lint-layers.sh "$(WINGS)" $(BUILD)

# Windows: base's face of the OS on Win32 (the *_win32.c twins of the
# *_posix.c files), cross-built with mingw-w64 into an archive of its own,
# and test_os.c and test_port.c against it, run under wine. WIN_BASE_SRC is
# every base file but the *_posix.c ones (config_win32.c reads INI with
# the profile API, as Debian builds no inih for mingw).
WIN_AR       ?= x86_64-w64-mingw32-ar
WIN_BASE_SRC = lib/base/file_win32.c lib/base/dl_win32.c \
	       lib/base/proc_win32.c lib/base/buf.c lib/base/path.c \
	       lib/base/pipe.c lib/base/suggest.c lib/base/url.c \
	       lib/base/version.c lib/base/xalloc.c lib/base/err.c lib/base/dir.c lib/base/io.c \
	       lib/base/fs.c lib/base/platform.c lib/base/interrupt.c \
	       lib/base/mantext.c lib/base/shell.c lib/base/buildinfo.c \
	       lib/base/buildinfo_win32.c lib/base/child.c lib/base/child_win32.c \
	       lib/base/config.c lib/base/config_win32.c \
	       lib/base/term.c lib/base/exec.c lib/base/mem.c \
	       lib/base/junction_win32.c lib/base/basename.c \
	       lib/base/json.c lib/base/json_error.c lib/base/json_file.c \
	       $(JSON_JSMN)
WINBASE_CFLAGS = -std=c11 $(WARN) -Werror -D_WIN32_WINNT=0x0A00 -Ilib \
	       -I$(WIN_BUILD)/include -O2 -g -MMD -MP
WINBASE_LIBS = -static -pthread -lpsapi -ladvapi32 -lshell32 -lole32 -luuid
WINBASE_A = $(WIN_BUILD)/lib/libcv-base.a
WINBASE_ENV = WINEPREFIX=$(abspath $(WIN_BUILD))/wine WINEDEBUG=-all \
	       WINEDLLOVERRIDES="mscoree,mshtml="

.PHONY: windows-base
$(WIN_BUILD)/lib/base/buildinfo.o: WINBASE_CFLAGS += -DCV_COMMIT='"$(COMMIT)"'
$(WIN_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(WIN_CC) $(WINBASE_CFLAGS) -c $< -o $@
# jsmn.h (libjsmn-dev) is header-only: a copy of its own for mingw, which
# must not read the build machine's other headers
JSMN_H ?= /usr/include/jsmn.h
$(WIN_BUILD)/include/jsmn.h: $(JSMN_H)
	@mkdir -p $(@D)
	cp $(JSMN_H) $@
$(WIN_BUILD)/$(JSON_JSMN:.c=.o): $(WIN_BUILD)/include/jsmn.h
$(WINBASE_A): $(WIN_BASE_SRC:%.c=$(WIN_BUILD)/%.o)
	rm -f $@ && $(WIN_AR) rcs $@ $^
$(WIN_BUILD)/test_%.exe: $(WIN_BUILD)/tests/unit/test_%.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
# The Windows validation child (validate's probe_win32.c, machine's PE
# reader) over base's Win32 archive: winprobe.exe runs its steps on one
# folder for tests/win/suite.sh, test_pe.exe is the PE reader's unit test;
# windoctor.exe gives doctor's Windows findings (lib/doctor/windows.c).
WIN_PROBE_SRC = lib/validate/probe_win32.c lib/validate/probe_decode.c \
	       lib/validate/probe_conv.c \
	       lib/validate/validation.c \
	       lib/machine/pe.c
$(WIN_BUILD)/winprobe.exe: $(WIN_BUILD)/tests/win/winprobe.o \
	  $(WIN_PROBE_SRC:%.c=$(WIN_BUILD)/%.o) $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
$(WIN_BUILD)/windoctor.exe: $(WIN_BUILD)/tests/win/windoctor.o \
	  $(WIN_BUILD)/lib/doctor/windows.o $(WIN_BUILD)/lib/machine/loader_win32.o \
	  $(WIN_BUILD)/lib/machine/pe.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
$(WIN_BUILD)/winexec.exe: $(WIN_BUILD)/tests/win/winexec.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
$(WIN_BUILD)/tests/win/winjunction.o: WINBASE_CFLAGS += -Itests/unit
$(WIN_BUILD)/winjunction.exe: $(WIN_BUILD)/tests/win/winjunction.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
$(WIN_BUILD)/test_pe.exe: $(WIN_BUILD)/tests/unit/test_pe.o \
	  $(WIN_BUILD)/lib/machine/pe.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
# base's JSON vectors (tests/unit/test_json.c) over jsmn's backend as the
# Windows build links it: mingw's printf and strtod under wine
.PHONY: windows-json
$(WIN_BUILD)/test_json.exe: $(WIN_BUILD)/tests/unit/test_json.o $(WINBASE_A)
	$(WIN_CC) -o $@ $^ $(WINBASE_LIBS)
windows-json: $(WIN_BUILD)/test_json.exe
	@mkdir -p $(WIN_BUILD)/wine
	@rc=0; $(WINBASE_ENV) timeout 300 wine $< >$(WIN_BUILD)/test_json.tap || rc=$$?; \
	  tr -d '\r' <$(WIN_BUILD)/test_json.tap; \
	  if [ $$rc -ne 0 ] || grep -q '^not ok' $(WIN_BUILD)/test_json.tap || \
	     ! grep -q '^1\.\.[1-9]' $(WIN_BUILD)/test_json.tap; then \
	    echo "windows-json: test_json.exe failed under wine (exit $$rc)" >&2; exit 1; fi
# each fails when the test fails, says no TAP plan, or any case is not ok
WINBASE_TESTS = test_os test_port
windows-base: $(WINBASE_TESTS:%=$(WIN_BUILD)/%.exe)
	@mkdir -p $(WIN_BUILD)/wine
	@for t in $(WINBASE_TESTS); do rc=0; \
	  $(WINBASE_ENV) timeout 300 wine $(WIN_BUILD)/$$t.exe >$(WIN_BUILD)/$$t.tap || rc=$$?; \
	  tr -d '\r' <$(WIN_BUILD)/$$t.tap; \
	  if [ $$rc -ne 0 ] || grep -q '^not ok' $(WIN_BUILD)/$$t.tap || \
	     ! grep -q '^1\.\.[1-9]' $(WIN_BUILD)/$$t.tap; then \
	    echo "windows-base: $$t.exe failed under wine (exit $$rc)" >&2; exit 1; fi; \
	done

# Windows: the install wing cross-built with mingw-w64 into an archive of
# its own for cudnnvm.exe (make windows-install): HTTPS through WinHTTP
# (http_winhttp.c), SHA-256 through BCrypt (sha256_bcrypt.c), zips read by
# the project's reader and inflated by zlib (extract_zip.c). Left out, as
# Linux's alone: http_curl.c and sha256_openssl.c (their Windows twins are
# in), extract_tar.c and extract_stream.c (libarchive, liblzma and
# libdeflate, which Debian builds for Linux only; a Windows zip is spooled
# and read from its directory instead) and export_oci.c (container images,
# written with libarchive). Left out until their JSON goes through
# cv_json_* (jansson is Linux's alone): local_archive.c, import.c and
# pypi.c, whose functions run.c and install.c call (so cudnnvm.exe links
# once they are in).
WIN_INSTALL_SRC = $(addprefix lib/install/,run.c artifact.c remote.c \
		  download.c sha256.c sha256_bcrypt.c http_winhttp.c pins.c \
		  index.c rank.c resolve.c install.c deps_install.c \
		  extract_policy.c extract_zip.c mirror.c lock_resolve.c \
		  builds.c cublas_channel.c easybuild.c local_archive.c \
		  import.c pypi.c)
WIN_INSTALL_A = $(WIN_BUILD)/lib/libcv-install.a
# what cudnnvm.exe links with it
WIN_INSTALL_LIBS = -lwinhttp -lcrypt32 -lbcrypt -lws2_32 -lshlwapi \
		   /usr/x86_64-w64-mingw32/lib/libz.a
$(WIN_INSTALL_A): $(WIN_INSTALL_SRC:%.c=$(WIN_BUILD)/%.o)
	rm -f $@ && $(WIN_AR) rcs $@ $^
.PHONY: windows-install windows-zip-check
windows-install: $(WIN_INSTALL_A)
# That zip path under wine (tests/win/zip.sh: NVIDIA-shaped Windows zips
# unpacked as unzip would, hostile ones refused); it links base's Windows
# archive whole (fs.c's folders among it), which needs base's Win32 port.
$(WIN_BUILD)/test_winzip.exe: tests/win/test_winzip.c $(WIN_INSTALL_A) $(WINBASE_A)
	$(WIN_CC) $(WINBASE_CFLAGS) -Itests/unit -o $@ tests/win/test_winzip.c \
	  $(WIN_INSTALL_A) $(WINBASE_A) $(WIN_INSTALL_LIBS) $(WINBASE_LIBS)
windows-zip-check: $(WIN_BUILD)/test_winzip.exe
	@WIN_BUILD=$(WIN_BUILD) tests/win/zip.sh $(WIN_BUILD)/test_winzip.exe

# make windows: build-win/cudnnvm.exe, x86-64, static, -Werror, from the
# same cmd/ and lib/ sources. One executable, not the Linux front/helper
# pair (cmd/handoff.c says why): cmd/table.c is built without
# CUDNNVM_FRONT, so every command runs in-process. Each wing is an archive
# of its own, as on Linux, so only what a command reaches is linked. Left
# out: what only Linux has (the ELF and ld.so.cache readers, whose
# questions machine/loader_win32.c answers for the Windows loader; the
# dlopen probe and its bench, probe_win32.c instead; the OpenSSL and
# libarchive backends; CDI, OCI export, the EasyBuild and Lmod writers,
# whose commands answer in one line, exit 64)
# and the POSIX halves of base. mingw's printf is its C99 one
# (__USE_MINGW_ANSI_STDIO: %zu and %lld); -Wno-format since GCC checks the
# project's printf-like functions against msvcrt's formats there (the
# same format strings are checked by the Linux build).
# The install wing is make windows-install's archive (WIN_INSTALL_SRC).
WIN_LINUX_ONLY = lib/machine/elf.c lib/machine/ldcache.c \
	       lib/validate/probe.c lib/validate/bench_probe.c \
	       lib/activate/cdi.c \
	       cmd/cdi.c cmd/export.c cmd/modulefiles.c cmd/bench.c
WIN_EXE_CFLAGS = $(WINBASE_CFLAGS) -Icmd -D__USE_MINGW_ANSI_STDIO=1 -Wno-format
WIN_EXE_LIBS = $(WINBASE_LIBS) $(WIN_INSTALL_LIBS)
WIN_WING_SRC = $(filter-out $(WIN_LINUX_ONLY) %_posix.c,\
	       $(wildcard lib/$(1)/*.c))
WIN_CMD_SRC = $(filter-out $(WIN_LINUX_ONLY),$(wildcard cmd/*.c))
WIN_EXE_WINGS = $(filter-out base install,$(WINGS))
$(WIN_BUILD)/exe/%.o: %.c
	@mkdir -p $(@D)
	$(WIN_CC) $(WIN_EXE_CFLAGS) -c $< -o $@
define win_wing_archive
$(WIN_BUILD)/exe/libcv-$(1).a: $$(patsubst %.c,$(WIN_BUILD)/exe/%.o,$$(call WIN_WING_SRC,$(1)))
	@rm -f $$@
	$$(WIN_AR) rcs $$@ $$^
endef
$(foreach w,$(WIN_EXE_WINGS),$(eval $(call win_wing_archive,$(w))))
WIN_EXE_LIBA = $(WIN_BUILD)/exe/libcv-doctor.a $(WIN_INSTALL_A) \
	       $(foreach w,$(call reverse,$(filter-out doctor,$(WIN_EXE_WINGS))),\
	         $(WIN_BUILD)/exe/libcv-$(w).a) \
	       $(WINBASE_A)
# The manifest (pkg/windows/cudnnvm.exe.manifest) makes the process's code
# page UTF-8, so argv and getenv arrive in the UTF-8 the sources use.
WIN_WINDRES ?= x86_64-w64-mingw32-windres
$(WIN_BUILD)/exe/cudnnvm.res: pkg/windows/cudnnvm.rc pkg/windows/cudnnvm.exe.manifest
	@mkdir -p $(@D)
	$(WIN_WINDRES) -I pkg/windows pkg/windows/cudnnvm.rc -O coff -o $@
$(WIN_BUILD)/cudnnvm.exe: $(WIN_CMD_SRC:%.c=$(WIN_BUILD)/exe/%.o) $(WIN_EXE_LIBA) \
	  $(WIN_BUILD)/exe/cudnnvm.res
	$(WIN_CC) -o $@ $(WIN_CMD_SRC:%.c=$(WIN_BUILD)/exe/%.o) $(WIN_EXE_LIBA) \
	  $(WIN_BUILD)/exe/cudnnvm.res $(WIN_EXE_LIBS)
.PHONY: windows
windows: $(WIN_BUILD)/cudnnvm.exe

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)
-include $(wildcard $(WIN_BUILD)/*/*/*.d $(WIN_BUILD)/*/*/*/*.d)
