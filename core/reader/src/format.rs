//! Numbers, durations and ages in the words every face shows them in: Python's format
//! specifications, digit for digit — `{:,}` ([`thousands`]), `{:.Ng}` ([`general`]),
//! `{:.Nf}` ([`fixed`]), `{:.0%}` ([`percent`]), `round()` ([`duration`], [`clock`]) — and
//! the spans people say (`25 s`, `3 days`: [`ago`]).
//!
//! Python rounds a float's exact binary value to the digits asked for, ties to even. Rust's
//! own float formatting rounds ties differently from one release to another (away from zero
//! before 1.67), so the rounding is done here on the float's exact decimal digits, which
//! Rust writes without rounding when asked for more digits than a double has (767 at most).

/// A finite float's magnitude as its exact decimal digits: value = 0.DIGITS × 10^point, the
/// digits without leading or trailing zeros (empty for zero).
struct Digits {
    digits: Vec<u8>,
    point: i64,
}

impl Digits {
    fn of(x: f64) -> Self {
        if x == 0.0 || !x.is_finite() {
            return Self {
                digits: Vec::new(),
                point: 0,
            };
        }
        // 800 digits after the point of the scientific form: more than any double holds, so
        // Rust writes them exactly, with no rounding of its own
        let text = format!("{:.800e}", x.abs());
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mut digits: Vec<u8> = mantissa
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|digit| digit - b'0')
            .collect();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        let exponent: i64 = exponent.parse().unwrap_or(0);
        Self {
            digits,
            point: exponent + 1,
        }
    }

    /// The first `keep` digits (zeros past the last), rounded by the rest, ties to even:
    /// `keep` digits (at least one on a carry past the first, the point moved by one). Below
    /// zero, nothing is kept: the value rounds to zero.
    fn rounded(&self, keep: i64) -> Self {
        if keep < 0 {
            return Self {
                digits: Vec::new(),
                point: self.point - keep,
            };
        }
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        let mut kept: Vec<u8> = self.digits.iter().copied().take(keep).collect();
        kept.resize(keep, 0);
        let rest = self.digits.get(keep..).unwrap_or(&[]);
        let up = match rest.first() {
            None => false,
            Some(&first) => {
                let beyond = rest.len() > 1; // no trailing zeros: anything after is non-zero
                let odd = kept.last().map_or(false, |last| last % 2 == 1);
                first > 5 || (first == 5 && (beyond || odd))
            }
        };
        let mut point = self.point;
        if up {
            let mut at = kept.len();
            loop {
                if at == 0 {
                    // every digit carried: a new leading 1, the rest zeros
                    kept.insert(0, 1);
                    kept.truncate(keep.max(1));
                    point += 1;
                    break;
                }
                at -= 1;
                if kept[at] == 9 {
                    kept[at] = 0;
                } else {
                    kept[at] += 1;
                    break;
                }
            }
        }
        Self {
            digits: kept,
            point,
        }
    }

    fn is_zero(&self) -> bool {
        self.digits.iter().all(|digit| *digit == 0)
    }
}

fn text_of(digits: &[u8]) -> String {
    digits
        .iter()
        .map(|digit| char::from(b'0' + digit))
        .collect()
}

/// Python's words for a float that is not finite: `nan`, `inf`, `-inf`.
fn special(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("nan")
    } else if x == f64::INFINITY {
        Some("inf")
    } else if x == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

fn sign(x: f64) -> &'static str {
    if x.is_sign_negative() && !x.is_nan() {
        "-"
    } else {
        ""
    }
}

/// `f"{n:,}"` of an integer: its digits grouped by three.
#[must_use]
pub fn thousands(n: u64) -> String {
    group(&n.to_string())
}

