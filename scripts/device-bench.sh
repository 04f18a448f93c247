#!/usr/bin/env bash
# Benchmarks and GPU tests on a lent NVIDIA machine (the workplace's
# `device` tool; BENCHMARKS.md, "NVIDIA H100 and H200"). That machine has no Rust
# toolchain and no network, so the binaries are built here and carried:
#
#   scripts/device-bench.sh prepare   # here: .device/ (bench and GPU test
#                                     # binaries, release) and .gl/ (the
#                                     # Vulkan loader and glvnd packages)
#   scripts/device-bench.sh run       # there, as the device command, with
#                                     # carry [".device", ".gl"]: the GPU
#                                     # tests, then the benchmarks; results
#                                     # under $OUT
#   scripts/device-bench.sh tests     # there: the GPU tests alone (with
#                                     # TEST_FILTER, a rerun of some)
#
# Both folders are in .gitignore. Nothing in the project depends on this
# script; CI never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Sizes (SIZES, CPU_POINTS, BODIES and EDIT_BODIES override them, as for a trial run
# of `run` on lavapipe).
SIZES=${SIZES:-10000 100000 1000000 4000000}
CPU_POINTS=${CPU_POINTS:-1000000}
BODIES=${BODIES:-100000}
EDIT_BODIES=${EDIT_BODIES:-2000 20000}
EDIT_TIMEOUT=${EDIT_TIMEOUT:-45}
# Seconds one process of tests may run, tests in one process, and the
# seconds after which no further process of tests starts (the benchmarks
# then run in what is left of the device's time). On the H200 all the
# tests took about 420 s (stages 264, piles 100), the benchmarks 65.
TEST_TIMEOUT=${TEST_TIMEOUT:-90}
TESTS_PER_PROCESS=${TESTS_PER_PROCESS:-8}
TEST_BUDGET=${TEST_BUDGET:-420}
# Only the tests whose names match this extended regular expression (a
# rerun of some).
TEST_FILTER=${TEST_FILTER:-.}

# Test binaries that run on the GPU and read no files from the checkout
# (their paths are compiled in and differ on the device machine).
TESTS=(stages edits solver piles)

