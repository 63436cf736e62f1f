# SPDX-License-Identifier: MIT
# prec: one non-recursive Makefile. Objects under build/ (or build-<sanitizers>/,
# build-arm64/ for ARCH=arm64).
# Every src/*/*.c except src/main.c goes into libprec.a; tests and fuzzers link it.

PREFIX   ?= /usr/local
DESTDIR  ?=
WERROR   ?= 1
SANITIZE ?=
V        ?= 0

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ARCH=arm64: a static build in build-arm64/ (the binary and test programs a
# bare guest runs), cross-compiled with aarch64-linux-gnu-gcc against the
# :arm64 -dev packages unless the host is arm64 itself. Without ARCH, the
# host's own dynamic build in build/, whatever the host.
HOST_ARCH := $(shell uname -m)
ARCH ?=
PREC_ARCH :=
ifneq ($(filter arm64 aarch64,$(ARCH)),)
PREC_ARCH := arm64
ARCH_SUFFIX := -arm64
STATIC := -static
ifeq ($(filter arm64 aarch64,$(HOST_ARCH)),)
CROSS_COMPILE ?= aarch64-linux-gnu-
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
endif
else ifneq ($(filter-out $(HOST_ARCH) $(if $(filter x86_64,$(HOST_ARCH)),amd64 x86),$(ARCH)),)
$(error ARCH=$(ARCH): prec builds for the host ($(HOST_ARCH)) or for ARCH=arm64)
endif
CROSS_COMPILE ?=
PKG_CONFIG ?= pkg-config
ifneq ($(CROSS_COMPILE),)
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif
endif

PKGS := liburing libelf liblz4 libzstd
PKG_OK := $(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null && echo yes)
# libpfm4 has no pkg-config file: its header is what the build needs (the
# library is dlopen'ed at run time by src/record/pfm.c).
PFM_OK := $(shell $(CC) -E -include perfmon/pfmlib_perf_event.h -x c /dev/null >/dev/null 2>&1 && echo yes)

ifneq ($(SANITIZE),)
BUILD ?= build$(ARCH_SUFFIX)-$(subst $(comma),-,$(SANITIZE))
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build$(ARCH_SUFFIX)
SAN_FLAGS :=
endif
comma := ,
# One name for each object: BUILD=$(CURDIR)/build (tests/e2e/install.sh's)
# made objects whose .d files named them by the absolute path, so a later
# plain make, asking for build/..., read none of their header dependencies
# and linked them stale after a header changed. BUILD's directory is
# resolved first: CURDIR is getcwd's, without the symlinks of a path such
# as $PWD/build in a tree reached through one.
build_parent := $(patsubst %/,%,$(dir $(patsubst %/,%,$(BUILD))))
build_parent := $(or $(realpath $(build_parent)),$(abspath $(build_parent)))
override BUILD := $(patsubst $(CURDIR)/%,%,$(build_parent)/$(notdir $(patsubst %/,%,$(BUILD))))

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wundef -Wno-format-nonliteral
ifeq ($(WERROR),1)
WARN += -Werror
endif
# TSan cannot model atomic_thread_fence (the perf mmap page's seqlock reads
# use one): GCC warns, which -Werror would make fatal.
ifneq ($(findstring thread,$(SANITIZE)),)
WARN += -Wno-tsan
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) $(SAN_FLAGS) $(EXTRA_CFLAGS) -D_GNU_SOURCE -Isrc -pthread -MMD -MP
LDFLAGS += $(SAN_FLAGS) $(STATIC) -pthread
ifeq ($(PKG_OK),yes)
CFLAGS  += $(shell $(PKG_CONFIG) --cflags $(PKGS))
LDLIBS  += $(shell $(PKG_CONFIG) --libs $(if $(STATIC),--static) $(PKGS))
endif
LDLIBS  += -lm

