//! The core's names and groups (`overbrainer_core::names`, `::groups`) for JavaScript: the
//! natural order, runs' names, labels, the keys globs pick and their sections, the legend's
//! entries and a group's band, so that the viewer names, orders, picks and groups as the
//! command line does.
//!
//! Input and output are little-endian records in the module's buffers: a text is a `u32`
//! length and its UTF-8; a list a `u32` count and its items. A call whose input is cut short
//! answers `0` and writes why; else `1`.

use overbrainer_core::groups;
use overbrainer_core::names::{self, Unit};

use super::{put_u32, with_state, State};

/// A reader of the input's records.
struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], String> {
        if self.rest.len() < len {
            return Err("an input cut short".to_owned());
        }
        let (head, tail) = self.rest.split_at(len);
        self.rest = tail;
        Ok(head)
    }

    fn u32(&mut self) -> Result<usize, String> {
        let head = self.bytes(4)?;
        let value = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        usize::try_from(value).map_err(|_| "a count past the address space".to_owned())
    }

    fn text(&mut self) -> Result<&'a [u8], String> {
        let len = self.u32()?;
        self.bytes(len)
    }

    fn texts(&mut self) -> Result<Vec<&'a [u8]>, String> {
        let mut found = Vec::new();
        while !self.rest.is_empty() {
            found.push(self.text()?);
        }
        Ok(found)
    }

    fn numbers(&mut self, count: usize) -> Result<&'a [u8], String> {
        self.bytes(
            count
                .checked_mul(8)
                .ok_or("a count past the address space")?,
        )
    }
}

fn put_text(out: &mut Vec<u8>, text: &[u8]) {
    put_u32(out, text.len());
    out.extend_from_slice(text);
}

/// `answer` over the first `len` bytes of the input, its output in the output buffer: `1`,
/// or `0` and why (one line).
fn call(len: usize, answer: impl FnOnce(Input<'_>, &mut Vec<u8>) -> Result<(), String>) -> u32 {
    with_state(|state| {
        let State { input, output, .. } = state;
        output.clear();
        let given = Input {
            rest: input.get(..len).unwrap_or(&[]),
        };
        match answer(given, output) {
            Ok(()) => 1,
            Err(why) => {
                output.clear();
                output.extend_from_slice(why.as_bytes());
                0
            }
        }
    })
}

/// The input's texts in their natural order: the output holds each text's index (`u32`).
#[no_mangle]
pub extern "C" fn ob_natural_order(len: usize) -> u32 {
    call(len, |mut input, out| {
        let texts = input.texts()?;
        for at in names::natural_order(&texts) {
            put_u32(out, at);
        }
        Ok(())
    })
}

/// The order of the input's two texts: `0` the first before the second, `1` equal, `2` after.
/// (Texts missing are empty.)
#[no_mangle]
pub extern "C" fn ob_natural_compare(len: usize) -> u32 {
    with_state(|state| {
        let mut input = Input {
            rest: state.input.get(..len).unwrap_or(&[]),
        };
        let a = input.text().unwrap_or(&[]);
        let b = input.text().unwrap_or(&[]);
        match names::natural_cmp(a, b) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 2,
        }
    })
}

/// The runs' names of the input's units (each a byte, `1` placed, then its path as a text):
/// the output holds each name as a text.
#[no_mangle]
pub extern "C" fn ob_run_names(len: usize) -> u32 {
    call(len, |mut input, out| {
        let mut units = Vec::new();
        while !input.rest.is_empty() {
            let placed = input.bytes(1)?[0] != 0;
            units.push(Unit {
                path: input.text()?,
                placed,
            });
        }
        for name in names::run_names(&units) {
            put_text(out, &name);
        }
        Ok(())
    })
}

/// What a run's name is made from: the input holds the count of metrics files' names, the
/// names, then the metrics file's path (texts each); the output, the unit (a text).
#[no_mangle]
pub extern "C" fn ob_unit(len: usize) -> u32 {
    call(len, |mut input, out| {
        let count = input.u32()?;
        let mut metrics_names = Vec::with_capacity(count.min(input.rest.len()));
        for _ in 0..count {
            metrics_names.push(input.text()?);
        }
        let path = input.text()?;
        put_text(out, names::unit_of(path, &metrics_names));
        Ok(())
    })
}

/// Each of the input's texts as a label: the output holds, for each, `0` where it is whole,
/// else the label's length plus one and the label.
#[no_mangle]
pub extern "C" fn ob_labels(len: usize) -> u32 {
    call(len, |mut input, out| {
        for text in input.texts()? {
            match names::label_of(text) {
                std::borrow::Cow::Borrowed(_) => put_u32(out, 0),
                std::borrow::Cow::Owned(label) => {
                    put_u32(out, label.len().saturating_add(1));
                    out.extend_from_slice(&label);
                }
            }
        }
        Ok(())
    })
}

