// Numbers written as the command line writes them (Python's format specifications), so that the
// page reads as `overbrainer-contract status` does: `{:,}`, `{:.4g}`, `{:.0%}`, `round()`.
// Python rounds a float's exact binary value, ties to even; JavaScript's toFixed and
// toPrecision round ties away from zero, so the rounding is done here on the exact digits.

/** The exact decimal digits of a finite, non-zero `x`'s magnitude: value = 0.DIGITS × 10^point.
 * 100 significant digits are enough: a tie at 17 digits or fewer is exact well within them, and
 * no double lies so close to one that 100 digits could not tell it apart.
 * @param {number} x
 * @returns {Digits} */
function digitsOf(x) {
  const text = Math.abs(x).toPrecision(100);
  const [mantissa, exponent] = text.split("e");
  const dot = mantissa.indexOf(".");
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot);
  let digits = mantissa.replace(".", "");
  let point = whole.length + (exponent === undefined ? 0 : Number(exponent));
  const leading = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(leading);
  point -= leading;
  return { digits, point };
}

/** @typedef {{ digits: string, point: number }} Digits */

/** `digits` rounded to its first `keep` digits, ties to even; `point` moves on a carry.
 * @param {Digits} exact
 * @param {number} keep
 * @returns {Digits & { zero: boolean }} */
function roundDigits({ digits, point }, keep) {
  if (keep < 0) return { digits: "", point: point - keep, zero: true };
  const kept = digits.slice(0, keep).padEnd(keep, "0");
  const rest = digits.slice(keep);
  const first = rest.charCodeAt(0) - 48;
  const beyond = /[1-9]/.test(rest.slice(1));
  const last = keep > 0 ? kept.charCodeAt(keep - 1) - 48 : 0;
  const up = rest.length > 0 && (first > 5 || (first === 5 && (beyond || last % 2 === 1)));
  if (!up) return { digits: kept, point, zero: !/[1-9]/.test(kept) };
  const carried = (BigInt(kept || "0") + 1n).toString();
  if (carried.length > keep) {
    return { digits: carried.slice(0, Math.max(keep, 1)), point: point + 1, zero: false };
  }
  return { digits: carried.padStart(keep, "0"), point, zero: false };
}

/** `f"{n:,}"` for an integer (a number or a bigint): digits grouped by three.
 * @param {number | bigint} n
 * @returns {string} */
export function thousands(n) {
  const text = String(n);
  const sign = text.startsWith("-") ? "-" : "";
  return sign + text.slice(sign.length).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Python's words for a number that is not finite, or null.
 * @param {number} x
 * @returns {string | null} */
function special(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  return null;
}

/** `f"{x:.{p}g}"`: `p` significant digits, fixed or with an exponent as Python chooses,
 * trailing zeros dropped.
 * @param {number} x
 * @param {number} p
 * @returns {string} */
export function formatG(x, p) {
  const odd = special(x);
  if (odd !== null) return odd;
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0`;
  const { digits, point } = roundDigits(digitsOf(x), p);
  const exponent = point - 1;
  if (exponent >= -4 && exponent < p) {
    let text;
    if (point <= 0) text = `0.${"0".repeat(-point)}${digits}`;
    else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
    return sign + text.replace(/\.?0+$/, "").replace(/\.$/, "");
  }
  const tail = digits.slice(1).replace(/0+$/, "");
  const size = String(Math.abs(exponent)).padStart(2, "0");
  return `${sign}${digits[0]}${tail ? `.${tail}` : ""}e${exponent < 0 ? "-" : "+"}${size}`;
}

/** `f"{x:.{f}f}"`: `f` decimals, ties to even.
 * @param {number} x
 * @param {number} f
 * @returns {string} */
export function formatFixed(x, f) {
  const odd = special(x);
  if (odd !== null) return odd;
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return sign + (f > 0 ? `0.${"0".repeat(f)}` : "0");
  if (Math.abs(x) >= 2 ** 53) {
    // an integer, every digit of which matters: beyond the 100 digits read below
    return sign + BigInt(Math.abs(x)).toString() + (f > 0 ? `.${"0".repeat(f)}` : "");
  }
  const exact = digitsOf(x);
  const rounded = roundDigits(exact, exact.point + f);
  let { digits } = rounded;
  const point = rounded.zero ? 1 : rounded.point;
  if (rounded.zero) digits = "0".repeat(f + 1);
  if (point <= 0) digits = "0".repeat(1 - point) + digits;
  const at = Math.max(point, 1);
  const whole = digits.slice(0, at).padEnd(at, "0");
  const decimals = digits.slice(at).padEnd(f, "0").slice(0, f);
  return sign + (f > 0 ? `${whole}.${decimals}` : whole);
}

/** `f"{x:.0%}"`: a share as a whole percentage (Python multiplies the float by 100 first).
 * @param {number} x
 * @returns {string} */
export function percent(x) {
  return `${formatFixed(x * 100, 0)}%`;
}

/** `round(x)` of Python: the nearest integer, ties to even (as a bigint: any size).
 * @param {number} x
 * @returns {bigint} */
export function roundHalfEven(x) {
  return BigInt(formatFixed(x, 0));
}

/** `H:MM:SS`, days counted in hours, rounded to the second: the command line's
 * `format_duration`.
 * @param {number} seconds
 * @returns {string} */
export function formatDuration(seconds) {
  const whole = roundHalfEven(seconds);
  const hours = whole / 3600n;
  const rest = whole % 3600n;
  const minutes = rest / 60n;
  const secs = rest % 60n;
  return `${hours}:${String(minutes).padStart(2, "0")}:${String(secs).padStart(2, "0")}`;
}

/** @type {[number, string][]} */
const UNITS = [
  [86400, "days"],
  [3600, "h"],
  [60, "min"],
  [1, "s"],
];

/** A span as people say it, as the command line says it (runs/clock.py `ago`): `25 s`,
 * `12 min`, `30 h`, `3 days` (the largest unit that fits, rounded down, days from two on).
 * @param {number} seconds
 * @returns {string} */
export function ago(seconds) {
  if (!Number.isFinite(seconds)) return "?";
  const span = Math.max(seconds, 0);
  for (const [size, unit] of UNITS) {
    const count = Math.floor(span / size);
    if (count >= (unit === "days" ? 2 : 1)) return `${count} ${unit}`;
  }
  return "0 s";
}
