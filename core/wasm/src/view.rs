//! The words of `status` for JavaScript (`overbrainer_core::view`): the one-run screen's
//! rows and the table's cells and footer, made from a `StatusReport` the glue writes back
//! as JSON (the record `ob_status_report` gave), answered as JSON in the output.

use overbrainer_core::reports::StatusReport;
use overbrainer_core::view::{self, Asked};

use crate::with_state;

/// The input's first `record_len` bytes as a record, and the `asked_len` bytes after them as
/// the scalars asked for (a JSON array of `KEY[:AGG]` texts; none when empty).
fn read(record_len: usize, asked_len: usize) -> Option<(StatusReport, Vec<Asked>)> {
    with_state(|state| {
        let input = &state.input;
        let record = serde_json::from_slice(input.get(..record_len)?).ok()?;
        let end = record_len.checked_add(asked_len)?;
        let texts: Vec<String> = if asked_len == 0 {
            Vec::new()
        } else {
            serde_json::from_slice(input.get(record_len..end)?).ok()?
        };
        Some((
            record,
            texts.iter().map(|text| Asked::parse(text)).collect(),
        ))
    })
}

/// The answer's JSON in the output: 1; or 0, the output empty, when there was nothing to
/// answer (the input was no record).
fn answer(text: Option<String>) -> u32 {
    let done = u32::from(text.is_some());
    with_state(|state| {
        state.output.clear();
        state
            .output
            .extend_from_slice(text.unwrap_or_default().as_bytes());
    });
    done
}

/// The rows `status` shows for one run: `[[label, words], ...]`.
#[no_mangle]
pub extern "C" fn ob_screen(record_len: usize, asked_len: usize) -> u32 {
    answer(
        read(record_len, asked_len)
            .and_then(|(record, asked)| serde_json::to_string(&view::screen(&record, &asked)).ok()),
    )
}

/// A run's cells in the table of runs: `[cell, ...]`, the headings' order.
#[no_mangle]
pub extern "C" fn ob_cells(record_len: usize, asked_len: usize) -> u32 {
    answer(
        read(record_len, asked_len)
            .and_then(|(record, asked)| serde_json::to_string(&view::cells(&record, &asked)).ok()),
    )
}

/// The table's headings before the scalars and after them: `[[...], [...]]`.
#[no_mangle]
pub extern "C" fn ob_headings() -> u32 {
    answer(serde_json::to_string(&view::HEADINGS).ok())
}

/// The line under the table of the runs: the input holds a JSON array of their records.
#[no_mangle]
pub extern "C" fn ob_footer(len: usize) -> u32 {
    let records: Option<Vec<StatusReport>> =
        with_state(|state| serde_json::from_slice(state.input.get(..len)?).ok());
    answer(records.and_then(|records| serde_json::to_string(&view::footer(&records)).ok()))
}

/// `seconds` as `status` writes a duration (`overbrainer_core::format::duration`: `H:MM:SS`,
/// rounded to the second, below zero `0:00:00`) in the output.
#[no_mangle]
pub extern "C" fn ob_duration(seconds: f64) {
    let text = overbrainer_core::format::duration(seconds);
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
}

/// `format(x, spec)` as Python writes it (`overbrainer_core::format::python`): the input
/// holds the specification (`spec_len` bytes: `,`, `.4g`, `.2f`, `.0%`), the output the
/// text; 0, the output empty, for a specification it does not write.
#[no_mangle]
pub extern "C" fn ob_format(x: f64, spec_len: usize) -> u32 {
    let spec = with_state(|state| {
        String::from_utf8_lossy(state.input.get(..spec_len).unwrap_or(&[])).into_owned()
    });
    let text = overbrainer_core::format::python(x, &spec);
    let done = u32::from(text.is_some());
    with_state(|state| {
        state.output.clear();
        state
            .output
            .extend_from_slice(text.unwrap_or_default().as_bytes());
    });
    done
}
