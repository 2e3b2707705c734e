//! The scans do not depend on how their input is cut: into chunks (the reads of a file, a
//! pipe's, a growing file's) or into parts (the threads' share of a run of lines). Each
//! consumer (`Order`, `Columns`, `Notables`) fed a stream in random chunks and random parts
//! holds what it holds when fed each line alone, in order, from the lines as the input's
//! newlines cut it; `Both` holds what the check's and the status's consumers hold, each
//! fed alone; and a long line is held whole, junk decided from its start.

use overbrainer_core::both::Both;
use overbrainer_core::columns::Columns;
use overbrainer_core::notable::Notables;
use overbrainer_core::order::{Fact, Order};
use overbrainer_core::scan::{answer, parts, Consumer, Options, Scan, Work};
use overbrainer_core::split::FIRST_LOOK;
use overbrainer_core::status::RunState;

/// A small deterministic generator (xorshift): the cases are the same on every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next() % bound.max(1) as u64).unwrap_or(0)
    }
}

const LINES: [&str; 17] = [
    r#"{"event":"stage","name":"train","time":1764467476}"#,
    r#"{"event":"begin","time":1764467476.0,"max_steps":40}"#,
    r#"{"event":"log","time":1764467476.35,"step":1,"epoch":0.1,"max_steps":40,"loss":3.2,"eval_loss":null,"learning_rate":2e-05,"grad_norm":0.14}"#,
    r#"{"step":2,"event":"log","time":1764467477,"loss":3.1,"tokens":5}"#,
    r#"{"event":"log","time":1764467478.5,"step":3,"eval_loss":2.5}"#,
    r#"{"event":"eval","time":1764467479.0,"step":1,"total":3}"#,
    r#"{"event":"eval","time":1764467479.5,"step":2,"total":3}"#,
    r#"{"event":"end","time":1764467480.0,"step":3}"#,
    r#"{"event":"log","time":1.0,"step":0,"learning_rate":0.5}"#,
    r#"{"event":"log","time":1.0,"st"#,
    r#"{"event":"party","time":1.0}"#,
    r#"{"event":"log","time":1764467481,"step":4,"loss":2.9,"scalars":{"eval_accuracy":0.5,"rewards/chosen":null,"x":"NaN","bad":"s"}}"#,
    r#"{"event":"log","time":1764467482,"step":5,"scalars":{"rewards/chosen":-1.5,"num_tokens":1200}}"#,
    r#"{"event":"end","time":1764467483,"step":5,"summary":{"train_runtime":12.5}}"#,
    "not json",
    "",
    "{\"event\":\"log\",\"time\":1.0,\"step\":1}\u{7f}\u{0}",
];

/// A file of `count` lines drawn from `LINES`, with a junk byte now and then, ending in a
/// newline or not.
fn file(draw: &mut Draw, count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..count {
        out.extend_from_slice(LINES[draw.below(LINES.len())].as_bytes());
        if draw.below(40) == 0 {
            out.push(0xff);
        }
        out.push(b'\n');
    }
    if draw.below(2) == 0 {
        out.extend_from_slice(LINES[draw.below(LINES.len())].as_bytes());
    }
    out
}

/// The digests kept among `kept`, joined in order (none when no digest was kept).
fn joined_digests(
    kept: &[overbrainer_core::notable::Notable],
) -> Option<overbrainer_core::digest::Digests> {
    let mut all: Option<overbrainer_core::digest::Digests> = None;
    for notable in kept {
        if let overbrainer_core::notable::Notable::Digests(digests) = notable {
            match &mut all {
                Some(all) => all.then(digests.clone()),
                None => all = Some(digests.clone()),
            }
        }
    }
    all
}

/// What `consumer` holds after each line of `data` alone, in order.
fn line_by_line<C: Consumer>(data: &[u8], options: Options, mut consumer: C) -> (C, u64) {
    let mut number = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', data) {
        number += 1;
        consumer.line(number, answer(&data[start..=end], options), true);
        start = end + 1;
    }
    if start < data.len() {
        // the last line is answered in full, terse or not (its rule needs the error), and
        // located (it comes to the consumer alone, without its bytes)
        let full = Options {
            terse: false,
            unlocated: false,
            ..options
        };
        number += 1;
        consumer.line(number, answer(&data[start..], full), false);
    }
    (consumer, number)
}

