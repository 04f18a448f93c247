#!/usr/bin/env bash
# Benchmarks and GPU tests on a lent NVIDIA machine (the workplace's
# `device` tool; BENCHMARKS.md, "Real GPUs"). That machine has no Rust
# toolchain and no network, so the binaries are built here and carried:
#
#   scripts/device-bench.sh prepare   # here: .device/ (bench and GPU test
#                                     # binaries, release) and .gl/ (the
#                                     # Vulkan loader and glvnd packages)
#   scripts/device-bench.sh run       # there, as the device command, with
#                                     # carry [".device", ".gl"]: results
#                                     # under $OUT
#
# Both folders are in .gitignore. Nothing in the project depends on this
# script; CI never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Sizes (SIZES, CPU_POINTS and BODIES override them, as for a trial run
# of `run` on lavapipe).
SIZES=${SIZES:-10000 100000 1000000 4000000}
CPU_POINTS=${CPU_POINTS:-1000000}
BODIES=${BODIES:-100000}
# Seconds each GPU test binary may run.
TEST_TIMEOUT=${TEST_TIMEOUT:-180}

# Test binaries that run on the GPU and read no files from the checkout
# (their paths are compiled in and differ on the device machine).
TESTS=(stages edits)

prepare() {
    rm -rf .device
    mkdir -p .device/tests
    cargo build --release --example bench
    cp target/release/examples/bench .device/
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
    strip .device/bench .device/tests/*
    rm -rf .gl
    mkdir -p .gl /tmp/amd64/partial
    local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
    apt-get "${o[@]}" update -qq
    # The NVIDIA Vulkan driver (libGLX_nvidia) needs the glvnd dispatch
    # libraries beside the loader.
    (cd .gl && apt-get "${o[@]}" download libvulkan1 libglvnd0 libgl1 libglx0 libegl1 libgles2 libopengl0)
    du -sh .device .gl
}

run() {
    : "${OUT:?run this on the device machine, where OUT is set}"
    for f in .gl/*.deb; do dpkg -x "$f" /; done
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
    # Their whole output to tests.txt, a line each here; a failure does not
    # stop the benchmarks.
    : >"$OUT/tests.txt"
    for t in .device/tests/*; do
        # A process per test module, each on one thread: with its test
        # threads, `stages` stalls on NVIDIA's driver after its CPU-only
        # tests, and one process that has made some fifty GPU contexts in
        # turn finds no adapter for the next (BENCHMARKS.md, "H200").
        # Bounded: a failing test can leave the device in a bad state, and
        # the device's time is short.
        local modules
        modules=$("$t" --list --format terse 2>/dev/null | sed -n 's/^\([^:]*\)::.*: test$/\1::/p' | sort -u)
        [ -n "$modules" ] || modules=$'\n'
        while read -r m; do
            echo "== $(basename "$t") $m" >>"$OUT/tests.txt"
            local rc=0
            # shellcheck disable=SC2086 # an empty module runs them all
            timeout "$TEST_TIMEOUT" "$t" $m --test-threads 1 >>"$OUT/tests.txt" 2>&1 || rc=$?
            if [ "$rc" -eq 0 ]; then
                echo "$(basename "$t") ${m:-(all)}: ok"
            else
                echo "$(basename "$t") ${m:-(all)}: FAILED (exit $rc, see tests.txt)"
            fi
        done <<<"$modules"
    done
    # GPU alone, enough steps per run for the wall clock to mean something
    # at a millisecond a step; then the CPU reference beside it at 1M
    # points (one thread and all threads), fewer steps; then the contact
    # scene, over every point (the GPU default) and over the active list
    # (a CPU adapter's). The table to bench.txt, the same runs as JSON to
    # bench.jsonl.
    local runs=()
    for n in $SIZES; do runs+=("--points $n --gpu-only --steps 200 --runs 5"); done
    runs+=("--points $CPU_POINTS --steps 8 --runs 3")
    runs+=("--bodies $BODIES --gpu-only --steps 50 --runs 3")
    runs+=("--bodies $BODIES --gpu-only --steps 50 --runs 3 --contact-points active")
    : >"$OUT/bench.jsonl"
    for r in "${runs[@]}"; do
        # shellcheck disable=SC2086 # the options split on purpose
        .device/bench $r 2>&1 | tee -a "$OUT/bench.txt"
        # shellcheck disable=SC2086
        .device/bench $r --json 2>/dev/null >>"$OUT/bench.jsonl"
    done
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
*)
    echo "usage: $0 prepare | run" >&2
    exit 2
    ;;
esac
