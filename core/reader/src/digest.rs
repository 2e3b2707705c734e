//! A metric's series digested for a plot: bounded in size whatever the run's length, it draws
//! what every point draws at a plot's width, and keeps what a user looks for.
//!
//! The points come in the order of the lines. Consecutive points whose steps fall in one span
//! of `width` steps (a power of two) form a bucket, which keeps its first and last finite
//! point, its least and its greatest (the M4 reduction, Jugel et al., VLDB 2014: the same
//! picture as every point at that width), the first point of each non-finite word (`NaN`,
//! `Infinity`, `-Infinity`) and its first gap (a scalar logged as `null`). When the buckets
//! pass the most asked for, the span doubles and the neighbours in one span merge, so that
//!
//! - the width is always the least power of two at which the series fits in that many
//!   buckets: the same digest however the points are cut into parts and joined in order
//!   ([`Digest::then`]), as the core's other folds are;
//! - every point stays inside its bucket's least and greatest, a spike one step wide is its
//!   bucket's greatest at every width, a non-finite value is a marker at every width, and the
//!   first and last points of the series are kept exactly;
//! - a point costs `O(1)` (amortised: each doubling at least halves the buckets of steps in
//!   order; there are at most 64), and a digest holds at most `most` buckets.
//!
//! While every point is a bucket of its own (at most `most` points, no two in a row at one
//! step), the digest holds the points as they came, 24 bytes each, not as buckets (a bucket
//! is 168 bytes whatever it holds): the runs of a sweep of thousands are mostly short, and a
//! page holds every run's digests. The form is the series' own (the same however it is cut),
//! and the buckets a point of it makes are those the points would make as buckets.
//!
//! Steps that go back (a run resumed from a checkpoint) begin a new bucket: a bucket is a run
//! of consecutive points, never points gathered from far apart in the stream.
//!
//! A run's [`Digests`] hold one per metric key, folded by [`crate::notable`] as the lines come
//! (when the scan's [`crate::scan::Options::digest`] asks for them) and joined by the run's
//! state ([`crate::status::RunState::digests`]).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::generated::TrainMetric;
use crate::scalars::Scalar;

/// What a point of a series holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sample {
    /// A finite number.
    Number(f64),
    /// `"NaN"`.
    NaN,
    /// `"Infinity"`.
    Infinity,
    /// `"-Infinity"`.
    NegInfinity,
    /// A gap: the value logged as `null`.
    Gap,
}

impl Sample {
    /// The value a point of this sample is drawn at: the number, an infinity, or NaN for
    /// `"NaN"` and for a gap (neither has a place on the value axis).
    #[must_use]
    pub fn value(self) -> f64 {
        match self {
            Self::Number(value) => value,
            Self::Infinity => f64::INFINITY,
            Self::NegInfinity => f64::NEG_INFINITY,
            Self::NaN | Self::Gap => f64::NAN,
        }
    }
}

/// A finite point: its place in the series (from 0), its step, its line's time (a plot's
/// x-axis in time) and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub at: u64,
    pub step: u64,
    pub time: f64,
    pub value: f64,
}

/// A point that draws as a marker or a gap: its place in the series, its step and its
/// line's time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub at: u64,
    pub step: u64,
    pub time: f64,
}

/// A bucket's finite points: the first and last, the least and the greatest (the first of
/// each, where values tie).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extremes {
    pub first: Point,
    pub last: Point,
    pub low: Point,
    pub high: Point,
}

impl Extremes {
    fn of(point: Point) -> Self {
        Self {
            first: point,
            last: point,
            low: point,
            high: point,
        }
    }

    /// These, then `later`'s (the points after these).
    fn then(self, later: Self) -> Self {
        Self {
            first: self.first,
            last: later.last,
            low: if later.low.value < self.low.value {
                later.low
            } else {
                self.low
            },
            high: if later.high.value > self.high.value {
                later.high
            } else {
                self.high
            },
        }
    }
}

/// The first point of each kind that draws as a marker or a gap, in a bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Marks {
    pub nan: Option<Mark>,
    pub infinity: Option<Mark>,
    pub neg_infinity: Option<Mark>,
    pub gap: Option<Mark>,
}

