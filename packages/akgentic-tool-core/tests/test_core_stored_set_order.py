"""A set field is stored sorted, so a card's stored form does not depend on the hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

_DUMP = """
import json
from akgentic.tool.core.channels import COMMAND, TOOL_CALL
from akgentic.tool.core.params import BaseToolParam
print(json.dumps([BaseToolParam(expose={TOOL_CALL, COMMAND}).model_dump(mode=mode)["expose"]
                  for mode in ("python", "json")]))
"""


def _dump_with_seed(seed: int) -> list[list[str]]:
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    out = subprocess.run(
        [sys.executable, "-c", _DUMP], env=env, capture_output=True, text=True, check=True
    )
    result: list[list[str]] = json.loads(out.stdout)
    return result


def test_a_set_is_stored_in_the_same_order_whatever_the_hash_seed() -> None:
    # Seed 2 iterates {TOOL_CALL, COMMAND} the other way round from seed 1 in CPython 3.12.
    dumps = [_dump_with_seed(seed) for seed in (1, 2, 3)]
    assert dumps[0] == [["command", "tool_call"], ["command", "tool_call"]]
    assert dumps[1] == dumps[0] == dumps[2]
