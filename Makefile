# latlab - front end over CMake.  The README's quick start is `make run` and
# `make test`; everything else here is for developers and CI.
#
#   make run      install missing packages (root) or say how, build, run `latlab lab`
#                 (the pipeline lab's experiment protocol; at most ~2 minutes)
#   make test     same set-up plus the test peers, then the whole suite via ctest
#   make core     the core floor alone (libc, zlib, pthreads): build, link a program, run it;
#                 and the tool without Concurrency Kit
#   make asan     ASan+UBSan build, whole suite      make tsan   TSan build, concurrent tests
#                 (plain, then under injected noise: scripts/under-noise.sh)
#   make bench    build and run the benchmark programs
#   make fuzz     libFuzzer targets, FUZZ_SECONDS each (default 60)
#   make aarch64  cross-compile the architecture-specific code, run its tests under qemu
#   make install  PREFIX=/usr/local
SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CI ?=
WERROR ?= $(if $(CI),ON,OFF)
BUILD ?= build
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60
CTEST_J ?= 2
RUN_ARGS ?=

CMAKE_COMMON = -DLAT_WERROR=$(WERROR)

.PHONY: all run test deps deps-test build core asan tsan bench fuzz aarch64 install clean format npm

all: build

deps:
	@scripts/deps.sh run
deps-test:
	@scripts/deps.sh test

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_COMMON) >/dev/null

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# `make run` keeps the terminal for the lab: the compiler's output goes to a
# log, shown (its end) only when the build fails.
run: deps $(BUILD)/Makefile
	@echo "building latlab in $(BUILD)/ (log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) >$(BUILD)/build.log 2>&1 || \
	  { tail -n 40 $(BUILD)/build.log; echo "build failed: see $(BUILD)/build.log" >&2; exit 1; }
	$(BUILD)/latlab lab $(RUN_ARGS)

# Node module for the histogram interop test (pinned in tests/package-lock.json).
npm:
	@if [ -f tests/package.json ] && [ ! -d tests/node_modules ]; then \
	  cd tests && npm ci --no-audit --no-fund --loglevel=error; fi

test: deps-test npm
	$(MAKE) build BUILD=$(BUILD)
	ctest --test-dir $(BUILD) --output-on-failure -j $(CTEST_J)

# The core floor alone (LAT_CORE_ONLY): builds liblatlab-core with only libc, zlib and
# pthreads, and links and runs a program against it.
core:
	cmake -S . -B build-core -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAT_CORE_ONLY=ON $(CMAKE_COMMON) >/dev/null
	cmake --build build-core -j $(JOBS)
	ctest --test-dir build-core --output-on-failure
	@! nm -u build-core/liblatlab-core.a | grep -E ' (json_|ck_)' || { echo "core: depends on jansson or ck"; exit 1; }
	@# ...and the tool builds without Concurrency Kit (the ring bake-off then says so).
	cmake -S . -B build-nock -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAT_CK=OFF -DLAT_TESTS=OFF -DLAT_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build build-nock -j $(JOBS) --target latlab
	build-nock/latlab bakeoff ring --rounds 1 --ops 20000 --items 20000 --samples 1000 | grep -q "Concurrency Kit was not found"

asan: deps-test npm
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLAT_SANITIZE=address,undefined -DLAT_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(CTEST_J) -LE nosan

tsan: deps-test
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAT_SANITIZE=thread -DLAT_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build build-tsan -j $(JOBS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir build-tsan --output-on-failure -j 1 -L concurrent
	@# ...and again while 10% of both CPUs goes to injected bursts (the noise tests
	@# themselves excluded: they measure their own injector)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 scripts/under-noise.sh build-tsan/latlab \
	  "--cpus 0-$$(( $(JOBS) - 1 )) --share 10% --burst 50us --rate 2kHz --stall 5ms/2s" -- \
	  ctest --test-dir build-tsan --output-on-failure -j 1 -L concurrent -E noise

bench: deps-test build
	@set -e; for b in $(BUILD)/bench/bench_*; do [ -x "$$b" ] || continue; \
	  echo "== $$b"; "$$b"; done

fuzz: deps-test
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLAT_FUZZ=ON -DLAT_TESTS=OFF -DLAT_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	@set -e; for f in build-fuzz/tests/fuzz_*; do [ -x "$$f" ] || continue; \
	  n=$$(basename $$f); \
	  work=$$(mktemp -d); \
	  if [ -d tests/fuzz/corpus/$$n ]; then cp -r tests/fuzz/corpus/$$n/. $$work/; fi; \
	  echo "== $$n for $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 $$work 2>&1 | tail -n 12; \
	  rc=$${PIPESTATUS[0]}; rm -rf $$work; [ $$rc -eq 0 ] || { echo "fuzz: $$n failed ($$rc)"; exit 1; }; done

AARCH64_CC ?= aarch64-linux-gnu-gcc
AARCH64_LIB = core/clock.c core/error.c core/stats.c core/alloc.c
aarch64: deps-test
	@mkdir -p build-aarch64
	@set -e; for t in tests/core/arch/test_*.c; do n=$$(basename $$t .c); \
	  $(AARCH64_CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -Iinclude -Icore \
	    -o build-aarch64/$$n $$t $(AARCH64_LIB) -lpthread -lm; \
	  echo "== qemu-aarch64 $$n"; qemu-aarch64 build-aarch64/$$n; done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cc')

clean:
	rm -rf build build-core build-nock build-asan build-tsan build-fuzz build-aarch64