impl Marks {
    /// Each kind's first point, beside the sample it draws as: NaN, Infinity, -Infinity, gap.
    const fn each(&self) -> [(Option<Mark>, Sample); 4] {
        [
            (self.nan, Sample::NaN),
            (self.infinity, Sample::Infinity),
            (self.neg_infinity, Sample::NegInfinity),
            (self.gap, Sample::Gap),
        ]
    }

    /// Each kind's first point, to be moved.
    fn each_mut(&mut self) -> [&mut Option<Mark>; 4] {
        [
            &mut self.nan,
            &mut self.infinity,
            &mut self.neg_infinity,
            &mut self.gap,
        ]
    }

    /// These, then `later`'s: the first of each kind.
    fn then(self, later: Self) -> Self {
        Self {
            nan: self.nan.or(later.nan),
            infinity: self.infinity.or(later.infinity),
            neg_infinity: self.neg_infinity.or(later.neg_infinity),
            gap: self.gap.or(later.gap),
        }
    }
}

/// Consecutive points of a series whose steps fall in one span of the digest's width.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    /// The span: the steps' `step >> shift`.
    pub span: u64,
    /// The places of its first and last points in the series.
    pub from: u64,
    pub to: u64,
    /// Its finite points' extremes, if it has any.
    pub values: Option<Extremes>,
    /// Its markers and gaps, if it has any (boxed: most buckets have none).
    pub marks: Option<Box<Marks>>,
}

impl Bucket {
    /// No point: what a bucket merged into the one before it leaves in its place.
    const EMPTY: Self = Self {
        span: 0,
        from: 0,
        to: 0,
        values: None,
        marks: None,
    };

    fn new(span: u64, at: u64, step: u64, time: f64, sample: Sample) -> Self {
        let mut bucket = Self {
            span,
            from: at,
            to: at,
            values: None,
            marks: None,
        };
        bucket.add(at, step, time, sample);
        bucket
    }

    /// The next point of the series, in this bucket.
    fn add(&mut self, at: u64, step: u64, time: f64, sample: Sample) {
        self.to = at;
        if let Sample::Number(value) = sample {
            let point = Extremes::of(Point {
                at,
                step,
                time,
                value,
            });
            self.values = Some(match self.values {
                Some(values) => values.then(point),
                None => point,
            });
            return;
        }
        let marks = self.marks.get_or_insert_with(Box::default);
        let slot = match sample {
            Sample::NaN => &mut marks.nan,
            Sample::Infinity => &mut marks.infinity,
            Sample::NegInfinity => &mut marks.neg_infinity,
            Sample::Gap | Sample::Number(_) => &mut marks.gap,
        };
        if slot.is_none() {
            *slot = Some(Mark { at, step, time });
        }
    }

    /// `later` (the points after this bucket's) joined into this bucket.
    fn absorb(&mut self, later: Self) {
        self.to = later.to;
        self.values = match (self.values, later.values) {
            (Some(one), Some(two)) => Some(one.then(two)),
            (one, two) => one.or(two),
        };
        self.marks = match (self.marks.take(), later.marks) {
            (Some(one), Some(two)) => Some(Box::new(one.then(*two))),
            (one, two) => one.or(two),
        };
    }

    /// The bucket with each of its points' places moved `by` later in the series (a digest of
    /// later points, made apart from place 0, joined after `by` points).
    fn shifted(mut self, by: u64) -> Self {
        self.from += by;
        self.to += by;
        if let Some(values) = &mut self.values {
            for point in [
                &mut values.first,
                &mut values.last,
                &mut values.low,
                &mut values.high,
            ] {
                point.at += by;
            }
        }
        if let Some(marks) = &mut self.marks {
            for mark in marks.each_mut().into_iter().flatten() {
                mark.at += by;
            }
        }
        self
    }

