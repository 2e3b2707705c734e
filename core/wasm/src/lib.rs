//! The reader core for JavaScript: `overbrainer-core` compiled to WebAssembly, its answers
//! written as compact binary records that the package's glue (js/src/core.ts) reads with a
//! `DataView`.
//!
//! The module's edge is plain exported functions over two buffers that it owns: the input
//! (`ob_input(len)` makes room for `len` bytes and gives their address; the caller writes
//! them there) and the output (`ob_output`, `ob_output_len`: what the last call wrote). No
//! pointer crosses the edge the other way, so nothing here reads memory it did not give out:
//! the only items outside safe Rust are the `#[no_mangle]` exports themselves.
//!
//! # Records
//!
//! Little-endian throughout. An answer (`ob_parse`, and each line of a reader's batch):
//!
//! - one byte: the kind (`0` a metrics line, `1` a rejected line, `2` a line over the
//!   user's bound), plus `0x80` when the line does not end in its newline;
//! - a metrics line: its variant's index (one byte, in `TAGS` order), then each field of
//!   the variant in declaration order: `f64` and `u64` as 8 bytes; an optional one as a byte
//!   (`0` absent or null, `1` present) and, when present, its 8 bytes; a stage as its index
//!   in `JobStage::ALL` (one byte); then, for a variant with a field the reference does not
//!   know (`EXTRAS`: a log's `scalars`, an end's `summary`), a byte (`0` absent, `1` present)
//!   and, when present, the map as JSON text (`u32` length, UTF-8: its values numbers, null
//!   or the words of non-finite values);
//! - a rejected line: the category (one byte: `0` io, `1` syntax, `2` data, `3` eof), the
//!   column (`u32`, `0` when the reference gives none), the message (`u32` length, UTF-8),
//!   the path as the core writes it (`u32`: `0` for none, else its length plus one; UTF-8);
//!   or, where the category's byte has `0x80` added, the path not located: in its place the
//!   line itself, before its newline (`u32` length, UTF-8: a line that is not UTF-8 is
//!   written located), which `ob_path` locates it in when the path is asked for (walking a
//!   line again costs more than the rest of its error);
//! - a line over the bound: its size and the bound (`f64` each: exact below 2^53).
//!
//! `ob_tables` writes the tables these records are read with (variants, fields, kinds,
//! stages, categories) as JSON: the generated tables of the core, so that the glue retypes
//! nothing the schema says.

use std::cell::RefCell;

mod names;
mod pattern;
mod reports;
#[cfg(target_arch = "wasm32")]
mod room;
mod side;
mod view;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: room::Roomy = room::Roomy;

use overbrainer_core::generated::{EXTRAS, FIELDS, NAMES, TAGS, TAG_FIELD};
use overbrainer_core::scan::{answer, Answer, Consumer, Options, Part, Scan};
use overbrainer_core::{
    dump_line, path_of, read_line_unlocated, Category, JobStage, Kind, MetricLine, Pace,
    ParseError, Value,
};

