//! `Pace`: steps per second and the time left, as the reference computes them.

use std::time::Duration;

use crate::generated::TrainMetric;

/// The pace of a training, from its logs in order: steps per second between the first and
/// the latest training log (the ones with a loss), measured on the plugin's own clock, and
/// the time left at that pace. The reference's `Pace`, field for field.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pace {
    first: Option<(u64, f64)>,
    last: Option<(u64, f64)>,
    step: u64,
    max_steps: Option<u64>,
}

impl Pace {
    /// Takes the next log `metric` into account.
    pub fn add(&mut self, metric: &TrainMetric) {
        self.add_values(metric.step, metric.max_steps, metric.loss, metric.time);
    }

    /// `add` of a log with these values.
    pub fn add_values(&mut self, step: u64, max_steps: Option<u64>, loss: Option<f64>, time: f64) {
        self.step = step;
        self.max_steps = max_steps.or(self.max_steps);
        if loss.is_some() {
            let point = (step, time);
            self.first.get_or_insert(point);
            self.last = Some(point);
        }
    }

    /// Latest step.
    #[must_use]
    pub const fn step(&self) -> u64 {
        self.step
    }

    /// Total steps of the run, when known.
    #[must_use]
    pub const fn max_steps(&self) -> Option<u64> {
        self.max_steps
    }

    /// Time left to reach the last step at the pace seen so far; `None` until two training
    /// logs apart in steps and time, or without a step count.
    #[must_use]
    pub fn eta(&self) -> Option<Duration> {
        let ((first_step, first_time), (last_step, last_time)) = self.first.zip(self.last)?;
        if last_step <= first_step || last_time <= first_time {
            return None;
        }
        let rate = float(last_step - first_step) / (last_time - first_time);
        let left = float(self.max_steps?.saturating_sub(self.step));
        try_from_secs_f64(left / rate)
    }
}

/// `count` as a float, saturating at `u32::MAX`.
fn float(count: u64) -> f64 {
    f64::from(u32::try_from(count).unwrap_or(u32::MAX))
}

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// `Duration::try_from_secs_f64(secs).ok()` (Rust 1.66; written out for 1.63): `None` for
/// a negative value, NaN, infinity or 2^64 seconds and more; else the float's exact value
/// rounded to the nearest nanosecond, ties to even.
#[must_use]
pub fn try_from_secs_f64(secs: f64) -> Option<Duration> {
    if !(0.0..18_446_744_073_709_551_616.0).contains(&secs) {
        return None;
    }
    if secs == 0.0 {
        return Some(Duration::ZERO);
    }
    let bits = secs.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // secs = mantissa * 2^power exactly
    let (mantissa, power) = if exponent == 0 {
        (u128::from(fraction), -1074)
    } else {
        (u128::from(fraction | (1 << 52)), exponent - 1075)
    };
    let nanos = if power >= 0 {
        (mantissa << power) * NANOS_PER_SEC // < 2^64 * 10^9 < 2^94
    } else {
        let scaled = mantissa * NANOS_PER_SEC; // < 2^83
        let shift = power.unsigned_abs();
        if shift >= 100 {
            0 // below 2^-17 ns: rounds to zero
        } else {
            let whole = scaled >> shift;
            let rest = scaled & ((1 << shift) - 1);
            let half = 1 << (shift - 1);
            if rest > half || (rest == half && whole & 1 == 1) {
                whole + 1
            } else {
                whole
            }
        }
    };
    let whole_secs = u64::try_from(nanos / NANOS_PER_SEC).ok()?;
    let subsec = u32::try_from(nanos % NANOS_PER_SEC).ok()?;
    Some(Duration::new(whole_secs, subsec))
}