    /// Its points as they are drawn, in the series' order, each once: the finite extremes
    /// and the markers and gaps.
    #[must_use]
    pub fn drawn(&self) -> Vec<(Point, Sample)> {
        let mut drawn: Vec<(Point, Sample)> = Vec::with_capacity(8);
        if let Some(values) = self.values {
            for point in [values.first, values.low, values.high, values.last] {
                drawn.push((point, Sample::Number(point.value)));
            }
        }
        if let Some(marks) = &self.marks {
            for (mark, sample) in marks.each() {
                if let Some(Mark { at, step, time }) = mark {
                    let value = sample.value();
                    drawn.push((
                        Point {
                            at,
                            step,
                            time,
                            value,
                        },
                        sample,
                    ));
                }
            }
        }
        drawn.sort_by_key(|(point, _)| point.at);
        drawn.dedup_by_key(|(point, _)| point.at);
        drawn
    }
}

/// A point of a digest whose every point is a bucket of its own: its step, its line's time
/// and its sample (a finite value, or a non-finite value's or a gap's bits, `LONE_GAP` for a
/// gap: the bits compare exactly, as a bucket's marks do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lone {
    step: u64,
    time: u64,
    sample: u64,
}

/// A gap's bits among a lone point's samples: a NaN that no NaN the core reads has (its
/// `"NaN"` is the one `f64::NAN`), never computed with, only compared.
const LONE_GAP: u64 = 0x7ff4_0000_0000_0001;

impl Lone {
    fn new(step: u64, time: f64, sample: Sample) -> Self {
        let sample = match sample {
            Sample::Gap => LONE_GAP,
            other => other.value().to_bits(),
        };
        Self {
            step,
            time: time.to_bits(),
            sample,
        }
    }

    fn sample(self) -> Sample {
        let value = f64::from_bits(self.sample);
        if value.is_finite() {
            Sample::Number(value)
        } else if self.sample == LONE_GAP {
            Sample::Gap
        } else if value.is_nan() {
            Sample::NaN
        } else if value > 0.0 {
            Sample::Infinity
        } else {
            Sample::NegInfinity
        }
    }

    fn time(self) -> f64 {
        f64::from_bits(self.time)
    }

    /// The bucket it is, at place `at` of the series (at width 1: its span is its step).
    fn bucket(self, at: u64) -> Bucket {
        Bucket::new(self.step, at, self.step, self.time(), self.sample())
    }
}

/// A series digested: at most `most` buckets of `2^shift` steps each.
#[derive(Debug, Clone, PartialEq)]
pub struct Digest {
    most: usize,
    /// The width's power of two (64: every step in one span).
    shift: u32,
    /// The points as they came, while each is a bucket of its own (at width 1); the buckets
    /// after (`bucketed`).
    lone: Vec<Lone>,
    buckets: Vec<Bucket>,
    bucketed: bool,
    /// Points folded.
    count: u64,
}

/// The room a vector of `len` items grows to for one more: an eighth more (a few at least),
/// never past `most` + 1 (a page holds a digest of every run of a sweep, and a vector grown
/// by doubling holds up to twice what it has).
fn room_for_one<T>(items: &mut Vec<T>, most: usize) {
    let len = items.len();
    if len == items.capacity() {
        let room = (len + len / 8).max(len + 4).min(most.saturating_add(1));
        items.reserve_exact(room.saturating_sub(len).max(1));
    }
}

/// The span of `step` at a width of `2^shift` steps.
const fn span_of(step: u64, shift: u32) -> u64 {
    if shift >= 64 {
        0
    } else {
        step >> shift
    }
}

impl Digest {
    /// An empty digest of at most `most` buckets (at least 1).
    #[must_use]
    pub fn new(most: usize) -> Self {
        Self {
            most: most.max(1),
            shift: 0,
            lone: Vec::new(),
            buckets: Vec::new(),
            bucketed: false,
            count: 0,
        }
    }

    /// The next point of the series: its step, its line's time, its value.
    pub fn push(&mut self, step: u64, time: f64, sample: Sample) {
        let at = self.count;
        self.count += 1;
        let points = &mut self.lone;
        if !self.bucketed
            && points.len() < self.most
            && points.last().map_or(true, |last| last.step != step)
        {
            room_for_one(points, self.most);
            points.push(Lone::new(step, time, sample));
            return;
        }
        let most = self.most;
        let span = span_of(step, self.shift);
        let buckets = self.buckets_mut();
        match buckets.last_mut() {
            Some(last) if last.span == span => last.add(at, step, time, sample),
            _ => {
                room_for_one(buckets, most);
                buckets.push(Bucket::new(span, at, step, time, sample));
            }
        }
        self.fit();
    }