/// The module's state: its two buffers and the readers under way.
#[derive(Default)]
struct State {
    input: Vec<u8>,
    output: Vec<u8>,
    readers: Vec<Option<Scan<Records>>>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn with_state<T>(each: impl FnOnce(&mut State) -> T) -> T {
    STATE.with(|state| each(&mut state.borrow_mut()))
}

// -- records ------------------------------------------------------------------------------

const READ: u8 = 0;
const BAD: u8 = 1;
const OVER: u8 = 2;
const INCOMPLETE: u8 = 0x80;
/// Added to a rejected line's category: its path not located, the line in its place.
const UNLOCATED: u8 = 0x80;

fn put_u32(out: &mut Vec<u8>, value: usize) {
    out.extend_from_slice(&u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_u32(out, text.len());
    out.extend_from_slice(text.as_bytes());
}

const fn category_code(category: Category) -> u8 {
    match category {
        Category::Io => 0,
        Category::Syntax => 1,
        Category::Data => 2,
        Category::Eof => 3,
    }
}

fn stage_code(stage: JobStage) -> u8 {
    let at = JobStage::ALL.iter().position(|each| *each == stage);
    u8::try_from(at.unwrap_or(0)).unwrap_or(0)
}

/// A metrics line's variant and values, as the record holds them (after its kind byte).
fn put_line(out: &mut Vec<u8>, line: &MetricLine) {
    out.push(u8::try_from(line.variant()).unwrap_or(u8::MAX));
    line.for_each_value(|value| match value {
        Value::F64(number) => out.extend_from_slice(&number.to_le_bytes()),
        Value::U64(count) => out.extend_from_slice(&count.to_le_bytes()),
        Value::OptF64(None) | Value::OptU64(None) => out.push(0),
        Value::OptF64(Some(number)) => {
            out.push(1);
            out.extend_from_slice(&number.to_le_bytes());
        }
        Value::OptU64(Some(count)) => {
            out.push(1);
            out.extend_from_slice(&count.to_le_bytes());
        }
        Value::Stage(stage) => out.push(stage_code(stage)),
    });
    if EXTRAS[line.variant()].is_some() {
        match line.extra() {
            // a map of strings, numbers and null: its JSON cannot fail to be written
            Some(scalars) => {
                out.push(1);
                put_text(out, &serde_json::to_string(scalars).unwrap_or_default());
            }
            None => out.push(0),
        }
    }
}

/// A rejected line's record; `unlocated`: the line (before its newline) when its error was
/// read without its path (`read_line_unlocated`), written in the path's place.
fn put_error(out: &mut Vec<u8>, error: &ParseError, unlocated: Option<&[u8]>) {
    let flag = if unlocated.is_some() { UNLOCATED } else { 0 };
    out.push(category_code(error.category) | flag);
    put_u32(
        out,
        error.column.map_or(0, |column| column.saturating_add(1)),
    );
    put_text(out, &error.message);
    if let Some(line) = unlocated {
        put_u32(out, line.len());
        out.extend_from_slice(line);
        return;
    }
    match error.rendered_path() {
        None => put_u32(out, 0),
        Some(path) => {
            put_u32(out, path.len().saturating_add(1));
            out.extend_from_slice(path.as_bytes());
        }
    }
}

/// One answer's record; `unlocated`: the line its answer read (before its newline), when it
/// was answered unlocated (`Options::unlocated`, `read_line_unlocated`).
fn put_answer(out: &mut Vec<u8>, answer: &Answer, complete: bool, unlocated: Option<&[u8]>) {
    let flag = if complete { 0 } else { INCOMPLETE };
    match answer {
        Answer::Read(line) => {
            out.push(READ | flag);
            put_line(out, line);
        }
        Answer::Bad(error) => {
            out.push(BAD | flag);
            // a line that is not UTF-8 is answered with the path its error has (none): the
            // glue keeps the line as text
            let text = unlocated.filter(|line| std::str::from_utf8(line).is_ok());
            put_error(out, error, text);
        }
        // The reader reads every line in full (`terse` off): a terse answer would be its
        // category alone, without words.
        Answer::Refused(category) => {
            out.push(BAD | flag);
            out.push(category_code(*category));
            put_u32(out, 0);
            put_text(out, "");
            put_u32(out, 0);
        }
        Answer::Over { size, limit } => {
            out.push(OVER | flag);
            // exact below 2^53: a skipped line ends the reading at 4 GiB
            #[allow(clippy::cast_precision_loss)]
            let (size, limit) = (*size as f64, *limit as f64);
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&limit.to_le_bytes());
        }
    }
}

/// A reader's consumer: each answer's record, in order, since the last feed.
#[derive(Debug, Default)]
struct Records {
    out: Vec<u8>,
}

impl Consumer for Records {
    type Kept = Vec<u8>;

    fn answer_part(lines: &[u8], options: Options) -> Part<Vec<u8>> {
        let mut kept = Vec::with_capacity(lines.len() / 2);
        let mut count = 0;
        overbrainer_core::scan::each_answer(lines, options, |line, answer| {
            let unlocated = options.unlocated.then_some(line);
            put_answer(&mut kept, &answer, true, unlocated);
            count += 1;
        });
        Part { kept, lines: count }
    }

    fn take_part(&mut self, _before: u64, part: Part<Vec<u8>>) {
        if self.out.is_empty() {
            self.out = part.kept;
        } else {
            self.out.extend_from_slice(&part.kept);
        }
    }

