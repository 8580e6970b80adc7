"""Makes this folder's shared test models importable by name."""

from __future__ import annotations

import sys
from pathlib import Path

# pytest runs with --import-mode=importlib, which does not put this folder on sys.path;
# appended, so that nothing here can shadow an installed module.
sys.path.append(str(Path(__file__).parent))
