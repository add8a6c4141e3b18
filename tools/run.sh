#!/usr/bin/env bash
# The main job: install what is missing, run the default suite on this machine
# (or under mpiexec: NP=4 tools/run.sh), write hpcbench-results.json, print a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
bash tools/install.sh
. tools/mpienv.sh
if [ -n "${NP:-}" ]; then
    exec mpiexec -n "$NP" "$PYTHON" -m hpcbench run "$@"
fi
exec "$PYTHON" -m hpcbench run "$@"
