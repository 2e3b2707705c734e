"""Floats written as serde_json writes them (ryu's shortest form, placed by its rules)."""

from __future__ import annotations

import math


def format_f64(value: float) -> str:
    """An f64 as serde_json writes it (ryu's `format64`); non-finite is `null`.

    The digits are the shortest that read back as `value` — the digits Python's
    `repr` chooses — placed by ryu's rules: `100.0`, `0.00001`, `1e16`, `1.5e-7`.
    """
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    k = int(exponent or 0) - len(fraction)  # the decimal exponent of the last digit
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    digits = stripped
    length = len(digits)
    kk = length + k
    if k >= 0 and kk <= 16:
        return f"{sign}{digits}{'0' * k}.0"
    if 0 < kk <= 16:
        return f"{sign}{digits[:kk]}.{digits[kk:]}"
    if -5 < kk <= 0:
        return f"{sign}0.{'0' * -kk}{digits}"
    if length == 1:
        return f"{sign}{digits}e{kk - 1}"
    return f"{sign}{digits[0]}.{digits[1:]}e{kk - 1}"
