"""`python -m overbrainer_contract`: the command line."""

from __future__ import annotations

from .cli import entry

if __name__ == "__main__":
    entry()
