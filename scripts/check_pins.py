"""Check that every internal pin equals the pinned package's workspace version.

Internal pins are the ``==`` requirements on workspace distributions: in the meta package
(every extra) and between packages (a domain tool on akgentic-tool-core). Also checks that
the meta declares one extra per tool package, plus ``llm``, ``tool``, ``all`` and
``all-extras``, and that ``all``/``all-extras`` name every package. Exits non-zero on the
first report of any mismatch, listing all of them.
"""

from __future__ import annotations

import sys

from _workspace import META, PIN, members, requirements


def main() -> int:
    found = members()
    versions = {m.name: m.version for m in found}
    problems: list[str] = []
    for member in found:
        for requirement in requirements(member):
            match = PIN.match(requirement.replace(" ", ""))
            name = (match["name"] if match else requirement.split("[")[0].split("=")[0]).strip()
            if name not in versions:
                continue
            if match is None:
                problems.append(f"{member.name}: {requirement!r} must pin {name} with ==")
            elif match["version"] != versions[name]:
                problems.append(
                    f"{member.name}: pins {name}=={match['version']} "
                    f"but the workspace version is {versions[name]}"
                )

    meta = next(m for m in found if m.path == META)
    project = meta.data["project"]
    assert isinstance(project, dict)
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    packages = [m.name for m in found if m.path != META]
    tools = [n.removeprefix("akgentic-tool-") for n in packages if n.startswith("akgentic-tool-")]
    wanted = {"llm", "tool", "all", "all-extras", *(t for t in tools if t != "core")}
    for missing in sorted(wanted - set(extras)):
        problems.append(f"akgentic-framework: missing extra [{missing}]")
    for bundle in ("all", "all-extras"):
        named = {PIN.match(r.replace(" ", ""))["name"] for r in extras.get(bundle, [])}  # type: ignore[index]
        for package in packages:
            if package not in named:
                problems.append(f"akgentic-framework[{bundle}] does not include {package}")

    if problems:
        print("pin check failed:\n  " + "\n  ".join(problems))
        return 1
    print(f"pins ok: {len(found)} distributions, {len(extras)} meta extras")
    return 0


if __name__ == "__main__":
    sys.exit(main())
