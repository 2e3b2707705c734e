//! The facts `check` reports about a metrics file's lines, in the file's order: the lines
//! the reader rejects, and the order the reader relies on — a log, an evaluation or an end
//! before the first `begin`, a log or an evaluation after an `end` (until the next
//! `begin`), a training step going back — with the counts of each variant.
//!
//! A log's `scalars` or an end's `summary` that the schema refuses in part is a fact too
//! ([`Fact::Scalars`]): the reference ignores those fields, so the line keeps its verdict.
//!
//! Only facts: what a fact means to a user (its severity, its words, the rule for the last
//! line) is the caller's (`overbrainer_contract.check`).

use crate::error::ParseError;
use crate::generated::{MetricLine, EXTRAS, TAGS};
use crate::scan::{each_answer, Answer, Consumer, Options, Part};

/// Where a file's lines stand in a training.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No `begin` yet.
    Before,
    Training,
    /// After an `end`, until the next `begin`.
    After,
}

/// One fact about one line (numbered from 1).
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// A complete line the reference rejects.
    Rejected { line: u64, error: ParseError },
    /// A complete line the reference rejects, read tersely (`Options::terse`).
    Refused { line: u64 },
    /// A line over the user's bound: its bytes (its newline included when `complete`).
    Over {
        line: u64,
        size: u64,
        complete: bool,
        limit: usize,
    },
    /// A line of variant `variant` (its index in `TAGS`) out of the training's order.
    Order {
        line: u64,
        variant: usize,
        phase: Phase,
    },
    /// A log's step going back.
    Back { line: u64, step: u64, last: u64 },
    /// A part of a line's scalar map (`field`) that the schema refuses: its JSON path and
    /// what it is.
    Scalars {
        line: u64,
        path: String,
        message: String,
    },
    /// The last line, without its newline: its error, or `None` when it is a metrics line
    /// (its facts came before this one).
    Last {
        line: u64,
        error: Option<ParseError>,
    },
}

/// The order facts of one file, gathered as its lines come.
#[derive(Debug, Clone)]
pub struct Order {
    pub phase: Phase,
    /// The latest log's step.
    pub last_step: Option<u64>,
    /// Lines of each variant, by index in `TAGS`.
    pub counts: [u64; TAGS.len()],
    /// The facts not yet taken (`take`).
    pub facts: Vec<Fact>,
}

impl Default for Order {
    fn default() -> Self {
        Self {
            phase: Phase::Before,
            last_step: None,
            counts: [0; TAGS.len()],
            facts: Vec::new(),
        }
    }
}

impl Order {
    /// The facts found since the last call.
    pub fn take(&mut self) -> Vec<Fact> {
        std::mem::take(&mut self.facts)
    }

    fn refused(&mut self, line: u64, refused: Refusals) {
        if let Some(refused) = refused {
            self.facts
                .extend(refused.into_iter().map(|(path, message)| Fact::Scalars {
                    line,
                    path,
                    message,
                }));
        }
    }

    fn out_of_order(&mut self, line: u64, variant: usize) {
        if self.phase != Phase::Training {
            self.facts.push(Fact::Order {
                line,
                variant,
                phase: self.phase,
            });
        }
    }
}

/// What the order keeps of a line's answer: a metrics line's variant (a log's step with
/// it), the error, or the size of a line over the bound.
#[derive(Debug)]
pub enum Kept {
    /// A log line, its step, and what the schema refuses of its scalars.
    Log(u64, Refusals),
    /// A metrics line of another variant: its index in `TAGS`, what it does here, and what
    /// the schema refuses of its scalars.
    Other(usize, Role, Refusals),
    Bad(Box<ParseError>),
    /// A complete line rejected, read tersely.
    Refused,
    Over {
        size: u64,
        limit: usize,
    },
}

/// What the schema refuses of a line's scalar map: each part's JSON path and words (`None`,
/// the usual line: nothing refused).
pub type Refusals = Option<Box<Vec<(String, String)>>>;

