"""Every ```python block of every README runs, as a reader would run it.

One pytest item per block, named after the README and the block's first line
(``packages/akgentic-tool-core/README.md:L123``). The convention every README follows:

- a block runs in a fresh module namespace, registered in ``sys.modules`` so pydantic can
  resolve the annotations of the models it defines, inside a temporary working directory;
- no network but 127.0.0.1, no provider key in the environment, ``HF_HUB_OFFLINE=1``;
- a block directly preceded by the line ``<!-- readme: continue -->`` runs in the
  namespace (and working directory) the previous block of the same README left;
- a block whose first line is a comment naming a Python file (``# server.py — ...``) is
  that file: it is also written into the working directory, as a reader would save it,
  for a later (continued) block to start;
- there is no skip marker: every block must run.

A failing block's traceback names the README and the README line, because each block is
compiled with the README's path as its file name and its own line numbers.
"""

from __future__ import annotations

import os
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_socket import enable_socket, socket_allow_hosts

ROOT = Path(__file__).resolve().parent.parent
README_GLOBS = ("README.md", "packages/*/README.md", "meta/*/README.md")
CONTINUE_MARKER = "<!-- readme: continue -->"
LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1"]

# Provider keys and endpoints a block must not find: a README example that silently picks
# up the reader's own key would pass here and fail for a newcomer without one.
_KEY_VARIABLE = re.compile(
    r"^(OPENAI|AZURE|ANTHROPIC|GEMINI|GOOGLE|GROQ|MISTRAL|COHERE|DEEPSEEK|XAI|TAVILY|"
    r"HF|HUGGINGFACE|VOYAGE|OPENROUTER|TOGETHER|FIREWORKS|PERPLEXITY|LOGFIRE)_|_API_KEY$"
)

# A fenced block: the opening fence may be indented (a block inside a list item).
_FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*$")


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is, its code, and whether it chains on the previous."""

    readme: str  # path relative to the repo root
    line: int  # 1-based line of the block's first code line
    code: str
    continues: bool
    chain_start: int  # line of the first block of its chain (itself when not chained)

    @property
    def ident(self) -> str:
        return f"{self.readme}:L{self.line}"


def _readmes() -> list[Path]:
    found = {path for pattern in README_GLOBS for path in ROOT.glob(pattern)}
    return sorted(found)


def _previous_nonblank(lines: list[str], index: int) -> str:
    for line in reversed(lines[:index]):
        if line.strip():
            return line.strip()
    return ""


def _blocks_of(readme: Path, root: Path = ROOT) -> list[Block]:
    relative = readme.relative_to(root).as_posix()
    lines = readme.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = opening.group("indent")
        body: list[str] = []
        cursor = index + 1
        while cursor < len(lines) and lines[cursor].strip() != "```":
            text = lines[cursor]
            body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
            cursor += 1
        continues = _previous_nonblank(lines, index) == CONTINUE_MARKER and bool(blocks)
        chain_start = blocks[-1].chain_start if continues else index + 2
        blocks.append(Block(relative, index + 2, "\n".join(body) + "\n", continues, chain_start))
        index = cursor + 1
    return blocks


def _all_blocks() -> list[Block]:
    return [block for readme in _readmes() for block in _blocks_of(readme)]


BLOCKS = _all_blocks()
_BY_README: dict[str, list[Block]] = {}
for _block in BLOCKS:
    _BY_README.setdefault(_block.readme, []).append(_block)


@dataclass
class _ChainState:
    """What a chain of blocks has left behind so far: its module and working directory."""

    module: types.ModuleType
    cwd: Path
    last_line: int = 0
    # The environment as the last block left it: a chained block sees what earlier ones
    # set (a base URL, a key for a stand-in), though the fixture restores it between items.
    env: dict[str, str] = field(default_factory=dict)


# Per (readme, chain start): the state after the last block that ran without error, so a
# chained block reuses it when its predecessor just ran (the usual, in-order case).
_CHAINS: dict[tuple[str, int], _ChainState] = {}


def _fresh_module(block: Block) -> types.ModuleType:
    stem = re.sub(r"\W", "_", f"{block.readme}_L{block.chain_start}")
    module = types.ModuleType(f"readme_block_{stem}")
    module.__file__ = str(ROOT / block.readme)
    sys.modules[module.__name__] = module  # pydantic resolves annotations through it
    return module


# "# server.py" or "# my_app/tools.py — what it is": the block is the content of that file.
_FILE_BLOCK = re.compile(r"^#\s*(?P<name>[\w./-]+\.py)\b")


def _save_if_file(block: Block) -> None:
    named = _FILE_BLOCK.match(block.code)
    if named is not None:
        target = Path.cwd() / named.group("name")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code, encoding="utf-8")


def _exec(block: Block, module: types.ModuleType) -> None:
    _save_if_file(block)
    # Padding with blank lines keeps the README's own line numbers in tracebacks.
    source = "\n" * (block.line - 1) + block.code
    code = compile(source, block.readme, "exec")
    exec(code, module.__dict__)


def _chain_before(block: Block) -> list[Block]:
    siblings = _BY_README[block.readme]
    return [b for b in siblings if b.chain_start == block.chain_start and b.line < block.line]


def _state_for(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _ChainState:
    """The namespace this block runs in, replaying its chain's earlier blocks if needed."""
    key = (block.readme, block.chain_start)
    earlier = _chain_before(block)
    cached = _CHAINS.get(key)
    if block.continues and cached is not None and earlier and cached.last_line == earlier[-1].line:
        monkeypatch.chdir(cached.cwd)
        os.environ.clear()
        os.environ.update(cached.env)
        return cached
    state = _ChainState(module=_fresh_module(block), cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    for previous in earlier:  # run alone (-k) or after a failure: replay the chain
        _exec(previous, state.module)
        state.last_line = previous.line
    return state


@pytest.fixture
def readme_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No provider key, no model download, no network beyond this machine."""
    for name in list(os.environ):
        if _KEY_VARIABLE.search(name):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # A block may set variables itself (os.environ[...] = ...): put the environment back
    # afterwards so the next block, or test, starts from the same one.
    saved = dict(os.environ)
    socket_allow_hosts(LOCAL_HOSTS)
    try:
        yield
    finally:
        enable_socket()
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize(
    "block", [pytest.param(b, id=b.ident, marks=pytest.mark.timeout(120)) for b in BLOCKS]
)
@pytest.mark.usefixtures("readme_environment")
def test_readme_block(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = (block.readme, block.chain_start)
    state = _state_for(block, tmp_path, monkeypatch)
    _CHAINS.pop(key, None)  # kept only if this block runs to the end
    _exec(block, state.module)
    state.last_line = block.line
    state.env = dict(os.environ)
    _CHAINS[key] = state


def test_every_readme_is_collected() -> None:
    """The glob finds the top README and each package's: a moved README is not lost."""
    names = {path.relative_to(ROOT).as_posix() for path in _readmes()}
    assert "README.md" in names
    assert "packages/akgentic-tool-core/README.md" in names
    assert len(BLOCKS) > 20


def test_continue_marker_chains_to_the_previous_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "x\n```python\na = 1\n```\n\n<!-- readme: continue -->\n```python\nb = a\n```\n"
        "```python\nc = 2\n```\n"
    )
    blocks = _blocks_of(readme, root=tmp_path)
    assert [(b.line, b.continues, b.chain_start) for b in blocks] == [
        (3, False, 3),
        (8, True, 3),
        (11, False, 11),
    ]


