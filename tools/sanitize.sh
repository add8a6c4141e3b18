#!/usr/bin/env bash
# Build hpcbench._core with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-sanitize/ and run the kernel tests against it. CPython itself is not
# sanitized, so the ASan runtime is preloaded and leak checks are off (the
# interpreter's own allocations would drown real reports).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
out=build-sanitize
rm -rf "$out" && mkdir -p "$out/hpcbench"
HPCB_SANITIZE=1 "$PYTHON" setup.py -q build_ext --build-lib "$out" --build-temp "$out/tmp" --force >/dev/null
(cd hpcbench && find . -name "*.py" -exec cp --parents -t "../$out/hpcbench/" {} +)   # one cp, not one per file
ASAN_LIB=$(${MPICC:-mpicc} -print-file-name=libasan.so)
UBSAN_LIB=$(${MPICC:-mpicc} -print-file-name=libubsan.so)
export LD_PRELOAD="$ASAN_LIB $UBSAN_LIB"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH="$PWD/$out" HPCB_EXPECT_SANITIZED=1
cd "$out"
"$PYTHON" -m pytest -q -p no:cacheprovider "$OLDPWD/tests/test_core.py" "$OLDPWD/tests/test_core_cache.py" \
    "$OLDPWD/tests/test_matrix.py" "$OLDPWD/tests/test_wavefront_kernel.py" \
    "$OLDPWD/tests/test_stream_kernel.py" "$OLDPWD/tests/test_bandwidth_run.py" \
    "$OLDPWD/tests/test_flops_kernel.py" "$OLDPWD/tests/test_numa_kernel.py"

# The MPI kernels with two and four real ranks, sanitized too. mpiexec itself
# runs without the preload; only the Python ranks get the sanitizer runtimes.
# (The timeouts catch a hang: 4 to 6 ranks on a loaded 2-core machine take minutes.)
# (-x is Open MPI's way to pass variables; other MPIs skip this part.)
mpi_version=$(mpiexec --version 2>&1 || true)   # not piped into grep -q: SIGPIPE + pipefail
if [[ "$mpi_version" == *"Open MPI"* || "$mpi_version" == *"OpenRTE"* ]]; then
    . "$OLDPWD/tools/mpienv.sh"
    preload=$LD_PRELOAD
    # sanitized_check SCRIPT N...: tests/SCRIPT under mpiexec at each N ranks.
    sanitized_check() {
        local script=$1 n
        shift
        for n in "$@"; do
            env -u LD_PRELOAD timeout 900 mpiexec -n "$n" -x LD_PRELOAD="$preload" -x ASAN_OPTIONS -x UBSAN_OPTIONS \
                -x PYTHONPATH -x HPCB_EXPECT_SANITIZED "$PYTHON" "$OLDPWD/tests/$script"
        done
    }
    sanitized_check mpi_comm_check.py 2 4
    # The matrix kernels: the 2 x 2 mesh and its sub-communicator, and a 2 x 3 one.
    sanitized_check mpi_matrix_check.py 4 6
    # The wavefront kernel: every array of 2 and 4 ranks, against the serial evaluation, and its faults.
    sanitized_check mpi_wavefront_check.py 2 4
    # The point-to-point and one-sided micro-benchmarks (OSU's patterns): every test, 1 B to 4 MiB.
    sanitized_check mpi_micro_p2p_check.py 2 4
    # The micro-benchmarks' collectives: every collective in every mode (blocking, pure, overlap, CPU).
    sanitized_check mpi_micro_coll_check.py 2 4
    # The flow kernel of the network map and the bisections: a ring, one pair alone, its check.
    sanitized_check mpi_flow_check.py 2 3
fi
