"""The one exception the parser raises, sorted the way the reference sorts its errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from .._core import path_of as _path_of

Category = Literal["syntax", "eof", "data"]
"""`serde_json::Error::classify()` without `Io`, which a line in memory never gives."""

# The arguments a `ParseError` was made with, as `BaseException` keeps them (in C).
_MADE_WITH = BaseException.args.__get__  # type: ignore[attr-defined]


class ParseError(ValueError):
    """A line that is not a metrics record, as the reference would reject it.

    `category` is what `serde_json::Error::classify()` gives for the same line:
    `"syntax"` (not JSON, or a number out of range), `"eof"` (the line ends
    too early: a run still writing, or killed) or `"data"` (JSON, but not a
    metrics record). `path` is the JSON path of the offending field or value
    (`$.step`, `$[2]`), when there is one; `column` is the 1-based position in
    the line where the problem was found.

    Made as `ParseError(category, message, path=None, column=None)`. There is no
    `__init__` in Python: the four values stay where `BaseException` keeps what it was
    made with, and are read from there; the text (`str`, `args`) is formatted only when
    asked for. The core makes it with a fifth value: `None`, or the line itself in place of
    the path (`parse_line`, `parse_lines`), which the core locates the path in when `path`
    is read (walking the line again costs more than the rest of the error). A caller that
    skips a bad line pays its raise and little more.
    """

    if TYPE_CHECKING:  # the signature, for type checkers; `BaseException.__init__` runs

        def __init__(
            self,
            category: Category,
            message: str,
            path: str | None = None,
            column: int | None = None,
        ) -> None: ...

    _given: tuple[Any, ...] | None = None  # `args` once assigned, as `ValueError` keeps it

    @property
    def category(self) -> Category:
        category: Category = _MADE_WITH(self)[0]
        return category

    @property
    def message(self) -> str:
        message: str = _MADE_WITH(self)[1]
        return message

    @property
    def path(self) -> str | None:
        made = _MADE_WITH(self)
        if len(made) > 4 and made[4] is not None:  # made with its line: located now, by the core
            located: str | None = _path_of(made[4])
            return located
        return made[2] if len(made) > 2 else None

    @property
    def column(self) -> int | None:
        made = _MADE_WITH(self)
        return made[3] if len(made) > 3 else None

    def _text(self) -> str:
        made = _MADE_WITH(self)
        if len(made) < 4 or made[3] is None:
            return str(made[1])
        return f"{made[1]} at column {made[3]}"

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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) as the four values, the path located, and an assigned `args`."""
        made = (self.category, self.message, self.path, self.column)
        return (self.__class__, made, self.__dict__ or None)

    def __repr__(self) -> str:
        return (
            f"ParseError(category={self.category!r}, message={self.message!r}, "
            f"path={self.path!r}, column={self.column!r})"
        )
