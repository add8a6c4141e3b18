#!/usr/bin/env bash
# Static checks of the Python code: ruff (style and likely bugs) on the
# whole tree, mypy (types) on the package. tools/test.sh runs this before the
# tests; it installs the two tools if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
$PYTHON -m pip install -q --disable-pip-version-check "ruff>=0.5" "mypy>=1.10" 2>&1 \
    | grep -v "Running pip as the 'root' user" || true
$PYTHON -m ruff check hpcbench tests benchmarks tools
$PYTHON -m mypy
