"""The one exception the parser raises, sorted the way the reference sorts its errors."""

from __future__ import annotations

from typing import Any, Literal

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
        # The text is formatted only when asked for (`__str__`, `args`): a caller that
        # skips a bad line never reads it, and a bad line costs its raise and little more.

    _given: tuple[Any, ...] | None = None  # `args` once assigned, as `ValueError` keeps it

    def _text(self) -> str:
        if self.column is None:
            return self.message
        return f"{self.message} at column {self.column}"

    def __str__(self) -> str:
        given = self._given
        if given is None:
            return self._text()
        return "" if not given else str(given[0]) if len(given) == 1 else str(given)

    @property
    def args(self) -> tuple[Any, ...]:
        """`(str(self),)`, as when the text was given to `ValueError`."""
        return (self._text(),) if self._given is None else self._given

    @args.setter
    def args(self, value: tuple[Any, ...]) -> None:
        self._given = tuple(value)

    def __repr__(self) -> str:
        return (
            f"ParseError(category={self.category!r}, message={self.message!r}, "
            f"path={self.path!r}, column={self.column!r})"
        )