    /// The points after this digest's, digested apart (from their own place 0): joined.
    pub fn then(&mut self, later: Self) {
        if !self.bucketed && !later.bucketed {
            let (points, more) = (&mut self.lone, &later.lone);
            let apart = match (points.last(), more.first()) {
                (Some(last), Some(first)) => last.step != first.step,
                _ => true,
            };
            if apart && points.len() + more.len() <= self.most {
                points.reserve_exact(more.len());
                points.extend_from_slice(more);
                self.count += later.count;
                return;
            }
        }
        if !later.bucketed {
            // points as they came: each folded in as it would have been after these
            for point in later.lone {
                self.push(point.step, point.time(), point.sample());
            }
            return;
        }
        let before = self.count;
        self.count += later.count;
        let shift = self.shift.max(later.shift);
        self.coarsen(shift);
        let (later_shift, later_count) = (later.shift, later.count);
        let buckets = later
            .into_buckets()
            .into_iter()
            .map(|bucket| bucket.shifted(before))
            .collect();
        let mut later = Self {
            most: self.most,
            shift: later_shift,
            lone: Vec::new(),
            buckets,
            bucketed: true,
            count: later_count,
        };
        later.coarsen(shift);
        self.join(later.into_buckets());
        self.fit();
    }

    /// The buckets, made of the lone points if they are held so.
    fn buckets_mut(&mut self) -> &mut Vec<Bucket> {
        if !self.bucketed {
            let points = std::mem::take(&mut self.lone);
            let len = points.len();
            self.buckets = Vec::with_capacity((len + (len / 8).max(4)).min(self.most + 1));
            self.buckets
                .extend((0..).zip(points).map(|(at, point)| point.bucket(at)));
            self.bucketed = true;
        }
        &mut self.buckets
    }

    fn into_buckets(mut self) -> Vec<Bucket> {
        std::mem::take(self.buckets_mut())
    }

    /// The buckets after these, at the same width: the first joined to the last of these
    /// when they share a span.
    fn join(&mut self, later: Vec<Bucket>) {
        let most = self.most;
        let buckets = self.buckets_mut();
        for bucket in later {
            match buckets.last_mut() {
                Some(last) if last.span == bucket.span => last.absorb(bucket),
                _ => {
                    room_for_one(buckets, most);
                    buckets.push(bucket);
                }
            }
        }
    }

    /// The width doubled until the buckets are at most `most`.
    fn fit(&mut self) {
        while self.buckets.len() > self.most && self.shift < 64 {
            self.coarsen(self.shift + 1);
        }
    }

    /// The width made `2^shift` (no narrower than it is): neighbours in one span merged, in
    /// place.
    fn coarsen(&mut self, shift: u32) {
        if shift <= self.shift {
            return;
        }
        self.shift = shift;
        let most = self.most;
        let buckets = self.buckets_mut();
        let mut kept = 0;
        for read in 0..buckets.len() {
            let span = span_of(bucket_step(&buckets[read]), shift);
            if kept > 0 && buckets[kept - 1].span == span {
                let bucket = std::mem::replace(&mut buckets[read], Bucket::EMPTY);
                buckets[kept - 1].absorb(bucket);
            } else {
                buckets[read].span = span;
                buckets.swap(kept, read);
                kept += 1;
            }
        }
        buckets.truncate(kept);
        // about half as many buckets: the room they held given back, an eighth kept
        buckets.shrink_to((kept + kept / 8).min(most.saturating_add(1)));
    }

    /// The buckets, in the series' order (made of the points, when each is its own).
    #[must_use]
    pub fn buckets(&self) -> Cow<'_, [Bucket]> {
        if self.bucketed {
            return Cow::Borrowed(&self.buckets);
        }
        (0..)
            .zip(self.lone.iter())
            .map(|(at, point)| point.bucket(at))
            .collect()
    }

    /// The width of a bucket's span, as a power of two (64: one span).
    #[must_use]
    pub const fn shift(&self) -> u32 {
        self.shift
    }

    /// Points folded.
    #[must_use]
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// Every point drawn, in the series' order.
    #[must_use]
    pub fn drawn(&self) -> Vec<(Point, Sample)> {
        if self.bucketed {
            return self.buckets.iter().flat_map(Bucket::drawn).collect();
        }
        (0..)
            .zip(self.lone.iter())
            .map(|(at, point)| {
                let sample = point.sample();
                let point = Point {
                    at,
                    step: point.step,
                    time: point.time(),
                    value: sample.value(),
                };
                (point, sample)
            })
            .collect()
    }
}

