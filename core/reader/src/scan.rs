//! Every line of a stream answered, in order: what the commands that read whole files
//! (`check`, `export`, `status`, `plot`, `watch`) stand on.
//!
//! [`Scan`] joins a [`Splitter`] to the core's reading: the pieces the splitter gives are
//! answered line by line ([`answer`]) and handed, in order, to a consumer ([`Consumer`]:
//! the order facts of `check` in [`crate::order`], the columns of a table in
//! [`crate::columns`]). A caller with threads answers a run of lines in parts, each part
//! ([`Consumer::answer_part`]), and hands the parts over in order with [`Scan::take`]: the
//! answers, and so everything made of them, do not depend on how the input was cut.

use crate::error::{Category, ParseError};
use crate::generated::MetricLine;
use crate::split::{Piece, Skipped, Splitter, Why};
use crate::{read_line, read_line_unlocated, read_verdict};

/// What the reader makes of one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A metrics line.
    Read(MetricLine),
    /// A line the reference rejects: its error.
    Bad(ParseError),
    /// A complete line the reference rejects, read tersely (`Options::terse`): its error's
    /// category alone.
    Refused(Category),
    /// A line over the user's bound (`max_line`, without its newline): its bytes, its
    /// newline included.
    Over { size: u64, limit: usize },
}

/// One line's answer and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    pub answer: Answer,
    /// Whether the line ends in its newline (only the input's last line may not).
    pub complete: bool,
}

/// How lines are answered.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The user's bound on a line's length, without its newline.
    pub max_line: Option<usize>,
    /// Complete lines the reference rejects are answered by their error's category alone
    /// (`Answer::Refused`), without the words, column and path a finding shows: for a
    /// caller that counts them and shows no more of them (the last line is always answered
    /// in full: its rule needs the error).
    pub terse: bool,
    /// Complete lines the reference rejects are answered with their error's path not
    /// located (`None`; `read_line_unlocated`): for a face that keeps the line and locates
    /// the path only when it is asked for (`crate::path_of`). The last line, which comes to
    /// the consumer alone (`Consumer::line`, without its bytes), is answered located.
    pub unlocated: bool,
    /// Each log's metric keys digested for a plot, in at most this many buckets a key
    /// ([`crate::digest`]); `None`: no digest (a command that draws nothing).
    pub digest: Option<usize>,
    /// The first and last step (both included) of the logs digested: a plot zoomed in to
    /// them ([`crate::digest::Digests::within`]); `None`: every log's.
    pub digest_steps: Option<(u64, u64)>,
}

/// The answer to one complete line (`line` ends in its newline) or to the last line: the
/// reference's reading of the line's bytes before its newline, as the golden suite and the
/// reference runner cut a file, for every command (a line cut short mid-file is `eof`
/// there, as it is at the file's end; a blank line is `""`, `eof` at column 0).
#[must_use]
pub fn answer(line: &[u8], options: Options) -> Answer {
    let bare = line.strip_suffix(b"\n").unwrap_or(line);
    if let Some(limit) = options.max_line {
        if bare.len() > limit {
            return Answer::Over {
                size: line.len() as u64,
                limit,
            };
        }
    }
    if options.terse {
        return match read_verdict(bare) {
            Ok(read) => Answer::Read(read),
            Err(category) => Answer::Refused(category),
        };
    }
    let read = if options.unlocated {
        read_line_unlocated(bare)
    } else {
        read_line(bare)
    };
    match read {
        Ok(read) => Answer::Read(read),
        Err(error) => Answer::Bad(error),
    }
}

/// Each complete line of `lines` (each ending in its newline) answered, in order: the
/// line's bytes before its newline (what its answer read), and its answer.
pub fn each_answer<F: FnMut(&[u8], Answer)>(lines: &[u8], options: Options, mut each: F) {
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', lines) {
        each(&lines[start..end], answer(&lines[start..=end], options));
        start = end + 1;
    }
    if start < lines.len() {
        let line = &lines[start..];
        each(line, answer(line, options));
    }
}

/// A part of a run of complete lines, answered: what its consumer kept, and its lines.
#[derive(Debug)]
pub struct Part<T> {
    pub kept: T,
    pub lines: u64,
}

/// The parts of `lines` (complete lines) for `parts` workers: about equal, each cut after
/// a newline.
#[must_use]
pub fn parts(lines: &[u8], parts: usize) -> Vec<&[u8]> {
    let mut found = Vec::with_capacity(parts);
    let size = lines.len() / parts.max(1) + 1;
    let mut start = 0;
    while start < lines.len() {
        let goal = (start + size).min(lines.len());
        let end = if goal >= lines.len() {
            lines.len()
        } else {
            memchr::memchr(b'\n', &lines[goal - 1..]).map_or(lines.len(), |at| goal + at)
        };
        found.push(&lines[start..end]);
        start = end;
    }
    found
}

