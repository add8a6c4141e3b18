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
#
# WORKTREE=1 checks this checkout as it is on disk: the clone of HEAD gets the
# uncommitted changes and the untracked files git does not ignore.
# PYTEST_ARGS replaces the pytest arguments (default: the whole suite, -q -ra).
#
# After pytest, under MPICH's mpiexec with its default placement (ranks not
# bound; hpcbench binds them, docs/doctor.md): `hpcbench doctor` on 2 ranks,
# then a comm profile and `predict wavefront --measure` on 2 ranks; each must
# exit 0, and doctor's binding lines are printed again at the end.
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
git clone -q . "$work/src"
if [ "${WORKTREE:-0}" = 1 ]; then
    git diff --binary HEAD | git -C "$work/src" apply --whitespace=nowarn
    git ls-files -z --others --exclude-standard | xargs -0 -r cp --parents -t "$work/src"
fi
cd "$work/src"
. "$venv/bin/activate"
export MPICC=mpicc.mpich
# The build requirements pyproject.toml states (mpi4py apart: built below, against MPICH).
python -c 'import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(r for r in tomllib.load(f)["build-system"]["requires"] if not r.startswith("mpi4py")))' \
    > "$work/build-requires.txt"
pip install -q --upgrade -r "$work/build-requires.txt" wheel numpy pytest matplotlib
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
export PATH="$work/bin-mpich:$PATH"
status=0
# shellcheck disable=SC2086   # PYTEST_ARGS is a list of words
python -m pytest ${PYTEST_ARGS:--q -ra} || status=$?
# MPICH's own defaults: no run-as-root or binding variables of Open MPI matter here.
run() { echo "+ $*"; timeout 600 "$@"; }
run mpiexec -n 2 python -m hpcbench doctor | tee "$work/doctor.txt" || { echo "check-mpich.sh: doctor failed"; status=1; }
run mpiexec -n 2 python -m hpcbench run comm --comm-max 64KiB --comm-cap 0.5 -q -o "$work/comm.json" >/dev/null \
    || { echo "check-mpich.sh: run comm failed"; status=1; }
run mpiexec -n 2 python -m hpcbench predict wavefront --results "$work/comm.json" --grid 64 --procs 1x2 --measure \
    || { echo "check-mpich.sh: predict wavefront --measure failed"; status=1; }
echo "doctor's binding lines under MPICH:"
grep -E "launcher|binding" "$work/doctor.txt" || true
echo "check-mpich.sh: $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"
