#!/usr/bin/env bash
# Install what hpcbench needs on a fresh Debian/Ubuntu machine, then build it.
# Idempotent: skips what is already there. Uses the current python3 (or $PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

need_apt=()
command -v mpicc >/dev/null 2>&1 || need_apt+=(openmpi-bin libopenmpi-dev)
command -v mpiexec >/dev/null 2>&1 || [[ " ${need_apt[*]} " == *" openmpi-bin "* ]] || need_apt+=(openmpi-bin)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists hwloc 2>/dev/null || need_apt+=(libhwloc-dev)
# The emulated cluster of the network tests (tools/netcluster.py) uses ip and tc.
command -v tc >/dev/null 2>&1 || need_apt+=(iproute2)
# The report tests open the HTML report in headless Chromium (tests/headless.py).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# The mapping's tests compare with hwloc-distrib and draw fake topologies with lstopo.
command -v hwloc-distrib >/dev/null 2>&1 || need_apt+=(hwloc)
# tests/test_slurm.py starts a private single-node Slurm (tools/slurmcluster.py, docs/slurm.md).
command -v slurmd >/dev/null 2>&1 || need_apt+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || need_apt+=(munge)
# tests/test_params_capi.py compiles the Fortran interface of the parameters API (hpcb_params.f90).
command -v gfortran >/dev/null 2>&1 || need_apt+=(gfortran)

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "hpcbench install: installing Debian packages: ${need_apt[*]}"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
            echo "hpcbench install: error: need root or sudo to install ${need_apt[*]}" >&2; exit 1
        fi
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Build-time and test dependencies first, then the package itself without
# build isolation, so it compiles against this environment's NumPy and mpi4py.
# setuptools 77 or later: pyproject.toml's SPDX license (the [build-system]
# floor, which an install without build isolation does not enforce itself).
# build: tools/smoke.sh makes the sdist and the wheel with `python3 -m build`.
# pandas: the tests of Results.to_frame() (the tidy export).
$PYTHON -m pip install -q --disable-pip-version-check "setuptools>=77" "numpy>=1.23" "mpi4py>=3.1" \
    "scipy>=1.12" "pytest>=7" "matplotlib>=3.10" "pandas>=2" "build>=1" 2>&1 | grep -v "Running pip as the 'root' user" || true
$PYTHON -m pip install -q --disable-pip-version-check --no-build-isolation -e . 2>&1 \
    | grep -v "Running pip as the 'root' user" || true
$PYTHON -c "import hpcbench._core" || { echo "hpcbench install: error: the extension did not build" >&2; exit 1; }
echo "hpcbench install: ready ($($PYTHON -c 'import hpcbench._core as c; print(c.build_info()["compiler"])'))"