/// A run of decimal digits grouped by three from the right.
fn group(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `f"{x:.{precision}g}"`: `precision` significant digits (0 taken as 1), fixed or with an
/// exponent as Python chooses (fixed for an exponent from -4 to below the precision),
/// trailing zeros dropped.
#[must_use]
pub fn general(x: f64, precision: usize) -> String {
    if let Some(word) = special(x) {
        return word.to_owned();
    }
    let precision = precision.max(1);
    if x == 0.0 {
        return format!("{}0", sign(x));
    }
    let keep = i64::try_from(precision).unwrap_or(i64::MAX);
    let rounded = Digits::of(x).rounded(keep);
    let exponent = rounded.point - 1;
    let digits = text_of(&rounded.digits);
    if exponent >= -4 && exponent < keep {
        let text = if rounded.point <= 0 {
            let zeros = usize::try_from(-rounded.point).unwrap_or(0);
            format!("0.{}{}", "0".repeat(zeros), digits)
        } else {
            let at = usize::try_from(rounded.point)
                .unwrap_or(0)
                .min(digits.len());
            format!("{}.{}", &digits[..at], &digits[at..])
        };
        let text = text.trim_end_matches('0').trim_end_matches('.');
        return format!("{}{}", sign(x), text);
    }
    let tail = digits.get(1..).unwrap_or("").trim_end_matches('0');
    let dot = if tail.is_empty() { "" } else { "." };
    let lead = digits.get(..1).unwrap_or("0");
    let sign_of_exponent = if exponent < 0 { '-' } else { '+' };
    format!(
        "{}{lead}{dot}{tail}e{sign_of_exponent}{:02}",
        sign(x),
        exponent.unsigned_abs()
    )
}

/// `f"{x:.{decimals}f}"`: `decimals` digits after the point, ties to even.
#[must_use]
pub fn fixed(x: f64, decimals: usize) -> String {
    if let Some(word) = special(x) {
        return word.to_owned();
    }
    let (whole, fraction) = fixed_parts(x, decimals);
    let dot = if decimals > 0 { "." } else { "" };
    format!("{}{whole}{dot}{fraction}", sign(x))
}

/// The digits of `|x|` rounded to `decimals` places: before the point and after it.
fn fixed_parts(x: f64, decimals: usize) -> (String, String) {
    let exact = Digits::of(x);
    let places = i64::try_from(decimals).unwrap_or(i64::MAX);
    let rounded = exact.rounded(exact.point.saturating_add(places));
    if rounded.is_zero() {
        return ("0".to_owned(), "0".repeat(decimals));
    }
    let mut digits = text_of(&rounded.digits);
    let mut point = rounded.point;
    if point <= 0 {
        digits = format!(
            "{}{digits}",
            "0".repeat(usize::try_from(1 - point).unwrap_or(0))
        );
        point = 1;
    }
    let at = usize::try_from(point).unwrap_or(0);
    let mut whole: String = digits.chars().take(at).collect();
    while whole.len() < at {
        whole.push('0');
    }
    let mut fraction: String = digits.chars().skip(at).take(decimals).collect();
    while fraction.len() < decimals {
        fraction.push('0');
    }
    (whole, fraction)
}

/// `f"{x:.0%}"`: a share as a whole percentage (Python multiplies the float by 100 first).
#[must_use]
pub fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 0))
}

/// `round(max(seconds, 0))` of Python (ties to even) as decimal digits: 0 for what is not
/// finite.
fn whole_seconds(seconds: f64) -> String {
    if !seconds.is_finite() || seconds <= 0.0 {
        return "0".to_owned();
    }
    fixed_parts(seconds, 0).0
}

/// Decimal digits divided by a small number: the quotient's digits (no leading zeros, `0`
/// for none) and the remainder.
fn divide(digits: &str, by: u32) -> (String, u32) {
    let mut quotient = String::with_capacity(digits.len());
    let mut rest: u64 = 0;
    for digit in digits.bytes() {
        rest = rest * 10 + u64::from(digit - b'0');
        let step = rest / u64::from(by);
        rest %= u64::from(by);
        if !(quotient.is_empty() && step == 0) {
            quotient.push(char::from(b'0' + u8::try_from(step).unwrap_or(0)));
        }
    }
    if quotient.is_empty() {
        quotient.push('0');
    }
    (quotient, u32::try_from(rest).unwrap_or(0))
}

/// Whole seconds as hours (any size), minutes and seconds.
fn hours_minutes_seconds(seconds: f64) -> (String, u32, u32) {
    let (hours, rest) = divide(&whole_seconds(seconds), 3600);
    (hours, rest / 60, rest % 60)
}

/// `H:MM:SS` (days counted in hours), rounded to the second, ties to even: how `status` and
/// `watch` write an ETA. Below zero, or not finite, is `0:00:00`.
#[must_use]
pub fn duration(seconds: f64) -> String {
    let (hours, minutes, secs) = hours_minutes_seconds(seconds);
    format!("{hours}:{minutes:02}:{secs:02}")
}

/// `MM:SS`, or `H:MM:SS` from an hour on (tqdm's `format_interval`), rounded as
/// [`duration`].
#[must_use]
pub fn clock(seconds: f64) -> String {
    let (hours, minutes, secs) = hours_minutes_seconds(seconds);
    if hours == "0" {
        format!("{minutes:02}:{secs:02}")
    } else {
        format!("{hours}:{minutes:02}:{secs:02}")
    }
}

/// `3.21it/s`, or `4.50s/it` when a step takes more than a second (tqdm's way); `?it/s`
/// without a rate.
#[must_use]
pub fn rate(rate: Option<f64>) -> String {
    match rate {
        Some(rate) if rate.is_finite() && rate > 0.0 => {
            if rate < 1.0 {
                format!("{}s/it", fixed(1.0 / rate, 2))
            } else {
                format!("{}it/s", fixed(rate, 2))
            }
        }
        _ => "?it/s".to_owned(),
    }
}

