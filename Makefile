# Makefile: the two commands of README.md, wrapping CMake.
#   make demo    install what is missing, build, run krewrite on the bundled example
#   make check   install what is missing, build (warnings as errors), run every test, then the
#                ASan+UBSan build of the tests and a 60 s run of the fuzzers (front end, analyses)
# Other targets: make build, make deps, make asan, make fuzz, make bench, make clean, and make
# test-extended (the searches that repeat a kind `make test` already searches).

BUILD ?= build/release
ASAN_BUILD ?= build/asan
FUZZ_BUILD ?= build/fuzz
DEPS ?= build/deps
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS ?=
MAKEFLAGS += --no-print-directory

.PHONY: all deps build demo check test test-extended asan fuzz bench clean

all: build

deps:
	@scripts/deps.sh $(DEPS)

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKR_DEPS_DIR=$(abspath $(DEPS)) \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)/krewrite

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE extended

test-extended: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L extended

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKR_SANITIZE=ON -DKR_WERROR=ON \
	  -DKR_DEPS_DIR=$(abspath $(DEPS)) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE "slow|extended"

fuzz: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKR_FUZZ=ON \
	  -DKR_DEPS_DIR=$(abspath $(DEPS)) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_frontend fuzz_analyses
	@scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

check:
	@$(MAKE) --no-print-directory test CMAKE_FLAGS="-DKR_WERROR=ON $(CMAKE_FLAGS)"
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory fuzz

bench: build
	@$(BUILD)/bench/bench_frontend tests/corpus 5000
	@$(BUILD)/bench/bench_apply .
	@$(BUILD)/bench/bench_emu

clean:
	rm -rf build/release build/asan build/fuzz build/dev
