"""Every check CI runs, one nox session each: `nox -l` lists them, a line on what each checks.

`python3 -m nox` runs the default sessions, as CI does (`bash .ci/run`); `nox -s NAME...` runs
some; `nox -s generate` (it rewrites the generated code) and `nox -s bench` run on demand only.
Sessions use pip virtualenvs: torch must come from pip (see TORCH).

The file reads top-down: the constants, the helpers several sessions share, then the sessions
by concern (a helper that one session alone uses lies just above it):

- lint and types: lint, typecheck
- the contract and its generated code: schema, generate, generated, compat, conformance
- the reader core and the reference: core, reference, fuzz
- the Python package: tests, cli, table, plugin, axolotl
- packaging and the docs: wheels, docs
- JavaScript: js, viewer
- performance, on demand: bench
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import nox

if sys.version_info >= (3, 11):
    import tomllib
else:  # nox brings tomli to Pythons before 3.11
    import tomli as tomllib

# --- constants ---

# The checkout's paths.
ROOT = Path(__file__).parent
SCHEMA = ROOT / "schema"
GENERATED = ROOT / "python" / "overbrainer_contract" / "_models"
TOOLS = ROOT / "tools"  # the project's tooling, never in the wheel
ARROW_CODEGEN = TOOLS / "codegen" / "arrow.py"
CORE = ROOT / "core"
RUST_CODEGEN = CORE / "codegen" / "generate.py"
RUST_GENERATED = CORE / "reader" / "src" / "generated.rs"
REPORTS_CODEGEN = CORE / "codegen" / "reports.py"
REPORTS_GENERATED = CORE / "reader" / "src" / "reports.rs"
REFERENCE_CRATE = ROOT / "conformance" / "rust"
JS = ROOT / "js"
ESLINT = ROOT / "js" / "lint"  # ESLint's own package: its lock and flat config
PRE_COMMIT_CONFIG = ROOT / ".pre-commit-config.yaml"
WHEELHOUSE = ROOT / ".nox" / "_wheelhouse"
DIST = ROOT / "dist"

# Toolchains and pins.
# Debian's Rust (rustc 1.63, /usr/bin), beside rustup's: the core must build with both
# (WebAssembly is built with Debian's).
DEBIAN_RUST = "/usr/bin"
# torch comes from pip, pinned, in its own install call before anything that depends on it:
# torch==2.13.0 is the CPU wheel this workplace serves; any other version (or uv) would pull
# a CUDA build of several GB.
TORCH = "torch==2.13.0"
FUZZ_SEED = "20261130"  # the fuzz session's hypothesis seed: every run tries the same examples

# Pythons: 3.11 for most sessions; the unit tests on each present from 3.10, since the plugin
# runs in users' environments (3.10 and 3.12 are tested where pyenv has them: .ci/run makes
# them visible).
PYTHON = "3.11"
PYTHONS = ["3.10", "3.11", "3.12"]
# The longer test sessions spread their tests over the machine's cores (pytest-xdist, one
# worker a core): most of their time is child processes (the command line, the reference
# runner, node) waited for one at a time.
WORKERS = ("-n", "auto")

# Every session's packages are installed without compiling their bytecode (pip's
# --no-compile): Python compiles the modules a test imports when it first imports them, where
# pip compiled every module of every package (most of installing torch, transformers and
# axolotl into a fresh venv). The installs a user makes (`clone`, `pages`) stay pip's default.
# Python writes what it compiles (`__pycache__`, ignored by git) whatever the machine says:
# with PYTHONDONTWRITEBYTECODE every test's child process would compile torch again.
NO_COMPILE = "--no-compile"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# nox's settings.
nox.options.default_venv_backend = "virtualenv"
nox.options.error_on_missing_interpreters = False
# The default sessions, in the order a full `nox` runs them (plugin before cli: cli's sweep
# borrows the plugin session's venv for its real Trainer runs).
nox.options.sessions = [
    "lint",
    "core",
    "wheels",
    "clone",
    "typecheck",
    "schema",
    "generated",
    "conformance",
    "tests",
    "plugin",
    "axolotl",
    "cli",
    "pages",
    "js",
    "viewer",
    "compat",
    "table",
    "reference",
    "fuzz",
    "docs",
]

# --- shared helpers ---

_project_wheel: list[Path] = []  # built once per nox run, installed by every session


def project_wheel(session: nox.Session) -> Path:
    """The project's one wheel (cp310-abi3, the reader core compiled by cargo in release),
    built from this checkout once in this nox run into WHEELHOUSE (or the x86_64 wheel that
    `wheels` built from the checkout's sdist and checked, when that session ran first).

    In the checkout, so that cargo reuses core/target; setuptools' build/ is emptied first,
    so that a module gone from python/ is gone from the wheel too.
    """
    if not _project_wheel:
        shutil.rmtree(WHEELHOUSE, ignore_errors=True)
        shutil.rmtree(ROOT / "build", ignore_errors=True)
        WHEELHOUSE.mkdir(parents=True)
        session.run("pip", "wheel", "--no-deps", "--quiet", "-w", str(WHEELHOUSE), str(ROOT))
        _project_wheel.extend(WHEELHOUSE.glob("overbrainer_contract-*.whl"))
    return _project_wheel[0]


def install_project(session: nox.Session, *groups: str, extras: str = "") -> None:
    """Install the project's wheel (a real wheel, not editable) with its extras, and
    dependency groups."""
    args: list[str] = []
    for group in groups:
        args += ["--group", group]
    session.install(NO_COMPILE, f"{project_wheel(session)}{extras}", *args)


def _reference_runner(session: nox.Session) -> str:
    """Build the reference runner (cargo, offline, Debian's serde crates; see
    conformance/rust/) and return its executable. `OVERBRAINER_METRICS_RS` names the
    module it includes (default: ../shared/reference/metrics.rs)."""
    with session.chdir(REFERENCE_CRATE):  # cargo reads .cargo/config.toml from here
        session.run("cargo", "build", "--release", "--quiet", external=True)
    return str(REFERENCE_CRATE / "target" / "release" / "overbrainer-reference-runner")


VIEWER_PAGE = JS / "viewer" / "dist" / "viewer.html"
SERVED_PAGE = ROOT / "python" / "overbrainer_contract" / "serve" / "viewer.html"


def _wasm_env(session: nox.Session) -> dict[str, str]:
    """The environment the npm package's WebAssembly is built in: by Debian's Rust 1.63
    (js/build.mjs takes the cargo that OVERBRAINER_WASM_CARGO names)."""
    debian_cargo = Path(DEBIAN_RUST) / "cargo"
    if not debian_cargo.exists():
        session.error(f"no {debian_cargo}: the package's WebAssembly is built by Rust 1.63")
    return {"OVERBRAINER_WASM_CARGO": str(debian_cargo)}


def _build_npm(session: nox.Session, *, fresh: bool) -> dict[str, str]:
    """The npm package built in js/ (`node build.mjs`: its WebAssembly, its glue and
    declarations), its node_modules from `npm ci` (again when `fresh`, else only where absent).
    Returns the WebAssembly's build environment, for the commands that build it again
    (`npm pack`'s prepack)."""
    wasm = _wasm_env(session)
    with session.chdir(JS):
        if fresh or not (JS / "node_modules" / "typescript" / "bin" / "tsc").exists():
            session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
        session.run("node", "build.mjs", env=wasm, external=True)
    return wasm


def _build_viewer(session: nox.Session) -> Path:
    """The run viewer built (js/: the package, its WebAssembly by Debian's Rust 1.63; then
    js/viewer/: the one-file page), and put where the wheel takes it for `serve`
    (`overbrainer_contract/serve/viewer.html`, package data, not in git)."""
    # js/build-page.mjs, as an install from a checkout builds it (setup.py)
    page = ("node", str(JS / "build-page.mjs"), "--out", str(SERVED_PAGE))
    session.run(*page, env=_wasm_env(session), external=True)
    return VIEWER_PAGE


def _generate(session: nox.Session, out: Path) -> None:
    """Generate, from schema/, the models of `_models` into `out` and the core's Rust beside it."""
    # datamodel-code-generator reads a whole folder; give it the schemas only
    # (contract.json beside them is data, not a schema).
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "schema"
        src.mkdir()
        for path in sorted(SCHEMA.glob("*.schema.json")):
            shutil.copy(path, src / path.name)
        session.run("datamodel-codegen", "--input", str(src), "--output", str(out), silent=True)
    (out / "py.typed").write_text("")  # the models are typed: PEP 561
    # The Arrow schema of a table of metrics lines.
    session.run("python", str(ARROW_CODEGEN), str(SCHEMA), str(out / "metrics_line_arrow.py"))
    # The reader core's Rust types (core/reader/src/generated.rs), kept beside for the check.
    session.run("python", str(RUST_CODEGEN), str(SCHEMA), str(out.parent / RUST_GENERATED.name))
    # The run-level reports the core makes (core/reader/src/reports.rs).
    session.run(
        "python", str(REPORTS_CODEGEN), str(SCHEMA), str(out.parent / REPORTS_GENERATED.name)
    )


def _check_generated(session: nox.Session, fresh: Path) -> None:
    """Fail, naming `nox -s generate`, where the committed generated code is not `fresh`'s."""
    for committed in (RUST_GENERATED, REPORTS_GENERATED):
        if (fresh.parent / committed.name).read_bytes() != committed.read_bytes():
            session.error(
                f"{committed.relative_to(ROOT)} is out of date with schema/ (or was edited by "
                "hand). Run 'nox -s generate' and commit the result."
            )
    stale = _diff_trees(fresh, GENERATED)
    if stale:
        session.error(
            f"{GENERATED.relative_to(ROOT)}/ is out of date with schema/"
            f" ({', '.join(stale)} differ). Run 'nox -s generate' and commit the result."
        )
    session.log(f"{GENERATED.relative_to(ROOT)}/ matches schema/")


def _diff_trees(fresh: Path, committed: Path) -> list[str]:
    """Names of the files that differ between a fresh generation and `committed`."""
    names = {p.name for p in fresh.iterdir()} | {p.name for p in committed.iterdir()}
    stale = []
    for name in sorted(names - {"__pycache__"}):
        a, b = fresh / name, committed / name
        if not a.is_file() or not b.is_file() or a.read_bytes() != b.read_bytes():
            stale.append(name)
    return stale


# --- lint and types ---


def _ruff_pins_agree(session: nox.Session) -> None:
    """The ruff that the pre-commit hooks install is pyproject.toml's `lint` group's."""
    group = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]["lint"]
    wanted = {pin for pin in group if pin.startswith("ruff==")}
    hooks = set(re.findall(r"ruff==[^\s\"',\]]+", PRE_COMMIT_CONFIG.read_text()))
    if len(wanted) != 1 or hooks != wanted:
        session.error(
            f"{PRE_COMMIT_CONFIG.name} installs {sorted(hooks) or 'no pinned ruff'}, "
            f"pyproject.toml's lint group pins {sorted(wanted) or 'no ruff'}: make them one"
        )


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """The pre-commit hooks on every file: ruff check and format, cargo fmt, ESLint of js/."""
    # The hooks are .pre-commit-config.yaml's: ruff check and format, cargo fmt of core/ and
    # conformance/rust/, ESLint of js/ (`npm ci` of js/lint's lock first). The hooks' ruff
    # must be the `lint` group's.
    _ruff_pins_agree(session)
    session.install(NO_COMPILE, "--group", "precommit")
    with session.chdir(ESLINT):
        session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure", *session.posargs)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on python/, tools/ and tests/."""
    session.install(NO_COMPILE, str(project_wheel(session)), "--group", "typecheck")
    session.run(
        "mypy",
        "--strict",
        "python/overbrainer_contract",
        "tools",
    )
    # tests/ a folder at a time: pytest imports each folder's modules top-level (pyproject.toml's
    # mypy_path names the folders), and each folder has a conftest.py of its own.
    for folder in sorted({path.parent for path in (ROOT / "tests").rglob("*.py")}):
        session.run(
            "mypy", "--strict", *sorted(str(p.relative_to(ROOT)) for p in folder.glob("*.py"))
        )


# --- the contract and its generated code ---


@nox.session(python=PYTHON)
def schema(session: nox.Session) -> None:
    """Every schema is valid against the 2020-12 metaschema and every `$ref` resolves."""
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/test_schemas.py", *session.posargs)


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate everything schema/ gives: the models (`_models`), the core's Rust, the
    TypeScript types (js/types/) and the docs' tables (`-- --check`: check only)."""
    # One command for every generator: datamodel-code-generator and tools/codegen/ (Python),
    # js/generate-types.mjs (json-schema-to-typescript, the npm package's own pin: node).
    # With `-- --check` it fails where they differ instead, as the generated session does.
    session.install(NO_COMPILE, "--group", "generate")
    check = "--check" in session.posargs
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "models"
        _generate(session, fresh)
        if check:
            _check_generated(session, fresh)
        else:
            if GENERATED.exists():
                shutil.rmtree(GENERATED)
            shutil.copytree(fresh, GENERATED)
            for committed in (RUST_GENERATED, REPORTS_GENERATED):
                shutil.copy(fresh.parent / committed.name, committed)
    _docs_tables(session, check)
    npm: dict[str, Any] = {"external": True}
    with session.chdir(JS):
        session.run("npm", "ci", "--no-audit", "--no-fund", **npm)
        session.run("node", "generate-types.mjs", *(["--check"] if check else []), **npm)
    if not check:
        written = (GENERATED, RUST_GENERATED, REPORTS_GENERATED, JS / "types")
        session.log(f"wrote {', '.join(str(path.relative_to(ROOT)) for path in written)}")


def _docs_tables(session: nox.Session, check: bool) -> None:
    """The tables of the README and docs/contract.md written from schema/ (or, `check`,
    compared with it: a failure names `nox -s generate`)."""
    session.run("python", "-m", "tools.codegen.docs_tables", *(["--check"] if check else []))


@nox.session(name="generated", python=PYTHON)
def generated(session: nox.Session) -> None:
    """The models, the core's generated Rust and the docs' tables match a fresh generation."""
    # What `generate -- --check` checks but the TypeScript types (the js session checks
    # those, with the npm package's own install): the models, core/reader/src/generated.rs,
    # reports.rs and the docs' tables; a failure names the command that fixes it.
    session.install(NO_COMPILE, "--group", "generate")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "models"
        _generate(session, fresh)
        _check_generated(session, fresh)
    _docs_tables(session, check=True)


@nox.session(python=PYTHON)
def compat(session: nox.Session) -> None:
    """schema/ against its newest release: fails on a change that breaks a reader or writer."""
    # Compares with the newest folder of schema-releases/ in full mode (old readers of new
    # files and new readers of old files) and lists each change with its path and rule id;
    # fails too when schema/ changed without a higher version, or a release folder no longer
    # matches schema-releases/SHA256SUMS (`-- --mode backward`, `-- --baseline DIR`).
    install_project(session)
    session.run("python", "-m", "tools.release.compat", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The golden suite: every line through the parser, the schemas and Pace."""
    # The manifest and expectation files are checked against their own schemas first.
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/conformance", *session.posargs)


# --- the reader core and the reference ---


@nox.session(python=False)
def core(session: nox.Session) -> None:
    """The reader core (Rust): fmt, clippy, tests under rustup's Rust and Debian's 1.63."""
    # cargo fmt and clippy clean; its tests (the golden suite through the core, the serde_json
    # features, the scans however their input is cut) under rustup's Rust and under Debian's
    # 1.63. Its build for WebAssembly by 1.63 is the npm package's (`nox -s js`).
    # Cargo reads the crates' source from the machine's configuration ($CARGO_HOME): Debian's
    # packaged crates where `.ci/run` (or core/debian-crates.sh) set it up.
    # The tests run optimized but without the release profile's link-time optimization and
    # single codegen unit, which the wheels' builds keep: the same code, with no whole-program
    # step in each test binary's build.
    tests_profile = {
        "CARGO_PROFILE_RELEASE_LTO": "false",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
    }
    with session.chdir(CORE):
        session.run("cargo", "fmt", "--all", "--check", external=True)
        session.run(
            "cargo", "clippy", "--workspace", "--all-targets", "--", "-D", "warnings", external=True
        )
        session.run(
            "cargo",
            "test",
            "-p",
            "overbrainer-core",
            "-p",
            "overbrainer-core-wasm",
            "--release",
            env=tests_profile,
            external=True,
        )
        debian = Path(DEBIAN_RUST)
        if (debian / "rustc").exists() and (debian / "cargo").exists():
            env = {
                "RUSTC": str(debian / "rustc"),
                "RUSTDOC": str(debian / "rustdoc"),
                "CARGO_TARGET_DIR": str(CORE / "target" / "rust-1.63"),
            }
            session.run(str(debian / "rustc"), "--version", external=True)
            session.run(
                str(debian / "cargo"),
                "test",
                "-p",
                "overbrainer-core",
                "-p",
                "overbrainer-core-wasm",
                "--release",
                env={**env, **tests_profile},
                external=True,
            )
        else:
            session.warn(f"no {DEBIAN_RUST}/rustc: the Rust 1.63 build was not checked")


@nox.session(python=PYTHON)
def reference(session: nox.Session) -> None:
    """The golden suite through the reference itself: metrics.rs built by cargo."""
    # The reference's own tests run, then every suite's lines go through the runner:
    # verdict, category, value, dump, mark and the pace after each line must be what
    # the suite expects.
    install_project(session, "test")
    runner = _reference_runner(session)
    with session.chdir(REFERENCE_CRATE):
        session.run("cargo", "test", "--release", "--quiet", external=True)
    session.run(
        "python",
        "-m",
        "pytest",
        "tests/reference/test_golden_reference.py",
        *session.posargs,
        env={"OVERBRAINER_REFERENCE_RUNNER": runner},
    )


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Differential fuzzing: the core against the reference, the npm package against the CLI."""
    # The core's parse_line against the reference runner (hypothesis), and the npm package's
    # run-level records against the command line's (one core, two faces).
    # Seeded and bounded by work: FUZZ_EXAMPLES examples per test (default 4000); a guard kills
    # a hang after 1800 s, far beyond its normal time. Any difference in verdict, category,
    # message, column, value (to the bit), dump, mark or pace fails.
    install_project(session, "test")
    runner = _reference_runner(session)
    _build_npm(session, fresh=False)  # once, here, not by each test worker at once
    session.run(
        "timeout",
        "1800",
        "python",
        "-m",
        "pytest",
        "tests/reference/test_fuzz.py",
        "tests/reference/test_npm_reports.py",
        *WORKERS,
        "-p",
        "no:cacheprovider",
        f"--hypothesis-seed={FUZZ_SEED}",
        *session.posargs,
        env={
            "OVERBRAINER_REFERENCE_RUNNER": runner,
            "OVERBRAINER_JS_BUILT": "1",
            "FUZZ_EXAMPLES": os.environ.get("FUZZ_EXAMPLES", "4000"),
        },
        external=True,
    )


# --- the Python package ---


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Unit and property tests (hypothesis, syrupy) on each Python present from 3.10."""
    install_project(session, "test")
    session.run(
        "python",
        "-m",
        "pytest",
        "tests",
        *WORKERS,
        "--ignore=tests/conformance",
        "--ignore=tests/test_schemas.py",
        "--ignore=tests/cli",
        "--ignore=tests/table",  # the `table` session, with pyarrow, duckdb and polars
        "--ignore=tests/reference",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def cli(session: nox.Session) -> None:
    """The command line, its pre-commit hook, and every example of the README and docs/."""
    # With its extras (rich, matplotlib; pyarrow for the docs' examples): check and status
    # outputs (syrupy), exit codes, watch against a writer in another process, plot, snapshot;
    # hostile files under a memory cap; the pre-commit hook through `pre-commit try-repo` of a
    # clone of this repository (needs git, and cargo: pre-commit's pip install of the hook
    # compiles the core); a sweep of 40 runs through every command; every example of the
    # README and docs/ (`tests/cli/test_readme.py`); check-jsonschema on the shipped schemas,
    # offline. The plots it draws are kept under `.nox/artefacts/cli`.
    session.env.setdefault("OVERBRAINER_TEST_ARTEFACTS", str(ROOT / ".nox" / "artefacts" / "cli"))
    # The sweep's real Trainer runs need torch: the plugin session's venv has it (it runs
    # first in a full `nox`); without it the sweep says it left them out.
    trainer = ROOT / ".nox" / "plugin" / "bin" / "python"
    if trainer.exists():
        session.env.setdefault("OVERBRAINER_SWEEP_TRAINER_PYTHON", str(trainer))
    install_project(session, "test", "precommit", "schema-tools", extras="[cli,table,serve]")
    session.run("python", "-m", "pytest", "tests/cli", *WORKERS, *session.posargs)


@nox.session(python=PYTHON)
def table(session: nox.Session) -> None:
    """Many runs as one table: the Arrow schema, `export`, queried by DuckDB and polars."""
    # The Arrow schema against the JSON Schema, rows of the golden suite, `export` of three
    # real runs queried by DuckDB and polars (docs/table.md's queries). The `table` extra
    # (pyarrow) and the `table-test` group (duckdb, polars: tests only).
    install_project(session, "test", "table-test", extras="[table,cli]")
    session.run("python", "-m", "pytest", "tests/table", *WORKERS, *session.posargs)


@nox.session(python=PYTHON)
def plugin(session: nox.Session) -> None:
    """The Axolotl plugin with transformers alone, in a real Trainer and under torchrun."""
    # Scripted callback events, faults, stage lines in bash and dash, a real Trainer on a
    # tiny Llama (snapshot from a thread) and two ranks under torchrun (gloo, CPU).
    session.install(NO_COMPILE, TORCH)
    session.install(NO_COMPILE, "transformers", "accelerate", "tokenizers", "duckdb", "pyarrow")
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/plugin", *session.posargs)


@nox.session(python=PYTHON)
def axolotl(session: nox.Session) -> None:
    """A real `axolotl train` with the plugin and a snapshot request."""
    # pip gives axolotl 0.19 on Python 3.11; the metrics are validated, the checkpoint and
    # the proof must be there.
    session.install(NO_COMPILE, TORCH)
    session.install(NO_COMPILE, "axolotl")
    install_project(session, "test")
    session.run("python", "-m", "pytest", "tests/axolotl", *session.posargs)


# --- packaging and the docs ---


def _wheel_tags(wheel: Path) -> list[str]:
    """The `Tag:` lines of a wheel's WHEEL file."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/WHEEL"))
        text = archive.read(name).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def _name_tags(wheel: Path) -> list[str]:
    """The tags a wheel's file name states (its compressed tag set, expanded)."""
    parts = wheel.name.removesuffix(".whl").split("-")
    if len(parts) != 5:
        return []
    pythons, abis, platforms = (part.split(".") for part in parts[2:])
    return [f"{p}-{a}-{f}" for p in pythons for a in abis for f in platforms]


def _wheel_misses(wheel: Path) -> list[str]:
    """The checkout's modules and schemas that the wheel does not hold, and the compiled core
    if it is missing."""
    with zipfile.ZipFile(wheel) as archive:
        held = set(archive.namelist())
    wanted = {"overbrainer_contract/schema/" + p.name for p in SCHEMA.glob("*.json")}
    for path in (ROOT / "python").rglob("*"):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            wanted.add(path.relative_to(ROOT / "python").as_posix())
    misses = sorted(wanted - held)
    if "overbrainer_contract/_core.abi3.so" not in held:
        misses.append("overbrainer_contract/_core.abi3.so")
    if "overbrainer_contract/serve/viewer.html" not in held:
        misses.append("overbrainer_contract/serve/viewer.html")
    return misses


# The wheels' platforms: one wheel per architecture, its core linked by zig (cargo-zigbuild,
# the `release` group) against WHEEL_GLIBC's glibc, so manylinux2014: RHEL/CentOS 7, Amazon
# Linux 2, Ubuntu 20.04 and RHEL 8 run it. aarch64 is compiled by Debian's Rust, whose
# aarch64 standard library `.ci/run` installs (rustup's has none here).
WHEEL_GLIBC = "2.17"
WHEEL_ARCHES = ("x86_64", "aarch64")
# The Debian arm64 packages of an aarch64 CPython (PYTHON's), unpacked into a folder that
# qemu-user (`.ci/run` installs qemu-user-static) runs it from, to import the aarch64 wheel.
ARM64_PYTHON_DEBS = [
    f"python{PYTHON}-minimal",
    f"libpython{PYTHON}-minimal",
    f"libpython{PYTHON}-stdlib",
    "libc6",
    "libgcc-s1",
    "zlib1g",
    "libexpat1",
    "libffi8",
]


def _manylinux(arch: str) -> str:
    """The platform tag of WHEEL_GLIBC's glibc on `arch` (manylinux_2_17_x86_64)."""
    return f"manylinux_{WHEEL_GLIBC.replace('.', '_')}_{arch}"


def _zig_env(session: nox.Session) -> dict[str, str]:
    """The environment setuptools-rust compiles the core in, linked by zig: cargo is
    tools/release/zigcargo (cargo-zigbuild for the compile), Debian's cargo and rustc first on
    PATH after the session's tools, zig the `ziglang` package's, the release profile stripped
    of symbols and debug information (a third of the size)."""
    find_zig = "import pathlib, ziglang; print(pathlib.Path(ziglang.__file__).parent / 'zig')"
    zig = (session.run("python", "-c", find_zig, silent=True) or "").strip()
    return {
        "CARGO": str(TOOLS / "release" / "zigcargo"),
        "CARGO_ZIGBUILD_ZIG_PATH": zig,
        "CARGO_PROFILE_RELEASE_STRIP": "symbols",
        "PATH": os.pathsep.join([str(session.bin), DEBIAN_RUST, os.environ.get("PATH", "")]),
    }


def _side_by_side(
    session: nox.Session, commands: dict[str, tuple[list[str], dict[str, str]]], logs: Path
) -> None:
    """Run `commands` (name: command line and environment, the session's tools first on
    PATH) at the same time; each one's output is kept in `logs`/NAME.log and said whole
    should it fail, which fails the session once every command has ended."""
    running = {}
    for name, (command, env) in commands.items():
        session.log(f"{name}: {shlex.join(command)} (its output: {logs / name}.log)")
        with open(logs / f"{name}.log", "wb") as log:
            running[name] = subprocess.Popen(
                command,
                env={**os.environ, **env, "VIRTUAL_ENV": str(Path(str(session.bin)).parent)},
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
    failed = []
    for name, process in running.items():
        if process.wait() != 0:
            said = (logs / f"{name}.log").read_text(errors="replace")
            session.log(f"{name} failed (exit {process.returncode}):\n{said}")
            failed.append(name)
    if failed:
        session.error(f"failed: {', '.join(failed)}")


def _path_without_rust() -> str:
    """PATH less every folder that holds a cargo or a rustc."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(
        f for f in folders if f and not any((Path(f) / t).exists() for t in ("cargo", "rustc"))
    )


def _arm64_python(session: nox.Session, tmp: Path) -> list[str]:
    """The command line of an aarch64 CPython run by qemu-user: Debian's arm64 packages
    (ARM64_PYTHON_DEBS, `apt-get download`), unpacked into `tmp`/sysroot, qemu's prefix."""
    debs, sysroot = tmp / "debs", tmp / "sysroot"
    debs.mkdir()
    with session.chdir(debs):
        arm64 = [f"{name}:arm64" for name in ARM64_PYTHON_DEBS]
        session.run("apt-get", "download", "-qq", *arm64, external=True)
    for deb in sorted(debs.glob("*.deb")):
        session.run("dpkg", "-x", str(deb), str(sysroot), external=True)
    qemu = shutil.which("qemu-aarch64-static") or "qemu-aarch64-static"  # found with no_rust's PATH
    return [
        qemu,
        "-L",
        str(sysroot),
        str(sysroot / "usr" / "bin" / f"python{PYTHON}"),
    ]


def _check_wheel(session: nox.Session, wheel: Path, arch: str) -> None:
    """A wheel's tags (cp310-abi3-manylinux..., the file's name and its WHEEL file agree),
    every module and schema of the checkout in it."""
    tags = _wheel_tags(wheel)
    session.log(f"{wheel.name}: {', '.join(tags)}")
    named = _name_tags(wheel)
    if not named or set(tags) != set(named):
        session.error(f"{wheel.name}: its name says {named}, its WHEEL file {tags}")
    if f"cp310-abi3-{_manylinux(arch)}" not in tags:
        session.error(f"{wheel.name}: no cp310-abi3-{_manylinux(arch)} tag")
    wrong = [t for t in tags if not re.fullmatch(rf"cp310-abi3-manylinux_?\w+_{arch}", t)]
    if wrong:
        session.error(f"{wheel.name}: {', '.join(wrong)} is no cp310-abi3-manylinux_* tag")
    misses = _wheel_misses(wheel)
    if misses:
        session.error(f"{wheel.name} lacks {', '.join(misses)} (pyproject.toml's packages)")


@nox.session(python=PYTHON)
def wheels(session: nox.Session) -> None:
    """The sdist and its manylinux2014 abi3 wheels (x86_64, aarch64) in dist/: checked, run."""
    # What a registry takes, in dist/: the sdist, and a wheel per WHEEL_ARCHES built from it
    # (the core compiled by cargo from the sdist's core/, linked by zig against glibc
    # WHEEL_GLIBC: _zig_env), repaired by auditwheel to the oldest manylinux tag that its
    # reading of the ELF (architecture, glibc symbol versions, libraries) allows, which must be
    # WHEEL_GLIBC's (cp310-abi3-manylinux_2_17_<arch>, the file's name and its WHEEL agreeing);
    # twine check --strict, abi3audit --strict, every module and schema of the checkout in it.
    # Then a fresh venv with no cargo or rustc on PATH installs the x86_64 wheel from wheels alone
    # (PyPI's wheels for the dependencies) and runs the README's first commands and `serve`;
    # the aarch64 wheel is installed for an aarch64 CPython (Debian's, run by qemu-user),
    # which runs `check` and `status` on it.
    session.install(NO_COMPILE, "--group", "release")
    if not shutil.which("qemu-aarch64-static"):
        session.error("no qemu-aarch64-static: .ci/run installs Debian's qemu-user-static")
    _build_viewer(session)  # the page `serve` serves, package data of the wheel
    DIST.mkdir(exist_ok=True)
    for old in DIST.glob("overbrainer_contract-*"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "built"
        session.run("python", "-m", "build", "--sdist", "--outdir", str(built), str(ROOT))
        (sdist,) = built.glob("overbrainer_contract-*.tar.gz")
        shutil.copy(sdist, DIST / sdist.name)
        # `python -m build` of the sdist: each wheel built from the sdist's own files, the
        # architectures side by side (most of a build is the core's last, serial compile)
        zig = _zig_env(session)
        builds = {}
        for arch in WHEEL_ARCHES:
            env = {
                **zig,
                "CARGO_TARGET_DIR": str(Path(tmp) / f"target-{arch}"),  # cargo locks its folder
                "CARGO_BUILD_TARGET": f"{arch}-unknown-linux-gnu.{WHEEL_GLIBC}",
            }
            plat = f"-C--build-option=--plat-name=linux_{arch}"
            command = ["python", "-m", "build", "--wheel", plat, "--outdir", str(built / arch)]
            builds[arch] = ([*command, str(sdist)], env)
        _side_by_side(session, builds, Path(tmp))
        for arch in WHEEL_ARCHES:
            (plain,) = (built / arch).glob("overbrainer_contract-*.whl")
            session.run("auditwheel", "show", str(plain))
            session.run("auditwheel", "repair", "--wheel-dir", str(DIST), str(plain))
    (sdist,) = DIST.glob("overbrainer_contract-*.tar.gz")
    wheels = {arch: next(DIST.glob(f"overbrainer_contract-*_{arch}.whl")) for arch in WHEEL_ARCHES}
    for arch, wheel in wheels.items():
        _check_wheel(session, wheel, arch)
    session.run("twine", "check", "--strict", str(sdist), *map(str, wheels.values()))
    for wheel in wheels.values():
        session.run("abi3audit", "--strict", "--verbose", str(wheel))
    run = str(ROOT / "examples" / "tiny-run")
    no_rust = {"PATH": _path_without_rust()}
    with tempfile.TemporaryDirectory() as tmp, session.chdir(tmp):
        venv = Path(tmp) / "venv"
        session.run("python", "-m", "venv", str(venv))
        python = str(venv / "bin" / "python")
        pip = [python, "-m", "pip", "install", "--quiet"]
        wheel = wheels["x86_64"]
        session.run(
            *pip, "--only-binary", ":all:", f"{wheel}[cli,serve]", env=no_rust, external=True
        )
        command = str(venv / "bin" / "overbrainer-contract")
        session.run(command, "check", run, env=no_rust, external=True)
        session.run(command, "status", run, env=no_rust, external=True)
        show_core = "import overbrainer_contract._core as c; print(c.__file__)"
        session.run(python, "-c", show_core, env=no_rust, external=True)
        # `serve` from the wheel alone: its page is the one built above
        served = str(ROOT / "tests" / "cli" / "served_page.py")
        session.run(python, served, command, run, str(VIEWER_PAGE), env=no_rust, external=True)
    with tempfile.TemporaryDirectory() as tmp:
        arm64_python = _arm64_python(session, Path(tmp))
        site = Path(tmp) / "site"
        session.run(
            "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(site),
            "--only-binary",
            ":all:",
            "--implementation",
            "cp",
            "--python-version",
            PYTHON,
            "--platform",
            _manylinux("aarch64"),
            str(wheels["aarch64"]),
        )
        on_arm64 = {"PYTHONPATH": str(site), **no_rust}
        session.run(*arm64_python, "-c", show_core, env=on_arm64, external=True)
        for verb in ("check", "status"):
            session.run(
                *arm64_python, "-m", "overbrainer_contract", verb, run, env=on_arm64, external=True
            )
    # On an x86_64 machine the x86_64 wheel, checked above, is the project's wheel for the
    # sessions after this one in the same run (project_wheel): the core compiled once less.
    if platform.machine() == "x86_64" and not _project_wheel:
        shutil.rmtree(WHEELHOUSE, ignore_errors=True)
        WHEELHOUSE.mkdir(parents=True)
        _project_wheel.append(Path(shutil.copy(wheels["x86_64"], WHEELHOUSE)))


SITE = ROOT / "site"
"""Where `nox -s docs` leaves the docs site to open (`site/index.html`; git-ignored)."""


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """The docs site: `mkdocs build --strict` (links, anchors, snippets, the API pages), left
    in site/ (open site/index.html)."""
    # --strict: a broken link or anchor, a missing snippet or a docstring mkdocstrings cannot
    # read fails. mkdocs-material and mkdocstrings-python from the `docs` group; the package
    # installed for the API pages. Built into a new folder beside site/ and put in its place
    # once whole (two renames): a failed build leaves the site there was, and no half site.
    install_project(session, "docs")
    built = Path(tempfile.mkdtemp(prefix=".site-", dir=ROOT))
    try:
        session.run(
            "mkdocs", "build", "--strict", "--site-dir", str(built),
            env={"NO_MKDOCS_2_WARNING": "1"},
        )  # fmt: skip
        old = Path(tempfile.mkdtemp(prefix=".site-old-", dir=ROOT))
        if SITE.exists():
            SITE.rename(old / "site")
        built.rename(SITE)
        shutil.rmtree(old)
    finally:
        shutil.rmtree(built, ignore_errors=True)
    session.log(f"the site: {SITE / 'index.html'}")


@nox.session(python=PYTHON)
def clone(session: nox.Session) -> None:
    """`pip install '.[serve]'` from a fresh clone: the core and the viewer page built, served."""
    # The committed tree, cloned into a temporary folder and installed into a fresh venv as a
    # user installs it (the build runs setup.py: cargo compiles the core, node builds the
    # viewer page from js/); `serve` then serves that page (tests/cli/served_page.py), Chromium
    # shows it (js/viewer/test/serve.test.mjs), and the
    # clone holds nothing git would commit (the build's output is ignored). Then, in the same
    # clone (cargo's build reused): built with OVERBRAINER_NO_VIEWER=1, `serve` says how to get
    # the page; with no crate source (an empty CARGO_HOME, offline), the failed build names
    # core/debian-crates.sh. The clone's build output is measured and said.
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        checkout = work / "clone"
        session.run(
            "git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(checkout), external=True
        )
        venv = work / "venv"
        session.run("python", "-m", "venv", str(venv))
        python, command = str(venv / "bin" / "python"), str(venv / "bin" / "overbrainer-contract")
        pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        with session.chdir(checkout):
            session.run(*pip, ".[serve]", external=True)
        run = str(ROOT / "examples" / "tiny-run")
        page = str(checkout / VIEWER_PAGE.relative_to(ROOT))  # what the build made
        served = str(ROOT / "tests" / "cli" / "served_page.py")
        session.run(python, served, command, run, page, external=True)
        # and shown: the viewer's served-page tests (Debian's headless Chromium, playwright-core
        # from the clone's js/viewer/node_modules, which the build installed) against this
        # install's `serve`
        browser = {
            "OVERBRAINER_CONTRACT": command,
            "CHROMIUM": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        }
        with session.chdir(checkout / "js" / "viewer"):
            session.run("node", "--test", "test/serve.test.mjs", env=browser, external=True)
        left = session.run(
            "git", "-C", str(checkout), "status", "--porcelain", silent=True, external=True
        )
        if left:
            session.error(f"the install left files git would commit:\n{left}")
        ignored = session.run(
            "git",
            "-C",
            str(checkout),
            "status",
            "--porcelain",
            "--ignored",
            silent=True,
            external=True,
        )
        for line in str(ignored).splitlines():
            path = checkout / line[3:]
            size = sum(
                f.stat().st_size
                for f in [path, *path.rglob("*")]
                if f.is_file() and not f.is_symlink()
            )
            session.log(f"left in the clone, git-ignored: {line[3:]} ({size / 2**20:.1f} MiB)")
        # built without the page (setuptools' build/ emptied: it holds the page copied
        # before): serve refuses, naming how to get it
        (checkout / SERVED_PAGE.relative_to(ROOT)).unlink()
        shutil.rmtree(checkout / "build")
        with session.chdir(checkout):
            session.run(
                *pip,
                "--no-deps",
                "--force-reinstall",
                ".",
                env={"OVERBRAINER_NO_VIEWER": "1"},
                external=True,
            )
        refused = session.run(
            command, "serve", "--port", "0", run, success_codes=[2], silent=True, external=True
        )
        if "--page" not in str(refused) or "OVERBRAINER_NO_VIEWER" not in str(refused):
            session.error(f"serve without its page said: {refused}")
        # no crate source: the failed build names the offline set-up
        empty = work / "cargo-home"
        empty.mkdir()
        offline = {
            "CARGO_HOME": str(empty),
            "CARGO_NET_OFFLINE": "true",
            "OVERBRAINER_NO_VIEWER": "1",
        }
        with session.chdir(checkout):
            failed = session.run(
                *pip,
                "--no-deps",
                "--force-reinstall",
                ".",
                env=offline,
                success_codes=[1],
                silent=True,
                external=True,
            )
        if "sh core/debian-crates.sh" not in str(failed):
            session.error(f"a build without crates did not name core/debian-crates.sh:\n{failed}")


PAGE_INSTALL = re.compile(r"pip install ([^`\n]+?)(?:`| &&|$)", re.M)
"""A page's install: its first `pip install` command (a ```sh block's or inline code)."""


def _requirement(session: nox.Session, stated: str) -> str:
    """What a page's install names, for pip here: `.` and `overbrainer-contract` (with their
    extras) are the project's wheel, built from this checkout; anything else is the index's."""
    ours = re.fullmatch(r"(?:\.|overbrainer-contract)(\[[\w,]+\])?", stated)
    return f"{project_wheel(session)}{ours.group(1) or ''}" if ours else stated


@nox.session(python=PYTHON)
def pages(session: nox.Session) -> None:
    """Each page's examples after exactly the install the page states, in a fresh venv."""
    # README.md and every page of docs/ holding ```console or ```python blocks (docs/table.md's
    # are the table session's): the page's first `pip install` is its install, and one that
    # states none fails. A fresh venv per install gets exactly that (`.` and
    # `overbrainer-contract` as the project's wheel, with the extras named; anything else from
    # the index), then tests/cli/test_readme.py, run by this session's pytest, runs the
    # pages' examples with that venv's Python and console script (not the cli session's wide
    # install).
    install_project(session, "test")
    installs: dict[tuple[str, ...], list[str]] = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        examples = re.search(r"^```(console|python)$", text, re.M)
        if page == ROOT / "docs" / "table.md" or examples is None:
            continue
        name = page.relative_to(ROOT).as_posix()
        stated = PAGE_INSTALL.search(text)
        if stated is None:
            session.error(f"{name} has examples but states no `pip install` to run them after")
        session.log(f"{name}: pip install {stated.group(1)}")
        wanted = tuple(_requirement(session, each) for each in shlex.split(stated.group(1)))
        installs.setdefault(wanted, []).append(name)
    with tempfile.TemporaryDirectory() as tmp:
        for number, (wanted, names) in enumerate(sorted(installs.items())):
            venv = Path(tmp) / f"venv-{number}"
            session.run("python", "-m", "venv", str(venv))
            python = str(venv / "bin" / "python")
            pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            session.run(*pip, *wanted, external=True)
            examples_only = "test_console_example or test_python_example"
            env = {"OVERBRAINER_PAGES": ",".join(names), "OVERBRAINER_PAGES_PYTHON": python}
            session.run(
                "python",
                "-m",
                "pytest",
                "tests/cli/test_readme.py",
                "-k",
                examples_only,
                *session.posargs,
                env=env,
            )


# --- JavaScript ---


def _publish_dry_run(session: nox.Session, env: dict[str, str]) -> None:
    """`npm publish --dry-run` in js/, as a release runs it: the session fails on any warning.

    The login it asks of is a placeholder token for the registry (a dry run sends nothing),
    so that a warning left is the package's.
    """
    npm: dict[str, Any] = {"external": True}
    registry = session.run("npm", "config", "get", "registry", silent=True, **npm) or ""
    login = f"--{registry.strip().split(':', 1)[1].rstrip('/')}/:_authToken=dry-run"
    said = session.run("npm", "publish", "--dry-run", login, env=env, silent=True, **npm) or ""
    print(said, end="")
    warned = [line for line in said.splitlines() if line.lower().startswith("npm warn")]
    if warned:
        session.error("npm publish --dry-run warned:\n" + "\n".join(warned))


@nox.session(python=PYTHON)
def js(session: nox.Session) -> None:
    """The npm package (js/): the reader core as WebAssembly, read as the reference reads."""
    # node and npm from the machine; `npm ci` from js/package-lock.json (offline from the
    # registry's mirror); the package built (`node build.mjs`: core/wasm by Debian's Rust 1.63
    # for wasm32-unknown-unknown, named by OVERBRAINER_WASM_CARGO, the glue and its
    # declarations by tsc); build.mjs's choice of a Rust on fake toolchains
    # (test/find-cargo.test.mjs); `check()`'s bounded findings, a gzip of millions of blank lines
    # checked in a 64 MiB heap (test/check-bound.test.mjs); the module's memory grown by an
    # eighth, not page by page (test/memory.test.mjs); the tarball's exact files, its
    # exports, the licence and the .wasm stripped (test/pack.test.mjs); the .wasm's size as
    # js/README.md states it (test/sizes.test.mjs, within 10 %); `npm publish
    # --dry-run` (its prepack build
    # included), failed on any `npm warn` line; the whole golden suite through it (every
    # expectation: verdict, category, value to the bit, dump, mark, pace, the bignum lines
    # included; each input file through the whole-file readers too); the JSON paths of
    # tests/json_paths.json (the core's, Python's strings); the run-level suite
    # (tests/conformance/runs/) through `check(bytes)` and `status(bytes, {now})`, each run
    # folder through `status(bytes, {now, name, snapshot, request})`, and that status equal to
    # the installed command line's `status -o json` of the folder (test/runs-cli.test.mjs); Ajv's
    # schema verdicts on the suite (bignum lines skipped: JSON.parse rounds them); the
    # generated TypeScript types' drift check; a typed consumer checked by tsc against the
    # declarations; then `npm pack`, the tarball installed offline into a fresh folder (no
    # runtime dependency comes with it) and used there with no build step: the consumer run
    # on the example runs, the golden suite run again against the installed package, and the
    # ```js examples of the README, docs/ and js/README.md (js/test/readme.mjs).
    npm: dict[str, Any] = {"external": True}
    wasm = _build_npm(session, fresh=True)  # and its environment, for prepack's build too
    with session.chdir(JS):
        session.run(
            "node",
            "--test",
            "test/check-bound.test.mjs",
            "test/digest.test.mjs",
            "test/find-cargo.test.mjs",
            "test/memory.test.mjs",
            "test/pack.test.mjs",
            "test/pattern.test.mjs",
            "test/side.test.mjs",
            "test/sizes.test.mjs",
            **npm,
        )
        _publish_dry_run(session, wasm)
        session.run("node", "test/golden.mjs", *session.posargs, **npm)
        session.run("node", "test/paths.mjs", **npm)
        session.run("node", "test/runs.mjs", **npm)
        # every case's run folder: the package's status() equal to the installed command's
        install_project(session)
        cli = {"OVERBRAINER_CONTRACT_CLI": str(Path(session.bin) / "overbrainer-contract")}
        session.run("node", "--test", "test/runs-cli.test.mjs", env=cli, **npm)
        session.run("node", "run-conformance.mjs", **npm)
        session.run("node", "generate-types.mjs", "--check", **npm)
        with tempfile.TemporaryDirectory() as tmp:
            built, fresh = Path(tmp) / "consumer", Path(tmp) / "fresh"
            typed = ("-p", "test/tsconfig.json", "--outDir", str(built))
            session.run("npx", "--no-install", "tsc", *typed, **npm)
            fresh.mkdir()
            session.run("npm", "pack", "--pack-destination", str(fresh), env=wasm, **npm)
            (tarball,) = fresh.glob("overbrainer-contract-*.tgz")
            (fresh / "package.json").write_text('{"name": "fresh", "type": "module"}\n')
            with session.chdir(fresh):
                offline = ("--offline", "--no-audit", "--no-fund")
                session.run("npm", "install", *offline, f"./{tarball.name}", **npm)
                modules = (fresh / "node_modules").iterdir()
                installed = sorted(p.name for p in modules if not p.name.startswith("."))
                if installed != ["overbrainer-contract"]:
                    session.error(f"the tarball brought more than itself: {installed}")
                shutil.copy(built / "consumer.js", fresh / "consumer.js")
                shutil.copy(JS / "test" / "golden.mjs", fresh / "golden.mjs")
                shutil.copy(JS / "test" / "extras.mjs", fresh / "extras.mjs")
                runs = sorted(str(p) for p in (ROOT / "examples").glob("*/metrics.jsonl"))
                session.run("node", "consumer.js", *runs, **npm)
                session.run("node", "golden.mjs", str(ROOT / "tests" / "conformance"), **npm)
                # the pages' JavaScript examples, as a user of the tarball runs them
                shutil.copytree(ROOT / "examples", fresh / "examples")
                shutil.copy(JS / "test" / "readme.mjs", fresh / "readme.mjs")
                docs = sorted((ROOT / "docs").glob("*.md"))
                pages = [str(page) for page in (ROOT / "README.md", *docs, JS / "README.md")]
                session.run("node", "readme.mjs", *pages, **npm)


@nox.session(python=PYTHON)
def viewer(session: nox.Session) -> None:
    """The run viewer (js/viewer/): one static page, tested in a real browser."""
    # The package built (`node build.mjs` in js/: its WebAssembly by Debian's Rust 1.63), the
    # page's modules type-checked by tsc (JSDoc, strict: js/viewer/tsconfig.json, against the
    # package's declarations just built), then the page (js/viewer/build.mjs: one
    # self-contained HTML file, the package's glue and its .wasm inlined; a run folder's side
    # files read by the core through the package's status()); its tests under node's runner: numbers
    # written as Python writes them (python3 the oracle), and the page from file:// and over
    # HTTP in Debian's headless Chromium (playwright-core, `npm ci` from
    # js/viewer/package-lock.json): the example runs' status rows held to
    # `overbrainer-contract status --now` of the same file and the package's `status()` record
    # (the page renders the core's records, words of its own none), the ETA re-told as the
    # page's clock moves, each bad line as the package's `check()` records it and with the
    # reference runner's verdict (the package installed: its console script, as
    # `OVERBRAINER_CONTRACT`), a 1M-line file paused and resumed between two chunks, markup in
    # lines, names and a proof shown as text and run nowhere; the page's size as docs/viewer.md
    # states it (test/sizes.test.mjs, within 10 %). Screenshots are kept in
    # js/viewer/test-output/ (`CHROMIUM=...` names another browser).
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        session.error(f"no {chromium}: apt-get install chromium (.ci/run does)")
    runner = _reference_runner(session)
    # `serve` for the page's server; `cli` for plot's numbers, which the picker's tests hold
    # the page's to (numpy, through matplotlib)
    install_project(session, extras="[serve,cli]")
    check = Path(session.bin) / "overbrainer-contract"
    npm: dict[str, Any] = {"external": True}
    _build_viewer(session)
    with session.chdir(JS):
        session.run("npx", "--no-install", "tsc", "-p", "viewer/tsconfig.json", **npm)
    with session.chdir(JS / "viewer"):
        env = {
            "OVERBRAINER_REFERENCE_RUNNER": runner,
            "OVERBRAINER_CONTRACT": str(check),
            "CHROMIUM": chromium,
        }
        session.run("node", "--test", *session.posargs, "test/", env=env, **npm)


# --- performance (on demand) ---


@nox.session(python=PYTHON, default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks (on demand): parse_line, check, export, the reference, npm, the plugin."""
    # parse_line against orjson, json, msgspec, jsonschema, side by side in one run on a
    # realistic 1M-line metrics.jsonl; then `check` against a bare parse_line loop, `check`'s
    # peak memory over 200k and 1M bad lines (goal: 64 MB), `export` against `check` (and
    # export's peak memory on 5M lines), what status's alerts cost it, the npm package's
    # whole-file reader under Node against the reference runner (js.py), `serve` on a sweep of
    # 1,000 runs with the page in Chromium (serve.py), and the plugin's callback against a
    # no-op callback.
    install_project(session, "bench", extras="[serve]")
    # Each script prints its figures and says which goals are not met (exit 1): the session
    # runs them all, so that one goal missed does not hide the others' figures.
    measured: dict[str, Any] = {"success_codes": [0, 1]}
    session.run("python", "benchmarks/parse.py", *session.posargs, **measured)
    session.run("python", "benchmarks/check.py", *session.posargs, **measured)  # vs a bare loop
    session.run("python", "benchmarks/check_memory.py", *session.posargs, **measured)  # bad lines
    session.run("python", "benchmarks/lines.py", *session.posargs, **measured)  # long lines
    session.run("python", "benchmarks/cli.py", *session.posargs, **measured)  # watch, -o json
    session.run("python", "benchmarks/export.py", *session.posargs, **measured)  # vs check
    session.run("python", "benchmarks/alerts.py", *session.posargs, **measured)  # status's alerts
    # parse_line, the whole file and check against the reference itself (the Rust runner)
    runner = {"OVERBRAINER_REFERENCE_RUNNER": _reference_runner(session)}
    session.run("python", "benchmarks/reference.py", *session.posargs, env=runner, **measured)
    session.run("python", "benchmarks/startup.py", *session.posargs, env=runner, **measured)
    # the npm package's whole-file reader under Node against the reference (js/, built here)
    _build_npm(session, fresh=True)
    session.run("python", "benchmarks/js.py", *session.posargs, env=runner, **measured)
    # `serve` on 1,000 runs of 10,000 lines, the page in headless Chromium (the viewer built)
    _build_viewer(session)
    serve = ("--command", str(Path(session.bin) / "overbrainer-contract"))
    session.run("python", "benchmarks/serve.py", *serve, **measured)
    # The plugin's callback against a no-op callback (its own script: it needs transformers).
    session.install(NO_COMPILE, TORCH)
    session.install(NO_COMPILE, "transformers")
    session.run("python", "benchmarks/plugin_callback.py")


if __name__ == "__main__":
    sys.exit("run with nox")