/// A step of the bucket's points (its first point's): every point of a bucket shares its
/// span, so any of them tells the span at a wider width.
fn bucket_step(bucket: &Bucket) -> u64 {
    let marks = bucket.marks.as_deref().copied().unwrap_or_default();
    let mut first: Option<Mark> = bucket.values.map(|values| Mark {
        at: values.first.at,
        step: values.first.step,
        time: values.first.time,
    });
    for mark in marks.each().into_iter().filter_map(|(mark, _)| mark) {
        if first.map_or(true, |seen| mark.at < seen.at) {
            first = Some(mark);
        }
    }
    first.map_or(0, |mark| mark.step)
}

/// A run's metric keys' digests, each key's series its own: a log's own fields that the
/// plot draws (`PLOTTED`) and every key of its `scalars`, in the order the keys first came;
/// of the logs whose steps are in a range only, when made `within` it (a plot zoomed in:
/// the range at the digest's full resolution).
#[derive(Debug, Clone)]
pub struct Digests {
    most: usize,
    /// The first and last step of the logs digested (both included); `None`: every log's.
    steps: Option<(u64, u64)>,
    keys: Vec<(String, Digest)>,
    /// Each key's place in `keys`.
    index: HashMap<String, usize>,
    /// Where a key is looked for first: the place after the last key's. A writer logs its
    /// keys in one order line after line, so a key is nearly always there, found by one
    /// comparison instead of a hash of it.
    next: usize,
}

/// Equal when they digest the same keys the same way (where the next key is looked for
/// first is no part of what they hold).
impl PartialEq for Digests {
    fn eq(&self, other: &Self) -> bool {
        self.most == other.most && self.steps == other.steps && self.keys == other.keys
    }
}

/// The fields of a log line drawn as series (`scalars`' keys besides them).
pub const PLOTTED: [&str; 4] = ["loss", "eval_loss", "learning_rate", "grad_norm"];

impl Digests {
    /// No key yet; each key's digest of at most `most` buckets.
    #[must_use]
    pub fn new(most: usize) -> Self {
        Self {
            most,
            steps: None,
            keys: Vec::new(),
            index: HashMap::new(),
            next: 0,
        }
    }

    /// No key yet; each key's digest of at most `most` buckets, of the logs whose step is
    /// from `first` to `last` (both included) only.
    #[must_use]
    pub fn within(most: usize, first: u64, last: u64) -> Self {
        Self {
            steps: Some((first, last)),
            ..Self::new(most)
        }
    }

    /// No key yet, made as these were (their buckets and their steps).
    #[must_use]
    pub fn emptied(&self) -> Self {
        Self {
            steps: self.steps,
            ..Self::new(self.most)
        }
    }

    /// The first and last step of the logs digested, when made `within` them.
    #[must_use]
    pub const fn steps(&self) -> Option<(u64, u64)> {
        self.steps
    }

    /// The digest of `key`, made empty on its first use.
    fn of(&mut self, key: &str) -> &mut Digest {
        let guessed = self.keys.get(self.next).map_or(false, |(at, _)| at == key);
        let at = if guessed {
            self.next
        } else {
            match self.index.get(key) {
                Some(at) => *at,
                None => {
                    self.index.insert(key.to_owned(), self.keys.len());
                    self.keys.push((key.to_owned(), Digest::new(self.most)));
                    self.keys.len() - 1
                }
            }
        };
        self.next = at + 1;
        &mut self.keys[at].1
    }

