#!/usr/bin/env bash
# The whole test suite: install what is missing, check the code (ruff, mypy),
# run pytest (unit, kernel, CLI, MPI and notebook tests), then the C kernels
# under ASan + UBSan.
#
#   tools/test.sh              everything (the README's and CI's command)
#   tools/test.sh --fast       install, lint, then pytest -m "not slow": every package, no MPI job over
#                              2 ranks, no emulated cluster, no long simulation, no sanitizer build
#                              (about 3 minutes on a 2-core machine)
# Other arguments go to pytest (tools/test.sh --fast -k cache, tools/test.sh tests/test_cli.py).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
fast=0
args=()
for arg in "$@"; do
    if [[ "$arg" == "--fast" ]]; then fast=1; else args+=("$arg"); fi
done
bash tools/install.sh
bash tools/lint.sh
. tools/mpienv.sh
# A folder of this run's own for pytest's tmp_path, removed at the end,
# rather than the shared /tmp/pytest-of-USER/pytest-N that every pytest on
# the machine numbers and prunes (a suspect, not a proven cause, of a
# results file srun had just written being "not found" once, while other
# pytest runs shared the machine; 3 reruns under load passed).
basetemp=$(mktemp -d "${TMPDIR:-/tmp}/hpcbench-tests.XXXXXX")
trap 'rm -rf "$basetemp"' EXIT
args=(--basetemp "$basetemp/t" ${args[@]+"${args[@]}"})
if [[ $fast == 1 ]]; then
    # (the tests marked slow are what the full run adds: see `slow` in pyproject.toml and tests/conftest.py)
    "$PYTHON" -m pytest -q -ra -m "not slow" ${args[@]+"${args[@]}"}
else
    "$PYTHON" -m pytest -q -ra ${args[@]+"${args[@]}"}
    bash tools/sanitize.sh
fi