/// `bytes` (a chunk of a stream, cut anywhere) in pieces of at most `most` newlines each,
/// each but the last ending just after a newline: how a caller bounds what one feed of a
/// scan holds (its answers, then what is made of them) whatever the lines' lengths.
pub fn pieces_of_lines(bytes: &[u8], most: usize) -> impl Iterator<Item = &[u8]> {
    let most = most.max(1);
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr_iter(b'\n', rest)
            .nth(most - 1)
            .map_or(rest.len(), |at| at + 1);
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

/// What a scan's answers go to, in order.
///
/// Complete lines come in parts (`answer_part`, on any thread: what it keeps is all that
/// crosses to the consumer), handed over in order (`take_part`); a line that was not in a
/// part (the last line, a line skipped) comes alone (`line`).
pub trait Consumer {
    /// What a part's answers leave to the consumer.
    type Kept: Send;

    /// A part of complete lines (each ending in its newline), answered.
    fn answer_part(lines: &[u8], options: Options) -> Part<Self::Kept>;

    /// The next part, after `before` lines.
    fn take_part(&mut self, before: u64, part: Part<Self::Kept>);

    /// The next line alone (numbered from 1): its answer, and whether it ends in its
    /// newline (only the input's last line may not).
    fn line(&mut self, number: u64, answer: Answer, complete: bool);
}

/// What a `Scan`'s splitter gave, not yet answered: complete lines to answer (the caller
/// may answer them in parts, in threads), or one line's answer already known.
#[derive(Debug)]
pub enum Work<'a> {
    Lines(&'a [u8]),
    Answered(Answered),
}

/// A stream of bytes fed in chunks, each line answered and handed to `consumer`.
#[derive(Debug)]
pub struct Scan<C> {
    pub splitter: Splitter,
    pub options: Options,
    pub consumer: C,
    /// Lines handed to the consumer so far.
    pub lines: u64,
}

impl<C: Consumer> Scan<C> {
    #[must_use]
    pub const fn new(options: Options, consumer: C) -> Self {
        Self {
            splitter: Splitter::new(options.max_line),
            options,
            consumer,
            lines: 0,
        }
    }

    /// Feed `chunk`: `work` gets what it completes, in order, to answer and `take`.
    pub fn split<F: FnMut(&mut Self, Work<'_>)>(&mut self, chunk: &[u8], mut work: F) {
        let options = self.options;
        let mut splitter = std::mem::replace(&mut self.splitter, Splitter::new(None));
        splitter.feed(chunk, |piece| work(self, to_work(piece, options)));
        self.splitter = splitter;
    }

    /// The end of the input: `work` gets the last line, if any.
    pub fn split_end<F: FnMut(&mut Self, Work<'_>)>(&mut self, mut work: F) {
        let options = self.options;
        let mut splitter = std::mem::replace(&mut self.splitter, Splitter::new(None));
        splitter.finish(|piece| work(self, to_work(piece, options)));
        self.splitter = splitter;
    }

    /// Hand the next part of complete lines, answered, to the consumer.
    pub fn take(&mut self, part: Part<C::Kept>) {
        let lines = part.lines;
        self.consumer.take_part(self.lines, part);
        self.lines += lines;
    }

    /// Hand one line's answer to the consumer.
    pub fn give(&mut self, answered: Answered) {
        self.lines += 1;
        self.consumer
            .line(self.lines, answered.answer, answered.complete);
    }

    /// Feed `chunk`, answering it here, on this thread.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.split(chunk, |scan, work| scan.settle(work));
    }

    /// The end of the input, answered here.
    pub fn finish(&mut self) {
        self.split_end(|scan, work| scan.settle(work));
    }

    /// Answer `work` here and hand it over.
    pub fn settle(&mut self, work: Work<'_>) {
        match work {
            Work::Lines(lines) => {
                let part = C::answer_part(lines, self.options);
                self.take(part);
            }
            Work::Answered(answered) => self.give(answered),
        }
    }
}

fn to_work(piece: Piece<'_>, options: Options) -> Work<'_> {
    match piece {
        Piece::Lines(lines) => Work::Lines(lines),
        Piece::Last(line) => Work::Answered(Answered {
            answer: answer(
                line,
                Options {
                    terse: false,
                    unlocated: false,
                    ..options
                },
            ),
            complete: false,
        }),
        Piece::Skipped(Skipped {
            size,
            complete,
            why,
        }) => Work::Answered(Answered {
            answer: match why {
                Why::Over(limit) => Answer::Over { size, limit },
                Why::Invalid(error) => Answer::Bad(error),
            },
            complete,
        }),
    }
}
