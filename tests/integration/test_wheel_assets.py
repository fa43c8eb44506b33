"""A wheel carries the weights the package loads (atma/assets/<name>/), so an install needs no repository."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_ships_the_sentry_checkpoint(tmp_path):
    pytest.importorskip("setuptools", reason="building a wheel needs setuptools: pip install setuptools")
    out = tmp_path / "whl"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheels = list(out.glob("atma-*.whl"))
    assert len(wheels) == 1
    with zipfile.ZipFile(wheels[0]) as z:
        names = set(z.namelist())
        assert "atma/assets/sentry/sentry_best.pt" in names
        assert "atma/assets/sentry/card.json" in names
        # only atma and adapters install (issue 13 item 10): no top-level `eval` or `training` package
        tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
        assert tops == {"atma", "adapters"}, tops
        card = json.loads(z.read("atma/assets/sentry/card.json"))
        assert z.getinfo("atma/assets/sentry/sentry_best.pt").file_size == card["checkpoint"]["bytes"]
    # the shipped weights are not also left behind under checkpoints/ (one copy, in the package)
    assert not (ROOT / "checkpoints" / "sentry" / "sentry_best.pt").exists()


def test_atma_eval_finds_the_checkout_from_any_directory(tmp_path):
    # the console script's sys.path starts at its own folder: `atma eval` must still find eval/ of
    # the checkout the (editable) package lives in, and `import eval` must not be installed globally
    code = ("import sys; sys.path = [p for p in sys.path if p not in ('', %r)]; from atma.cli import main; "
            "sys.exit(main(['eval', '--help']))" % str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "atma eval" in proc.stdout, proc.stderr[-2000:]
