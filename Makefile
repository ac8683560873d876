# memwatch - build, test and benchmark.
#
#   make            build/native/memwatchd (the host's daemon)
#   make windows    build/win64/memwatchd.exe, static, cross-built with MinGW-w64
#   make run        build and run the daemon with its defaults
#   make test       every test: native under ASan+UBSan, win64 under Wine, end to end
#   make bench      benchmarks (not part of test)
#   make bench-peers  memwatch beside Netdata, collectd, process-exporter (bench/peers/run.sh)
#   make fuzz       libFuzzer targets (clang)
#   make deps       install what is missing (Debian packages, libraries built
#                   from Debian's sources: native libmicrohttpd, the win64 ones)
#
# Sources are found by directory; platform files are picked by name:
# NAME_linux.c only on Linux, NAME_win32.c only on Windows.  Tests are
# tests/test_NAME.c (both), tests/test_NAME_linux.c, tests/test_NAME_win32.c,
# each one cmocka program linked with everything but app/main.c.

VERSION := 0.1.0
SRC_DIRS := base core collectors storage analysis import web forward app
HOST_OS := $(shell uname -s)
ifneq (,$(findstring MINGW,$(HOST_OS))$(findstring MSYS,$(HOST_OS)))
NATIVE_PLATFORM := win32
EXE := .exe
else
NATIVE_PLATFORM := linux
EXE :=
endif

CC ?= cc
CROSS_CC := x86_64-w64-mingw32-gcc
CLANG ?= clang

WARNINGS := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef \
	-Wwrite-strings -Wvla -Wnull-dereference -Wimplicit-fallthrough \
	-Wno-format-nonliteral -Wno-format-truncation
# -Werror in CI (CI=true) and whenever WERROR=1.
ifneq (,$(filter true 1,$(CI) $(WERROR)))
WARNINGS += -Werror
endif
COMMON_CFLAGS := $(WARNINGS) -D_GNU_SOURCE -DMW_VERSION='"$(VERSION)"' -I.
GENERATED := build/gen

# Native dependencies through pkg-config.
PKGS := libmicrohttpd libcjson sqlite3 libcurl
# On Linux libmicrohttpd is the static one scripts/deps.sh builds without
# HTTPS (build/deps/native), found before Debian's: Debian's links GnuTLS,
# ~2.2 MB of resident library pages in every daemon, which only [web]
# tls_cert needs (web/mhd_api.h loads Debian's at run time then).
ifeq ($(NATIVE_PLATFORM),linux)
NATIVE_DEPS_STAMP := build/deps/native/.stamp
NATIVE_PKG_CONFIG := PKG_CONFIG_PATH=$(CURDIR)/build/deps/native/lib/pkgconfig$(if \
	$(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH)) pkg-config