    fn line(&mut self, _number: u64, answer: Answer, complete: bool) {
        put_answer(&mut self.out, &answer, complete, None); // answered located (`Scan`)
    }
}

// -- the tables ---------------------------------------------------------------------------

const fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::F64 => "f64",
        Kind::U64 => "u64",
        Kind::OptF64 => "Option<f64>",
        Kind::OptU64 => "Option<u64>",
        Kind::Stage => "stage",
    }
}

/// JSON text of a string (the tables' names are plain words, but nothing is assumed).
fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn tables() -> String {
    let mut out = String::from("{\"tag\":");
    json_string(&mut out, TAG_FIELD);
    out.push_str(",\"variants\":[");
    for (at, (tag, fields)) in TAGS.iter().zip(FIELDS.iter()).enumerate() {
        if at > 0 {
            out.push(',');
        }
        out.push_str("{\"tag\":");
        json_string(&mut out, tag);
        out.push_str(",\"name\":");
        json_string(&mut out, NAMES[at]);
        out.push_str(",\"extra\":");
        match EXTRAS[at] {
            Some(name) => json_string(&mut out, name),
            None => out.push_str("null"),
        }
        out.push_str(",\"fields\":[");
        for (index, (name, kind)) in fields.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push('[');
            json_string(&mut out, name);
            out.push(',');
            json_string(&mut out, kind_name(*kind));
            out.push(']');
        }
        out.push_str("]}");
    }
    out.push_str("],\"stages\":[");
    for (at, stage) in JobStage::ALL.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        json_string(&mut out, stage.name());
    }
    out.push_str("],\"categories\":[");
    let categories = [
        Category::Io,
        Category::Syntax,
        Category::Data,
        Category::Eof,
    ];
    for (at, category) in categories.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        json_string(&mut out, category.name());
    }
    out.push_str("]}");
    out
}

// -- values in (dump) ---------------------------------------------------------------------

