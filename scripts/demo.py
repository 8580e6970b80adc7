"""Run the akgentic demo team from this checkout: ``python scripts/demo.py --help``.

The demo itself is the ``akgentic_examples.demo`` module of the workspace member
``examples/akgentic-examples`` (``python -m akgentic_examples.demo`` runs the same thing);
this launcher keeps the command the top README shows.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from akgentic_examples.demo import main
except ModuleNotFoundError as missing:
    if missing.name != "akgentic_examples":
        raise
    # An environment built from the published wheels has no akgentic-examples (it is never
    # published): the demo then runs from this checkout's source of the member.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples/akgentic-examples/src"))
    from akgentic_examples.demo import main

if __name__ == "__main__":
    sys.exit(main())