fn refusals(read: &MetricLine) -> Refusals {
    let scalars = read.extra()?;
    let field = EXTRAS[read.variant()]?;
    if scalars.refused.is_empty() {
        None
    } else {
        Some(Box::new(scalars.refusals(field)))
    }
}

/// What a line other than a log does to the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Begin,
    Eval,
    End,
    Stage,
}

impl Consumer for Order {
    type Kept = Vec<Kept>;

    fn answer_part(lines: &[u8], options: Options) -> Part<Vec<Kept>> {
        let mut kept = Vec::with_capacity(lines.len() / 160 + 1);
        each_answer(lines, options, |_, answer| kept.push(Self::keep(answer)));
        let lines = kept.len() as u64;
        Part { kept, lines }
    }

    fn take_part(&mut self, before: u64, part: Part<Vec<Kept>>) {
        for (line, kept) in (before + 1..).zip(part.kept) {
            self.kept(line, kept, true);
        }
    }

    fn line(&mut self, line: u64, answer: Answer, complete: bool) {
        self.kept(line, Self::keep(answer), complete);
    }
}

impl Order {
    fn keep(answer: Answer) -> Kept {
        match answer {
            Answer::Bad(error) => Kept::Bad(Box::new(error)),
            other => Self::keep_of(&other),
        }
    }

    /// What the order keeps of `answer`, the answer left to another consumer (a rejected
    /// line's error copied).
    #[must_use]
    pub fn keep_of(answer: &Answer) -> Kept {
        match answer {
            Answer::Read(read) => {
                let refused = refusals(read);
                let role = match read {
                    MetricLine::Log(metric) => return Kept::Log(metric.step, refused),
                    MetricLine::Begin { .. } => Role::Begin,
                    MetricLine::Eval { .. } => Role::Eval,
                    MetricLine::End { .. } => Role::End,
                    MetricLine::Stage { .. } => Role::Stage,
                };
                Kept::Other(read.variant(), role, refused)
            }
            Answer::Bad(error) => Kept::Bad(Box::new(error.clone())),
            Answer::Refused(_) => Kept::Refused,
            Answer::Over { size, limit } => Kept::Over {
                size: *size,
                limit: *limit,
            },
        }
    }

    /// Line `line`'s kept answer folded in (`complete`: it ends in its newline).
    pub fn kept(&mut self, line: u64, kept: Kept, complete: bool) {
        match kept {
            Kept::Log(step, refused) => {
                self.refused(line, refused);
                let variant = LOG;
                self.counts[variant] += 1;
                self.out_of_order(line, variant);
                if let Some(last) = self.last_step {
                    if step < last {
                        self.facts.push(Fact::Back { line, step, last });
                    }
                }
                self.last_step = Some(step);
            }
            Kept::Other(variant, role, refused) => {
                self.refused(line, refused);
                self.counts[variant] += 1;
                match role {
                    Role::Eval => self.out_of_order(line, variant),
                    Role::Begin => self.phase = Phase::Training,
                    Role::End => {
                        self.out_of_order(line, variant);
                        self.phase = Phase::After;
                    }
                    Role::Stage => {}
                }
            }
            Kept::Bad(error) => {
                let error = *error;
                self.facts.push(if complete {
                    Fact::Rejected { line, error }
                } else {
                    Fact::Last {
                        line,
                        error: Some(error),
                    }
                });
                return;
            }
            Kept::Refused => {
                self.facts.push(Fact::Refused { line });
                return;
            }
            Kept::Over { size, limit } => {
                self.facts.push(Fact::Over {
                    line,
                    size,
                    complete,
                    limit,
                });
                return;
            }
        }
        if !complete {
            self.facts.push(Fact::Last { line, error: None });
        }
    }
}

/// The index of the log variant in `TAGS`.
const LOG: usize = {
    let mut at = 0;
    while !matches!(TAGS[at].as_bytes(), b"log") {
        at += 1;
    }
    at
};