/// What `consumer` holds after `data` fed in random chunks, each run of lines answered in
/// random parts.
fn scanned<C: Consumer>(data: &[u8], options: Options, consumer: C, draw: &mut Draw) -> (C, u64) {
    let mut scan = Scan::new(options, consumer);
    let mut cuts = Draw(draw.next() | 1);
    let mut settle = |scan: &mut Scan<C>, work: Work<'_>| match work {
        Work::Lines(lines) => {
            let count = 1 + cuts.below(5);
            for part in parts(lines, count) {
                let answered = C::answer_part(part, options);
                scan.take(answered);
            }
        }
        Work::Answered(answered) => scan.give(answered),
    };
    let mut at = 0;
    while at < data.len() {
        let most = if draw.below(3) == 0 { 8 } else { 400 };
        let size = 1 + draw.below(most);
        let end = (at + size).min(data.len());
        scan.split(&data[at..end], &mut settle);
        at = end;
    }
    scan.split_end(&mut settle);
    let lines = scan.lines;
    (scan.consumer, lines)
}

fn options(draw: &mut Draw) -> Options {
    Options {
        max_line: (draw.below(4) == 0).then(|| draw.below(120)),
        terse: draw.below(2) == 0,
        unlocated: draw.below(2) == 0,
        digest: (draw.below(2) == 0).then(|| 1 + draw.below(6)),
        digest_steps: (draw.below(3) == 0).then(|| {
            let first = draw.below(6) as u64;
            (first, first + draw.below(3) as u64)
        }),
    }
}

#[test]
fn check_facts_do_not_depend_on_the_cuts() {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let options = options(&mut draw);
        let (mut want, lines) = line_by_line(&data, options, Order::default());
        let (mut got, got_lines) = scanned(&data, options, Order::default(), &mut draw);
        assert_eq!(got_lines, lines);
        assert_eq!(got.counts, want.counts);
        assert_eq!(
            got.take(),
            want.take(),
            "{}",
            String::from_utf8_lossy(&data)
        );
    }
}

/// One pass for both: the check's facts and counts those of `Order` alone, and the run's
/// state that of `Notables` alone, read as a status reads (terse), whatever the cuts.
#[test]
fn both_hold_what_the_check_and_the_status_hold_each_alone() {
    let mut draw = Draw(0x51af_d7ed_558c_cd1b);
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let options = options(&mut draw);
        let (mut order, lines) = line_by_line(&data, options, Order::default());
        let terse = Options {
            terse: true,
            ..options
        };
        let (mut notables, _) = scanned(&data, terse, Notables::of(terse), &mut draw);
        let mut want = RunState::new();
        want.take_kept(&mut notables, lines, |_| {});
        let (mut both, got_lines) = scanned(&data, options, Both::of(options), &mut draw);
        let mut got = RunState::new();
        got.take_kept(&mut both.notables, got_lines, |_| {});
        let text = String::from_utf8_lossy(&data);
        assert_eq!(got_lines, lines);
        assert_eq!(both.order.counts, order.counts);
        assert_eq!(both.order.take(), order.take(), "{text}");
        assert_eq!(got, want, "{text}");
    }
}

/// A state that digests only the keys some globs pick holds, of those keys, the digests of a
/// state that digests every key; every other key by its name alone, in the order they came.
#[test]
fn a_state_digests_the_keys_its_globs_pick_and_lists_the_rest() {
    let globs = ["loss", "rewards/*", "eval_*"];
    let wanted =
        |key: &str| key == "loss" || key.starts_with("rewards/") || key.starts_with("eval_");
    let mut draw = Draw(0x6a09_e667_f3bc_c908);
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let options = Options {
            terse: true,
            digest: Some(1 + draw.below(6)),
            ..options(&mut draw)
        };
        let (mut every, lines) = scanned(&data, options, Notables::of(options), &mut draw);
        let mut all = RunState::new();
        all.take_kept(&mut every, lines, |_| {});
        let (mut picked, lines) = scanned(&data, options, Notables::of(options), &mut draw);
        let mut only = RunState::new();
        only.digest_only(&globs);
        only.take_kept(&mut picked, lines, |_| {});
        let text = String::from_utf8_lossy(&data);
        let (all, only) = match (all.digests(), only.digests()) {
            (Some(all), Some(only)) => (all, only),
            (all, only) => {
                assert!(all.is_none() && only.is_none(), "{text}");
                continue;
            }
        };
        let names = |digests: &overbrainer_core::digest::Digests| -> Vec<String> {
            digests.keys().map(|(key, _)| key.to_owned()).collect()
        };
        assert_eq!(names(only), names(all), "{text}");
        let shown: Vec<String> = names(all).into_iter().filter(|key| wanted(key)).collect();
        assert_eq!(only.json(None), all.json(Some(&shown)), "{text}");
        for (key, digest) in only.keys() {
            assert!(
                wanted(key) || digest.count() == 0,
                "{key} kept points: {text}"
            );
        }
    }
}

