# smartmap — the two commands of the README, plus install.
#   make check            install missing Debian packages, build, run every test (CTest)
#   make bench            the side-by-side comparison with Open MPI and MPICH
#                         (on this node, then across 2 emulated hosts)
#   make bench-net        only its inter-node part (bench/results/internode)
#   make bench-smap       the SMARTMAP microbenchmarks (copy bandwidth, start-up, fork)
#   make bench-startup    job start-up against Open MPI and MPICH: 2-192 ranks on
#                         this node, quiet and loaded, and 8 emulated hosts x 8
#   make bench-fortran    the Fortran bindings' latency/allreduce beside C and the peers'
#   make bench-io         MPI-IO against Open MPI (OMPIO) and MPICH (ROMIO): subarray
#                         and contiguous blocks, on tmpfs and on disk (bench/io.sh)
#   make bench-crossover  the collectives' inline/direct crossovers (src/coll/select.c)
#                         and flat vs hierarchical across emulated nodes (src/coll/hier)
#   make install PREFIX=/some/dir
# Options: BUILD_DIR (default build), BUILD_TYPE (default RelWithDebInfo),
#          SANITIZE=1 (AddressSanitizer+UBSan build in build-asan/), JOBS.
BUILD_DIR  ?= build
BUILD_TYPE ?= RelWithDebInfo
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_ARGS ?=

.PHONY: all deps configure build check check-asan install bench bench-net bench-net3 bench-smap bench-startup bench-crossover bench-fortran bench-io clean regen

all: build

deps:
	@scripts/install-deps.sh build

configure:
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	    -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DSMAP_WERROR=ON $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The test command of README.md and .ci/run: a normal build and every test,
# then the suite once more under AddressSanitizer+UBSan, less the tests
# labelled "heavy" (tests/CMakeLists.txt says which and why; run them
# instrumented too with `cd build-asan && ctest`).
check: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)
	@$(MAKE) --no-print-directory check-asan

check-asan:
	@$(MAKE) --no-print-directory build BUILD_DIR=build-asan BUILD_TYPE=Debug \
	    CMAKE_ARGS="-DSMAP_SANITIZE=ON"
	cd build-asan && ctest --output-on-failure -j $(JOBS) -LE heavy $(CTEST_ARGS)

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# bench.sh installs Open MPI, MPICH and gnuplot itself when missing; the
# build step first, so that a tree updated since the last build is measured.
# The inter-node part runs in network namespaces (root); where they cannot
# be made (exit 77) it is reported as skipped and the node part stands.
bench: deps
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) scripts/bench.sh
	@BUILD_DIR=$(BUILD_DIR) BENCH_NET=1 scripts/bench.sh; rc=$$?; \
	    if [ $$rc = 77 ]; then echo "bench: inter-node part skipped (no network namespaces here)"; \
	    else exit $$rc; fi
	@$(MAKE) --no-print-directory bench-net3
	@$(MAKE) --no-print-directory bench-startup
	@$(MAKE) --no-print-directory bench-io

bench-io: deps
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) bench/io.sh

bench-net: deps
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) BENCH_NET=1 scripts/bench.sh
	@$(MAKE) --no-print-directory bench-net3

# The collectives at 3 emulated hosts x 2 ranks: 6 ranks, all on this
# machine's CPUs; with fewer than 6 the peers' runs only time out (2 CPUs:
# every 6-rank job of Open MPI and MPICH hit the 60 s limit), so skipped.
bench-net3:
	@n=$$(nproc); if [ $$n -lt 6 ]; then \
	    echo "bench: 3-host part skipped (6 ranks on $$n CPUs: the peers' runs would only time out)"; \
	else BUILD_DIR=$(BUILD_DIR) BENCH_NET=1 BENCH_NET_HOSTS=3 scripts/bench.sh; rc=$$?; \
	    if [ $$rc = 77 ]; then echo "bench: inter-node part skipped (no network namespaces here)"; \
	    else exit $$rc; fi; fi

# Start-up (MPI_Init + Barrier + Finalize) side by side with both peers:
# bench/results/startup.txt (STARTUP_NPS, STARTUP_ROUNDS, STARTUP_HOSTS...
# in scripts/bench_startup.sh).
bench-startup: deps
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) scripts/bench_startup.sh

# Copy bandwidth from a peer's heap/stack/globals vs private memcpy, CMA,
# start-up exposure cost and fork cost: bench/results/smap_copy.txt.
bench-smap: deps
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) scripts/bench_smap.sh

# Inline vs direct collectives per size and rank count, the data behind
# src/coll/select.c's table: bench/results/coll_crossover.txt.
bench-crossover: deps
	@$(MAKE) --no-print-directory build
	@BUILD_DIR=$(BUILD_DIR) scripts/coll_crossover.sh
	@BUILD_DIR=$(BUILD_DIR) scripts/coll_crossover_hier.sh; rc=$$?; \
	    if [ $$rc = 77 ]; then echo "bench-crossover: hierarchical part skipped (needs mpiexec.hydra: scripts/install-deps.sh build)"; \
	    else exit $$rc; fi

# Regenerate include/mpi.h, the binding stubs and docs/STATUS.md from
# std/, the MPI Forum's JSON carried in the repository (outputs are committed;
# a test checks they are current).
# The Fortran bindings' cost beside C and beside Open MPI's and MPICH's
# Fortran (bench/results/fortran.txt; scripts/bench_fortran.sh).
bench-fortran: deps
	@$(MAKE) --no-print-directory build
	@scripts/install-deps.sh bench
	@BUILD_DIR=$(BUILD_DIR) scripts/bench_fortran.sh

regen:
	python3 scripts/gen_mpi.py
	python3 scripts/gen_fortran.py

clean:
	rm -rf $(BUILD_DIR) build-asan
