"""What the build does beyond pyproject.toml, for every install a user can make (a wheel, an
sdist, a checkout, a git URL):

- **The viewer page** that `serve` serves (`overbrainer_contract/serve/viewer.html`, package
  data, not in git) is built by node from js/ when a checkout lacks it, before the Python
  files are gathered (build_py: a wheel, an editable install) and before an sdist is made, so
  the sdist carries the page and installing from it needs no node. Without node and npm the
  build stops and says what to install; `OVERBRAINER_NO_VIEWER=1` builds without the page
  (`serve` then says how to get one), as does pre-commit's install of the hook (`PRE_COMMIT`
  set), which never serves.
- **The reader core** (setuptools-rust, pyproject.toml): where cargo fails, the error also
  names the offline crate set-up, `sh core/debian-crates.sh`, since a machine that cannot
  reach crates.io fails there after cargo's retries.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.errors import CompileError, ExecError, SetupError
from setuptools_rust.build import build_rust

ROOT = Path(__file__).resolve().parent
JS = ROOT / "js"
PAGE = ROOT / "python" / "overbrainer_contract" / "serve" / "viewer.html"
NO_VIEWER = "OVERBRAINER_NO_VIEWER"

NODE_MISSING = f"""\
the viewer page that `serve` serves is built from js/ by node, and {{missing}} is not on the
PATH. Install Node.js {{node}} with npm (https://nodejs.org), and a Rust with the WebAssembly
standard library (rustup's: rustup target add wasm32-unknown-unknown; Debian's 1.63:
sh core/debian-crates.sh); then install again. Or build without the page:
{NO_VIEWER}=1 (`serve` then needs --page)."""


CRATES_HINT = """\
cargo could not build the reader core. On a machine that cannot reach crates.io (Debian or
Ubuntu, as root), `sh core/debian-crates.sh` installs Debian's packaged crates and points
cargo at them (README, "Try it"); then install again."""


def build_page() -> None:
    """Build the viewer page into the package, when a checkout lacks it (js/ is here and the
    page is not), with js/'s pinned npm packages; say exactly what is missing otherwise."""
    if PAGE.exists() or not (JS / "package.json").exists():
        return
    if os.environ.get(NO_VIEWER):
        print(f"{NO_VIEWER} is set: building without the viewer page (serve will need --page)")
        return
    if os.environ.get("PRE_COMMIT"):  # pre-commit installing the hook, which never serves
        print("installed by pre-commit (PRE_COMMIT is set): building without the viewer page")
        return
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            engines = json.loads((JS / "viewer" / "package.json").read_text())["engines"]
            raise SetupError(NODE_MISSING.format(missing=tool, node=engines["node"]))
    # js/build-page.mjs: every step (npm ci, the package's build, the page's), the page put
    # in place at once beside the package's modules
    command = ["node", str(JS / "build-page.mjs"), "--out", str(PAGE)]
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        raise SetupError(
            "the viewer page's build failed (js/build-page.mjs, its own words above); or build "
            f"without the page: {NO_VIEWER}=1"
        )


class BuildPy(build_py):
    """build_py, the viewer page built first (a wheel's package data; in place for an
    editable install)."""

    def run(self) -> None:
        build_page()
        super().run()


class Sdist(sdist):
    """sdist, the viewer page built first, so that the sdist carries it."""

    def run(self) -> None:
        build_page()
        super().run()


class BuildRust(build_rust):  # type: ignore[misc]
    """setuptools-rust's build_rust, its failure naming the offline crate set-up."""

    def run(self) -> None:
        try:
            super().run()
        except (CompileError, ExecError, SetupError) as error:  # cargo build; cargo metadata
            raise type(error)(f"{error}\n{CRATES_HINT}") from error


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist, "build_rust": BuildRust})