/// The globs of the input's text (`patterns_of`), or of the default patterns when the input
/// is empty (`len` 0 and `default` not 0): the output holds each as a text.
#[no_mangle]
pub extern "C" fn ob_patterns(len: usize, default: u32) -> u32 {
    call(len, |mut input, out| {
        let text = if default != 0 {
            names::DEFAULT_PATTERNS
        } else {
            std::str::from_utf8(input.text()?).map_err(|_| "a text that is not UTF-8")?
        };
        for glob in names::patterns_of(text) {
            put_text(out, glob.as_bytes());
        }
        Ok(())
    })
}

/// The keys the globs pick: the input holds the count of globs, the globs, then the keys
/// (texts each); the output, each picked key's index among the keys (its first), in order.
#[no_mangle]
pub extern "C" fn ob_pick_keys(len: usize) -> u32 {
    call(len, |mut input, out| {
        let count = input.u32()?;
        let mut globs = Vec::with_capacity(count.min(input.rest.len()));
        for _ in 0..count {
            // A glob that is not UTF-8 is no glob of the core: it picks none.
            if let Ok(glob) = std::str::from_utf8(input.text()?) {
                globs.push(glob);
            }
        }
        let keys = input.texts()?;
        let mut first: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
        for (at, key) in keys.iter().enumerate() {
            first.entry(key).or_insert(at);
        }
        for key in names::pick_keys(&globs, &keys) {
            put_u32(out, first.get(key).copied().unwrap_or(0));
        }
        Ok(())
    })
}

/// The sections of the input's picked keys (texts): the output holds each section's heading
/// (a text), its count of keys and each key's index (`u32`s).
#[no_mangle]
pub extern "C" fn ob_sections(len: usize) -> u32 {
    call(len, |mut input, out| {
        let picked = input.texts()?;
        for (heading, keys) in names::sections(&picked) {
            put_text(out, heading);
            put_u32(out, keys.len());
            for at in keys {
                put_u32(out, at);
            }
        }
        Ok(())
    })
}

/// The legend's entries of the runs' group keys (each a `u32`, `0` for none, else the key's
/// length plus one and the key): the output holds each entry's `u32` (`1` a group, `0` a run
/// alone), its count of runs and each run's index.
#[no_mangle]
pub extern "C" fn ob_entries(len: usize) -> u32 {
    call(len, |mut input, out| {
        let mut keys = Vec::new();
        while !input.rest.is_empty() {
            let stored = input.u32()?;
            keys.push(match stored {
                0 => None,
                size => Some(input.bytes(size - 1)?),
            });
        }
        for entry in groups::entries_of(&keys) {
            put_u32(out, usize::from(entry.key.is_some()));
            put_u32(out, entry.members.len());
            for at in entry.members {
                put_u32(out, at);
            }
        }
        Ok(())
    })
}

/// A group's band: the input holds each run's points (a `u32` count, its steps as `u64`s,
/// its values as `f64`s; a null a NaN); the output the band's count of steps, then its
/// steps (`u64`s), means, deviations (`f64`s) and runs counted (`u32`s).
#[no_mangle]
pub extern "C" fn ob_band(len: usize) -> u32 {
    call(len, |mut input, out| {
        let mut points = Vec::new();
        while !input.rest.is_empty() {
            let count = input.u32()?;
            let steps = input.numbers(count)?;
            let values = input.numbers(count)?;
            let steps: Vec<u64> = steps
                .chunks_exact(8)
                .map(|each| u64::from_le_bytes(each.try_into().unwrap_or([0; 8])))
                .collect();
            let values: Vec<f64> = values
                .chunks_exact(8)
                .map(|each| f64::from_le_bytes(each.try_into().unwrap_or([0; 8])))
                .collect();
            points.push((steps, values));
        }
        let given: Vec<(&[u64], &[f64])> = points
            .iter()
            .map(|(steps, values)| (&steps[..], &values[..]))
            .collect();
        let band = groups::band(&given);
        put_u32(out, band.steps.len());
        band.steps
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        band.mean
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        band.std
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        band.count
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        Ok(())
    })
}

