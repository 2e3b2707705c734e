//! A table of metrics lines, in columns laid out as Arrow lays them out: one row a metrics
//! line, one column a field of any variant (`UNION`, from the schema), a value buffer and a
//! validity bitmap each, ready to be handed to Arrow without a copy per value.
//!
//! Beside the columns, each batch holds its rows' scalars (a log's `scalars`, an end's
//! `summary`) in long form: one entry a scalar, its row, its key (an index in the batch's
//! keys, in the order first met) and its value (a float; null for `null`): what a long table
//! is made of as it is, and a wide one by spreading each key into a column of its own.
//!
//! Rows are gathered in batches of `batch_lines` lines (a batch holds the rows of its lines,
//! less the lines left out, and a batch without rows is not kept); the lines left out are
//! counted by the reference's error category, as `export` reports them.

use crate::error::{is_cut, Category};
use std::collections::HashMap;

use crate::generated::{JobStage, UNION};
use crate::scalars::Scalars;
use crate::scan::{each_answer, Answer, Consumer, Options, Part};
use crate::values::{Kind, Value};

/// The categories of the lines left out, in this order: the reference's (`syntax`, `eof`,
/// `data`) and `length` (over the user's bound).
pub const LEFT_OUT: [&str; 4] = ["syntax", "eof", "data", "length"];

/// One column: little-endian values (8 bytes a row; 1 for a stage, its index in
/// `JobStage::ALL`) and the validity bitmap (bit `i` of byte `i / 8`, least significant
/// first: Arrow's), with the count of nulls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Column {
    pub values: Vec<u8>,
    pub validity: Vec<u8>,
    pub nulls: usize,
}

impl Column {
    /// Rows `from..to` of `other` (of the same field, `width` bytes a value) after this
    /// column's `rows` rows.
    fn extend(&mut self, rows: usize, other: &Self, from: usize, to: usize, width: usize) {
        self.values
            .extend_from_slice(&other.values[from * width..to * width]);
        for (row, at) in (rows..).zip(from..to) {
            if row % 8 == 0 {
                self.validity.push(0);
            }
            let valid = other.validity[at / 8] >> (at % 8) & 1;
            if valid == 0 {
                self.nulls += 1;
            } else if let Some(last) = self.validity.last_mut() {
                *last |= 1 << (row % 8);
            }
        }
    }

    fn push(&mut self, row: usize, bytes: Option<&[u8]>, width: usize) {
        if row % 8 == 0 {
            self.validity.push(0);
        }
        match bytes {
            Some(bytes) => {
                self.values.extend_from_slice(bytes);
                if let Some(last) = self.validity.last_mut() {
                    *last |= 1 << (row % 8);
                }
            }
            None => {
                self.values.resize(self.values.len() + width, 0);
                self.nulls += 1;
            }
        }
    }
}

/// A batch's scalars in long form: an entry a scalar, in the order of the rows and, within a
/// row, of the line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Long {
    /// Each entry's row in the batch.
    pub row: Vec<u32>,
    /// Each entry's key, an index in `keys`.
    pub key: Vec<u32>,
    /// Each entry's value as a float (its word's IEEE value for a non-finite one), null for
    /// `null`.
    pub value: Column,
    /// The keys, in the order first met in the batch.
    pub keys: Vec<String>,
    lookup: HashMap<String, u32>,
}

impl Long {
    /// The index of `key`, added when new.
    fn intern(&mut self, key: &str) -> u32 {
        if let Some(at) = self.lookup.get(key) {
            return *at;
        }
        let at = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        self.keys.push(key.to_owned());
        self.lookup.insert(key.to_owned(), at);
        at
    }

    fn push(&mut self, row: usize, key: &str, value: Option<f64>) {
        let key = self.intern(key);
        let entry = self.row.len();
        self.row.push(u32::try_from(row).unwrap_or(u32::MAX));
        self.key.push(key);
        let bytes = value.map(f64::to_le_bytes);
        self.value
            .push(entry, bytes.as_ref().map(|bytes| &bytes[..]), 8);
    }

