//! The lines of a stream of bytes, cut as they come, of any length.
//!
//! A [`Splitter`] is fed the input in chunks of any size (a file's reads, a pipe's, appended
//! bytes) and hands back what they complete, in order: runs of complete lines straight from
//! the chunk, a line that spanned chunks once its newline comes, and at the end the last
//! line without its newline. A line is held whole while it waits for its newline, whatever
//! its length, so a valid line of 400 MB is read as the reference reads it, in memory
//! proportional to that line.
//!
//! Junk without a newline (`/dev/zero`, a sparse gigabyte, a FIFO of noise) is not held: as
//! the line under way grows past [`FIRST_LOOK`], then each time it doubles, its start is
//! looked at, and once its bytes already say the reference rejects the line (an error that
//! no byte after them can change, see [`decided`]) the line stands as that error and the
//! rest of it is skipped to its newline, unheld. Only the user's own bound (`max_line`)
//! refuses a line for its length; a line skipped for ever (no newline in [`SKIP_LIMIT`]
//! bytes) ends the reading.

use serde::de::IgnoredAny;

use crate::error::{Category, ParseError};
use crate::read_str;

/// The length of a line under way from which its start is looked at: 1 MiB.
pub const FIRST_LOOK: usize = 1 << 20;

/// The most bytes of one line skipped, unheld, before the reading stops there: 4 GiB. A
/// skipped line is known invalid or over the user's bound; with no newline in 4 GiB (a
/// stream of `/dev/zero`) the rest of the input would never be reached.
pub const SKIP_LIMIT: u64 = 1 << 32;

/// Why a line was skipped, not held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Longer than the user's bound (`max_line` bytes, without its newline).
    Over(usize),
    /// Its start already says the reference rejects it: the reference's error on the line.
    Invalid(ParseError),
}

/// A line that was not held whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its bytes, its newline included when `complete`.
    pub size: u64,
    /// Whether its newline came (else the input ended, or the reading stopped, within it).
    pub complete: bool,
    pub why: Why,
}

