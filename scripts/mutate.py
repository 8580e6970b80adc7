"""Mutation testing of one package: how many small, deliberate bugs do its tests catch?

Usage: python scripts/mutate.py <distribution> [--keep] [--survivors] [--jobs=N] [mutant names ...]

mutmut copies the package's ``src`` into ``packages/<distribution>/mutants/``, makes every
small semantic change it knows (a flipped comparison, a changed constant, a dropped
argument...) and runs the tests that cover each changed function. A mutant the tests do not
notice "survives". The kill rate is killed / all judged mutants; a timeout counts as
killed, and a mutant in code no test reaches counts as missed. Each package's
``[tool.mutmut]`` table in its ``pyproject.toml`` names what is mutated and which tests run.

``--keep`` reuses earlier results (only new or changed mutants run again); without it the
run starts clean. ``--survivors`` lists the mutants that survived, for ``mutmut show <name>``
from the package folder. ``--jobs=N`` runs N mutants at a time (mutmut's default is one per
core); packages whose tests mostly wait on local servers or subprocesses (mcp, sandbox) go
about twice as fast with twice as many jobs as cores. Names given after the options run only
those mutants (globs such as ``akgentic.llm.providers*`` work).

Not part of CI: a whole package takes minutes to tens of minutes on two cores. Run it
before releasing a package and record the figure in CONTRIBUTING.md.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from _workspace import ROOT, members

MUTMUT = ROOT / ".venv" / "bin" / "mutmut"


def _usage(message: str) -> int:
    print(message, file=sys.stderr)
    print(__doc__, file=sys.stderr)
    return 2


def _configured(folder: Path) -> bool:
    with (folder / "pyproject.toml").open("rb") as handle:
        return "mutmut" in tomllib.load(handle).get("tool", {})


def _kill_rate(stats: dict[str, int]) -> tuple[int, int, float]:
    caught = stats["killed"] + stats["timeout"] + stats["segfault"]
    # A mutant in code no test reaches is a bug nobody would notice: it counts as missed.
    judged = caught + stats["survived"] + stats["suspicious"] + stats["no_tests"]
    return caught, judged, 100.0 * caught / judged if judged else 0.0


def _survivors(folder: Path) -> list[str]:
    listing = subprocess.run(
        [str(MUTMUT), "results"], cwd=folder, capture_output=True, text=True, check=False
    )
    lines = listing.stdout.splitlines()
    return [line.split(":")[0].strip() for line in lines if "survived" in line]


def _jobs(options: set[str]) -> tuple[list[str], str | None]:
    """mutmut's ``--max-children`` for a ``--jobs=N`` option, or the error to print."""
    given = [option for option in options if option.startswith("--jobs=")]
    if not given:
        return [], None
    value = given[0].removeprefix("--jobs=")
    if len(given) > 1 or not value.isdigit() or int(value) < 1:
        return [], f"--jobs takes one whole number of at least 1, got {', '.join(sorted(given))}"
    return ["--max-children", value], None


def main(argv: list[str]) -> int:
    options = {arg for arg in argv if arg.startswith("--")}
    names = [arg for arg in argv if not arg.startswith("--")]
    if not names or "--help" in options or "-h" in argv:
        return _usage("name the distribution to mutate")
    if unknown := {o for o in options if not o.startswith("--jobs=")} - {"--keep", "--survivors"}:
        return _usage(f"unknown option(s): {', '.join(sorted(unknown))}")
    jobs, problem = _jobs(options)
    if problem:
        return _usage(problem)
    distribution, only = names[0], names[1:]
    packages = {m.name for m in members() if (ROOT / "packages" / m.name).is_dir()}
    if distribution not in packages:
        return _usage(f"unknown package {distribution!r}; one of: {', '.join(sorted(packages))}")
    folder = ROOT / "packages" / distribution
    if not _configured(folder):
        print(f"{folder / 'pyproject.toml'} has no [tool.mutmut] table", file=sys.stderr)
        return 2
    if not MUTMUT.exists():
        print("mutmut is missing: run `make sync`", file=sys.stderr)
        return 2
    if "--keep" not in options and not only:
        shutil.rmtree(folder / "mutants", ignore_errors=True)
    done = subprocess.call([str(MUTMUT), "run", *jobs, *only], cwd=folder)
    if done != 0:
        return done
    subprocess.run([str(MUTMUT), "export-cicd-stats"], cwd=folder, check=True, capture_output=True)
    stats = json.loads((folder / "mutants" / "mutmut-cicd-stats.json").read_text())
    caught, judged, rate = _kill_rate(stats)
    print(
        f"\n{distribution}: {caught} of {judged} mutants caught, kill rate {rate:.1f}% "
        f"({stats['no_tests']} of the missed are in code no test reaches)"
    )
    if "--survivors" in options:
        print("\n".join(_survivors(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
