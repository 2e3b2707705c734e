//! A run's status and its check from one pass over its lines: each line answered once, its
//! answer handed to both consumers, the status's ([`Notables`]) and the check's ([`Order`]).
//!
//! A face that shows both of a file (the run viewer: a run's card and its findings) reads
//! each byte once instead of twice. The answers are those of the check's options (a
//! rejected line's words, until the check asks for terse answers): the status counts a
//! rejected line the same whether its words came or not.

use crate::notable::{Notable, Notables};
use crate::order::{Kept, Order};
use crate::scan::{each_answer, Answer, Consumer, Options, Part};

/// The status's and the check's consumers of one scan.
#[derive(Debug, Clone)]
pub struct Both {
    pub notables: Notables,
    pub order: Order,
}

impl Both {
    /// Both consumers, the status's made for `options` (its digest).
    #[must_use]
    pub fn of(options: Options) -> Self {
        Self {
            notables: Notables::of(options),
            order: Order::default(),
        }
    }
}

impl Consumer for Both {
    type Kept = (Vec<Notable>, Vec<Kept>);

    fn answer_part(lines: &[u8], options: Options) -> Part<Self::Kept> {
        let mut notables = Notables::of(options);
        let mut kept = Vec::with_capacity(lines.len() / 160 + 1);
        let mut count = 0;
        each_answer(lines, options, |_, answer| {
            count += 1;
            kept.push(Order::keep_of(&answer));
            notables.line(count, answer, true);
        });
        Part {
            kept: (notables.take(), kept),
            lines: count,
        }
    }

    fn take_part(&mut self, before: u64, part: Part<Self::Kept>) {
        let (notables, kept) = part.kept;
        self.notables.take_part(
            before,
            Part {
                kept: notables,
                lines: part.lines,
            },
        );
        for (line, kept) in (before + 1..).zip(kept) {
            self.order.kept(line, kept, true);
        }
    }

    fn line(&mut self, line: u64, answer: Answer, complete: bool) {
        self.order.kept(line, Order::keep_of(&answer), complete);
        self.notables.line(line, answer, complete);
    }
}
