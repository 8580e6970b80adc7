"""Every public path of the two reference manuals resolves in the workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SURFACE = Path(__file__).resolve().parent / "public_surface.py"


def test_every_documented_path_imports() -> None:
    result = subprocess.run(
        [sys.executable, str(SURFACE), "--extras"], capture_output=True, text=True, timeout=120
    )
    report = json.loads(result.stdout)
    assert report["failures"] == []
    assert report["checked"] > 70