    /// A log of the run, in order: its fields' values (a field left out is no point) and
    /// its scalars (a `null` a gap, a non-finite value's word a marker); nothing for a log
    /// whose step is out of the steps asked for.
    pub fn log(&mut self, metric: &TrainMetric) {
        if let Some((first, last)) = self.steps {
            if metric.step < first || metric.step > last {
                return;
            }
        }
        let fields = [
            metric.loss,
            metric.eval_loss,
            metric.learning_rate,
            metric.grad_norm,
        ];
        for (key, value) in PLOTTED.iter().zip(fields) {
            if let Some(value) = value {
                self.of(key)
                    .push(metric.step, metric.time, Sample::Number(value));
            }
        }
        if let Some(scalars) = &metric.scalars {
            for (key, value) in &scalars.entries {
                let sample = match value {
                    Scalar::Number(value) => Sample::Number(*value),
                    Scalar::Null => Sample::Gap,
                    Scalar::NaN => Sample::NaN,
                    Scalar::Infinity => Sample::Infinity,
                    Scalar::NegInfinity => Sample::NegInfinity,
                };
                self.of(key).push(metric.step, metric.time, sample);
            }
        }
    }

    /// The logs after these, digested apart: each key's series joined.
    pub fn then(&mut self, later: Self) {
        for (key, digest) in later.keys {
            self.of(&key).then(digest);
        }
    }

    /// [`Self::then`] for the keys `wanted` keeps; every other key of `later` listed (in
    /// [`Self::keys`], in the order the keys came) with no point: a key no plot shows is
    /// kept by its name alone.
    pub fn then_only(&mut self, later: Self, mut wanted: impl FnMut(&str) -> bool) {
        for (key, digest) in later.keys {
            let kept = self.of(&key);
            if wanted(&key) {
                kept.then(digest);
            }
        }
    }

    /// Whether no log gave a point yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The most buckets of a key's digest.
    #[must_use]
    pub const fn most(&self) -> usize {
        self.most
    }

    /// Each key and its digest, in the order the keys first came (a key kept by its name
    /// alone, `then_only`, with no point: its `count()` is 0).
    pub fn keys(&self) -> impl Iterator<Item = (&str, &Digest)> {
        self.keys.iter().map(|(key, digest)| (key.as_str(), digest))
    }

