# The two commands of the README, plus build, install and benchmarks.
BUILD ?= build
ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
GEN := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")

.PHONY: all deps demo demo-portal check check-fast install bench clean format

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD)

$(BUILD)/CMakeCache.txt:
	@scripts/install-deps.sh build
	cmake -S . -B $(BUILD) -G "$(GEN)"

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -G "$(GEN)" -DFY_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug

demo: all
	$(BUILD)/bin/mpicc -O2 -o $(BUILD)/cpi examples/cpi.c -lm
	$(BUILD)/bin/mpiexec -n 4 $(BUILD)/cpi

# The web portal on http://127.0.0.1:8470/ with the account 'demo', its password generated now
# and printed (scripts/install-portal.sh makes the venv first; ARGS="--listen H:P" to move it).
demo-portal: all
	scripts/install-portal.sh
	$(BUILD)/bin/ferry portal --demo $(ARGS)

# Full suite: unit and MPI tests on the normal build, then again under ASan+UBSan.
check: all $(ASAN_BUILD)/CMakeCache.txt
	@scripts/install-deps.sh test
	cmake --build $(ASAN_BUILD)
	python3 tests/run.py --build $(BUILD) --build-asan $(ASAN_BUILD)

# The suite on the normal build only (quicker, for development).
check-fast: all
	python3 tests/run.py --build $(BUILD)

# Quoted: PREFIX may hold spaces (make install PREFIX="/opt/my mpi").
install: all
	cmake --install "$(BUILD)" --prefix "$(PREFIX)"

bench: all
	QUICK="$(QUICK)" BASELINE="$(BASELINE)" LOAD="$(LOAD)" ONLY="$(ONLY)" bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