/// Each unit's size; days from two on (`30 h`, then `2 days`), the others from one.
const UNITS: [(f64, &str); 4] = [(86400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s")];

/// Python's `x // y` of two floats (`float_floor_div`: the quotient of `x - fmod(x, y)`,
/// snapped to the nearest whole number), for `x` finite and at least 0, `y` above 0.
fn floor_divide(x: f64, y: f64) -> f64 {
    let modulo = x % y;
    let quotient = (x - modulo) / y;
    if quotient == 0.0 {
        return 0.0;
    }
    let floor = quotient.floor();
    if quotient - floor > 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// A span as people say it: `25 s`, `12 min`, `30 h`, `3 days` — the largest unit that
/// fits, rounded down, days from two on; under a second (and below zero) is `0 s`; `?` for
/// what is not finite.
#[must_use]
pub fn ago(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "?".to_owned();
    }
    let span = seconds.max(0.0);
    for (size, unit) in UNITS {
        let count = floor_divide(span, size);
        let least = if unit == "days" { 2.0 } else { 1.0 };
        if count >= least {
            return format!("{} {unit}", fixed_parts(count, 0).0);
        }
    }
    "0 s".to_owned()
}

/// `format(x, spec)` of Python for the specifications the faces use: `,` (an integer, its
/// digits grouped by three), `.Ng`, `.Nf`, `.N%`; `None` for another specification, or for
/// `,` of a number that is not a whole one of at most 20 digits.
#[must_use]
pub fn python(x: f64, spec: &str) -> Option<String> {
    if spec == "," {
        if !x.is_finite() || x.fract() != 0.0 || x.abs() >= 1e20 {
            return None;
        }
        let (digits, _) = fixed_parts(x, 0);
        let sign = if x < 0.0 { "-" } else { "" };
        return Some(format!("{sign}{}", group(&digits)));
    }
    let rest = spec.strip_prefix('.')?;
    let kind = rest.chars().last()?;
    let digits: usize = rest[..rest.len() - kind.len_utf8()].parse().ok()?;
    if digits > 100 {
        return None;
    }
    match kind {
        'g' => Some(general(x, digits)),
        'f' => Some(fixed(x, digits)),
        '%' => Some(format!("{}%", fixed(x * 100.0, digits))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_as_python() {
        assert_eq!(general(0.125, 2), "0.12");
        assert_eq!(general(0.375, 2), "0.38");
        assert_eq!(general(2.0, 4), "2");
        assert_eq!(general(123_456.0, 4), "1.235e+05");
        assert_eq!(general(9999.5, 4), "1e+04");
        assert_eq!(general(0.0001, 4), "0.0001");
        assert_eq!(general(0.00001234, 4), "1.234e-05");
        assert_eq!(general(-0.0, 4), "-0");
        assert_eq!(general(f64::NAN, 4), "nan");
        assert_eq!(general(1e300, 3), "1e+300");
        assert_eq!(general(5e-324, 4), "4.941e-324");
    }

    #[test]
    fn fixed_and_percent_as_python() {
        assert_eq!(fixed(0.5, 0), "0");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(fixed(2.675, 2), "2.67");
        assert_eq!(fixed(-0.001, 2), "-0.00");
        assert_eq!(fixed(1e20, 1), "100000000000000000000.0");
        assert_eq!(percent(0.125), "12%");
        assert_eq!(percent(0.995), "100%");
        assert_eq!(percent(1.0), "100%");
    }

    #[test]
    fn specifications_as_python() {
        assert_eq!(python(1_234_567.0, ",").as_deref(), Some("1,234,567"));
        assert_eq!(python(-1234.0, ",").as_deref(), Some("-1,234"));
        assert_eq!(python(1.5, ","), None);
        assert_eq!(python(0.125, ".2g").as_deref(), Some("0.12"));
        assert_eq!(python(0.5, ".0%").as_deref(), Some("50%"));
        assert_eq!(python(2.675, ".2f").as_deref(), Some("2.67"));
        assert_eq!(python(1.0, ".x"), None);
        assert_eq!(python(1.0, "g"), None);
    }

    #[test]
    fn grouped_durations_and_spans() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(8.0), "0:00:08");
        assert_eq!(duration(2.5), "0:00:02");
        assert_eq!(duration(90_061.0), "25:01:01");
        assert_eq!(clock(83.0), "01:23");
        assert_eq!(clock(3662.0), "1:01:02");
        assert_eq!(rate(Some(0.5)), "2.00s/it");
        assert_eq!(rate(None), "?it/s");
        assert_eq!(ago(25.9), "25 s");
        assert_eq!(ago(30.0 * 3600.0), "30 h");
        assert_eq!(ago(86400.0 * 1.5), "36 h");
        assert_eq!(ago(86400.0 * 3.0), "3 days");
        assert_eq!(ago(0.4), "0 s");
        assert_eq!(ago(f64::INFINITY), "?");
    }
}
