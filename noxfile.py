"""Every check CI runs, one session each (`nox -l` lists them with these docstrings).

`nox` alone runs the default sessions; `nox -s bench` is on demand.
Sessions use pip virtualenvs: torch must come from pip (see README).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "virtualenv"
nox.options.error_on_missing_interpreters = False
nox.options.sessions = [
    "lint",
    "typecheck",
    "schema",
    "generate_check",
    "conformance",
    "tests",
]

ROOT = Path(__file__).parent
SCHEMA = ROOT / "schema"
GENERATED = ROOT / "generated" / "overbrainer_contract_models"
PYTHON = "3.11"


def install_project(session: nox.Session, *groups: str) -> None:
    """Install the package (a real wheel build, not editable) and dependency groups."""
    args: list[str] = []
    for group in groups:
        args += ["--group", group]
    session.install(".", *args)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff: lint and format check of the hand-written code."""
    session.install("--group", "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on python/ and generated/."""
    session.install("msgspec", "--group", "typecheck")
    session.run("mypy", "--strict", "python/overbrainer_contract", "generated/overbrainer_contract_models")


@nox.session(python=PYTHON)
def schema(session: nox.Session) -> None:
    """Every schema is valid against the 2020-12 metaschema and every `$ref` resolves."""
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/test_schemas.py", *session.posargs)


def _generate(session: nox.Session, out: Path) -> None:
    # datamodel-code-generator reads a whole folder; give it the schemas only
    # (contract.json beside them is data, not a schema).
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "schema"
        src.mkdir()
        for path in sorted(SCHEMA.glob("*.schema.json")):
            shutil.copy(path, src / path.name)
        session.run(
            "datamodel-codegen", "--input", str(src), "--output", str(out),
            silent=True,
        )


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate generated/ from schema/; `-- --check` fails when they differ."""
    session.install("--group", "generate")
    check = "--check" in session.posargs
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "models"
        _generate(session, out)
        if check:
            stale = _diff_trees(out, GENERATED)
            if stale:
                session.error(
                    "generated/ is out of date with schema/ ("
                    + ", ".join(stale)
                    + "). Run 'nox -s generate' and commit the result."
                )
            session.log("generated/ matches schema/")
            return
        if GENERATED.exists():
            shutil.rmtree(GENERATED)
        shutil.copytree(out, GENERATED)
        (GENERATED / "py.typed").write_text("")
        session.log(f"wrote {GENERATED.relative_to(ROOT)}")


def _diff_trees(fresh: Path, committed: Path) -> list[str]:
    """Names of the files that differ between a fresh generation and generated/."""
    names = {p.name for p in fresh.glob("*.py")} | {p.name for p in committed.glob("*.py")}
    stale = []
    for name in sorted(names):
        a, b = fresh / name, committed / name
        if not a.exists() or not b.exists() or a.read_bytes() != b.read_bytes():
            stale.append(name)
    return stale


@nox.session(name="generate_check", python=PYTHON)
def generate_check(session: nox.Session) -> None:
    """The generate check CI runs: generated/ must match a fresh generation."""
    session.notify("generate", ["--check"])


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The golden conformance suite: manifest checked by its schema, then every case
    through the schemas (jsonschema), the parser and Pace."""
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/conformance", *session.posargs)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Unit and property tests of the package (hypothesis, syrupy snapshots)."""
    install_project(session, "test")
    session.run(
        "python", "-m", "pytest", "tests", "--ignore=tests/conformance",
        "--ignore=tests/test_schemas.py", *session.posargs,
    )


@nox.session(python=PYTHON, default=False)
def bench(session: nox.Session) -> None:
    """Benchmark, side by side in one run: parse_line vs orjson.loads vs json.loads vs
    python-jsonschema on a realistic 1M-line metrics.jsonl (not run by default)."""
    install_project(session, "bench")
    session.run("python", "benchmarks/parse.py", *session.posargs)


# --- sessions of the plugin (issue: the Axolotl plugin) are added below ---


if __name__ == "__main__":
    sys.exit("run with nox")