/// What the input fed to a `Splitter` completes, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Complete lines, each ending in its newline (never empty).
    Lines(&'a [u8]),
    /// The input's last line, without a newline (never empty).
    Last(&'a [u8]),
    /// A line not held (see `Skipped`).
    Skipped(Skipped),
}

/// Cuts the chunks it is fed into lines (see the module).
#[derive(Debug)]
pub struct Splitter {
    max_line: Option<usize>,
    /// The start of the line under way.
    held: Vec<u8>,
    /// The length of the held line at which it is next looked at.
    look_at: usize,
    /// The line under way, skipped.
    skipping: Option<Skip>,
    stopped: bool,
}

impl Splitter {
    /// A splitter refusing lines over `max_line` bytes (without their newline), if given.
    #[must_use]
    pub const fn new(max_line: Option<usize>) -> Self {
        Self {
            max_line,
            held: Vec::new(),
            look_at: FIRST_LOOK,
            skipping: None,
            stopped: false,
        }
    }

    /// Whether the reading stopped within a line skipped for `SKIP_LIMIT` bytes: what is
    /// fed after is ignored.
    #[must_use]
    pub const fn stopped(&self) -> bool {
        self.stopped
    }

    /// Feed the next `chunk`; `out` gets what it completes, in order.
    pub fn feed<F: FnMut(Piece<'_>)>(&mut self, chunk: &[u8], mut out: F) {
        if self.stopped || chunk.is_empty() {
            return;
        }
        let mut rest = chunk;
        if let Some(mut skip) = self.skipping.take() {
            match memchr::memchr(b'\n', rest) {
                None => {
                    skip.pass(rest);
                    if skip.size >= SKIP_LIMIT {
                        self.stopped = true;
                        out(Piece::Skipped(skip.done(false)));
                    } else {
                        self.skipping = Some(skip);
                    }
                    return;
                }
                Some(at) => {
                    skip.pass(&rest[..=at]);
                    out(Piece::Skipped(skip.done(true)));
                    rest = &rest[at + 1..];
                }
            }
        }
        if !self.held.is_empty() {
            match memchr::memchr(b'\n', rest) {
                None => {
                    self.hold(rest);
                    return;
                }
                Some(at) => {
                    let length = self.held.len() + at;
                    if self.max_line.map_or(false, |limit| length > limit) {
                        out(Piece::Skipped(Skipped {
                            size: length as u64 + 1,
                            complete: true,
                            why: Why::Over(self.max_line.unwrap_or(0)),
                        }));
                    } else {
                        self.held.extend_from_slice(&rest[..=at]);
                        out(Piece::Lines(&self.held));
                    }
                    self.release();
                    rest = &rest[at + 1..];
                }
            }
        }
        match memchr::memrchr(b'\n', rest) {
            None => self.hold(rest),
            Some(at) => {
                out(Piece::Lines(&rest[..=at]));
                self.hold(&rest[at + 1..]);
            }
        }
    }

    /// The end of the input: `out` gets its last line, if it has one without a newline.
    pub fn finish<F: FnMut(Piece<'_>)>(&mut self, mut out: F) {
        if self.stopped {
            return;
        }
        if let Some(skip) = self.skipping.take() {
            out(Piece::Skipped(skip.done(false)));
        } else if !self.held.is_empty() {
            out(Piece::Last(&self.held));
        }
        self.release();
    }

    /// The held line is done with: its memory goes back when it was large.
    fn release(&mut self) {
        if self.held.capacity() > FIRST_LOOK {
            self.held = Vec::new();
        } else {
            self.held.clear();
        }
        self.look_at = FIRST_LOOK;
    }

    /// `piece` (no newline in it) joins the line under way, unless the line is skipped now.
    fn hold(&mut self, piece: &[u8]) {
        if piece.is_empty() {
            return;
        }
        let length = self.held.len() + piece.len();
        if let Some(limit) = self.max_line {
            if length > limit {
                self.skipping = Some(Skip {
                    size: length as u64,
                    why: Why::Over(limit),
                    utf8: None,
                    max_line: self.max_line,
                });
                self.release();
                return;
            }
        }
        self.held.extend_from_slice(piece);
        if length >= self.look_at {
            if let Some(error) = decided(&self.held) {
                self.skipping = Some(Skip {
                    size: length as u64,
                    why: Why::Invalid(error),
                    utf8: Some(Utf8Watch::starting(&self.held)),
                    max_line: self.max_line,
                });
                self.release();
            } else {
                self.look_at = length.saturating_mul(2);
            }
        }
    }
}

/// A line skipped unheld.
#[derive(Debug)]
struct Skip {
    /// Its bytes so far.
    size: u64,
    why: Why,
    /// For a line known invalid: where its first byte that is not UTF-8 is, if any (the
    /// reader's answer to a line that is not UTF-8, wherever that byte lies).
    utf8: Option<Utf8Watch>,
    /// The user's bound: a line known invalid that turns out longer is over it all the same
    /// (the bound comes first, as for any line).
    max_line: Option<usize>,
}

impl Skip {
    /// More of the line, unheld.
    fn pass(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        if let Some(watch) = &mut self.utf8 {
            watch.feed(bytes);
        }
    }

    /// The line, ended (`complete`: by its newline).
    fn done(self, complete: bool) -> Skipped {
        let length = self.size - u64::from(complete);
        let over = self.max_line.filter(|limit| length > *limit as u64);
        let why = match (self.why, self.utf8.and_then(Utf8Watch::end)) {
            (Why::Invalid(_), _) if over.is_some() => Why::Over(over.unwrap_or(0)),
            (Why::Invalid(_), Some(bad)) => {
                Why::Invalid(ParseError::utf8(usize::try_from(bad).unwrap_or(usize::MAX)))
            }
            (why, _) => why,
        };
        Skipped {
            size: self.size,
            complete,
            why,
        }
    }
}

/// The first byte that is not UTF-8 in bytes seen a piece at a time, unheld: a character
/// cut between two pieces is carried (at most 3 bytes).
#[derive(Debug, Default)]
struct Utf8Watch {
    /// Bytes seen before `carry`.
    seen: u64,
    carry: Vec<u8>,
    /// Where the first byte that is not UTF-8 lies, once found.
    bad: Option<u64>,
}

impl Utf8Watch {
    /// The watch after `start` (the held start of a line).
    fn starting(start: &[u8]) -> Self {
        let mut watch = Self::default();
        watch.feed(start);
        watch
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        if self.bad.is_some() {
            return;
        }
        while !self.carry.is_empty() {
            let (first, more) = match bytes.split_first() {
                Some(split) => split,
                None => return,
            };
            self.carry.push(*first);
            bytes = more;
            match std::str::from_utf8(&self.carry) {
                Ok(_) => {
                    self.seen += self.carry.len() as u64;
                    self.carry.clear();
                }
                Err(error) if error.error_len().is_some() => {
                    self.bad = Some(self.seen);
                    return;
                }
                Err(_) => {}
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => self.seen += bytes.len() as u64,
            Err(error) => {
                let valid = error.valid_up_to();
                if error.error_len().is_some() {
                    self.bad = Some(self.seen + valid as u64);
                } else {
                    self.seen += valid as u64;
                    self.carry = bytes[valid..].to_vec();
                }
            }
        }
    }

    /// Where the first byte that is not UTF-8 lies, the line ended (a character still cut
    /// at its end is not UTF-8).
    fn end(self) -> Option<u64> {
        self.bad
            .or_else(|| (!self.carry.is_empty()).then_some(self.seen))
    }
}

/// The reference's error on any line that starts with `start`, when `start` already decides
/// it; `None` while bytes after it could still change the answer (or make the line valid).
///
/// serde_json reads a line once, from left to right, and never looks back: an error it
/// raises before it has looked at the end of `start` is the error it raises on every line
/// that begins so. An error at the end (the input ran out: `eof`, or a number or word cut
/// short, read as if a NUL followed) decides nothing. So `start` decides the line when the
/// reference's error on `start` itself lies at least two bytes before its end, and the
/// bytes are UTF-8 up to it (a character cut at the end is left out first). A quick check
/// that builds nothing (`IgnoredAny`) comes first, so that a valid start of a huge line is
/// passed over without the derived reading's buffer.
#[must_use]
pub fn decided(start: &[u8]) -> Option<ParseError> {
    let text = match std::str::from_utf8(start) {
        Ok(text) => text,
        Err(error) if error.error_len().is_some() => {
            return Some(ParseError::utf8(error.valid_up_to()));
        }
        // a character cut at the end: what comes before it is UTF-8
        Err(error) => std::str::from_utf8(&start[..error.valid_up_to()]).ok()?,
    };
    let before_end = |column: usize| column + 2 <= text.len();
    match serde_json::from_str::<IgnoredAny>(text) {
        Ok(_) => return None,
        Err(error) if error.is_eof() || !before_end(error.column()) => return None,
        Err(_) => {}
    }
    let error = read_str(text).err()?;
    let decides = error.category != Category::Eof && error.column.map_or(false, before_end);
    decides.then_some(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `feed` and `finish` give for `chunks`, as owned pieces.
    fn split(chunks: &[&[u8]], max_line: Option<usize>) -> (Vec<String>, bool) {
        let mut splitter = Splitter::new(max_line);
        let mut got = Vec::new();
        let mut push = |piece: Piece<'_>| {
            got.push(match piece {
                Piece::Lines(lines) => format!("lines {}", String::from_utf8_lossy(lines)),
                Piece::Last(line) => format!("last {}", String::from_utf8_lossy(line)),
                Piece::Skipped(skipped) => format!(
                    "skipped {} {} {:?}",
                    skipped.size, skipped.complete, skipped.why
                ),
            });
        };
        for chunk in chunks {
            splitter.feed(chunk, &mut push);
        }
        splitter.finish(&mut push);
        (got, splitter.stopped())
    }

    #[test]
    fn lines_are_the_same_however_the_input_is_cut() {
        let input = b"{\"a\":1}\n[2]\n\nlast";
        let whole: Vec<u8> = input.to_vec();
        for cut in 0..input.len() {
            let (got, _) = split(&[&whole[..cut], &whole[cut..]], None);
            let joined: String = got
                .iter()
                .filter_map(|piece| piece.strip_prefix("lines "))
                .collect();
            assert_eq!(joined, "{\"a\":1}\n[2]\n\n", "cut at {cut}");
            assert_eq!(got.last().map(String::as_str), Some("last last"));
        }
    }

    #[test]
    fn the_users_bound_skips_a_longer_line_to_its_newline() {
        let (got, _) = split(&[b"abcdef", b"gh\nok\n", b"xyzw"], Some(3));
        assert_eq!(
            got,
            [
                "skipped 9 true Over(3)",
                "lines ok\n",
                "skipped 4 false Over(3)"
            ]
        );
    }

    #[test]
    fn a_long_line_is_held_whole_without_a_bound() {
        let line = format!(
            "{{\"event\":\"begin\",\"time\":1,\"x\":\"{}\"}}\n",
            "y".repeat(3 << 20)
        );
        let bytes = line.as_bytes();
        let chunks: Vec<&[u8]> = bytes.chunks(1 << 16).collect();
        let (got, _) = split(&chunks, None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), "lines ".len() + line.len());
    }

    #[test]
    fn junk_is_decided_by_its_start_and_skipped() {
        let zeros = vec![0_u8; 1 << 16];
        let mut chunks: Vec<&[u8]> = vec![&zeros; 40];
        chunks.push(b"\n{}\n");
        let (got, stopped) = split(&chunks, None);
        assert!(!stopped);
        assert_eq!(got.len(), 2);
        assert!(got[0].starts_with("skipped 2621441 true Invalid("));
        assert!(got[0].contains("expected value"));
        assert_eq!(got[1], "lines {}\n");
    }

    #[test]
    fn a_skipped_line_that_is_not_utf8_is_that_error_however_it_is_cut() {
        // a syntax error at its start, then a byte that is not UTF-8 far after it: the
        // reader's answer to the whole line is the UTF-8 error (it checks UTF-8 first)
        let mut line = b"{\"event\":\"log\",\"time\":1,\"x\":\"\x01".to_vec();
        line.extend(std::iter::repeat(b'z').take(2 << 20));
        let bad = line.len();
        line.extend_from_slice(b"\xc3\xa9\xff\"}\n");
        let want = crate::read_line(&line).expect_err("not UTF-8");
        assert_eq!(want, ParseError::utf8(bad + 2));
        for size in [1 << 16, 3, 1 << 20, line.len()] {
            let chunks: Vec<&[u8]> = line.chunks(size).collect();
            let (got, _) = split(&chunks, None);
            let shown = if size == line.len() {
                format!("lines {}", String::from_utf8_lossy(&line))
            } else {
                format!(
                    "skipped {} true {:?}",
                    line.len(),
                    Why::Invalid(want.clone())
                )
            };
            assert_eq!(got, [shown], "chunks of {size}");
        }
        // a character cut at the line's end is not UTF-8 either; a whole one is
        for (tail, bad) in [(&b"\xc3"[..], Some(0)), (b"\xc3\xa9", None)] {
            let mut watch = Utf8Watch::starting(b"ab");
            watch.feed(tail);
            assert_eq!(watch.end(), bad.map(|at| at + 2));
        }
    }

    #[test]
    fn junk_longer_than_the_users_bound_is_over_it_however_it_is_cut() {
        let mut line = vec![0_u8; 3 << 20];
        line.push(b'\n');
        // (in one chunk it is a run of lines, which `scan::answer` holds to the bound)
        for size in [1 << 16, 999] {
            let chunks: Vec<&[u8]> = line.chunks(size).collect();
            let (got, _) = split(&chunks, Some(2 << 20));
            assert_eq!(
                got,
                [format!("skipped {} true Over({})", line.len(), 2 << 20)]
            );
        }
        let chunks: Vec<&[u8]> = line.chunks(1 << 16).collect();
        let (got, _) = split(&chunks, Some(4 << 20));
        assert!(
            got[0].starts_with("skipped 3145729 true Invalid("),
            "{got:?}"
        );
    }

    #[test]
    fn a_start_decides_only_what_no_byte_after_it_changes() {
        // cut short: any of these may go on into a valid line, or another error
        for start in [
            &b"{\"event\":\"log\",\"time\":1"[..],
            b"{\"event\":\"log\",\"time\":-",
            b"{\"event\":\"log\",\"time\":1.",
            b"{\"event\":\"log\",\"time\":1e",
            b"{\"event\":\"log\",\"x\":tru",
            b"{\"event\":\"log\",\"x\":\"\\u12",
            b"{\"event\":\"log\",\"x\":\"\xe2\x82",
            b"[\"begin\"",
            b"{}",
        ] {
            assert_eq!(decided(start), None, "{}", String::from_utf8_lossy(start));
        }
        let error = decided(b"\0\0\0").expect("a NUL is no value");
        assert_eq!(error.column, Some(1));
        let error = decided(b"{\"event\":\"log\",\"x\":\xff, ").expect("not UTF-8");
        assert_eq!(error.column, Some(20));
        // only syntax is looked at: a wrong type waits for the newline, held
        assert_eq!(decided(b"{\"event\":5,\"time\":1,      "), None);
    }
}