/// The most characters of a label ([`names::LABEL_CHARS`]).
#[no_mangle]
pub extern "C" fn ob_label_chars() -> u32 {
    u32::try_from(names::LABEL_CHARS).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(given: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for text in given {
            put_text(&mut out, text);
        }
        out
    }

    fn run(input: Vec<u8>, each: extern "C" fn(usize) -> u32) -> (u32, Vec<u8>) {
        let len = input.len();
        with_state(|state| state.input = input);
        let answered = each(len);
        (answered, with_state(|state| state.output.clone()))
    }

    fn u32s(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|each| u32::from_le_bytes(each.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn the_natural_order_is_the_cores() {
        let (answered, out) = run(texts(&[b"seed10", b"seed2", b"seed1"]), ob_natural_order);
        assert_eq!(answered, 1);
        assert_eq!(u32s(&out), [2, 1, 0]);
        let (order, _) = run(texts(&[b"x2", b"x10"]), ob_natural_compare);
        assert_eq!(order, 0);
    }

    #[test]
    fn units_are_named_and_a_cut_input_is_said() {
        let mut input = Vec::new();
        for (placed, path) in [(1u8, &b"runs/a"[..]), (1, b"runs/b"), (0, b"-")] {
            input.push(placed);
            put_text(&mut input, path);
        }
        let (answered, out) = run(input.clone(), ob_run_names);
        assert_eq!(answered, 1);
        assert_eq!(out, texts(&[b"a", b"b", b"-"]));
        input.pop();
        let (answered, out) = run(input, ob_run_names);
        assert_eq!((answered, &out[..]), (0, &b"an input cut short"[..]));
    }

    #[test]
    fn keys_are_picked_and_laid_out_and_runs_grouped() {
        let mut input = Vec::new();
        put_u32(&mut input, 2);
        input.extend(texts(&[b"r/*", b"loss"]));
        input.extend(texts(&[b"loss", b"r/b", b"r/a", b"x"]));
        let (_, out) = run(input, ob_pick_keys);
        assert_eq!(u32s(&out), [2, 1, 0]);
        let (_, out) = run(texts(&[b"r/a", b"loss"]), ob_sections);
        let mut want = texts(&[b""]);
        want.extend([1u32, 1].iter().flat_map(|x| x.to_le_bytes()));
        want.extend(texts(&[b"r"]));
        want.extend([1u32, 0].iter().flat_map(|x| x.to_le_bytes()));
        assert_eq!(out, want);
        let mut keys = Vec::new();
        for key in [Some(&b"1"[..]), None, Some(b"1")] {
            match key {
                None => put_u32(&mut keys, 0),
                Some(key) => {
                    put_u32(&mut keys, key.len() + 1);
                    keys.extend_from_slice(key);
                }
            }
        }
        let (_, out) = run(keys, ob_entries);
        assert_eq!(u32s(&out), [1, 2, 0, 2, 0, 1, 1]);
    }

    #[test]
    fn a_band_comes_back_in_numbers() {
        let mut input = Vec::new();
        for (steps, values) in [([0u64, 1], [1.0f64, 2.0]), ([0, 1], [3.0, f64::NAN])] {
            put_u32(&mut input, 2);
            steps
                .iter()
                .for_each(|x| input.extend_from_slice(&x.to_le_bytes()));
            values
                .iter()
                .for_each(|x| input.extend_from_slice(&x.to_le_bytes()));
        }
        let (answered, out) = run(input, ob_band);
        assert_eq!(answered, 1);
        assert_eq!(u32s(&out[..4]), [2]);
        let f64_at = |at: usize| f64::from_le_bytes(out[at..at + 8].try_into().unwrap());
        assert_eq!((f64_at(4 + 16), f64_at(4 + 24)), (2.0, 2.0)); // the means
        assert_eq!((f64_at(4 + 32), f64_at(4 + 40)), (1.0, 0.0)); // the deviations
        assert_eq!(u32s(&out[4 + 48..]), [2, 1]);
    }

    #[test]
    fn a_unit_is_its_folder_or_its_file() {
        let mut input = Vec::new();
        put_u32(&mut input, 1);
        input.extend(texts(&[b"metrics.jsonl", b"a/metrics.jsonl"]));
        let (_, out) = run(input, ob_unit);
        assert_eq!(out, texts(&[b"a"]));
    }

    #[test]
    fn labels_and_patterns() {
        let long = vec![b'k'; 100];
        let (_, out) = run(texts(&[b"short", &long]), ob_labels);
        assert_eq!(u32s(&out[..4]), [0]);
        assert_eq!(u32s(&out[4..8]), [79 + 3 + 1]);
        extern "C" fn defaults(len: usize) -> u32 {
            ob_patterns(len, 1)
        }
        let (_, out) = run(Vec::new(), defaults);
        assert_eq!(out, texts(&[b"loss", b"eval_loss", b"learning_rate"]));
        assert_eq!(ob_label_chars(), 80);
    }
}