    /// The digest of `key`, if a log gave it a point.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Digest> {
        self.index.get(key).map(|at| &self.keys[*at].1)
    }

    /// The digests of `keys` (every key when `None`; a key without points left out) as a JSON
    /// object, its members in the order of their keys' text (serde_json's map is sorted:
    /// `keys()` gives the order the keys came): `{KEY: {"shift": S, "count": N, "points": [[STEP, VALUE,
    /// TIME], ...]}}`, the points drawn in the series' order, each value a number, a non-finite
    /// value's word (`"NaN"`, `"Infinity"`, `"-Infinity"`) or `null` for a gap, as `scalars`
    /// writes them, and the time of the point's line.
    #[must_use]
    pub fn json(&self, keys: Option<&[String]>) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        let mut put = |key: &str, digest: &Digest| {
            if digest.count() == 0 {
                return; // a key kept by its name alone (`then_only`): no series
            }
            let points: Vec<serde_json::Value> = digest
                .drawn()
                .into_iter()
                .map(|(point, sample)| {
                    let value = match sample {
                        Sample::Number(value) => serde_json::Value::from(value),
                        Sample::NaN => "NaN".into(),
                        Sample::Infinity => "Infinity".into(),
                        Sample::NegInfinity => "-Infinity".into(),
                        Sample::Gap => serde_json::Value::Null,
                    };
                    serde_json::Value::Array(vec![point.step.into(), value, point.time.into()])
                })
                .collect();
            let mut entry = serde_json::Map::new();
            entry.insert("shift".to_owned(), digest.shift().into());
            entry.insert("count".to_owned(), digest.count().into());
            entry.insert("points".to_owned(), points.into());
            out.insert(key.to_owned(), entry.into());
        };
        match keys {
            None => self.keys().for_each(|(key, digest)| put(key, digest)),
            Some(keys) => {
                for key in keys {
                    if let Some(digest) = self.get(key) {
                        put(key, digest);
                    }
                }
            }
        }
        out.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The series plainly: every point, in order.
    type Plain = Vec<(u64, Sample)>;

    /// The time of a point's line: here a function of its step, the same however a series
    /// is cut.
    fn time_of(step: u64) -> f64 {
        1_764_460_000.0 + step as f64 * 0.75
    }

    fn digest(points: &Plain, most: usize) -> Digest {
        let mut digest = Digest::new(most);
        for (step, sample) in points {
            digest.push(*step, time_of(*step), *sample);
        }
        digest
    }

    /// The least power of two at which the runs of equal spans number at most `most`.
    fn least_shift(points: &Plain, most: usize) -> u32 {
        (0..=64)
            .find(|&shift| {
                let mut runs = 0;
                let mut last = None;
                for (step, _) in points {
                    let span = span_of(*step, shift);
                    if last != Some(span) {
                        runs += 1;
                        last = Some(span);
                    }
                }
                runs <= most
            })
            .unwrap_or(64)
    }

    /// Every bucket checked against the points it covers, computed plainly.
    fn check(points: &Plain, digest: &Digest, most: usize) {
        assert!(digest.buckets().len() <= most.max(1));
        // room for an eighth more buckets (or points) at most, a few at least, and never past
        // `most` + 1
        let (len, room) = if digest.bucketed {
            (digest.buckets.len(), digest.buckets.capacity())
        } else {
            (digest.lone.len(), digest.lone.capacity())
        };
        assert!(
            room <= (len + (len / 8).max(4)).min(most.max(1) + 1),
            "{room} for {len}"
        );
        // the points as they came exactly when each is a bucket of its own
        let lone = points.len() <= most.max(1) && points.windows(2).all(|two| two[0].0 != two[1].0);
        assert_eq!(!digest.bucketed, lone);
        let drawn: Vec<(Point, Sample)> = digest.buckets().iter().flat_map(Bucket::drawn).collect();
        assert_eq!(
            format!("{:?}", digest.drawn()),
            format!("{drawn:?}"),
            "drawn as its buckets draw"
        );
        assert_eq!(digest.count(), points.len() as u64);
        assert_eq!(digest.shift(), least_shift(points, most.max(1)));
        let mut next = 0_u64;
        for bucket in digest.buckets().iter() {
            assert_eq!(bucket.from, next, "the buckets cover the series in order");
            next = bucket.to + 1;
            let covered: Vec<(u64, u64, Sample)> = (bucket.from..=bucket.to)
                .map(|at| {
                    let (step, sample) = points[usize::try_from(at).unwrap_or(0)];
                    (at, step, sample)
                })
                .collect();
            for (_, step, _) in &covered {
                assert_eq!(span_of(*step, digest.shift()), bucket.span);
            }
            let finite: Vec<Point> = covered
                .iter()
                .filter_map(|(at, step, sample)| match sample {
                    Sample::Number(value) => Some(Point {
                        at: *at,
                        step: *step,
                        time: time_of(*step),
                        value: *value,
                    }),
                    _ => None,
                })
                .collect();
            match bucket.values {
                None => assert!(finite.is_empty()),
                Some(values) => {
                    assert_eq!(values.first, finite[0]);
                    assert_eq!(values.last, *finite.last().unwrap_or(&finite[0]));
                    let low =
                        finite.iter().fold(
                            finite[0],
                            |low, p| if p.value < low.value { *p } else { low },
                        );
                    let high =
                        finite.iter().fold(
                            finite[0],
                            |high, p| if p.value > high.value { *p } else { high },
                        );
                    assert_eq!(values.low, low);
                    assert_eq!(values.high, high);
                }
            }
            let first_of = |wanted: fn(&Sample) -> bool| {
                covered
                    .iter()
                    .find(|(_, _, sample)| wanted(sample))
                    .map(|(at, step, _)| Mark {
                        at: *at,
                        step: *step,
                        time: time_of(*step),
                    })
            };
            let marks = bucket.marks.as_deref().copied().unwrap_or_default();
            assert_eq!(marks.nan, first_of(|s| matches!(s, Sample::NaN)));
            assert_eq!(marks.infinity, first_of(|s| matches!(s, Sample::Infinity)));
            assert_eq!(
                marks.neg_infinity,
                first_of(|s| matches!(s, Sample::NegInfinity))
            );
            assert_eq!(marks.gap, first_of(|s| matches!(s, Sample::Gap)));
        }
        assert_eq!(next, points.len() as u64);
    }

    /// A deterministic series of `count` points: steps mostly rising by `stride` (with a
    /// resume going back now and then when `resumes`), values wandering, with spikes, and
    /// non-finite values and gaps among them.
    fn series(seed: u64, count: usize, stride: u64, resumes: bool) -> Plain {
        let mut state = seed;
        let mut draw = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            f64::from(u32::try_from(state >> 40).unwrap_or(0)) / f64::from(1_u32 << 24)
        };
        let mut step = 0_u64;
        let mut points = Vec::with_capacity(count);
        for _ in 0..count {
            let roll = draw();
            step = if resumes && roll < 0.01 {
                step.saturating_sub(stride * 40)
            } else {
                step + stride
            };
            let kind = draw();
            let sample = if kind < 0.01 {
                Sample::NaN
            } else if kind < 0.015 {
                Sample::Infinity
            } else if kind < 0.02 {
                Sample::NegInfinity
            } else if kind < 0.03 {
                Sample::Gap
            } else if kind > 0.995 {
                Sample::Number(100.0 * draw())
            } else {
                Sample::Number(draw())
            };
            points.push((step, sample));
        }
        points
    }

    #[test]
    fn each_bucket_keeps_its_points_first_last_least_greatest_and_markers() {
        for seed in [1, 2, 3, 2026] {
            for (count, stride, resumes) in [(10, 1, false), (1000, 1, false), (5000, 3, true)] {
                let points = series(seed, count, stride, resumes);
                // and the same with values of a few levels: ties, the first of them kept
                let levels: Plain = points
                    .iter()
                    .map(|(step, sample)| match sample {
                        Sample::Number(value) => (*step, Sample::Number((value * 3.0).floor())),
                        other => (*step, *other),
                    })
                    .collect();
                for most in [1, 2, 7, 64, 300, 5000] {
                    check(&points, &digest(&points, most), most);
                    check(&levels, &digest(&levels, most), most);
                }
            }
        }
    }

    #[test]
    fn the_same_digest_however_the_series_is_cut() {
        let points = series(7, 3000, 2, true);
        // the last two: every point a bucket of its own, held as they came
        for most in [5, 64, 256, 3000, 4096] {
            let whole = digest(&points, most);
            check(&points, &whole, most);
            assert_eq!(!whole.bucketed, most >= 3000);
            for size in [1, 2, 17, 500, 2999] {
                let mut joined = Digest::new(most);
                for part in points.chunks(size) {
                    joined.then(digest(&part.to_vec(), most));
                }
                assert_eq!(joined, whole, "most {most}, cut every {size}");
            }
        }
    }

    #[test]
    fn a_spike_one_step_wide_and_a_nan_are_drawn_at_every_width() {
        let mut points: Plain = (0..100_000)
            .map(|step| (step, Sample::Number(1.0)))
            .collect();
        points[61_234].1 = Sample::Number(50.0);
        points[80_001].1 = Sample::NaN;
        for most in [1, 4, 100, 1000] {
            let digest = digest(&points, most);
            let drawn = digest.drawn();
            assert!(drawn.contains(&(
                Point {
                    at: 61_234,
                    step: 61_234,
                    time: time_of(61_234),
                    value: 50.0
                },
                Sample::Number(50.0)
            )));
            assert!(drawn
                .iter()
                .any(|(point, sample)| point.step == 80_001 && *sample == Sample::NaN));
            // exact at the ends, and a bounded size: at most 8 points a bucket
            assert_eq!(drawn[0].0.step, 0);
            assert_eq!(drawn.last().map(|(point, _)| point.step), Some(99_999));
            assert!(drawn.len() <= 8 * most);
        }
    }

    #[test]
    fn steps_far_apart_and_going_back_stay_bounded() {
        let points: Plain = (0..1000_u64)
            .map(|at| {
                let step = if at % 2 == 0 { u64::MAX - at } else { at };
                (
                    step,
                    Sample::Number(f64::from(u32::try_from(at).unwrap_or(0))),
                )
            })
            .collect();
        for most in [1, 3, 50] {
            let digest = digest(&points, most);
            check(&points, &digest, most);
        }
    }
}