#[test]
fn columns_do_not_depend_on_the_cuts() {
    let mut draw = Draw(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let options = options(&mut draw);
        let batch = 1 + draw.below(12) as u64;
        let (mut want, lines) = line_by_line(&data, options, Columns::new(batch));
        let (mut got, got_lines) = scanned(&data, options, Columns::new(batch), &mut draw);
        assert_eq!(got_lines, lines);
        assert_eq!(got.take(true), want.take(true));
        assert_eq!(
            (got.left_out, got.first_left_out, got.cut),
            (want.left_out, want.first_left_out, want.cut)
        );
    }
}

/// The notables, with the runs of logs joined where only a cut split them: a run of logs
/// or of evaluation lines may be kept as two runs (each keeping what it keeps), so what
/// is compared is what a run's state takes from them, here: every kept line in order, the
/// logs of each run with the ones that decide nothing dropped.
#[test]
fn notables_keep_every_line_but_logs_and_evaluations_that_decide_nothing() {
    let mut draw = Draw(0x1234_5678_9abc_def1);
    let mut with_stats = 0;
    let mut with_digests = 0;
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let options = options(&mut draw);
        let (mut want, lines) = line_by_line(&data, options, Notables::of(options));
        let (mut got, got_lines) = scanned(&data, options, Notables::of(options), &mut draw);
        assert_eq!(got_lines, lines);
        let (want, got) = (want.take(), got.take());
        // Every line that is not a log or an evaluation is kept, the same, in order.
        let others = |kept: &[overbrainer_core::notable::Notable]| {
            kept.iter()
                .filter(|notable| match notable {
                    overbrainer_core::notable::Notable::Logs(_)
                    | overbrainer_core::notable::Notable::Scalars(_)
                    | overbrainer_core::notable::Notable::Alerts(_)
                    | overbrainer_core::notable::Notable::Digests(_) => false,
                    overbrainer_core::notable::Notable::Line { read, .. } => {
                        !matches!(read, overbrainer_core::MetricLine::Eval { .. })
                    }
                    _ => true,
                })
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(others(&got), others(&want));
        // The scalars' stats, kept in pieces where the cuts fall, fold into the same.
        let stats = |kept: &[overbrainer_core::notable::Notable]| {
            let mut all = overbrainer_core::scalars::Stats::default();
            for notable in kept {
                if let overbrainer_core::notable::Notable::Scalars(stats) = notable {
                    all.then(stats.clone());
                }
            }
            all
        };
        assert_eq!(stats(&got), stats(&want));
        // The alerts' segments, cut where the parts fall, join into the same.
        let alerts = |kept: &[overbrainer_core::notable::Notable]| {
            let mut all = overbrainer_core::alerts::Alerts::default();
            for notable in kept {
                if let overbrainer_core::notable::Notable::Alerts(segment) = notable {
                    all.then(segment.clone());
                }
            }
            all.alerts()
        };
        assert_eq!(alerts(&got), alerts(&want));
        // The series' digests, cut where the parts fall, join into the same; asked for, a
        // file with logs has them.
        let digests = joined_digests;
        assert_eq!(digests(&got), digests(&want));
        if options.digest.is_none() {
            assert_eq!(digests(&want), None);
        }
        with_digests += u32::from(digests(&want).map_or(false, |all| all.keys().count() > 0));
        with_stats += u32::from(!stats(&want).is_empty());
        // Every log with an evaluation loss is kept, and the last log of all.
        let logs = |kept: &[overbrainer_core::notable::Notable]| {
            kept.iter()
                .filter_map(|notable| match notable {
                    overbrainer_core::notable::Notable::Logs(logs) => Some(logs.clone()),
                    _ => None,
                })
                .flatten()
                .collect::<Vec<_>>()
        };
        let with_eval = |logs: Vec<overbrainer_core::TrainMetric>| {
            logs.into_iter()
                .filter(|log| log.eval_loss.is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(with_eval(logs(&got)), with_eval(logs(&want)));
        assert_eq!(logs(&got).last(), logs(&want).last());
    }
    assert!(
        with_stats > 100,
        "the drawn files hold scalars: {with_stats} of 300"
    );
    assert!(
        with_digests > 50,
        "the drawn scans digest logs: {with_digests} of 300"
    );
}

/// Digests made `within` a range of steps are the digests of the logs in that range alone:
/// a file's, read in random cuts, equal those of the same file with every log out of the range
/// taken out.
#[test]
fn digests_within_steps_are_those_of_the_logs_in_them() {
    use overbrainer_core::digest::Digests;
    let mut draw = Draw(0x5151_2727_3939_4848);
    let mut kept_some = 0;
    let mut left_some = 0;
    for _ in 0..300 {
        let count = draw.below(60);
        let data = file(&mut draw, count);
        let most = 1 + draw.below(6);
        let first = draw.below(6) as u64;
        let last = first + draw.below(4) as u64;
        let options = Options {
            digest: Some(most),
            digest_steps: None,
            ..options(&mut draw)
        };
        let within = Options {
            digest_steps: Some((first, last)),
            ..options
        };
        // the same file without the logs out of the range (the last line, newline or not, as
        // it was)
        let mut inside = Vec::new();
        let pieces: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
        for (at, piece) in pieces.iter().enumerate() {
            let out = matches!(
                overbrainer_core::read_line(piece),
                Ok(overbrainer_core::MetricLine::Log(metric)) if metric.step < first || metric.step > last
            );
            left_some += u32::from(out);
            if !out {
                inside.extend_from_slice(piece);
                if at + 1 < pieces.len() {
                    inside.push(b'\n');
                }
            }
        }
        let joined = |notables: &mut Notables| {
            joined_digests(&notables.take())
                .map_or_else(|| Digests::new(most).json(None), |all| all.json(None))
        };
        let (mut windowed, _) = scanned(&data, within, Notables::of(within), &mut draw);
        let (mut plain, _) = scanned(&inside, options, Notables::new(Some(most)), &mut draw);
        let (windowed, plain) = (joined(&mut windowed), joined(&mut plain));
        assert_eq!(windowed, plain, "steps {first} to {last}");
        kept_some += u32::from(windowed.as_object().map_or(false, |keys| !keys.is_empty()));
    }
    assert!(kept_some > 50, "digests kept points: {kept_some} of 300");
    assert!(left_some > 50, "logs left out of the range: {left_some}");
}

#[test]
fn a_long_valid_line_is_held_whole_and_junk_is_decided_by_its_start() {
    let padding = "7,".repeat(3 * FIRST_LOOK / 2) + "7";
    let long = format!(
        "{{\"event\":\"log\",\"time\":1.5,\"step\":4,\"samples\":[{padding}],\"loss\":0.25}}\n"
    );
    let mut data = long.clone().into_bytes();
    data.extend(std::iter::repeat(0_u8).take(5 * FIRST_LOOK));
    data.extend_from_slice(b"\n{\"event\":\"end\",\"time\":2,\"step\":4}\n");
    let options = Options::default();
    let (mut want, _) = line_by_line(&data, options, Order::default());
    let mut scan = Scan::new(options, Order::default());
    for chunk in data.chunks(1 << 16) {
        scan.feed(chunk);
    }
    scan.finish();
    let facts = scan.consumer.take();
    assert_eq!(facts, want.take());
    assert_eq!(scan.consumer.counts, [0, 1, 0, 0, 1]);
    match &facts[..] {
        [Fact::Order { line: 1, .. }, Fact::Rejected { line: 2, error }, Fact::Order { line: 3, .. }] =>
        {
            assert_eq!(error.message, "expected value");
            assert_eq!(error.column, Some(1));
        }
        other => panic!("{other:?}"),
    }
}
