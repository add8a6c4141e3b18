#!/usr/bin/env bash
# The whole test suite: install what is missing, check the code (ruff, mypy),
# run pytest (unit, kernel, CLI, MPI and notebook tests), then the C kernels
# under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
bash tools/install.sh
bash tools/lint.sh
. tools/mpienv.sh
"$PYTHON" -m pytest -q -ra "$@"
bash tools/sanitize.sh
