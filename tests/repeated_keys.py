"""Files of a writer that repeats its unknown keys on every line, then breaks the pattern.

The same unknown key set (scalar values of every kind) on several lines of one variant,
then lines with the same keys and one of them written twice, a value out of serde's range,
a value of another kind, the keys in another order, one key more or less: each must get
the reference's verdict, whatever a reader learned from the lines before (a reader that
remembers a writer's keys must not carry them over). Shared by the property test and the
differential fuzz (against the reference itself).
"""

from __future__ import annotations

import json

from hypothesis import strategies as st
from line_kinds import FIELDS, STAGE, U64, VARIANTS

SCALARS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from(["0", "-0", "-0.0", "1e-400", "null", "true", "false", '""', '"x y"']),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=6).map(
        lambda text: json.dumps(text, ensure_ascii=False)
    ),
)
BREAKING = st.sampled_from(
    [
        "1.7976931348623158e+308",  # out of range for serde_json's reading
        "1.79769313486231581e+308",  # in range for it
        "-1e400",
        "9" * 400,
        str(2**64),
        "18446744073709551615",
        "[1,2]",
        "[1e400]",
        '{"a":-0}',
        '"say \\"hi\\""',
        '"\\ud800"',
        '"\\u00e9"',
        "NaN",
    ]
)
KEYS = st.one_of(
    st.sampled_from(["tokens_per_second", "gpu", "Step", "EVENT", "a b", ""]),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=5),
)


@st.composite
def repeated_key_lines(draw: st.DrawFn) -> list[str]:
    """Lines of one variant repeating one unknown key set, then lines breaking it."""
    tag = draw(st.sampled_from(list(VARIANTS)))
    known = FIELDS[VARIANTS[tag]]
    names = {name for name, _ in known} | {"event"}
    keys = draw(
        st.lists(KEYS.filter(lambda key: key not in names), min_size=1, max_size=3, unique=True)
    )

    def line(extra: list[tuple[str, str]], shuffle: bool = False) -> str:
        entries = [("event", json.dumps(tag))]
        for name, kind in known:
            if kind == STAGE:
                entries.append((name, '"train"'))
            elif kind.startswith("Option") and draw(st.booleans()):
                continue
            else:
                entries.append(
                    (
                        name,
                        draw(st.sampled_from(["0", "3", "1.5", "2e-05"]))
                        if kind != U64
                        else draw(st.sampled_from(["0", "7"])),
                    )
                )
        entries += extra
        if shuffle:
            entries = draw(st.permutations(entries))
        ws = draw(st.sampled_from(["", " "]))
        body = ",".join(f"{json.dumps(k, ensure_ascii=False)}:{ws}{v}" for k, v in entries)
        return "{" + body + "}"

    def values() -> list[tuple[str, str]]:
        return [(key, draw(SCALARS)) for key in keys]

    lines = [line(values()) for _ in range(draw(st.integers(2, 5)))]
    base = values()
    at = draw(st.integers(0, len(base) - 1))
    lines += [
        line([*base, base[at]]),  # a key written twice
        line([*base[:at], (base[at][0], draw(BREAKING)), *base[at + 1 :]]),  # range, kind
        line(base, shuffle=True),  # another order
        line([*base, ("another", draw(SCALARS))]),  # one key more
        line(base[:at] + base[at + 1 :]),  # one key less
        line([*base, ("time", "1")]),  # a known key written twice after them
    ]
    return lines
