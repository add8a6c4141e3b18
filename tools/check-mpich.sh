#!/usr/bin/env bash
# The documented MPICH check: build mpi4py and hpcbench against Debian's MPICH
# in a separate virtual environment and run the tests there. Needs root/sudo
# for apt and a few minutes (mpi4py builds from source). Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
command -v mpicc.mpich >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mpich libmpich-dev >/dev/null
}
venv=${VENV:-/tmp/hpcbench-mpich}
# Build in a clone: an in-place build here would replace this tree's extension.
rm -rf "$venv" && python3 -m venv "$venv"
git clone -q . "$venv/src" && cd "$venv/src"
. "$venv/bin/activate"
export MPICC=mpicc.mpich
pip install -q "setuptools>=61" wheel numpy pytest matplotlib
pip install -q --no-binary mpi4py --no-cache-dir mpi4py
pip install -q --no-build-isolation -e .
python -c "from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"
# MPICH's launcher first on PATH; hydra looks for its proxy beside mpiexec.
mkdir -p "$venv/bin-mpich" && ln -sf "$(command -v mpiexec.mpich)" "$venv/bin-mpich/mpiexec"
ln -sf "$(command -v hydra_pmi_proxy)" "$venv/bin-mpich/hydra_pmi_proxy"
PATH="$venv/bin-mpich:$PATH" python -m pytest -q -ra