    /// The entries of rows `from..to` of `other`, their rows after `rows` rows.
    fn extend(&mut self, rows: usize, other: &Self, from: usize, to: usize) {
        let start = other.row.partition_point(|row| (*row as usize) < from);
        let end = other.row.partition_point(|row| (*row as usize) < to);
        for at in start..end {
            let row = other.row[at] as usize - from + rows;
            let valid = other.value.validity[at / 8] >> (at % 8) & 1 == 1;
            let value = valid.then(|| {
                let mut bytes = [0; 8];
                bytes.copy_from_slice(&other.value.values[at * 8..at * 8 + 8]);
                f64::from_le_bytes(bytes)
            });
            let key = &other.keys[other.key[at] as usize];
            self.push(row, key, value);
        }
    }
}

/// The rows of a batch of lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batch {
    pub rows: usize,
    /// Each row's line number.
    pub line: Vec<u64>,
    /// Each row's variant, its index in `TAGS`.
    pub event: Vec<i8>,
    /// The columns of `UNION`, in its order.
    pub fields: Vec<Column>,
    /// The rows' scalars.
    pub scalars: Long,
}

impl Batch {
    fn new() -> Self {
        Self {
            fields: vec![Column::default(); UNION.len()],
            ..Self::default()
        }
    }

    /// Rows `from..to` of `other`, their line numbers after `before` more lines.
    fn extend(&mut self, before: u64, other: &Self, from: usize, to: usize) {
        for (column, (other_column, (_, kind))) in
            self.fields.iter_mut().zip(other.fields.iter().zip(UNION))
        {
            let width = if kind == Kind::Stage { 1 } else { 8 };
            column.extend(self.rows, other_column, from, to, width);
        }
        self.scalars.extend(self.rows, &other.scalars, from, to);
        self.line
            .extend(other.line[from..to].iter().map(|line| line + before));
        self.event.extend_from_slice(&other.event[from..to]);
        self.rows += to - from;
    }

    fn push(&mut self, number: u64, row: &Row, scalars: Option<&Scalars>) {
        let at = self.rows;
        for (key, value) in scalars.map_or(&[][..], |scalars| &scalars.entries[..]) {
            self.scalars.push(at, key, value.float());
        }
        for (slot, (column, (_, kind))) in self.fields.iter_mut().zip(UNION).enumerate() {
            let width = if kind == Kind::Stage { 1 } else { 8 };
            let bytes = row.values[slot].to_le_bytes();
            let present = row.present & (1 << slot) != 0;
            column.push(at, present.then(|| &bytes[..width]), width);
        }
        self.line.push(number);
        self.event.push(row.event);
        self.rows += 1;
    }
}

/// A metrics line as a row: each field of `UNION` as 8 bytes (a float's bits, a count, a
/// stage's index), which of them hold a value, and the variant. Made where the line is
/// read, on any thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub event: i8,
    pub present: u32,
    pub values: [u64; UNION.len()],
}

impl Row {
    fn of(line: &crate::MetricLine) -> Self {
        let mut row = Self {
            // at most 5 variants: the index fits
            event: i8::try_from(line.variant()).unwrap_or(i8::MAX),
            present: 0,
            values: [0; UNION.len()],
        };
        let slots = crate::generated::SLOTS[line.variant()];
        let mut at = 0;
        line.for_each_value(|value| {
            let bits = match value {
                Value::F64(number) | Value::OptF64(Some(number)) => Some(number.to_bits()),
                Value::U64(count) | Value::OptU64(Some(count)) => Some(count),
                Value::Stage(stage) => Some(u64::from(stage_index(stage))),
                Value::OptF64(None) | Value::OptU64(None) => None,
            };
            if let (Some(slot), Some(bits)) = (slots.get(at), bits) {
                row.values[*slot] = bits;
                row.present |= 1 << *slot;
            }
            at += 1;
        });
        row
    }
}

fn stage_index(stage: JobStage) -> u8 {
    let at = JobStage::ALL.iter().position(|each| *each == stage);
    u8::try_from(at.unwrap_or(0)).unwrap_or(0)
}

/// The table of one file, filled as its lines come.
#[derive(Debug, Clone)]
pub struct Columns {
    batch_lines: u64,
    current: Batch,
    /// The first line of the current batch.
    start: u64,
    /// Batches complete and not yet taken (`take`).
    pub done: Vec<Batch>,
    /// Lines left out, by `LEFT_OUT` category.
    pub left_out: [u64; LEFT_OUT.len()],
    /// The first line left out for one of those categories.
    pub first_left_out: Option<u64>,
    /// Whether the last line, without its newline, is cut short: the reference rejects it
    /// `eof` (a run still writing, or killed): left out, and counted apart. A last line no
    /// byte can mend is left out by its category, as any rejected line (`check`'s rule,
    /// `crate::check`).
    pub cut: bool,
}

