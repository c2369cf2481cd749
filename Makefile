# monostamp: build, test, benchmark.  `make help` lists every target with
# one line each, read from the `## ` comments on the targets' lines below,
# and the variables from the `##@ ` lines (the README names the few a user
# needs and points here for the rest).
#
#   make test       the native suites, quick (at most 4 minutes on 2 cores
#                   once the dependencies are installed: three at a time,
#                   the Python suite first, on two workers): C (plain, ASan+UBSan,
#                   TSan), Python on $(PYTHON), Lua 5.4 and LuaJIT, the header
#                   as C and C++, make install, the exports, the preload library
#   make test-all   what CI runs (.ci/run): make test, then everything else:
#                   Lua 5.3, Windows under Wine, the sanitizers on the
#                   bindings and the preload, the fuzzers briefly, a 30 s
#                   soak, Debian testing's CPython 3.14/3.15 and Lua 5.5
#                   (root), make dist and make test-dist (the other CPythons
#                   on their wheels, aarch64 under qemu; root), nginx,
#                   time-machine 2.10's own suite, the docs site (make docs)
#
# A new test joins `make test` when it is native (runs on this machine's own
# compiler and interpreters, installs nothing, no emulator, no chroot) and
# quick (seconds); `make test-all` otherwise.
#
# Every target runs `tools/install-deps.sh TARGET` first (the deps-% rule at
# the end), which installs what that target needs and is missing on a Debian
# machine, and does nothing otherwise: make test installs no Wine, make dist
# no Lua.  A new target gets a line in its target_jobs() and in DEPS_TARGETS.

##@ BUILD=build       the build directory (a worktree of its own: BUILD=build-NAME)
##@ PREFIX=/usr/local make install's prefix (DESTDIR too)
##@ PYTHON=python3    the CPython make test-python, test-perf, ... run on
##@ LUA=lua5.4        the Lua the module is built for and the specs run under
BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
PYTHON   ?= python3
# test_tzrule_glibc asks Python's zoneinfo as its second oracle.
export MONOSTAMP_TEST_PYTHON := $(PYTHON)
LUA      ?= lua5.4
FUZZ_SECONDS ?= 20
TEST_FUZZ_SECONDS ?= 10

# The build flags, once: the C standard and the warnings here, the
# feature-test macros in csrc/config.h (which every core file includes
# first), read from there for the files that do not include it (tests,
# benchmarks).  Exported: the scripts the targets run (Lua 5.3, the
# sanitizers, mingw-w64) compile with these.  tools/ext_build.py (setup.py)
# and tools/lua/build-rock.sh (luarocks), which run without make, repeat
# C_STD: tests/python/test_build_flags.py holds them to it.
C_STD    := -std=c11
FEATURE_DEFINES := $(shell sed -n 's/^\#define \(_[A-Z_]*_SOURCE\) \(.*\)$$/-D\1=\2/p' csrc/config.h)
CSTD     := $(C_STD) $(FEATURE_DEFINES)
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
export C_STD CSTD WARN
OPT      ?= -O2 -g
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -Icsrc $(CFLAGS)
LDLIBS_ALL := -lpthread $(LDLIBS)

