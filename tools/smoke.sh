#!/usr/bin/env bash
# Install smoke test: what a user gets from `pip install hpcbench-X.tar.gz`.
# Builds the sdist and the wheel with `python3 -m build`, installs the sdist
# (with pip's build isolation, as a user would) into a fresh virtual
# environment, and from a directory outside the checkout runs the installed
# command on this machine: doctor, a short cache run, show, report, the
# shipped examples, and a C program linked against libhpcbdegr.
#
#   bash tools/smoke.sh          (CI runs it from .ci/run)
#
# Needs what a user needs (a C compiler, MPI with mpicc, hwloc with
# pkg-config or HWLOC_DIR, network access to PyPI for the build and run
# dependencies) plus the `build` package for python3 (tools/install.sh
# installs it). Every step says what it runs; the first failure stops the
# script with a non-zero status. Its temporary directories are removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
PYTHON=${PYTHON:-python3}
started=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/hpcbench-smoke.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What the script does goes to stderr, so that it shows even where a step's output is redirected.
say() { echo "smoke: $*" >&2; }
# Run a command, saying it first; its output is shown as it comes.
run() { say "\$ $*"; "$@"; }
# Run a long, chatty command with its output in a log; the log's end is shown if it fails.
quiet() {
    local log=$1; shift
    say "\$ $* > $log"
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        say "FAILED: $*"
        exit 1
    fi
}

"$PYTHON" -m build --version >/dev/null 2>&1 || {
    echo "smoke: error: the 'build' package is missing for $PYTHON (bash tools/install.sh, or pip install build)" >&2
    exit 1
}
. tools/mpienv.sh   # Open MPI as root (CI) for the MPI singleton of `hpcbench run`

# 1. Build: an sdist and a wheel made from it (python -m build's default).
# The sdist step writes hpcbench.egg-info into the checkout; a new one is removed again.
[ -e hpcbench.egg-info ] && made_egg_info=no || made_egg_info=yes
quiet "$work/build.log" "$PYTHON" -m build --outdir "$work/dist" "$checkout"
[ "$made_egg_info" = no ] || rm -rf -- "$checkout/hpcbench.egg-info"
sdist=$(ls "$work"/dist/hpcbench-*.tar.gz)
wheel=$(ls "$work"/dist/hpcbench-*.whl)
say "built $(basename "$sdist") and $(basename "$wheel") ($((SECONDS - started)) s)"

# 2. A fresh virtual environment; the sdist into it, the way PyPI would install it.
run "$PYTHON" -m venv "$work/venv"
venv_python=$work/venv/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1
quiet "$work/pip.log" "$venv_python" -m pip install "$sdist[plot]"
say "installed $(basename "$sdist")[plot] into a fresh venv ($((SECONDS - started)) s)"

# Everything below runs outside the checkout, with the venv's hpcbench only.
mkdir "$work/use" && cd "$work/use"
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH

# 3. The installed package is the venv's, and _core and mpi4py use one MPI library.
run python - "$work" <<'EOF'
import os, re, sys
import hpcbench, hpcbench._core
from mpi4py import MPI
if not hpcbench.__file__.startswith(sys.argv[1]):
    sys.exit(f"smoke: hpcbench comes from {hpcbench.__file__}, not the venv")
# Every MPI library this process mapped: one file, or _core and mpi4py disagree.
with open("/proc/self/maps") as maps:
    mapped = {os.path.realpath(line.split()[-1]) for line in maps if re.search(r"/lib(mpi|mpich)\.so", line)}
print("smoke: mpi4py", MPI.Get_library_version().splitlines()[0].strip())
print("smoke: MPI libraries mapped:", ", ".join(sorted(mapped)) or "none")
if len(mapped) != 1:
    sys.exit("smoke: hpcbench._core and mpi4py do not use one MPI library")
EOF

# 4. The commands a new user runs first.
run hpcbench doctor
# The shortest cache sweep that still finds L1 (a few seconds): up to 512 KiB, one pass, one sample.
run hpcbench run cache -q -o cache.json --cache-max 512KiB --cache-passes 1 --cache-samples 1 --no-cache-extend >/dev/null
run hpcbench show cache.json | tee show.txt
grep -q "cache levels on" show.txt || { say "FAILED: show printed no cache levels"; exit 1; }
run hpcbench show example:cache >/dev/null
run hpcbench report -o "$work/use/cache.html" cache.json
test -s "$work/use/cache.html"
run python -c "import hpcbench.examples as e; print('smoke: shipped examples:', ', '.join(e.names()))"

# 5. The C API: a tiny program against libhpcbdegr, reading a degradation file.
run hpcbench degr -o net.degr example:network
cat > degr.c <<'EOF'
#include <stdio.h>
#include "hpcb_degr.h"
int main(void)
{
    hpcb_degr_desc d;
    int rc = hpcb_load_degr_info(&d, "net.degr");
    if (rc != HPCB_DEGR_OK) {
        fprintf(stderr, "hpcb_load_degr_info: %s\n", hpcb_degr_strerror(rc));
        return 1;
    }
    double dist = hpcb_get_network_dist_ratio(&d, 1), access = hpcb_get_network_access_ratio(&d, 1);
    printf("smoke: libhpcbdegr: ratDist[1] = %g, ratNC[1] = %g\n", dist, access);
    hpcb_release_degr_info(&d);
    return dist > 0 && access > 0 ? 0 : 1;
}
EOF
flags=$(hpcbench config --cflags --libs)
say "hpcbench config --cflags --libs: $flags"
# shellcheck disable=SC2086   # the flags are words
run "${CC:-cc}" -o degr degr.c $flags
run ./degr
# ... and the parameters file through hpcb_params.h (the header installed beside the library).
run hpcbench params -o node.params example:node
cat > params.c <<'EOF'
#include <stdio.h>
#include "hpcb_params.h"
int main(void)
{
    hpcb_params p;
    char why[256];
    if (hpcb_load_params(&p, "node.params", why, sizeof why) != 0) {
        fprintf(stderr, "hpcb_load_params: %s\n", why);
        return 1;
    }
    int levels = hpcb_params_cache_levels(&p);
    long long l1 = levels > 0 ? hpcb_params_cache_size(&p, 1) : -1;
    printf("smoke: libhpcbdegr: %d cache level(s), L1 %lld bytes\n", levels, l1);
    hpcb_release_params(&p);
    return levels > 0 && l1 > 0 ? 0 : 1;
}
EOF
# shellcheck disable=SC2086   # the flags are words
run "${CC:-cc}" -o params params.c $flags
run ./params

say "passed in $((SECONDS - started)) s"