impl Columns {
    /// A table cut into batches of `batch_lines` lines (at least 1).
    #[must_use]
    pub fn new(batch_lines: u64) -> Self {
        Self {
            batch_lines: batch_lines.max(1),
            current: Batch::new(),
            start: 1,
            done: Vec::new(),
            left_out: [0; LEFT_OUT.len()],
            first_left_out: None,
            cut: false,
        }
    }

    /// The complete batches since the last call; with `all`, the batch under way too.
    pub fn take(&mut self, all: bool) -> Vec<Batch> {
        if all && self.current.rows > 0 {
            let current = std::mem::replace(&mut self.current, Batch::new());
            self.done.push(current);
        }
        std::mem::take(&mut self.done)
    }

    fn left_out(&mut self, line: u64, category: usize) {
        self.left_out[category] += 1;
        self.first_left_out.get_or_insert(line);
    }
}

/// What a table keeps of a line's answer: its row, or why it is left out.
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// A line's row, and its scalars if any.
    Row(Row, Option<Box<Scalars>>),
    /// A line the reference rejects: its error's category.
    Bad(Category),
    Over,
}

/// A part's own table: its rows (numbered from the part's first line) and the lines it
/// leaves out (a part holds complete lines only: no cut last line).
#[derive(Debug, Clone, Default)]
pub struct PartTable {
    rows: Batch,
    left_out: Vec<(u64, usize)>,
}

impl Consumer for Columns {
    type Kept = PartTable;

    /// The part's rows, built where it is read (on any thread).
    fn answer_part(lines: &[u8], options: Options) -> Part<PartTable> {
        let mut table = PartTable {
            rows: Batch::new(),
            left_out: Vec::new(),
        };
        let mut count = 0;
        each_answer(lines, options, |_, answer| {
            count += 1;
            match Self::keep(answer) {
                Kept::Row(row, scalars) => table.rows.push(count, &row, scalars.as_deref()),
                Kept::Bad(category) => table.left_out.push((count, category_index(category))),
                Kept::Over => table.left_out.push((count, 3)),
            }
        });
        Part {
            kept: table,
            lines: count,
        }
    }

    fn take_part(&mut self, before: u64, part: Part<PartTable>) {
        let PartTable { rows, left_out } = part.kept;
        let mut from = 0;
        while from < rows.rows {
            self.advance(before + rows.line[from]);
            let end = self.start + self.batch_lines - 1;
            let to = from + rows.line[from..].partition_point(|line| before + line <= end);
            self.current.extend(before, &rows, from, to);
            from = to;
        }
        for (line, category) in left_out {
            self.left_out(before + line, category);
        }
        // the batch of the part's last line is done when that line is its last
        self.advance(before + part.lines + 1);
    }

    fn line(&mut self, line: u64, answer: Answer, complete: bool) {
        self.kept(line, Self::keep(answer), complete);
    }
}

fn category_index(category: Category) -> usize {
    match category {
        Category::Eof => 1,
        Category::Data => 2,
        Category::Syntax | Category::Io => 0,
    }
}

impl Columns {
    fn keep(answer: Answer) -> Kept {
        match answer {
            Answer::Read(mut line) => {
                let scalars = line.extra_mut().and_then(Option::take).map(Box::new);
                Kept::Row(Row::of(&line), scalars)
            }
            Answer::Bad(error) => Kept::Bad(error.category),
            Answer::Refused(category) => Kept::Bad(category),
            Answer::Over { .. } => Kept::Over,
        }
    }

    /// The batch of line `number` is the current one: those before it are done (the lines
    /// come in order).
    fn advance(&mut self, number: u64) {
        while number >= self.start + self.batch_lines {
            let full = std::mem::replace(&mut self.current, Batch::new());
            if full.rows > 0 {
                self.done.push(full);
            }
            self.start += self.batch_lines;
        }
    }

    fn kept(&mut self, number: u64, kept: Kept, complete: bool) {
        self.advance(number);
        match kept {
            Kept::Row(row, scalars) => self.current.push(number, &row, scalars.as_deref()),
            Kept::Bad(category) if is_cut(complete, category) => self.cut = true,
            Kept::Bad(category) => self.left_out(number, category_index(category)),
            Kept::Over => self.left_out(number, 3),
        }
        // a batch is done as soon as its last line is in (a stream need not wait for more)
        self.advance(number + 1);
    }
}
