"""A griffe extension for the API pages: each docstring's doctest examples (`>>> ` lines, their
`... ` continuations and the output up to a blank line) are shown as Python console blocks,
not read as Markdown."""

from __future__ import annotations

from typing import Any

from griffe import Extension, Object


def fenced(text: str) -> str:
    """`text` with each run of doctest lines inside a ```pycon fence."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if not inside and line.lstrip().startswith(">>> "):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not line.strip():
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class Doctests(Extension):
    def on_object(self, *, obj: Object, **_kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fenced(obj.docstring.value)
