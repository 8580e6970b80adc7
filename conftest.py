"""Root pytest configuration for the whole workspace.

pytest accepts ``pytest_plugins`` only in the top-level conftest, so the tool-core testing
kit (real actor system, orchestrator and agent fixtures) is registered here for every
package's tests. It is skipped where akgentic-tool-core is not installed (akgentic-llm's
tests run in an environment holding akgentic-llm alone).
"""

from importlib.util import find_spec


def _kit_installed() -> bool:
    try:
        return find_spec("akgentic.tool.core.testing") is not None
    except ModuleNotFoundError:  # no akgentic.tool at all
        return False


pytest_plugins = ["akgentic.tool.core.testing"] if _kit_installed() else []
