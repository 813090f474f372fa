# cudnnvm -- GNU make. Override anything:
#   make PREFIX=$HOME/.local install     make DESTDIR=PKGDIR install
#   make WERROR=0                        make CC=clang asan
.SUFFIXES:

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
DATADIR     ?= $(PREFIX)/share/cudnnvm
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

BUILD   ?= build
WERROR  ?= 1
# libcurl, libarchive and libcrypto are compiled against but not linked:
# lib/dynload.c loads them on first use, so that env, which, current and
# the prompt hook start like a tiny C program.
PKGS    ?= libcurl libarchive libcrypto liblzma inih jansson
LINKED_PKGS ?= liblzma inih jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(LINKED_PKGS) 2>/dev/null)

WARN    = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
          -Wformat=2 -Wvla -Wwrite-strings -Wno-unused-parameter \
          -Wno-format-truncation
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) \
             $(if $(filter 1,$(WERROR)),-Werror) \
             -Ilib -Icmd $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS += $(PKG_LIBS) -ldl -lpthread

LIB_SRC  = $(wildcard lib/*.c)
CMD_SRC  = $(wildcard cmd/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  = $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN = $(UNIT_SRC:%.c=$(BUILD)/%)
LIBA = $(BUILD)/libcudnnvm.a
BIN  = $(BUILD)/cudnnvm

SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=all

# keep the unit tests' object files between runs
.SECONDARY:

.PHONY: all check test unit unit-bins e2e asan deps demo bench install \
        uninstall clean format format-check lint fuzz fuzz-bins fuzz-build
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BIN): $(CMD_OBJ) $(LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIBA) $(LDLIBS)
# Unit tests may call the libraries directly (to build test archives).
$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBA)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) \
	  $(shell pkg-config --libs $(PKGS) 2>/dev/null)

unit-bins: $(UNIT_BIN)

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
	  -o $@ $^ $(LDLIBS) $(shell pkg-config --libs $(PKGS) 2>/dev/null)
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

# The test suite: unit tests under ASan+UBSan, then the bats suites against
# the real binary; ends with one line "N passed, N failed".
test check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="$(SAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" unit-bins
	@$(MAKE) --no-print-directory fuzz-build
	@tests/run.sh

unit: $(UNIT_BIN)
	@tests/run.sh --unit-only $(BUILD)

e2e: $(BIN)
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

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/shims \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cudnnvm
	install -m 644 man/cudnnvm.1 $(DESTDIR)$(MANDIR)/man1/cudnnvm.1
	if [ -f man/cudnnvm.ini.5 ]; then install -m 644 man/cudnnvm.ini.5 $(DESTDIR)$(MANDIR)/man5/cudnnvm.ini.5; fi
	if [ -f completions/cudnnvm.bash ]; then install -m 644 completions/cudnnvm.bash $(DESTDIR)$(BASHCOMPDIR)/cudnnvm; fi
	if [ -f completions/_cudnnvm ]; then install -m 644 completions/_cudnnvm $(DESTDIR)$(ZSHCOMPDIR)/_cudnnvm; fi
	if [ -f completions/cudnnvm.fish ]; then install -m 644 completions/cudnnvm.fish $(DESTDIR)$(FISHCOMPDIR)/cudnnvm.fish; fi
	for f in shims/*; do [ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(DATADIR)/shims/; done; true

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cudnnvm $(DESTDIR)$(MANDIR)/man1/cudnnvm.1 \
	  $(DESTDIR)$(MANDIR)/man5/cudnnvm.ini.5 \
	  $(DESTDIR)$(BASHCOMPDIR)/cudnnvm $(DESTDIR)$(ZSHCOMPDIR)/_cudnnvm \
	  $(DESTDIR)$(FISHCOMPDIR)/cudnnvm.fish
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-asan build-fuzz

STYLE_SRC  = $(wildcard lib/*.[ch] cmd/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] tests/fixtures/*.c tests/gpu/*.c)
LINT_FLAGS = -std=c11 -D_GNU_SOURCE -Ilib -Icmd $(PKG_CFLAGS)
format:
	clang-format -i $(STYLE_SRC)
format-check:
	clang-format --dry-run --Werror $(STYLE_SRC)
lint:
	cppcheck --quiet --enable=warning,performance,portability \
	  --error-exitcode=1 --inline-suppr --std=c11 -D_GNU_SOURCE \
	  -Ilib -Icmd lib cmd
	clang-tidy --quiet $(LIB_SRC) $(CMD_SRC) -- $(LINT_FLAGS)
	@# shape rules: cmd/ includes only the public headers; lib/ never prints or exits
	@! grep -n '#include "' cmd/*.c | grep -v '"\(cudnnvm\|cmd\|ui\)\.h"'
	@! grep -nE '\b(printf|fprintf|puts|exit)\(' lib/*.c | grep -v 'snprintf'

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)