CORE_SRC := $(sort $(wildcard csrc/*.c))
CORE_HDR := $(wildcard csrc/*.h)
TEST_SRC := $(sort $(wildcard tests/c/test_*.c))
TEST_HDR := $(wildcard tests/c/*.h)
BENCH_SRC := $(sort $(wildcard bench/c/bench_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))

DEPS := tools/install-deps.sh

# Every target that is not a file: each has a `## ` line for make help.
.PHONY: all lib deps help install clean lua demo \
        test test-all test-release test-c test-asan test-tsan test-header test-cxx test-exports \
        test-python test-lua test-luajit test-preload test-perf \
        test-install test-pythons test-python-tsan test-lua53 test-lua-asan test-preload-asan \
        test-preload-tsan test-fuzz test-windows test-soak test-forky test-pypy test-nginx \
        test-real-time-machine \
        test-tzrule-full test-real-suites soak windows-wheel dist test-dist docs test-markdown \
        bench bench-sleep bench-nginx bench-preload bench-real-suites fuzz

all: lib ## the static and shared libraries, monostamp.pc and the preload library in build/ (BUILD=)
lib: $(BUILD)/libmonostamp.a $(BUILD)/libmonostamp.so $(BUILD)/monostamp.pc ## the libraries and monostamp.pc alone

deps: ## what every target needs, installed when missing (tools/install-deps.sh; Debian)
	@sh $(DEPS) everything

# The targets' `## ` comments in the order of this file, then the `##@ `
# lines: the variables a user sets.
help: ## this list
	@awk 'BEGIN { FS = ":[^#]*## " } \
	    /^##@ / { sub(/^##@ /, "  "); vars = vars $$0 "\n"; next } \
	    /^[a-z][a-z0-9_-]*:.*## / { printf "  make %-24s %s\n", $$1, $$2 } \
	    END { printf "\nVariables (make VAR=value TARGET):\n%s", vars }' Makefile

# make test: the native suites, quick.  make test-all: make test, then the
# rest (TEST_ALL_MORE): the native ones first, then what runs under Wine,
# the soak, and what needs root, a download or an install: the chroots,
# nginx and the real suite.
# Longest first: make starts the goals in this order, so the Python suite
# (the longest pole, two workers) and the perf gate start early and the
# short ones fill the tail.
TEST_NATIVE := test-python test-perf test-asan test-c test-tsan test-exports test-lua \
               test-luajit test-cxx test-install test-preload test-header test-markdown
# make dist and make test-dist stand for make test-pythons here: test-dist
# runs the same lean suite on the other CPythons (3.10-3.13 and 3.14/3.15),
# each on the wheel a user would install rather than on a gcc build, so CI
# pays only for the wheels' builds and the aarch64 smoke tests on top
# (docs/testing.md has the figures).  make test-pythons stays, by hand.
TEST_ALL_MORE := test-python-tsan test-lua53 test-lua-asan \
                 test-preload-asan test-preload-tsan test-fuzz test-windows test-soak \
                 test-forky test-pypy dist test-dist test-nginx test-real-time-machine docs

# TEST_JOBS (3) suites at once, each one's output printed whole when it ends:
# three on two cores, as the C suites mostly wait (their sleeps, the
# children they watch) and would leave a core idle beside one other suite.
# What the Python suite needs is built first (the wheel's serial build
# beside the Lua module and the libraries): make starts a goal's recipe only
# once it has started every other goal's builds, so otherwise the longest
# suite would wait for all of them.  Its own deps-test installs what they
# all need, once, before they start side by side (MONOSTAMP_DEPS_DONE:
# theirs return at once).
##@ TEST_JOBS=3       how many of make test's suites run at once
TEST_JOBS ?= 3
TEST_FIRST = lua $(PY_WHEEL) $(BUILD)/libmonostamp.a $(BUILD)/libmonostamp.so
test: ## the native suites, quick: C (plain, ASan+UBSan, TSan), Python, Lua 5.4, LuaJIT, header, exports, preload
	@MONOSTAMP_DEPS_DONE=1 $(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(TEST_FIRST)
	@MONOSTAMP_DEPS_DONE=1 $(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(TEST_NATIVE)
	@echo "make test: all suites passed"

# CI runs make test-all on every change, within 45 minutes on a fresh
# machine: of make test-dist, the whole suite on the oldest and the newest
# CPython's wheels (the others a smoke test) and not the sdist's suite
# (TEST_ALL_DIST).  make test-release, the release check, runs it all:
# every wheel's whole suite, the sdist's, and the real projects' suites
# (docs/testing.md).
TEST_ALL_DIST ?= DIST_TEST_FULL="3.10 3.15" DIST_TEST_SDIST=0
test-all: ## what CI runs: make test, then Lua 5.3, Wine, sanitized bindings, fuzzers, soak, forky, the wheels, nginx
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory $(TEST_ALL_MORE) $(TEST_ALL_DIST)
	@echo "make test-all: all suites passed"
test-release: ## the release check: make test-all with every wheel's and the sdist's whole suite, then the real projects' suites
	@$(MAKE) --no-print-directory test-all TEST_ALL_DIST=
	@$(MAKE) --no-print-directory test-real-suites
	@echo "make test-release: all suites passed"

# Every Markdown file git tracks: each table whole (none cut by a paragraph,
# every row the header's cells), each relative link and #anchor resolving
# (tools/docs/check-markdown.py; stdlib only, a second; first on planted
# faults of each kind, which it must all find).
test-markdown: ## every Markdown table whole, every relative link and #anchor resolving
	@$(PYTHON) tools/docs/check-markdown.py --self-test

# The docs site (tools/docs/build.sh): README, docs/ and CHANGELOG with
# Python, Lua and C API pages generated from the code, built by the pinned
# Sphinx and MyST (tools/docs/requirements.txt, in a venv under
# BUILD/docs) with every warning an error; then loaded in headless Chromium
# (tools/docs/browser_check.py), screenshots in BUILD/docs-screenshots.
docs: ## the docs site in build/docs/html, warnings as errors, API pages from the code; checked in headless Chromium
	@$(MAKE) --no-print-directory $(PY_UNPACKED)/done lua
	@sh tools/docs/build.sh $(BUILD) $(PYTHON) $(LUA) $(abspath $(PY_UNPACKED))

demo: lib ## the examples: C, C++, Python, Lua, LuaJIT and OpenResty (examples/run-all.sh)
	@sh examples/run-all.sh $(BUILD)

# ---------------------------------------------------------------- library
# One object set per flavour: plain, asan (ASan+UBSan), tsan.
define flavour
$(BUILD)/$(1)/obj/%.o: csrc/%.c $(CORE_HDR) Makefile
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) -DMONOSTAMP_EXPORTS -c $$< -o $$@
$(BUILD)/$(1)/libcore.a: $(patsubst csrc/%.c,$(BUILD)/$(1)/obj/%.o,$(CORE_SRC))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
$(BUILD)/$(1)/tests/%: tests/c/%.c $(BUILD)/$(1)/libcore.a $(TEST_HDR)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) -Itests/c $$< $(BUILD)/$(1)/libcore.a -o $$@ $$(LDLIBS_ALL) $(3)
endef

SAN_ASAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_TSAN := -fsanitize=thread -fno-omit-frame-pointer
$(eval $(call flavour,plain,,))
$(eval $(call flavour,asan,$(SAN_ASAN) -O1,$(SAN_ASAN)))
$(eval $(call flavour,tsan,$(SAN_TSAN) -O1,$(SAN_TSAN)))

$(BUILD)/libmonostamp.a: $(BUILD)/plain/libcore.a
	cp $< $@

$(BUILD)/libmonostamp.so: $(BUILD)/plain/libcore.a
	$(CC) -shared -o $@ -Wl,--whole-archive $< -Wl,--no-whole-archive \
	    -Wl,-soname,libmonostamp.so.$(shell sed -n 's/^#define MONOSTAMP_VERSION_MAJOR //p' csrc/monostamp.h) \
	    -Wl,--no-undefined $(LDLIBS_ALL)

VERSION := $(shell sed -n 's/^#define MONOSTAMP_VERSION "\(.*\)"/\1/p' csrc/monostamp.h)

$(BUILD)/monostamp.pc: monostamp.pc.in csrc/monostamp.h Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

install: lib $(BUILD)/libmonostamp_preload.so ## headers, libraries, the preload library and monostamp.pc into PREFIX (/usr/local)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 csrc/monostamp.h csrc/monostamp_host.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libmonostamp.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libmonostamp.so $(DESTDIR)$(PREFIX)/lib/libmonostamp.so.$(VERSION)
	ln -sf libmonostamp.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libmonostamp.so.$(firstword $(subst ., ,$(VERSION)))
	ln -sf libmonostamp.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libmonostamp.so
	install -m 755 $(BUILD)/libmonostamp_preload.so $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' monostamp.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/monostamp.pc

# ---------------------------------------------------------------- tests
TESTS = $(patsubst tests/c/%.c,%,$(TEST_SRC))

# Each C test binary prints its own "N passed, N failed" line.
define run_c_tests
	@mkdir -p $(BUILD)
	@set -e; for t in $(TESTS); do \
	    echo "== $(1) $$t"; $(2) $(BUILD)/$(1)/tests/$$t; \
	done
endef

test-c: $(addprefix $(BUILD)/plain/tests/,$(TESTS)) ## the C tests (tests/c)
	$(call run_c_tests,plain,)
test-asan: $(addprefix $(BUILD)/asan/tests/,$(TESTS)) ## the C tests under ASan+UBSan
	$(call run_c_tests,asan,ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1)
# TSan's own interceptors cannot follow fork() children well; tests that
# fork check MONOSTAMP_TEST_TSAN and keep to threads.
test-tsan: $(addprefix $(BUILD)/tsan/tests/,$(TESTS)) ## the C tests under TSan
	$(call run_c_tests,tsan,MONOSTAMP_TEST_TSAN=1 TSAN_OPTIONS=halt_on_error=1)

# The public header as its users compile it: C99 and C11 with -pedantic,
# C++11 and C++17; each program makes clocks both ways and runs.
HEADER_STDS := c99 c11 c++11 c++17
test-header: $(BUILD)/libmonostamp.a $(BUILD)/libmonostamp.so ## the public header as C99, C11, C++11 and C++17, and from Python's ctypes
	@mkdir -p $(BUILD)/header
	@set -e; for std in $(HEADER_STDS); do \
	    case $$std in c++*) cc="$(CXX) -x c++"; link="-x none";; *) cc="$(CC)"; link="";; esac; \
	    echo "== header as $$std"; \
	    $$cc -std=$$std -pedantic -Wall -Wextra -Werror -Icsrc tests/header/use_header.c \
	        $$link $(BUILD)/libmonostamp.a -o $(BUILD)/header/use_header_$$std $(LDLIBS_ALL); \
	    $(BUILD)/header/use_header_$$std; \
	done
	@echo "== header from an FFI host: Python ctypes, clocks by new/free alone"
	@$(PYTHON) tests/header/ctypes_host.py $(abspath $(BUILD))/libmonostamp.so

# The differential test of POSIX TZ rules at full size: 12,000 random rules
# (4,000 close pairs) against glibc and Python's zoneinfo; make test-c runs
# 900 of them.
test-tzrule-full: $(BUILD)/plain/tests/test_tzrule_glibc ## 12,000 POSIX TZ rules against glibc and zoneinfo (make test-c runs 900)
	MONOSTAMP_TZRULE_FULL=1 $(BUILD)/plain/tests/test_tzrule_glibc

# C++ as users write it (tests/header/use_cxx.cpp: a clock embedded in a
# class and one held by unique_ptr over new/free, four std::threads each),
# with g++ and clang++, C++11 and C++17.
CXX_COMPILERS ?= g++ clang++
test-cxx: $(BUILD)/libmonostamp.a ## C++ as users write it, g++ and clang++, C++11 and C++17
	@mkdir -p $(BUILD)/cxx
	@set -e; for cxx in $(CXX_COMPILERS); do for std in c++11 c++17; do \
	    echo "== $$cxx -std=$$std tests/header/use_cxx.cpp"; \
	    $$cxx -std=$$std -pedantic -Wall -Wextra -Werror -Icsrc tests/header/use_cxx.cpp \
	        $(BUILD)/libmonostamp.a -o $(BUILD)/cxx/use_cxx_$${cxx}_$$std $(LDLIBS_ALL); \
	    $(BUILD)/cxx/use_cxx_$${cxx}_$$std; \
	done; done

# make install into BUILD/install-test/prefix, then C and C++ programs built
# from the installed monostamp.pc alone: run through an rpath, refused by the
# loader without one, run with LD_LIBRARY_PATH, and linked statically.
test-install: lib $(BUILD)/libmonostamp_preload.so ## make install into a scratch prefix; programs built from monostamp.pc alone
	@CC=$(CC) tools/checks/test-install.sh $(BUILD)

# Windows (tools/windows/test.sh, docs/windows.md): the core and each C
# test cross-compiled by mingw-w64 with the same warnings, monostamp.dll
# checked to export the public API alone, and the tests run under Wine when
# it is installed (else the cross-compile is the check, and it says so).
MINGW_CC ?= x86_64-w64-mingw32-gcc
test-windows: ## mingw-w64 builds run under Wine: the C tests, the wheel's Python suite, Lua 5.4
	@MINGW_CC=$(MINGW_CC) tools/windows/test.sh $(BUILD)

# dist/monostamp-<version>-cp313-cp313-win_amd64.whl, cross-built by
# mingw-w64 against CPython 3.13 for Windows (tools/windows/wheel.sh).
windows-wheel: ## the win_amd64 wheel for CPython 3.13 in dist/, cross-built with mingw-w64
	@MINGW_CC=$(MINGW_CC) tools/windows/wheel.sh $(BUILD) dist

# ---------------------------------------------------------------- make dist
# make dist: DIST (dist/) gets the sdist, a manylinux_2_17 wheel for each
# CPython 3.10-3.15 on x86_64 and aarch64 (gcc against glibc 2.17's
# headers from the pinned ziglang package, linked by zig, repaired and
# checked by the pinned auditwheel; tools/dist/build.sh, which installs
# what the asked-for wheels need itself; nothing under qemu) and the
# Windows wheel.  make
# test-dist installs each with pip --no-index --only-binary=:all: where no
# compiler is reachable and runs the Python suite on the x86_64 ones
# (3.14/3.15 in a compiler-free forky chroot; DIST_TEST_FULL="3.10 3.15"
# narrows that, a smoke test for the rest), a smoke test on the aarch64
# ones under qemu-user (DIST_TEST_ARCHES=x86_64 leaves them and their arm64
# chroots out), and the sdist's suite without pytest-xdist
# (tools/dist/test.sh).
# DIST_AARCH64_FULL=3.13 adds the whole suite on that aarch64 wheel, by hand:
# about an hour under emulation with MONOSTAMP_TEST_SCALE=0.1 and
# DIST_TEST_PYTEST_ARGS="-n 2" on a loaded 2-core VM (docs/testing.md).
# Both need root (cached chroots).
##@ DIST=dist         where make dist writes and make test-dist reads
##@ DIST_PYTHONS="3.10 3.11 3.12 3.13 3.14 3.15"  the CPythons make dist builds wheels for
##@ DIST_ARCHES="x86_64 aarch64"  the architectures of make dist's Linux wheels
##@ DIST_NO_WINDOWS=1  make dist without the Windows wheel (and without mingw-w64)
##@ DIST_OPT="-O3 -fwrapv"  the wheels' optimization flags (tools/ext_build.py's WHEEL_CFLAGS)
##@ DIST_TEST_PYTHONS, DIST_TEST_ARCHES  narrow make test-dist to those wheels
##@ DIST_TEST_FULL="3.10 3.15"  the x86_64 wheels that get the whole suite (the rest a smoke test)
##@ DIST_AARCH64_FULL=3.13  also the whole suite on that aarch64 wheel under qemu (about an hour)
##@ DIST_TEST_PYTEST_ARGS="-n 2"  pytest's arguments for each wheel's suite
##@ DIST_TEST_SDIST=0  make test-dist without the sdist's suite
##@ CHROOT_CACHE=/var/cache/monostamp  where the chroots are cached (tools/chroot/chroot.sh)
DIST ?= dist
dist: ## dist/: the sdist, manylinux_2_17 wheels for CPython 3.10-3.15 (x86_64, aarch64), the Windows wheel (root)
	@tools/dist/build.sh $(BUILD) $(DIST)
test-dist: ## each wheel of dist/ installed where no compiler is reachable and tested; the sdist's suite (root)
	@tools/dist/test.sh $(BUILD) $(DIST)

# The wheel of this tree for $(PYTHON), built by pip when one of its inputs
# changed (a warning of the build, the compiler's or setuptools', fails it),
# shared by test-python, which installs it, and test-exports, which reads its
# extension: one build for both, also when make test runs them side by side.
PY_TAG := $(shell $(PYTHON) -c 'import sys; print(sys.implementation.cache_tag)' 2>/dev/null)
PY_WHEEL_DIR := $(BUILD)/python-wheel/$(PY_TAG)
PY_WHEEL := $(PY_WHEEL_DIR)/built
# The readme too (pyproject.toml's): it is the wheel's long description.
PY_README := $(shell sed -n 's/^readme = "\(.*\)"$$/\1/p' pyproject.toml)
PY_BUILD_INPUTS := setup.py pyproject.toml MANIFEST.in tools/ext_build.py $(PY_README) $(CORE_SRC) $(CORE_HDR) \
    $(wildcard preload/*) $(shell find bindings/python -type f -not -path '*/__pycache__/*' \
    -not -name '*.so' 2>/dev/null)
$(PY_WHEEL): $(PY_BUILD_INPUTS)
	@tools/checks/pip-install-checked.sh --wheel $(PY_WHEEL_DIR) $(PYTHON) $(BUILD)/pip-wheel-$(PY_TAG).log
	@touch $@
# The same wheel unpacked, once per build of it: test-exports reads its
# extension, and the Lua specs' Python children import it (PYTHONPATH),
# not whatever monostamp $(PYTHON) has installed: on a fresh machine
# nothing is, and under make -j test-python installs it while they run.
PY_UNPACKED := $(BUILD)/python-wheel/unpacked-$(PY_TAG)
$(PY_UNPACKED)/done: $(PY_WHEEL)
	@rm -rf $(@D) && mkdir -p $(@D)
	@$(PYTHON) -m zipfile -e $(PY_WHEEL_DIR)/monostamp-*.whl $(@D)
	@touch $@

# What each shared object exports: libmonostamp.so its API (also when built
# without -fvisibility=hidden), the Python extension (one, patch() included)
# PyInit__monostamp alone, the rock that a plain `luarocks make` builds
# luaopen_* alone.  The extension is the one in the wheel pip builds from
# this tree (PY_WHEEL, shared with test-python), not whatever monostamp
# $(PYTHON) has installed.
test-exports: $(BUILD)/libmonostamp.so $(PY_UNPACKED)/done ## what each shared object exports: the API alone, PyInit_* alone, luaopen_* alone
	@mkdir -p $(BUILD)/exports
	$(CC) $(CSTD) -O2 -fPIC -shared -Icsrc -DMONOSTAMP_EXPORTS $(CORE_SRC) \
	    -o $(BUILD)/exports/libmonostamp-default-visibility.so $(LDLIBS_ALL)
	@tools/checks/check-exports.sh monostamp_ $(BUILD)/libmonostamp.so \
	    $(BUILD)/exports/libmonostamp-default-visibility.so
	@tools/checks/check-exports.sh PyInit__monostamp $(PY_UNPACKED)/monostamp/_monostamp*
	@PYTHON=$(PYTHON) MONOSTAMP_PYTHON_SITE="$(abspath $(PY_UNPACKED))" tools/checks/check-lua-exports.sh $(BUILD)

# Python: test-python installs PY_WHEEL and runs the suite on PYTEST_JOBS (2)
# pytest-xdist workers (0 or 1: in one process).  The Lua module is built
# first: the plugin's tests run a Lua subprocess.  mypy's stubtest then holds
# the package's .pyi to what the module really has (its cache goes under
# $(BUILD), not into the checkout).
PYTEST_JOBS ?= 2
PY_TEST_ENV = MONOSTAMP_LUA_CPATH="$(abspath $(BUILD))/lua/?.so" MONOSTAMP_REQUIRE_LUA=1 \
    MONOSTAMP_BUILD="$(abspath $(BUILD))"
test-python: lua $(PY_WHEEL) $(BUILD)/libmonostamp.a $(BUILD)/libmonostamp.so ## the wheel of this tree (pip, no warning allowed) installed, the Python suite on PYTHON (python3), stubtest
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
	    --no-index $(PY_WHEEL_DIR)/monostamp-*.whl
	cd tests/python && $(PY_TEST_ENV) MONOSTAMP_REQUIRE_OLD_TOOLS=1 $(PYTHON) -m pytest -q \
	    -p no:cacheprovider $(if $(filter-out 0 1,$(PYTEST_JOBS)),-n $(PYTEST_JOBS))
	cd tests/python && MYPY_CACHE_DIR="$(abspath $(BUILD))/mypy-cache" \
	    $(PYTHON) -m mypy.stubtest --allowlist stubtest-allowlist.txt monostamp
test-pythons: lua ## the Python suite, leaner, on every other CPython 3.10+ on the machine, each in its venv
	$(PY_TEST_ENV) tools/checks/test-pythons.sh

# The perf gate (tests/perf/gate.py, limits in tests/perf/limits.json):
# each hot path's instructions per call, counted by callgrind beside its
# anchor in the same run, as a ratio against its limit; the C, Lua and
# preload paths against recorded counts; uuid7() and the import timed.
# Then its self-check (tests/perf/test_gate.py): a module __getattr__ put
# back into a copy of the package, and the extension built at -O0, each
# fail it (on two workers: counts do not depend on what runs beside them,
# and the check is the tail of make test).  On
# this tree's wheel (PY_UNPACKED); PERF_SITE=dir measures the monostamp
# package in dir instead (an installed wheel's site-packages, with that
# venv's PYTHON).
PERF_SITE ?=
test-perf: $(BUILD)/plain/libcore.a $(BUILD)/libmonostamp_preload.so lua $(if $(PERF_SITE),,$(PY_UNPACKED)/done) ## instructions per call of the hot paths against their anchors, counted by callgrind (tests/perf)
	@$(PYTHON) tests/perf/gate.py --build $(BUILD) --python $(PYTHON) --lua $(LUA) \
	    --site $(if $(PERF_SITE),$(PERF_SITE),$(PY_UNPACKED))
	@MONOSTAMP_PERF_BUILD=$(abspath $(BUILD)) \
	    MONOSTAMP_PERF_SITE=$(abspath $(if $(PERF_SITE),$(PERF_SITE),$(PY_UNPACKED))) \
	    $(PYTHON) -m pytest -q -p no:cacheprovider -n 2 tests/perf/test_gate.py

# Lua: the C part is built into $(BUILD)/lua/monostamp/core.so; require
# "monostamp" is bindings/lua/monostamp.lua, which loads it as monostamp.core
# (so LUA_CPATH=$(BUILD)/lua/?.so and LUA_PATH=bindings/lua/?.lua together).
# The headers are $(LUA)'s (its pkg-config name is the interpreter's), so
# another Lua takes a BUILD of its own: make test-lua LUA=lua5.5 BUILD=build-lua55.
LUA_CFLAGS := $(shell pkg-config --cflags $(LUA) 2>/dev/null)
LUA_SRC := $(sort $(wildcard bindings/lua/*.c))
lua: $(BUILD)/lua/monostamp/core.so ## the Lua module, build/lua/monostamp/core.so
$(BUILD)/lua/monostamp/core.so: $(LUA_SRC) $(CORE_SRC) $(CORE_HDR) $(wildcard bindings/lua/*.h)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -Icsrc $(LUA_CFLAGS) -shared \
	    $(LUA_SRC) $(CORE_SRC) -o $@ -lpthread
# The specs of named zones read them from the copy the vectors were computed
# from (tests/vectors/zoneinfo/README.md).  Lua cannot set TZDIR for itself,
# so each target that runs Lua specs exports it (the specs check).
LUA_SPEC_TARGETS := test-lua test-luajit test-lua53 test-lua-asan
$(LUA_SPEC_TARGETS): export TZDIR := $(abspath tests/vectors/zoneinfo)
# One set of busted specs in tests/lua, one helper (tests/lua/helper.lua),
# for every Lua: each shared spec (LUA_SHARED_SPECS) runs against the module
# the interpreter loads -- the C module under Lua 5.3-5.5, monostamp.ffi
# under LuaJIT.  The other specs are one module's: ffi_*_spec.lua run under
# LuaJIT alone, the rest (the C module's errors, userdata and sleep hooks,
# monostamp.testing, the rockspec) under Lua 5.3-5.5 alone; each says why.  busted always runs under an interpreter named
# here, never under whatever `lua` the machine has.
LUA_SHARED_SPECS := $(addprefix tests/lua/,api_spec.lua clock_spec.lua faults_spec.lua ids_spec.lua iso8601_spec.lua \
                      shared_spec.lua sleep_spec.lua vectors_spec.lua zone_spec.lua)
LUA_SPECS := --pattern=_spec --exclude-pattern=^ffi_ tests/lua
LUAJIT_SPECS := $(LUA_SHARED_SPECS) $(sort $(wildcard tests/lua/ffi_*_spec.lua))
# The environment of a busted run of the C module: $(1) the interpreter,
# $(2) the folder its monostamp/core.so is in.
lua_spec_env = MONOSTAMP_BUILD=$(abspath $(BUILD)) LUA_CPATH="$(abspath $(2))/?.so;;" \
	    LUA_PATH="$(abspath bindings/lua)/?.lua;;" MONOSTAMP_LUA=$(1) PYTHON=$(PYTHON) \
	    PYTHONPATH="$(abspath $(PY_UNPACKED))"
test-lua: lua $(PY_UNPACKED)/done ## the busted specs under Lua 5.4 (LUA=lua5.4)
	@$(call lua_spec_env,$(LUA),$(BUILD)/lua) $(LUA) /usr/bin/busted $(LUA_SPECS)

# LuaJIT: monostamp.ffi (pure Lua, bindings/lua/monostamp/ffi*.lua) over
# $(BUILD)/libmonostamp.so, the shared specs and the ffi_* ones under
# Debian's luajit; the C module (make lua) for the specs that hold the FFI
# module's errors to the C module's and stamp beside it on one state file,
# the Python binding for the one that stamps beside a Python process.
LUAJIT ?= luajit
test-luajit: $(BUILD)/libmonostamp.so lua $(PY_UNPACKED)/done ## the shared busted specs on monostamp.ffi and its own, under LuaJIT
	MONOSTAMP_BUILD=$(abspath $(BUILD)) MONOSTAMP_LIBRARY=$(abspath $(BUILD))/libmonostamp.so \
	    LUA_PATH="$(abspath bindings/lua)/?.lua;;" MONOSTAMP_LUAJIT=$(LUAJIT) PYTHON=$(PYTHON) \
	    PYTHONPATH="$(abspath $(PY_UNPACKED))" $(LUAJIT) /usr/bin/busted $(LUAJIT_SPECS)

# nginx (tests/integration/test_nginx.py, run by tools/checks/test-nginx.sh once it
# has installed Debian's nginx, libnginx-mod-http-lua, luajit2 and wrk if
# missing): monostamp.ffi loaded in init_by_lua and per worker with a state
# file, 4 workers as an unprivileged user, no stamp twice and each worker's
# in order across >= NGINX_RESPONSES responses and across an `nginx -s
# reload`; and per worker without a state file, where duplicates must show.
# Not in `make test` (it installs nginx).
NGINX_RESPONSES ?= 50000
test-nginx: $(BUILD)/libmonostamp.so ## monostamp.ffi in a real nginx with 4 workers (installs nginx; tests/integration)
	@NGINX_RESPONSES=$(NGINX_RESPONSES) PYTHON=$(PYTHON) tools/checks/test-nginx.sh $(BUILD)

# Lua 5.3: the same module built against 5.3 (tools/checks/test-lua53.sh, which
# also checks its exports and runs the smoke test), then every busted spec
# Lua 5.4 runs, under lua5.3.
LUA53 ?= lua5.3
test-lua53: $(PY_UNPACKED)/done ## the Lua module built against Lua 5.3: its smoke test and the busted specs
	@tools/checks/test-lua53.sh $(BUILD)
	@$(call lua_spec_env,$(LUA53),$(BUILD)/lua53) $(LUA53) /usr/bin/busted $(LUA_SPECS)

# CPython 3.14 and 3.15 and Lua 5.5, which Debian 12 lacks, from Debian
# testing: tools/chroot/test-forky.sh has a "forky" chroot made once by
# tools/chroot/chroot.sh (cached in CHROOT_CACHE, outside the checkout), copies the tree in and runs there
# make test-python on each CPython (its own venv) and make test-lua
# LUA=lua5.5.  Not in `make test`: it needs root, and the cache.
test-forky: ## CPython 3.14/3.15 and Lua 5.5 suites in a cached Debian testing chroot (root)
	@tools/chroot/test-forky.sh

# PyPy 3.11 (forky's pypy3) in the same chroot: tools/chroot/pypy-suite.sh
# pip-installs the tree (the cffi binding) into a PyPy venv there and runs
# tests/python on it.
test-pypy: ## the Python suite on PyPy 3.11 (the cffi binding) in the forky chroot (root)
	@tools/chroot/test-forky.sh pypy-suite.sh

# Real projects' own suites (their sdists fetched with pip into a cache),
# plain and with --monostamp-patch: the same failing tests
# (tools/checks/test-real-suites.py).
test-real-suites: ## humanize's, structlog's, python-dateutil's and time-machine's own suites, plain and patched
	@$(PYTHON) tools/checks/test-real-suites.py
# The same suites timed, plain and patched in turn, 15 runs each way:
# medians and the patched/plain ratios (docs/benchmarks.md).
bench-real-suites: ## the same suites timed, plain and patched, 15 runs each: the ratios
	@$(PYTHON) tools/checks/test-real-suites.py --bench 15

# Sanitizers on the bindings: the Python extension built with TSan and run
# by the normal interpreter with libtsan preloaded (the threaded tests, and
# threads on clocks that release the GIL; tools/checks/tsan-python.supp may hold
# CPython's reports only); the busted specs against a module built with
# ASan+UBSan.  Each script says what it can and cannot see.
test-python-tsan: ## the Python extension built with TSan, its threaded tests under libtsan
	@PYTHON=$(PYTHON) tools/checks/test-python-tsan.sh $(BUILD)
test-lua-asan: $(PY_UNPACKED)/done ## the busted specs against the Lua module built with ASan+UBSan
	@CC=$(CC) LUA=$(LUA) PYTHONPATH="$(abspath $(PY_UNPACKED))" tools/checks/test-lua-asan.sh $(BUILD)

# The soak (tests/integration/test_soak.py, launched by tools/checks/soak.sh): 4
# Python and 4 Lua processes stamping on one state file for SOAK_MINUTES
# while, every few seconds, one of them is killed (-9) and restarted, or one
# chdir()s, or a new file is renamed over the shared one, or it is deleted,
# or its directory is replaced by a new one, or its value is overwritten
# with 0, or it is truncated; then no stamp may appear twice.  make test-all
# runs it for TEST_SOAK_MINUTES.
SOAK_MINUTES ?= 10
TEST_SOAK_MINUTES ?= 0.5
soak: lua ## 8 processes on one state file for SOAK_MINUTES (10), killed and its path attacked: no stamp twice
	@PYTHON=$(PYTHON) LUA=$(LUA) tools/checks/soak.sh $(SOAK_MINUTES) $(BUILD)
test-soak: ## make soak for TEST_SOAK_MINUTES (0.5)
	@$(MAKE) --no-print-directory soak SOAK_MINUTES=$(TEST_SOAK_MINUTES)

# time-machine 2.10's own suite, plain and under --monostamp-patch: the same
# failing tests (2.x never restores its patched functions).
test-real-time-machine: ## time-machine 2.10's own suite, plain and patched: the same failing tests
	@$(PYTHON) tools/checks/test-real-suites.py time-machine==2.10.0

# ---------------------------------------------------------------- demo, bench, fuzz

BENCHES = $(patsubst bench/c/%.c,%,$(BENCH_SRC))
$(BUILD)/bench/%: bench/c/%.c bench/c/bench_util.h $(BUILD)/plain/libcore.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -Ibench/c $< $(BUILD)/plain/libcore.a -o $@ $(LDLIBS_ALL)
bench: $(addprefix $(BUILD)/bench/,$(BENCHES)) ## every benchmark (ratios against baselines of the same run)
	@for b in $(BENCHES); do echo "== $$b"; $(BUILD)/bench/$$b || exit 1; done
	@if [ -f bench/run-bindings.sh ]; then sh bench/run-bindings.sh $(BUILD); fi
	@$(MAKE) --no-print-directory lua
	@PYTHON=$(PYTHON) LUA=$(LUA) LUAJIT=$(LUAJIT) sh bench/run-sleep.sh $(BUILD)
	@sh bench/nginx.sh $(BUILD)
	@$(MAKE) --no-print-directory bench-preload

# Sleep lateness from Python, Lua and LuaJIT in fresh processes, each
# binding's finish against the core alone (docs/sleep.md); make
# bench runs it too.  Python needs the package installed for $(PYTHON).
bench-sleep: lib lua ## sleep lateness from Python, Lua and LuaJIT (part of make bench)
	@PYTHON=$(PYTHON) LUA=$(LUA) LUAJIT=$(LUAJIT) sh bench/run-sleep.sh $(BUILD)

# ngx.now() against monostamp.time_ns() in nginx handlers, requests/s with
# wrk in alternating rounds (~20 s); skips without nginx, its Lua module, wrk.
bench-nginx: ## ngx.now() against monostamp.time_ns() in nginx handlers, requests/s (part of make bench)
	@sh bench/nginx.sh $(BUILD)

FUZZERS = $(patsubst fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_FLAGS := $(CSTD) -g -O1 -Icsrc \
              -fsanitize=fuzzer,address,undefined
$(BUILD)/fuzz/%: fuzz/%.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) $< $(CORE_SRC) -o $@ -lpthread
fuzz: $(addprefix $(BUILD)/fuzz/,$(FUZZERS)) ## each libFuzzer target for FUZZ_SECONDS (20)
	@[ -n "$(FUZZERS)" ] || echo "fuzz: no fuzz targets"
	@for f in $(FUZZERS); do echo "== $$f ($(FUZZ_SECONDS) s)"; \
	    mkdir -p $(BUILD)/fuzz/corpus-$$f; \
	    $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
	        $(BUILD)/fuzz/corpus-$$f $$( [ -d fuzz/seeds/$$f ] && echo fuzz/seeds/$$f ) || exit 1; done

test-fuzz: ## each libFuzzer target for TEST_FUZZ_SECONDS (10)
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

clean: ## removes build/ (BUILD), build-* and the egg-info
	rm -rf $(BUILD) build-* *.egg-info bindings/python/*.egg-info

# ---------------------------------------------------------------- the preload
# libmonostamp_preload.so (preload/, docs/preload.md): the core compiled in
# a copy of its own, hidden, with its clock_gettime calls renamed to the
# preload's "next" function so that they never bind to the preload's own
# export; exports.map exports the interposed calls alone.  One per flavour,
# for the sanitizer runs of tests/preload.
PRELOAD_SRC := $(sort $(wildcard preload/*.c))
PRELOAD_CORE_FLAGS := -DMONOSTAMP_PRELOAD_BUILD -Dclock_gettime=monostamp_preload__next_clock_gettime
PRELOAD_LINK := -shared -Wl,--version-script=preload/exports.map -Wl,-z,now -Wl,--no-undefined
PRELOAD_TESTS := test_preload test_contract stamper libearly.so
define preload_flavour
$(BUILD)/$(1)/preload/core/%.o: csrc/%.c $(CORE_HDR) Makefile
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) $(PRELOAD_CORE_FLAGS) -c $$< -o $$@
$(BUILD)/$(1)/preload/libcore.a: $(patsubst csrc/%.c,$(BUILD)/$(1)/preload/core/%.o,$(CORE_SRC))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
$(BUILD)/$(1)/preload/%.o: preload/%.c preload/preload.h $(CORE_HDR) Makefile
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) -Ipreload -c $$< -o $$@
$(BUILD)/$(1)/libmonostamp_preload.so: $(patsubst preload/%.c,$(BUILD)/$(1)/preload/%.o,$(PRELOAD_SRC)) \
        $(BUILD)/$(1)/preload/libcore.a preload/exports.map
	$$(CC) $(PRELOAD_LINK) $(3) -o $$@ $$(filter %.o,$$^) $(BUILD)/$(1)/preload/libcore.a $(LDLIBS_ALL)
$(BUILD)/$(1)/preload-tests/libearly.so: tests/preload/early.c tests/preload/preload_check.h
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) -Itests/preload -shared $$< -o $$@ $(3)
$(BUILD)/$(1)/preload-tests/%: tests/preload/%.c tests/preload/preload_check.h $(BUILD)/$(1)/libcore.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) $(2) -Itests/preload $$< $(BUILD)/$(1)/libcore.a -o $$@ $$(LDLIBS_ALL) $(3)
endef
$(eval $(call preload_flavour,plain,,))
$(eval $(call preload_flavour,asan,$(SAN_ASAN) -O1,$(SAN_ASAN)))
$(eval $(call preload_flavour,tsan,$(SAN_TSAN) -O1,$(SAN_TSAN)))

all: $(BUILD)/libmonostamp_preload.so
$(BUILD)/libmonostamp_preload.so: $(BUILD)/plain/libmonostamp_preload.so
	cp $< $@

# tests/preload/test_preload.c runs the stamper children under the preload;
# each check fails without it.  Plain, then ASan+UBSan and TSan (their
# runtimes must come first in LD_PRELOAD; tests/preload/run.sh says how).
PRELOAD_DEPS = $(BUILD)/$(1)/libmonostamp_preload.so $(addprefix $(BUILD)/$(1)/preload-tests/,$(PRELOAD_TESTS))
test-preload: $(call PRELOAD_DEPS,plain) ## the preload library (tests/preload)
	@sh tests/preload/run.sh $(BUILD) plain
test-preload-asan: $(call PRELOAD_DEPS,asan) ## the preload library under ASan+UBSan
	@CC=$(CC) sh tests/preload/run.sh $(BUILD) asan
test-preload-tsan: $(call PRELOAD_DEPS,tsan) ## the preload library under TSan
	@CC=$(CC) sh tests/preload/run.sh $(BUILD) tsan

# The preloaded clock_gettime(CLOCK_REALTIME) on a shared state file against
# libc's own call, side by side in one run (docs/benchmarks.md): a tight
# loop at grain ns, then (the program again, under MONOSTAMP_GRAIN=us) one
# call every 2 us at grain us.
$(BUILD)/bench/bench_preload: bench/preload/bench_preload.c bench/c/bench_util.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -O2 -Ibench/c $< -o $@ $(LDLIBS_ALL)
bench-preload: $(BUILD)/libmonostamp_preload.so $(BUILD)/bench/bench_preload ## the preloaded clock_gettime against libc's own (part of make bench)
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	    LD_PRELOAD=$(abspath $(BUILD))/libmonostamp_preload.so MONOSTAMP_SHARED=$$dir/state \
	    MONOSTAMP_GRAIN=ns $(BUILD)/bench/bench_preload

# ---------------------------------------------------------------- dependencies
# Each target below runs `tools/install-deps.sh TARGET` before anything of
# its own (an order-only prerequisite, so nothing is rebuilt for it).
DEPS_TARGETS := all lib install lua demo test test-all test-release $(TEST_NATIVE) $(TEST_ALL_MORE) \
                test-tzrule-full test-pythons test-real-suites soak windows-wheel \
                bench bench-sleep bench-nginx bench-preload bench-real-suites fuzz
# Not under make test's sub-makes (MONOSTAMP_DEPS_DONE): there each would
# be a job of its own, and make starts a goal's recipe only on its next walk
# over the goals once a prerequisite was a job, after every other goal's
# builds: the Python suite would wait for all of them.
ifndef MONOSTAMP_DEPS_DONE
$(foreach t,$(DEPS_TARGETS),$(eval $(t): | deps-$(t)))
endif
deps-%:
	@sh $(DEPS) $*
