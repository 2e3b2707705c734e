"""serde_json 1.0.87's own float reading (default features: no `float_roundtrip`).

The reference reads a JSON number with a fraction or an exponent, or an integer too
long for u64, by a best-effort algorithm, not a correctly rounded one: the significand
is gathered in a u64 (digits beyond it are dropped), converted to f64, then multiplied
or divided by a power of ten from a table, and an infinite product is "number out of
range". So it rejects `1.7976931348623158e+308` (correctly rounded: f64::MAX) and may
accept a long spelling whose exact value rounds to infinity. This module is that
algorithm, step for step (`de.rs`: `parse_integer`, `parse_long_integer`,
`parse_decimal`, `parse_decimal_overflow`, `parse_exponent`, `parse_exponent_overflow`,
`f64_from_parts`); Python's floats are the same IEEE doubles, rounded the same way.
"""

from __future__ import annotations

U64_MAX = 18446744073709551615
I32_MAX = 2147483647
I32_MIN = -2147483648
POW10 = tuple(float(f"1e{k}") for k in range(309))  # serde_json's `POW10` table


def _overflows(value: int, digit: int, limit: int) -> bool:
    """serde_json's `overflow!(value * 10 + digit, limit)`."""
    return value >= limit // 10 and (value > limit // 10 or digit > limit % 10)


def f64_from_parts(significand: int, exponent: int) -> float | None:
    """`f64_from_parts` without the sign: None where serde_json says out of range."""
    f = float(significand)
    while True:
        index = abs(exponent)
        if index < len(POW10):
            if exponent >= 0:
                f *= POW10[index]
                if f == float("inf"):
                    return None
            else:
                f /= POW10[index]
            return f
        if f == 0.0:
            return f
        if exponent >= 0:
            return None
        f /= 1e308
        exponent += 308


def serde_f64(literal: str) -> float | None:
    """The f64 serde_json reads from a JSON number literal (valid by the JSON grammar)
    that it reads as a float: one with a fraction or an exponent, or an integer beyond
    u64 (or below i64, or `-0`); None where it fails with "number out of range"."""
    negative = literal.startswith("-")
    pos = 1 if negative else 0
    end = len(literal)
    significand = 0
    exponent = 0
    # parse_integer, then parse_long_integer once the significand would overflow u64
    while pos < end and "0" <= literal[pos] <= "9":
        digit = ord(literal[pos]) - 48
        if _overflows(significand, digit, U64_MAX):
            while pos < end and "0" <= literal[pos] <= "9":
                pos += 1
                exponent += 1
            break
        significand = significand * 10 + digit
        pos += 1
    # parse_decimal, then parse_decimal_overflow: further digits dropped
    if pos < end and literal[pos] == ".":
        pos += 1
        while pos < end and "0" <= literal[pos] <= "9":
            digit = ord(literal[pos]) - 48
            if _overflows(significand, digit, U64_MAX):
                while pos < end and "0" <= literal[pos] <= "9":
                    pos += 1
                break
            significand = significand * 10 + digit
            exponent -= 1
            pos += 1
    # parse_exponent, then parse_exponent_overflow
    if pos < end and literal[pos] in "eE":
        pos += 1
        positive_exp = True
        if literal[pos] in "+-":
            positive_exp = literal[pos] == "+"
            pos += 1
        exp = 0
        while pos < end:
            digit = ord(literal[pos]) - 48
            if _overflows(exp, digit, I32_MAX):
                if significand != 0 and positive_exp:
                    return None
                return -0.0 if negative else 0.0
            exp = exp * 10 + digit
            pos += 1
        exponent = exponent + exp if positive_exp else exponent - exp
        exponent = max(I32_MIN, min(I32_MAX, exponent))  # saturating_add / saturating_sub
    value = f64_from_parts(significand, exponent)
    if value is None:
        return None
    return -value if negative else value


SAFE_MAGNITUDE = 1.7976931348623e308
"""Below this magnitude, a correctly rounded value and serde_json's reading of the same
literal are both finite: serde_json's reading is at most a few units in the last place
above the exact value (two roundings and dropped digits, which only lower it), and this
bound is about 2**45 units in the last place below f64::MAX. A value at or above it
(or an out-of-range literal) takes the exact path, which runs `serde_f64`."""
