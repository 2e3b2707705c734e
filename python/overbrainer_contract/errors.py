"""The one exception the parser raises, sorted the way the reference sorts its errors."""

from __future__ import annotations

from typing import Literal

Category = Literal["syntax", "eof", "data"]
"""`serde_json::Error::classify()` without `Io`, which a line in memory never gives."""


class ParseError(ValueError):
    """A line that is not a metrics record, as the reference would reject it.

    `category` is what `serde_json::Error::classify()` gives for the same line:
    `"syntax"` (not JSON, or a number out of range), `"eof"` (the line ends
    too early: a run still writing, or killed) or `"data"` (JSON, but not a
    metrics record). `path` is the JSON path of the offending field or value
    (`$.step`, `$[2]`), when there is one; `column` is the 1-based position in
    the line where the problem was found.
    """

    def __init__(
        self,
        category: Category,
        message: str,
        path: str | None = None,
        column: int | None = None,
    ) -> None:
        self.category: Category = category
        self.message = message
        self.path = path
        self.column = column
        where = f" at column {column}" if column is not None else ""
        super().__init__(f"{message}{where}")

    def __repr__(self) -> str:
        return (
            f"ParseError(category={self.category!r}, message={self.message!r}, "
            f"path={self.path!r}, column={self.column!r})"
        )