def test_a_failing_block_names_the_readme_line() -> None:
    block = Block("packages/x/README.md", 40, "a = 1\nraise ValueError('boom')\n", False, 40)
    module = types.ModuleType("readme_block_selftest")
    with pytest.raises(ValueError, match="boom") as caught:
        _exec(block, module)
    frame = caught.traceback[-1]
    assert str(frame.path).endswith("packages/x/README.md")
    assert frame.lineno + 1 == 41  # pytest's lineno is 0-based


def _make_targets() -> dict[str, str]:
    """Makefile target -> its `## ...` help text."""
    found: dict[str, str] = {}
    for line in (ROOT / "Makefile").read_text().splitlines():
        rule = re.match(r"^([a-z-]+):.*## (.*)$", line)
        if rule is not None:
            found[rule.group(1)] = rule.group(2)
    return found


def test_every_make_command_in_the_docs_exists_and_says_how_long_it_takes() -> None:
    targets = _make_targets()
    for target, text in targets.items():
        assert target == "help" or "(~" in text, f"make {target} gives no duration"
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *ROOT.glob("packages/*/README.md")]
    # As a command: in code (`make test`) or at the start of a line of a shell block.
    command = re.compile(r"(?:^|`)make ([a-z][a-z-]+)", flags=re.MULTILINE)
    named = {m for doc in docs for m in command.findall(doc.read_text())}
    assert named, "the docs name make targets"
    assert named <= set(targets), f"documented but not in the Makefile: {named - set(targets)}"


def test_docs_run_scripts_with_the_workspace_interpreter() -> None:
    """A bare `python scripts/...` outside the workspace's .venv lacks the packages."""
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *ROOT.glob("*/*/README.md")]
    for doc in docs:
        for number, line in enumerate(doc.read_text().splitlines(), start=1):
            bare = re.search(r"(?<![/\w.])python3? (scripts|packages)/", line)
            assert bare is None, f"{doc.relative_to(ROOT)}:{number}: use .venv/bin/python"