prepare() {
    rm -rf .device
    mkdir -p .device/tests
    cargo build --release --example bench --example spawn --example drive
    cp target/release/examples/{bench,spawn,drive} .device/
    local args=()
    for t in "${TESTS[@]}"; do args+=(--test "$t"); done
    cargo test --release --no-run "${args[@]}" --message-format=json |
        python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("executable") and m.get("target", {}).get("kind") == ["test"]:
        print(m["executable"])' |
        while read -r exe; do
            name=$(basename "$exe")
            cp "$exe" ".device/tests/${name%-*}"
        done
    strip .device/bench .device/spawn .device/drive .device/tests/*
    # Compressed, so that they fit the device's 64 MiB with the checkout.
    gzip .device/bench .device/spawn .device/drive .device/tests/*
    rm -rf .gl
    mkdir -p .gl /tmp/amd64/partial
    local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
    apt-get "${o[@]}" update -qq
    # The NVIDIA Vulkan driver (libGLX_nvidia) needs the glvnd dispatch
    # libraries beside the loader.
    (cd .gl && apt-get "${o[@]}" download libvulkan1 libglvnd0 libgl1 libglx0 libegl1 libgles2 libopengl0)
    du -sh .device .gl
}

# The Vulkan loader and the NVIDIA driver's files, and the binaries.
setup() {
    : "${OUT:?run this on the device machine, where OUT is set}"
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    gzip -d .device/*.gz .device/tests/*.gz
    ldconfig
    local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if [ -f "$icd" ]; then export VK_DRIVER_FILES="$icd"; fi
    export WGPU_BACKEND=vulkan
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
            --format=csv | tee "$OUT/gpu.txt"
    fi
    # The GPU tests fail rather than skip without an adapter.
    export CI=true
}

# The GPU test binaries, `stages` (a module per stage, the kernels'
# GPU-vs-CPU checks) first.
tests() {
    # Their whole output to tests.txt, a line each here; a failure does not
    # stop the benchmarks.
    : >"$OUT/tests.txt"
    # A few tests to a process, each process on one thread: with its test
    # threads, `stages` stalls on NVIDIA's driver after its CPU-only tests,
    # and one process that has made some fifty GPU contexts in turn finds
    # no adapter for the next (BENCHMARKS.md, "NVIDIA H100 and H200"). Bounded: a failing
    # test can leave the device in a bad state, and the device's time is
    # short.
    local started=$SECONDS passed=0 failed=0 skipped=0
    local t bins=(.device/tests/stages)
    for t in .device/tests/*; do [ "$t" = .device/tests/stages ] || bins+=("$t"); done
    for t in "${bins[@]}"; do
        local name
        name=$(basename "$t")
        local -a all=()
        mapfile -t all < <("$t" --list --format terse 2>/dev/null | sed -n 's/^\(.*\): test$/\1/p' | grep -E -- "$TEST_FILTER")
        local i
        for ((i = 0; i < ${#all[@]}; i += TESTS_PER_PROCESS)); do
            local -a group=("${all[@]:i:TESTS_PER_PROCESS}")
            if ((SECONDS - started > TEST_BUDGET)); then
                skipped=$((skipped + ${#group[@]}))
                printf '%s %s: not run (test budget spent)\n' "$name" "${group[*]}" >>"$OUT/tests.txt"
                continue
            fi
            echo "== $name ${group[*]}" >>"$OUT/tests.txt"
            local rc=0
            timeout "$TEST_TIMEOUT" "$t" --exact --test-threads 1 "${group[@]}" >>"$OUT/tests.txt" 2>&1 || rc=$?
            if [ "$rc" -eq 0 ]; then
                passed=$((passed + ${#group[@]}))
            else
                failed=$((failed + ${#group[@]}))
                echo "$name: FAILED (exit $rc) among ${group[*]} (see tests.txt)"
            fi
        done
    done
    echo "GPU test binaries: $passed tests passed in processes that passed, $failed in processes that failed, $skipped not run; $((SECONDS - started)) s"
}

benches() {
    # GPU alone, enough steps per run for the wall clock to mean something
    # at a millisecond a step; then the CPU reference beside it at 1M
    # points (one thread and all threads), fewer steps; then the contact
    # scene, over every point (the GPU default) and over the active list
    # (a CPU adapter's). The tables to bench.txt.
    local runs=()
    for n in $SIZES; do runs+=("--points $n --gpu-only --steps 200 --runs 5"); done
    runs+=("--points $CPU_POINTS --steps 8 --runs 3")
    runs+=("--bodies $BODIES --gpu-only --steps 50 --runs 3")
    runs+=("--bodies $BODIES --gpu-only --steps 50 --runs 3 --contact-points active")
    for r in "${runs[@]}"; do
        # shellcheck disable=SC2086 # the options split on purpose
        .device/bench $r 2>&1 | tee -a "$OUT/bench.txt"
    done
    # What an edit costs and what the driving API costs, at the sizes of
    # BENCHMARKS.md's lavapipe tables ("Spawning into a sleeping pile",
    # "Driving the world"), each bounded.
    for n in $EDIT_BODIES; do
        echo "== spawn --bodies $n --backend gpu --edits 5" | tee -a "$OUT/edits.txt"
        timeout "$EDIT_TIMEOUT" .device/spawn --bodies "$n" --backend gpu --edits 5 2>&1 | tee -a "$OUT/edits.txt" || true
        echo "== drive --bodies $n --path gpu" | tee -a "$OUT/edits.txt"
        timeout "$EDIT_TIMEOUT" .device/drive --bodies "$n" --path gpu 2>&1 | tee -a "$OUT/edits.txt" || true
    done
}

case "${1:-}" in
prepare) prepare ;;
run) setup && tests && benches ;;
tests) setup && tests ;;
*)
    echo "usage: $0 prepare | run | tests" >&2
    exit 2
    ;;
esac