/// A line from its record (variant and values, as `put_line` writes them, without the field
/// the reference does not know: a dump writes the reference's form, which has none); `None`
/// when the bytes are not one.
fn take_line(bytes: &[u8]) -> Option<MetricLine> {
    let (&variant, mut rest) = bytes.split_first()?;
    let variant = usize::from(variant);
    let fields = FIELDS.get(variant)?;
    let mut values = Vec::with_capacity(fields.len());
    let eight = |rest: &mut &[u8]| -> Option<[u8; 8]> {
        let (head, tail) = (rest.get(..8)?, rest.get(8..)?);
        *rest = tail;
        head.try_into().ok()
    };
    let flag = |rest: &mut &[u8]| -> Option<bool> {
        let (&first, tail) = rest.split_first()?;
        *rest = tail;
        match first {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    };
    for (_, kind) in fields.iter() {
        values.push(match kind {
            Kind::F64 => Value::F64(f64::from_le_bytes(eight(&mut rest)?)),
            Kind::U64 => Value::U64(u64::from_le_bytes(eight(&mut rest)?)),
            Kind::OptF64 => Value::OptF64(if flag(&mut rest)? {
                Some(f64::from_le_bytes(eight(&mut rest)?))
            } else {
                None
            }),
            Kind::OptU64 => Value::OptU64(if flag(&mut rest)? {
                Some(u64::from_le_bytes(eight(&mut rest)?))
            } else {
                None
            }),
            Kind::Stage => {
                let (&stage, tail) = rest.split_first()?;
                rest = tail;
                Value::Stage(*JobStage::ALL.get(usize::from(stage))?)
            }
        });
    }
    if !rest.is_empty() {
        return None;
    }
    MetricLine::from_values(variant, &values)
}

// -- the exports --------------------------------------------------------------------------

/// Room for `len` bytes of input: their address in the module's memory.
#[no_mangle]
pub extern "C" fn ob_input(len: usize) -> usize {
    with_state(|state| {
        state.input.clear();
        state.input.resize(len, 0);
        state.input.as_mut_ptr() as usize
    })
}

/// The address of what the last call wrote.
#[no_mangle]
pub extern "C" fn ob_output() -> usize {
    with_state(|state| state.output.as_ptr() as usize)
}

/// The length of what the last call wrote.
#[no_mangle]
pub extern "C" fn ob_output_len() -> usize {
    with_state(|state| state.output.len())
}

/// The tables (JSON, see the module) in the output.
#[no_mangle]
pub extern "C" fn ob_tables() {
    let text = tables();
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
}

/// The answer to the line in the first `len` bytes of the input (`read_line`: the line as
/// given, no newline removed), its record in the output, a rejected line's path unlocated.
#[no_mangle]
pub extern "C" fn ob_parse(len: usize) {
    with_state(|state| {
        let line = state.input.get(..len).unwrap_or(&[]);
        let answer = match read_line_unlocated(line) {
            Ok(read) => Answer::Read(read),
            Err(error) => Answer::Bad(error),
        };
        state.output.clear();
        put_answer(&mut state.output, &answer, true, Some(line));
    });
}

/// The text `make` gives for the first `len` bytes of the input, in the output: `0` for
/// none, else `1`.
fn text_of(len: usize, make: impl FnOnce(&[u8]) -> Option<String>) -> u32 {
    with_state(|state| {
        let text = make(state.input.get(..len).unwrap_or(&[]));
        state.output.clear();
        match text {
            Some(text) => {
                state.output.extend_from_slice(text.as_bytes());
                1
            }
            None => 0,
        }
    })
}

/// The path of the error of the line in the first `len` bytes of the input, as the core
/// writes it (`path_of`), in the output: `0` for none, else `1`.
#[no_mangle]
pub extern "C" fn ob_path(len: usize) -> u32 {
    text_of(len, |line| path_of(line).map(|path| path.render()))
}

/// The reference's dump (`serde_json::to_string`) of the line whose record (variant and
/// values, without the kind byte) is the first `len` bytes of the input, in the output;
/// `0` when they are not a line's record, else `1`.
#[no_mangle]
pub extern "C" fn ob_dump(len: usize) -> u32 {
    text_of(len, |record| take_line(record).map(|line| dump_line(&line)))
}

/// The reference's `Pace::eta()` of a pace whose first and last training logs were at
/// these steps and times, whose latest log is at `step` and whose step count is
/// `max_steps` (when `has_max`): `0` for `None`, else `1` and the output holds the seconds
/// (`u64`) and the nanoseconds (`u32`).
#[no_mangle]
pub extern "C" fn ob_eta(
    first_step: u64,
    first_time: f64,
    last_step: u64,
    last_time: f64,
    has_max: u32,
    max_steps: u64,
    step: u64,
) -> u32 {
    let mut pace = Pace::default();
    pace.add_values(first_step, None, Some(1.0), first_time);
    pace.add_values(last_step, None, Some(1.0), last_time);
    let max_steps = if has_max == 0 { None } else { Some(max_steps) };
    pace.add_values(step, max_steps, None, 0.0);
    with_state(|state| {
        state.output.clear();
        match pace.eta() {
            None => 0,
            Some(eta) => {
                state.output.extend_from_slice(&eta.as_secs().to_le_bytes());
                state
                    .output
                    .extend_from_slice(&eta.subsec_nanos().to_le_bytes());
                1
            }
        }
    })
}

/// A new reader (a `Scan` of the core): its handle. `has_max`/`max_line`: the user's bound
/// on a line's length, without its newline.
#[no_mangle]
pub extern "C" fn ob_reader_new(has_max: u32, max_line: f64) -> u32 {
    let options = Options {
        max_line: reports::bound(has_max, max_line),
        terse: false,
        unlocated: true,
        digest: None,
        digest_steps: None,
    };
    let scan = Scan::new(options, Records::default());
    with_state(|state| {
        let free = state.readers.iter().position(Option::is_none);
        let at = free.unwrap_or(state.readers.len());
        if at == state.readers.len() {
            state.readers.push(Some(scan));
        } else {
            state.readers[at] = Some(scan);
        }
        u32::try_from(at).unwrap_or(u32::MAX)
    })
}

/// Runs `each` on reader `id` with the input; its records since then in the output. `0`
/// for no such reader, else `1`.
fn with_reader(id: u32, each: impl FnOnce(&mut Scan<Records>, &[u8])) -> u32 {
    with_state(|state| {
        let State {
            input,
            output,
            readers,
        } = state;
        let scan = match readers.get_mut(id as usize) {
            Some(Some(scan)) => scan,
            _ => {
                output.clear();
                return 0;
            }
        };
        scan.consumer.out.clear();
        each(scan, input);
        std::mem::swap(output, &mut scan.consumer.out);
        1
    })
}

/// Feed reader `id` the first `len` bytes of the input: the output holds the records of
/// the lines they complete.
#[no_mangle]
pub extern "C" fn ob_reader_feed(id: u32, len: usize) -> u32 {
    with_reader(id, |scan, input| scan.feed(input.get(..len).unwrap_or(&[])))
}

/// The end of reader `id`'s input: the output holds its last line's record, if any.
#[no_mangle]
pub extern "C" fn ob_reader_finish(id: u32) -> u32 {
    with_reader(id, |scan, _| scan.finish())
}

/// Whether reader `id` stopped within a line skipped for `SKIP_LIMIT` bytes (what is fed
/// after is ignored).
#[no_mangle]
pub extern "C" fn ob_reader_stopped(id: u32) -> u32 {
    with_state(|state| match state.readers.get(id as usize) {
        Some(Some(scan)) => u32::from(scan.splitter.stopped()),
        _ => 0,
    })
}

/// Reader `id` is done with: its memory goes back.
#[no_mangle]
pub extern "C" fn ob_reader_free(id: u32) {
    with_state(|state| {
        if let Some(slot) = state.readers.get_mut(id as usize) {
            *slot = None;
        }
        while matches!(state.readers.last(), Some(None)) {
            state.readers.pop();
        }
    });
}

/// The answer to one line for `Scan`'s own options (what the reader answers a line alone).
#[must_use]
pub fn record_of(line: &[u8], options: Options) -> Vec<u8> {
    let mut out = Vec::new();
    let bare = line.strip_suffix(b"\n").unwrap_or(line);
    put_answer(
        &mut out,
        &answer(line, options),
        true,
        options.unlocated.then_some(bare),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_record_reads_back_to_the_same_line() {
        let text = br#"{"event":"log","time":-0.0,"step":18446744073709551615,"loss":0.5}"#;
        let record = record_of(text, Options::default());
        assert_eq!(record[0], READ);
        // after the values, the log's `scalars`: absent
        assert_eq!(record.last(), Some(&0));
        let line = take_line(&record[1..record.len() - 1]).expect("a line's record");
        assert_eq!(
            dump_line(&line),
            r#"{"event":"log","time":-0.0,"step":18446744073709551615,"epoch":null,"max_steps":null,"loss":0.5,"eval_loss":null,"learning_rate":null,"grad_norm":null}"#
        );
    }

    #[test]
    fn a_lines_scalars_follow_its_values_as_json() {
        let text = br#"{"event":"end","time":1,"step":2,"summary":{"a":"NaN","b":null,"c":1.5}}"#;
        let record = record_of(text, Options::default());
        let values = 1 + 1 + 8 + 8; // kind, variant, time, step
        assert_eq!(record[values], 1);
        let json = br#"{"a":"NaN","b":null,"c":1.5}"#;
        let length = u32::try_from(json.len()).unwrap_or(u32::MAX).to_le_bytes();
        assert_eq!(&record[values + 1..values + 5], &length);
        assert_eq!(&record[values + 5..], json);
    }

    #[test]
    fn bytes_that_are_no_record_are_refused() {
        assert!(take_line(&[]).is_none());
        assert!(take_line(&[9]).is_none());
        assert!(take_line(&[4, 0, 0]).is_none());
        let mut end = vec![4];
        end.extend_from_slice(&1.0_f64.to_le_bytes());
        end.extend_from_slice(&7_u64.to_le_bytes());
        assert!(take_line(&end).is_some());
        end.push(0);
        assert!(take_line(&end).is_none());
    }

    #[test]
    fn the_tables_are_json_naming_every_variant() {
        let text = tables();
        assert!(text.starts_with("{\"tag\":\"event\",\"variants\":[{\"tag\":\"begin\""));
        assert!(text.contains("[\"step\",\"u64\"]"));
    }
}
