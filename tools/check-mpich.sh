#!/usr/bin/env bash
# The documented MPICH check: build mpi4py and hpcbench against Debian's MPICH
# in a separate virtual environment and run the tests there. Needs root/sudo
# for apt and a few minutes (mpi4py builds from source). Not run by CI.
#
# Everything goes into a private directory from mktemp -d (mode 0700), removed
# on exit: a clone of this repository's HEAD, the launcher links and, unless
# VENV is set, the virtual environment. VENV=DIR keeps the environment (and
# the mpi4py built in it) in a directory of your own between runs: it is
# created when absent, used as it is when present (it must be yours and a
# virtual environment, with mpi4py built against MPICH if installed), and
# never deleted. hpcbench goes into it as an editable install of the clone,
# so it is importable there only while the check runs.
set -euo pipefail
[ -z "${VENV:-}" ] || VENV=$(realpath -m -- "$VENV")     # before the cd below
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
command -v mpicc.mpich >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mpich libmpich-dev >/dev/null
}
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcbench-mpich.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
venv=${VENV:-$work/venv}
if [ ! -e "$venv" ]; then
    python3 -m venv "$venv"
elif [ ! -O "$venv" ] || [ ! -f "$venv/bin/activate" ]; then
    echo "check-mpich.sh: VENV=$venv exists but is not a virtual environment of yours; give a new path" >&2
    exit 2
fi
# Build in a clone: an in-place build here would replace this tree's extension.
git clone -q . "$work/src" && cd "$work/src"
. "$venv/bin/activate"
export MPICC=mpicc.mpich
pip install -q "setuptools>=61" wheel numpy pytest matplotlib
pip install -q --no-binary mpi4py --no-cache-dir mpi4py
# A reused VENV may hold an mpi4py built against another MPI: pip keeps it.
python -c 'import sys
from mpi4py import MPI
v = MPI.Get_library_version().splitlines()[0]
print(v)
sys.exit(None if "MPICH" in v else f"check-mpich.sh: mpi4py in {sys.argv[1]} is not built against MPICH; use a new VENV")' "$venv"
pip install -q --no-build-isolation -e .
# MPICH's launcher first on PATH; hydra looks for its proxy beside mpiexec.
mkdir "$work/bin-mpich" && ln -s "$(command -v mpiexec.mpich)" "$work/bin-mpich/mpiexec"
ln -s "$(command -v hydra_pmi_proxy)" "$work/bin-mpich/hydra_pmi_proxy"
PATH="$work/bin-mpich:$PATH" python -m pytest -q -ra