LIB_SRC  := $(filter-out src/main.c,$(wildcard src/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libprec.a
BIN      := $(BUILD)/prec
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
TLIB_SRC := $(wildcard tests/lib/*.c)
TLIB_OBJ := $(TLIB_SRC:%.c=$(BUILD)/%.o)
HELP_SRC := $(wildcard tests/helpers/*.c)
HELP_BIN := $(HELP_SRC:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
# pfm_encode, the host's judge of prec's libpfm4 encodings, links libpfm4,
# which a cross build has no library of (and the guests do not run it).
ifneq ($(CROSS_COMPILE),)
HELP_BIN := $(filter-out %/pfm_encode,$(HELP_BIN))
endif
FUZZ_SRC := $(filter-out tests/fuzz/replay_main.c,$(wildcard tests/fuzz/*.c))
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%-replay)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.SECONDARY:
.PHONY: all deps check-deps test unit demo bench install uninstall clean fuzz fuzzers deb FORCE
all: check-deps $(BIN) $(if $(filter build,$(BUILD)),prec)

check-deps:
ifneq ($(PKG_OK),yes)
	@echo "prec: missing build dependency: pkg-config cannot find one of: $(PKGS)$(if $(PREC_ARCH), for $(PREC_ARCH)) (run 'make deps$(if $(PREC_ARCH), ARCH=$(PREC_ARCH))')" >&2; exit 1
endif
ifneq ($(PFM_OK),yes)
	@echo "prec: missing build dependency: <perfmon/pfmlib_perf_event.h> (libpfm4-dev; run 'make deps')" >&2; exit 1
endif

deps:
	$(Q)scripts/deps.sh $(PREC_ARCH)

prec: $(BIN)
	$(Q)ln -sf $(BIN) prec

$(BIN): $(BUILD)/src/main.o $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# What `prec --version` reports, for main.c only: `git describe` when this
# directory is the top of a git work tree (not a copy inside another one,
# as `make deb` builds), else the GIT_DESCRIBE file a source export carries;
# and the libraries' versions as pkg-config sees them. The stamp changes only
# when the text does, so main.o is rebuilt after a commit or an edit.
GIT_DESCRIBE ?= $(shell if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
	git describe --always --dirty 2>/dev/null; elif [ -f GIT_DESCRIBE ]; then cat GIT_DESCRIBE; fi)
modversion = $(if $(PKG_OK),$(shell $(PKG_CONFIG) --modversion $(1) 2>/dev/null))
VERSION_DEFS := -DPREC_GIT_DESCRIBE='"$(GIT_DESCRIBE)"' \
	-DPREC_LIBURING_VERSION='"$(call modversion,liburing)"' \
	-DPREC_LIBELF_VERSION='"$(call modversion,libelf)"' \
	-DPREC_LZ4_VERSION='"$(call modversion,liblz4)"' \
	-DPREC_ZSTD_VERSION='"$(call modversion,libzstd)"'
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION_DEFS)' | cmp -s - $@ || echo '$(VERSION_DEFS)' > $@
$(BUILD)/src/main.o: CFLAGS += $(VERSION_DEFS)
$(BUILD)/src/main.o: $(BUILD)/version.stamp
FORCE:

# Tests include their helpers as "lib/test.h".
$(BUILD)/tests/%.o: CFLAGS += -Itests
# a known call chain for tests/e2e/callgraph.sh: frame pointers for -g
$(BUILD)/tests/helpers/callchain.o: CFLAGS += -fno-omit-frame-pointer
# tests/e2e/flight_sideband.sh's workload, unwound with -g as well
$(BUILD)/tests/helpers/chain.o: CFLAGS += -fno-omit-frame-pointer
# tests/e2e/offcpu.sh's workload: the off-CPU chains are frame pointers
$(BUILD)/tests/helpers/offsleep.o: CFLAGS += -fno-omit-frame-pointer
$(BUILD)/bench/%.o: CFLAGS += -Itests

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(TLIB_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/helpers/%: $(BUILD)/tests/helpers/%.o $(TLIB_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The judge of prec's libpfm4 encodings links libpfm4 itself.
$(BUILD)/tests/helpers/pfm_encode: $(BUILD)/tests/helpers/pfm_encode.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -lpfm

# Workloads with exactly known event counts are built without sanitizers:
# a sanitizer runtime makes system calls of its own (LSan's exit-time
# tracer calls getppid) and maps shadow memory (page faults), which would
# change the counts the tests assert.
WORKLOADS := $(BUILD)/tests/helpers/storm $(BUILD)/tests/helpers/pingpong \
	     $(BUILD)/tests/helpers/goners \
	     $(BUILD)/tests/helpers/faults
# And mapswap, which e2e/attack_buildid.sh runs as --user nobody under
# strace -f: prec gives a command run as another user a reset environment,
# so no ASAN_OPTIONS=detect_leaks=0 reaches it, and LeakSanitizer cannot
# run under ptrace (its exit would be a fatal error, the workload's status).
WORKLOADS += $(BUILD)/tests/helpers/mapswap
$(WORKLOADS:=.o): SAN_FLAGS :=
$(WORKLOADS): %: %.o
	$(Q)$(CC) $(STATIC) -o $@ $^

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Fuzz targets double as corpus replayers: the same LLVMFuzzerTestOneInput
# linked with a plain main (tests/fuzz/replay_main.c), built by any compiler.
$(BUILD)/tests/fuzz/%-replay: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# LD_PRELOAD stand-ins the e2e tests load into prec (a host build only: a
# static prec loads none); no sanitizer, which would want to come first.
PRELOAD_SO := $(if $(STATIC),,$(patsubst tests/preload/%.c,$(BUILD)/tests/preload/%.so,$(wildcard tests/preload/*.c)))
$(BUILD)/tests/preload/%.so: tests/preload/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) -D_GNU_SOURCE -O2 -g -fPIC -shared -pthread -o $@ $< -ldl

unit: check-deps $(BIN) $(UNIT_BIN) $(HELP_BIN) $(REPLAY_BIN) $(PRELOAD_SO)

# The unit tests and the fuzz corpora's replays of this build, run here: a
# cross build's under qemu-user (which has no io_uring or perf_event_open:
# the tests that need them skip; the arm64 guest suite runs them all).
ifneq ($(CROSS_COMPILE),)
TEST_EXEC ?= qemu-aarch64-static
endif
TEST_EXEC ?=
.PHONY: unit-run
unit-run: unit
	$(Q)BUILD=$(BUILD) PREC=$(CURDIR)/$(BIN) TEST_EXEC="$(TEST_EXEC)" tests/run.sh unit/ e2e/fuzz_replay

# libFuzzer builds: make fuzz CC=clang  (then build-fuzz/fuzz/<target> corpus/)
fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz SANITIZE=address,undefined \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link" fuzzers

FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
fuzzers: $(FUZZ_BIN)
$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# The README's test command: deps, build, every test.
test: deps
ifneq ($(CROSS_COMPILE),)
	@echo "prec: make test ARCH=$(PREC_ARCH): this host cannot run a cross build's e2e tests; make ARCH=$(PREC_ARCH) unit-run (unit tests under qemu-user) or make vmtest ARCH=$(PREC_ARCH)" >&2; exit 1
endif
	$(Q)$(MAKE) --no-print-directory unit $(if $(filter build,$(BUILD)),prec)
	$(Q)BUILD=$(BUILD) PREC=$(CURDIR)/$(BIN) tests/run.sh $(TESTS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)PREC=$(CURDIR)/$(BIN) scripts/demo.sh

bench: check-deps $(BIN) $(BENCH_BIN) $(HELP_BIN)

# The bash completion goes where bash-completion loads it on demand.
MANDIR  := $(PREFIX)/share/man/man1
COMPDIR := $(PREFIX)/share/bash-completion/completions
MANS    := $(wildcard docs/man/*.1)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/prec
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/
	install -m 0644 completion/prec.bash $(DESTDIR)$(COMPDIR)/prec

# Removes what install put there, and nothing else (the directories stay).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/prec $(DESTDIR)$(COMPDIR)/prec \
		$(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(MANS)))

# The Debian package, built in a copy of the tree under DEB_DIR (dpkg-
# buildpackage writes to the parent directory): the copy holds the work
# tree's files as they are, tracked or not (ignored ones aside), and
# GIT_DESCRIBE, so that the package's `prec --version` names the commit.
# Leaves prec_*.deb, the .changes and the .buildinfo in DEB_DIR, after
# lintian passes them with no warning or error (as root too: a build
# container's user). Installs debhelper and lintian first (scripts/deps.sh
# deb; as root).
DEB_DIR ?= build/deb
deb:
	$(Q)scripts/deps.sh deb
	$(Q)set -e; src=$(DEB_DIR)/prec-src; rm -rf "$$src"; mkdir -p "$$src"; \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - | tar -xf - -C "$$src"; \
		git describe --always --dirty > "$$src/GIT_DESCRIBE"; \
	else \
		tar --exclude='./build' --exclude='./build-*' --exclude='./prec' -cf - . | \
			tar -xf - -C "$$src"; \
	fi; \
	v=$$(dpkg-parsechangelog -l debian/changelog -S Version); \
	a=$$(dpkg-architecture -q DEB_HOST_ARCH); \
	rm -f $(DEB_DIR)/prec_$${v}_* $(DEB_DIR)/prec-dbgsym_$${v}_*; \
	(cd "$$src" && dpkg-buildpackage -us -uc -b $(if $(Q),>../build.log 2>&1 || { tail -n 40 ../build.log; exit 1; })); \
	rm -rf "$$src"; \
	lintian --fail-on error,warning --info $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(DEB_DIR)/prec_$${v}_$$a.changes; \
	echo "deb: $(DEB_DIR)/prec_$${v}_$$a.deb"

clean:
	rm -rf build build-* prec

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_BIN:=.d) $(TLIB_OBJ:.o=.d) \
	$(HELP_BIN:=.d) $(BENCH_BIN:=.d) $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.d)

# The guest suite on Debian's 6.1 cloud kernel under qemu (tests/vm/run.sh):
# make vmtest NCPU=8 (installs qemu, busybox-static, cpio, the kernel; needs root).
# make vmtest ARCH=arm64: the arm64 guests with an emulated PMU, prec beside
# perf (tests/vm/a64_run.sh, docs/many-cpus.md); VM_MODES="icount smp" and
# VM_CHECKS=all choose the boots and the checks.
NCPU ?= 8
VM_HELPERS := $(addprefix $(BUILD)/tests/helpers/,storm pingpong shardcount mfdump xcpu)
.PHONY: vmtest
ifeq ($(PREC_ARCH),arm64)
# The guest's workload: loops of exactly known instruction counts, frame
# records in every function (-g), an .eh_frame_hdr for perf's DWARF
# unwinder (--call-graph dwarf; gcc links a static binary without one).
$(BUILD)/tests/vm/pmusplit: tests/vm/pmusplit.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -static -Wl,--eh-frame-hdr -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		$(WARN) -o $@ $<
vmtest: check-deps $(BIN) $(UNIT_BIN) $(HELP_BIN) $(BUILD)/tests/vm/pmusplit
	$(Q)BUILD=$(BUILD) tests/vm/a64_run.sh "$(or $(VM_MODES),icount smp)" "$(or $(VM_CHECKS),all)"
else
vmtest: check-deps $(BIN) $(VM_HELPERS)
	$(Q)BUILD=$(BUILD) tests/vm/run.sh $(NCPU)
endif
