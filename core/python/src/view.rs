//! The words of `status` and `watch` under Python (`overbrainer_core::view`), made from a
//! run's `StatusReport` given as its JSON (what `StatusScan.report` and msgspec write), and
//! the numbers, durations and ages of every face (`overbrainer_core::format`).

use overbrainer_core::format;
use overbrainer_core::reports::{Alert, StatusReport};
use overbrainer_core::status::Estimate;
use overbrainer_core::view::{self, Asked, Told};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn record(json: &[u8]) -> PyResult<StatusReport> {
    serde_json::from_slice(json)
        .map_err(|error| PyValueError::new_err(format!("not a StatusReport: {error}")))
}

fn asked(texts: Vec<String>) -> Vec<Asked> {
    texts.iter().map(|text| Asked::parse(text)).collect()
}

/// `KEY[:last|min|max]` as the core reads it: the key and the aggregate's name.
#[pyfunction]
pub fn metric_parts(text: &str) -> (String, &'static str) {
    let asked = Asked::parse(text);
    let name = match asked.aggregate {
        view::Aggregate::Last => "last",
        view::Aggregate::Min => "min",
        view::Aggregate::Max => "max",
    };
    (asked.key, name)
}

/// The rows `status` shows for one run (label, words), a row for each scalar asked for
/// (`KEY[:AGG]` texts), from the JSON of its `StatusReport`.
#[pyfunction]
pub fn screen(report: &PyBytes, metrics: Vec<String>) -> PyResult<Vec<(String, String)>> {
    Ok(view::screen(&record(report.as_bytes())?, &asked(metrics)))
}

/// A scalar's words for a run (empty when it did not log the key).
#[pyfunction]
pub fn scalar_text(report: &PyBytes, metric: &str) -> PyResult<String> {
    Ok(view::scalar_text(
        &record(report.as_bytes())?,
        &Asked::parse(metric),
    ))
}

/// A run's cells in the table of runs, a cell for each scalar asked for after the fifth.
#[pyfunction]
pub fn cells(report: &PyBytes, metrics: Vec<String>) -> PyResult<Vec<String>> {
    Ok(view::cells(&record(report.as_bytes())?, &asked(metrics)))
}

/// The alerts' words as the table's alerts cell has them (`spike@77, invalid@3`), from the
/// JSON of a list of alerts (a `StatusReport`'s `alerts`, or some of them).
#[pyfunction]
pub fn alerts_cell(alerts: &PyBytes) -> PyResult<String> {
    let alerts: Vec<Alert> = serde_json::from_slice(alerts.as_bytes())
        .map_err(|error| PyValueError::new_err(format!("not a list of alerts: {error}")))?;
    Ok(view::alerts_cell(&alerts))
}

/// The headings of the table's columns: those before the scalars, and those after.
#[pyfunction]
pub fn headings() -> (Vec<&'static str>, Vec<&'static str>) {
    (view::HEADINGS.0.to_vec(), view::HEADINGS.1.to_vec())
}

/// The line under the table of these runs.
#[pyfunction]
pub fn footer(reports: Vec<&PyBytes>) -> PyResult<String> {
    let records = reports
        .iter()
        .map(|report| record(report.as_bytes()))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(view::footer(&records))
}

/// `watch`'s progress line; with the time at a look (`remaining`, `stale`, `silence`,
/// `step_seconds` of the estimate, and the training's `elapsed` time), the time shown too.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn progress(
    report: &PyBytes,
    told: Option<(Option<f64>, bool, Option<f64>, Option<f64>, Option<f64>)>,
) -> PyResult<String> {
    let told = told.map(|(remaining, stale, silence, step_seconds, elapsed)| Told {
        estimate: Estimate {
            remaining,
            stale,
            silence,
            step_seconds,
        },
        elapsed,
    });
    Ok(view::progress(&record(report.as_bytes())?, told.as_ref()))
}

/// `watch`'s event when the ETA goes stale.
#[pyfunction]
pub fn stale_event(report: &PyBytes) -> PyResult<String> {
    Ok(view::stale_event(&record(report.as_bytes())?))
}

/// A finding's message as a person reads it: the reference's words, then what its category
/// (its schema name) says of the line in plain words.
#[pyfunction]
pub fn finding_said(message: &str, category: &str) -> String {
    use overbrainer_core::reports::Category;
    let category = match category {
        "syntax" => Category::Syntax,
        "eof" => Category::Eof,
        "data" => Category::Data,
        "length" => Category::Length,
        "order" => Category::Order,
        "truncated" => Category::Truncated,
        "schema" => Category::Schema,
        _ => return message.to_owned(),
    };
    view::finding_said(message, category)
}

/// The most digits a number is asked to be written with: far more than a double holds, and
/// a bound on the text made.
const MAX_DIGITS: usize = 1000;

fn digits(count: usize) -> PyResult<usize> {
    if count > MAX_DIGITS {
        return Err(PyValueError::new_err(format!(
            "at most {MAX_DIGITS} digits, not {count}"
        )));
    }
    Ok(count)
}

/// `f"{x:.{precision}g}"` (at most 1,000 digits).
#[pyfunction]
pub fn format_general(x: f64, precision: usize) -> PyResult<String> {
    Ok(format::general(x, digits(precision)?))
}

/// `f"{x:.{decimals}f}"` (at most 1,000 digits).
#[pyfunction]
pub fn format_fixed(x: f64, decimals: usize) -> PyResult<String> {
    Ok(format::fixed(x, digits(decimals)?))
}

/// `f"{x:.0%}"`.
#[pyfunction]
pub fn format_percent(x: f64) -> String {
    format::percent(x)
}

/// `f"{n:,}"`.
#[pyfunction]
pub fn format_thousands(n: u64) -> String {
    format::thousands(n)
}

/// `H:MM:SS`, rounded to the second.
#[pyfunction]
pub fn format_duration(seconds: f64) -> String {
    format::duration(seconds)
}

/// `MM:SS`, or `H:MM:SS` from an hour on.
#[pyfunction]
pub fn format_clock(seconds: f64) -> String {
    format::clock(seconds)
}

/// `25 s`, `12 min`, `30 h`, `3 days`.
#[pyfunction]
pub fn format_ago(seconds: f64) -> String {
    format::ago(seconds)
}

/// `3.21it/s`, `4.50s/it`, `?it/s`.
#[pyfunction]
pub fn format_rate(rate: Option<f64>) -> String {
    format::rate(rate)
}

pub fn add(module: &PyModule) -> PyResult<()> {
    for function in [
        wrap_pyfunction!(metric_parts, module)?,
        wrap_pyfunction!(screen, module)?,
        wrap_pyfunction!(scalar_text, module)?,
        wrap_pyfunction!(cells, module)?,
        wrap_pyfunction!(alerts_cell, module)?,
        wrap_pyfunction!(headings, module)?,
        wrap_pyfunction!(footer, module)?,
        wrap_pyfunction!(progress, module)?,
        wrap_pyfunction!(stale_event, module)?,
        wrap_pyfunction!(finding_said, module)?,
        wrap_pyfunction!(format_general, module)?,
        wrap_pyfunction!(format_fixed, module)?,
        wrap_pyfunction!(format_percent, module)?,
        wrap_pyfunction!(format_thousands, module)?,
        wrap_pyfunction!(format_duration, module)?,
        wrap_pyfunction!(format_clock, module)?,
        wrap_pyfunction!(format_ago, module)?,
        wrap_pyfunction!(format_rate, module)?,
    ] {
        module.add_function(function)?;
    }
    Ok(())
}