else
NATIVE_DEPS_STAMP :=
NATIVE_PKG_CONFIG := pkg-config
endif
NATIVE_DEP_CFLAGS = $(shell $(NATIVE_PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl is not linked: forward/curl_lib_linux.c loads it on first use.
NATIVE_DEP_LIBS = $(shell $(NATIVE_PKG_CONFIG) --libs $(filter-out libcurl,$(PKGS)) 2>/dev/null) -ldl -lpthread -lm
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

# Win64 dependencies, cross-built by scripts/deps.sh.
WIN_DEPS := build/win64/deps
WIN_DEP_CFLAGS = -I$(WIN_DEPS)/include $(shell cat $(WIN_DEPS)/cflags.txt 2>/dev/null)
WIN_DEP_LIBS = -L$(WIN_DEPS)/lib $(shell cat $(WIN_DEPS)/libs.txt 2>/dev/null)
WIN_SYS_LIBS := -lpsapi -lpdh -ladvapi32 -lwinhttp -lws2_32 -lntdll -lpthread -lm
WIN_CFLAGS := -O2 -g -D_WIN32_WINNT=0x0A00 -DWINVER=0x0A00 -DPSAPI_VERSION=2 \
	-D__USE_MINGW_ANSI_STDIO=1

NATIVE_CFLAGS := -O2 -g
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

ALL_SRC := $(sort $(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
LINUX_SRC := $(filter-out %_win32.c,$(ALL_SRC))
WIN_SRC := $(filter-out %_linux.c,$(ALL_SRC))
ifeq ($(NATIVE_PLATFORM),win32)
NATIVE_SRC := $(WIN_SRC)
else
NATIVE_SRC := $(LINUX_SRC)
endif
GEN_SRC := $(GENERATED)/page_assets.c
MAIN_SRC := app/main.c

ALL_TESTS := $(sort $(wildcard tests/test_*.c))
NATIVE_TESTS := $(filter-out %_win32.c,$(ALL_TESTS))
WIN_TESTS := $(filter-out %_linux.c,$(ALL_TESTS))
TEST_HELPERS := $(sort $(wildcard tests/helpers/*.c))
# Test-only code (e.g. the PERF_DATA_BLOCK builder): linked into the test
# programs and benches, never into memwatchd.
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))
NATIVE_TEST_SUPPORT := $(filter-out %_win32.c,$(TEST_SUPPORT))
WIN_TEST_SUPPORT := $(filter-out %_linux.c,$(TEST_SUPPORT))
BENCHES := $(sort $(wildcard bench/bench_*.c))

# --- native -----------------------------------------------------------------
NATIVE_OBJ := $(patsubst %.c,build/native/obj/%.o,$(NATIVE_SRC) $(GEN_SRC))
ASAN_OBJ := $(patsubst %.c,build/asan/obj/%.o,$(NATIVE_SRC) $(GEN_SRC))
WIN_OBJ := $(patsubst %.c,build/win64/obj/%.o,$(WIN_SRC) $(GEN_SRC))

NATIVE_LIB_OBJ := $(filter-out build/native/obj/$(MAIN_SRC:.c=.o),$(NATIVE_OBJ))
ASAN_LIB_OBJ := $(filter-out build/asan/obj/$(MAIN_SRC:.c=.o),$(ASAN_OBJ))
WIN_LIB_OBJ := $(filter-out build/win64/obj/$(MAIN_SRC:.c=.o),$(WIN_OBJ))
NATIVE_SUPPORT_OBJ := $(patsubst %.c,build/native/obj/%.o,$(NATIVE_TEST_SUPPORT))
ASAN_SUPPORT_OBJ := $(patsubst %.c,build/asan/obj/%.o,$(NATIVE_TEST_SUPPORT))
WIN_SUPPORT_OBJ := $(patsubst %.c,build/win64/obj/%.o,$(WIN_TEST_SUPPORT))

NATIVE_TEST_BIN := $(patsubst tests/%.c,build/asan/tests/%$(EXE),$(NATIVE_TESTS))
WIN_TEST_BIN := $(patsubst tests/%.c,build/win64/tests/%.exe,$(WIN_TESTS))
NATIVE_HELPER_BIN := $(patsubst tests/helpers/%.c,build/native/helpers/%$(EXE),$(filter-out %_win32.c,$(TEST_HELPERS)))
WIN_HELPER_BIN := $(patsubst tests/helpers/%.c,build/win64/helpers/%.exe,$(filter-out %_linux.c,$(TEST_HELPERS)))

.PHONY: all native windows run test test-build test-native test-one-build bench bench-build bench-peers fuzz fuzz-build deps deps-native clean
# Objects reached through pattern rules are "intermediate" to make, which
# deletes them after each link and rebuilds them all for the next target.
.SECONDARY:
.DEFAULT_GOAL := all
all: native
native: build/native/memwatchd$(EXE)
windows: build/win64/memwatchd.exe

build/native/memwatchd$(EXE): $(NATIVE_OBJ)
	$(CC) $(NATIVE_CFLAGS) -o $@ $^ $(NATIVE_DEP_LIBS)

# The static libmicrohttpd (Linux).  The objects wait for it (order-only:
# those that include microhttpd.h depend on the header, from -MMD).
build/deps/native/.stamp: scripts/deps.sh
	scripts/deps.sh native

build/native/obj/%.o: %.c | $(NATIVE_DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(NATIVE_CFLAGS) $(NATIVE_DEP_CFLAGS) -MMD -MP -c -o $@ $<

build/asan/obj/%.o: %.c | $(NATIVE_DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(ASAN_CFLAGS) $(NATIVE_DEP_CFLAGS) -MMD -MP -c -o $@ $<

build/asan/tests/%$(EXE): tests/%.c $(ASAN_LIB_OBJ) $(ASAN_SUPPORT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(ASAN_CFLAGS) $(NATIVE_DEP_CFLAGS) -o $@ $< $(ASAN_LIB_OBJ) $(ASAN_SUPPORT_OBJ) $(CMOCKA_LIBS) $(NATIVE_DEP_LIBS)

build/native/helpers/%$(EXE): tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(NATIVE_CFLAGS) -o $@ $<

BENCH_BIN := $(patsubst bench/%.c,build/native/bench/%$(EXE),$(BENCHES))
# Benches link the shared test support whole; some of it checks with
# cmocka's assertions (known_report.c), hence cmocka here too.
build/native/bench/%$(EXE): bench/%.c $(NATIVE_LIB_OBJ) $(NATIVE_SUPPORT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(NATIVE_CFLAGS) $(NATIVE_DEP_CFLAGS) -o $@ $< $(NATIVE_LIB_OBJ) $(NATIVE_SUPPORT_OBJ) $(NATIVE_DEP_LIBS) $(CMOCKA_LIBS)

bench-build: $(BENCH_BIN) build/native/memwatchd$(EXE)

# --- win64 ------------------------------------------------------------------
build/win64/memwatchd.exe: $(WIN_OBJ)
	$(CROSS_CC) $(WIN_CFLAGS) -static -o $@ $^ $(WIN_DEP_LIBS) $(WIN_SYS_LIBS)

build/win64/obj/%.o: %.c $(WIN_DEPS)/.stamp
	@mkdir -p $(@D)
	$(CROSS_CC) $(COMMON_CFLAGS) $(WIN_CFLAGS) $(WIN_DEP_CFLAGS) -MMD -MP -c -o $@ $<

# cmocka.h declares its printf-like functions with gcc's `printf` archetype,
# which MinGW-w64 checks as msvcrt's printf (no %zu) although we link the C99
# one.  Its failing asserts are not marked noreturn there either, so
# -Wnull-dereference sees paths past them.  The native build checks the
# same test sources with both warnings on.
build/win64/tests/%.exe: tests/%.c $(WIN_LIB_OBJ) $(WIN_SUPPORT_OBJ)
	@mkdir -p $(@D)
	$(CROSS_CC) $(COMMON_CFLAGS) $(WIN_CFLAGS) -Wno-format -Wno-null-dereference $(WIN_DEP_CFLAGS) -static -o $@ $< $(WIN_LIB_OBJ) $(WIN_SUPPORT_OBJ) $(WIN_DEP_LIBS) -lcmocka $(WIN_SYS_LIBS)

build/win64/helpers/%.exe: tests/helpers/%.c $(WIN_DEPS)/.stamp
	@mkdir -p $(@D)
	$(CROSS_CC) $(COMMON_CFLAGS) $(WIN_CFLAGS) -static -o $@ $< $(WIN_SYS_LIBS)

$(WIN_DEPS)/.stamp: scripts/deps.sh
	scripts/deps.sh win64

# --- generated: the chart page and its assets, embedded in the binary -------
# uPlot comes from the npm registry at build time (pinned by the lock file).
UPLOT := build/npm/node_modules/uplot/dist/uPlot.iife.min.js
$(UPLOT): web/npm/package-lock.json web/npm/package.json
	scripts/npm-assets.sh
	@touch $@

$(GENERATED)/page_assets.c: scripts/embed-assets.sh $(wildcard web/page/*) $(UPLOT)
	@mkdir -p $(@D)
	scripts/embed-assets.sh $@

# --- commands ---------------------------------------------------------------
deps:
	scripts/deps.sh

run: deps-native native
	build/native/memwatchd$(EXE) run $(ARGS)

deps-native:
	@scripts/deps.sh native

TEST_ONE_NEEDS = $(strip \
	$(if $(filter %.exe,$(T)),build/win64/tests/$(T) $(WIN_HELPER_BIN)) \
	$(if $(filter test_%,$(filter-out %.exe,$(T))),build/asan/tests/$(T)$(EXE)) \
	$(if $(filter %_win64.sh,$(T)),build/win64/memwatchd.exe $(WIN_HELPER_BIN)) \
	$(if $(filter %.sh,$(filter-out %_win64.sh,$(T))),build/native/memwatchd$(EXE) $(NATIVE_HELPER_BIN)))
test-one-build: $(TEST_ONE_NEEDS)
	@:

# make test T=NAME runs one test with the same output and summary line:
# T=test_leak (the native ASan program), T=test_leak.exe (the win64 one
# under Wine), T=tests/api/leaks.sh or T=tests/e2e/heap_linux.sh (a
# script; *_win64.sh ones run the .exe).  It builds only what that needs.
ifdef T
test: deps-native
	@$(MAKE) --no-print-directory test-one-build
	@scripts/run-tests.sh $(T)
else
test: deps
	@$(MAKE) --no-print-directory test-build
	@scripts/run-tests.sh
endif

test-build: $(NATIVE_TEST_BIN) $(NATIVE_HELPER_BIN) build/native/memwatchd$(EXE) \
	build/win64/memwatchd.exe $(WIN_TEST_BIN) $(WIN_HELPER_BIN)

test-native: deps-native $(NATIVE_TEST_BIN) $(NATIVE_HELPER_BIN) build/native/memwatchd$(EXE)
	@MW_SKIP_WIN64=1 scripts/run-tests.sh

bench: deps-native
	@$(MAKE) --no-print-directory -C . bench-build
	@scripts/run-bench.sh

# Installs the peers' Debian packages if missing; PEERS_ARGS="--duration 300 --churn".
bench-peers: deps-native
	@$(MAKE) --no-print-directory -C . build/native/memwatchd$(EXE)
	@bench/peers/run.sh $(PEERS_ARGS)

# --- fuzz: libFuzzer targets (clang), one per untrusted parser ---------------
# fuzz/fuzz_NAME.c is build/fuzz/fuzz_NAME, linked against an archive of
# the lower layers built with the fuzzer's instrumentation (the archive
# pulls in only what a target calls, so no target lists its files).
# scripts/fuzz.sh runs them all with their seeds from fuzz/corpus/NAME/.
FUZZ_TARGETS := $(patsubst fuzz/fuzz_%.c,build/fuzz/fuzz_%,$(sort $(wildcard fuzz/fuzz_*.c)))
# app/collector_list.c: the list of collectors core's config names (core/collector.h).
FUZZ_SRC := $(filter $(addsuffix /%,base core collectors storage import analysis),$(LINUX_SRC)) app/collector_list.c
FUZZ_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_SRC))
FUZZ_CFLAGS := -std=c11 -g -O1 -D_GNU_SOURCE -DMW_VERSION='"$(VERSION)"' -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined

build/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(NATIVE_DEP_CFLAGS) -MMD -MP -c -o $@ $<

build/fuzz/libmw.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

build/fuzz/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) build/fuzz/libmw.a
	$(CLANG) $(FUZZ_CFLAGS) -Wall -Wextra -Werror -fsanitize=fuzzer $(NATIVE_DEP_CFLAGS) -o $@ $< build/fuzz/libmw.a $(NATIVE_DEP_LIBS)

fuzz-build: $(FUZZ_TARGETS)

# FUZZ_SECONDS (default 60) per target.
fuzz:
	@$(MAKE) --no-print-directory fuzz-build
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# --- deb: the Debian package (packaging/debian/, scripts/build-deb.sh) ------
# make deb  build/deb/memwatch_$(VERSION)_ARCH.deb, a native package built
# with dpkg-deb from a staged tree.  Its memwatchd is built apart, in
# build/deb/obj, with Debian's hardening flags (dpkg-buildflags with
# hardening=+all: fortify, stack protector, relro, bindnow), computed once
# here and handed down, not at every make run.
.PHONY: deb
DEB_OBJ := $(patsubst %.c,build/deb/obj/%.o,$(LINUX_SRC) $(GEN_SRC))
DEB_FLAGS_CMD := DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get

deb: deps-native
	@$(MAKE) --no-print-directory build/deb/memwatchd \
		DEB_CFLAGS="$$($(DEB_FLAGS_CMD) CPPFLAGS) $$($(DEB_FLAGS_CMD) CFLAGS)" \
		DEB_LDFLAGS="$$($(DEB_FLAGS_CMD) LDFLAGS)"
	@scripts/build-deb.sh build/deb/memwatchd $(VERSION)

build/deb/memwatchd: $(DEB_OBJ)
	$(CC) $(DEB_CFLAGS) $(DEB_LDFLAGS) -o $@ $^ $(NATIVE_DEP_LIBS)

build/deb/obj/%.o: %.c | $(NATIVE_DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) $(DEB_CFLAGS) $(NATIVE_DEP_CFLAGS) -MMD -MP -c -o $@ $<

# --- msi: the Windows installer ---------------------------------------------
# packaging/windows/memwatch.wxs built by wixl (Debian's wixl package, from
# scripts/deps.sh), version in the name: build/msi/memwatch-VERSION.msi (the
# e2e test builds a higher one for the upgrade).  wixl's WiX subset drops a
# component's Permanent and NeverOverwrite, so msibuild (msitools) sets them
# on the config file's: Win64 256 + Permanent 16 + NeverOverwrite 128.
.PHONY: msi
msi: build/msi/memwatch-$(VERSION).msi

build/msi/memwatch-%.msi: packaging/windows/memwatch.wxs build/win64/memwatchd.exe config/memwatch.ini
	@mkdir -p $(@D)
	wixl -a x64 -D Version=$* -D ExePath=build/win64/memwatchd.exe \
		-D IniPath=config/memwatch.ini -o $@.tmp $<
	msibuild $@.tmp -q "UPDATE Component SET Attributes = 400 WHERE Component = 'ConfigFile'"
	mv $@.tmp $@

clean:
	rm -rf build/native build/asan build/deb build/msi build/win64/obj build/win64/tests build/win64/helpers build/win64/memwatchd.exe $(GENERATED)

-include $(NATIVE_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(WIN_OBJ:.o=.d) \
	$(NATIVE_SUPPORT_OBJ:.o=.d) $(ASAN_SUPPORT_OBJ:.o=.d) $(WIN_SUPPORT_OBJ:.o=.d) \
	$(FUZZ_OBJ:.o=.d) $(DEB_OBJ:.o=.d)
