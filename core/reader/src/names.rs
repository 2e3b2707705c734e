//! How every face names and orders runs and lays out their metric keys: one rule each, for
//! the command line (`status`, `check`, `export`, `plot`) and the viewer alike.
//!
//! - [`natural_cmp`]: the order of names, the numbers in them compared as numbers (`seed2`
//!   before `seed10`);
//! - [`run_names`]: a run's name, its path below the folder the runs have in common;
//! - [`label_of`]: a key or a name as a label shows it, cut to [`LABEL_CHARS`] characters;
//! - [`patterns_of`], [`pick_keys`], [`sections`]: the metric keys a text of globs picks, in
//!   their order, under a heading per prefix.
//!
//! Names and keys are bytes: a name given by a file system may hold bytes that are not
//! UTF-8 (each face shows them as `\xff`); the rules below read UTF-8 as its code points
//! where they count characters, and compare bytes, which orders UTF-8 as its code points.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::pattern::Pattern;

/// The order of two names: each cut into runs of ASCII digits and runs of other bytes, the
/// runs compared in turn — two runs of digits as the numbers they write (of any length:
/// leading zeros skipped, then the longer is the larger, then digit by digit), two others
/// by their bytes (UTF-8: by code point) — and a name that ends first is the smaller
/// (`seed` < `seed1`). Names equal so (`x01`, `x1`) are ordered by their bytes, so that the
/// order is total and does not depend on the order they came in. Linear in the names.
#[must_use]
pub fn natural_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut left, mut right) = (a, b);
    loop {
        let (text_a, rest_a) = cut(left, |byte| !byte.is_ascii_digit());
        let (text_b, rest_b) = cut(right, |byte| !byte.is_ascii_digit());
        match text_a.cmp(text_b) {
            Ordering::Equal => {}
            other => return other,
        }
        match (rest_a.is_empty(), rest_b.is_empty()) {
            (true, true) => return a.cmp(b),
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let (digits_a, rest_a) = cut(rest_a, |byte| byte.is_ascii_digit());
        let (digits_b, rest_b) = cut(rest_b, |byte| byte.is_ascii_digit());
        match number_cmp(digits_a, digits_b) {
            Ordering::Equal => {}
            other => return other,
        }
        left = rest_a;
        right = rest_b;
    }
}

/// `text` cut where its first byte that is not `kind` stands.
fn cut(text: &[u8], kind: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let at = text
        .iter()
        .position(|&byte| !kind(byte))
        .unwrap_or(text.len());
    text.split_at(at)
}

/// Two runs of ASCII digits compared as the numbers they write.
fn number_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let a = &a[a.iter().take_while(|&&digit| digit == b'0').count()..];
    let b = &b[b.iter().take_while(|&&digit| digit == b'0').count()..];
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The indices of `names` in their natural order ([`natural_cmp`]): `n log n` comparisons.
#[must_use]
pub fn natural_order<T: AsRef<[u8]>>(names: &[T]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| natural_cmp(names[a].as_ref(), names[b].as_ref()));
    order
}

/// What a run's name is made from: its unit (a path with `/` between its folders: a run
/// folder's, a metrics file's of its own name), and whether the path is known (`placed`) or
/// the unit is a name given alone (a file the browser opened without its folder; standard
/// input, `-`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit<'a> {
    pub path: &'a [u8],
    pub placed: bool,
}

/// What a run's name is made from, given its metrics file's path (`/` between its parts):
/// the file's folder when the file's name is one of `metrics_names` (a run folder's metrics
/// file, `metrics.jsonl` or `metrics.jsonl.gz`, stands for its folder), else the file's own
/// path (a metrics file of another name stands for itself), as is a path without a folder.
#[must_use]
pub fn unit_of<'a>(path: &'a [u8], metrics_names: &[&[u8]]) -> &'a [u8] {
    match path.iter().rposition(|&byte| byte == b'/') {
        Some(cut) if metrics_names.contains(&&path[cut + 1..]) => &path[..cut],
        _ => path,
    }
}

/// The name of a run without a folder of its own below the common folder: the common
/// folder itself (a run at the file system's root, `/`).
pub const HERE: &[u8] = b".";

/// The names of runs made from their units: each placed unit its path below the folder the
/// placed ones have in common (the nearest folder holding them all: `nest/exp1/seed1` and
/// `nest/exp2/seed1` are `exp1/seed1` and `exp2/seed1`; one run alone is its last part,
/// `runs/7` is `7`), its parts joined by `/`; a unit given alone is its name as given. Empty
/// parts (`a//b`, a trailing `/`) are no parts. Two names alike (two loose files of one
/// name, a run named `-` beside standard input) get ` (2)`, ` (3)`... after the first,
/// the first count free, so that no two runs share a name. Linear in the units.
#[must_use]
pub fn run_names(units: &[Unit<'_>]) -> Vec<Vec<u8>> {
    run_names_below(units, None)
}

/// [`run_names`], the folder the placed units have in common taken no deeper than `below`
/// (a folder's path, every part of it a folder): a run below a sweep's folder keeps its path
/// below that folder as its name whichever runs are there beside it (`watch SWEEP`, as runs
/// come and go).
#[must_use]
pub fn run_names_below(units: &[Unit<'_>], below: Option<&[u8]>) -> Vec<Vec<u8>> {
    let parts = |path: &'_ [u8]| -> Vec<std::ops::Range<usize>> {
        let mut found = Vec::new();
        let mut start = 0;
        for (at, &byte) in path.iter().enumerate() {
            if byte == b'/' {
                if at > start {
                    found.push(start..at);
                }
                start = at + 1;
            }
        }
        if path.len() > start {
            found.push(start..path.len());
        }
        found
    };
    let split: Vec<Vec<std::ops::Range<usize>>> = units
        .iter()
        .map(|unit| {
            if unit.placed {
                parts(unit.path)
            } else {
                Vec::new()
            }
        })
        .collect();
    // The common folder: the longest run of parts every placed unit's folder (and `below`)
    // begins with, as (a path, its parts, how many of them).
    type Folder<'a> = (&'a [u8], &'a [std::ops::Range<usize>], usize);
    let below_parts = below.map(parts);
    let mut common: Option<Folder<'_>> = below
        .zip(below_parts.as_deref())
        .map(|(path, split)| (path, split, split.len()));
    for (index, unit) in units.iter().enumerate() {
        if !unit.placed {
            continue;
        }
        let folder = split[index].len().saturating_sub(1);
        common = Some(match common {
            None => (unit.path, &split[index], folder),
            Some((path, first, depth)) => {
                let same = first
                    .iter()
                    .zip(&split[index])
                    .take(depth.min(folder))
                    .take_while(|(a, b)| path[(*a).clone()] == unit.path[(*b).clone()])
                    .count();
                (path, first, same)
            }
        });
    }
    let depth = common.map_or(0, |(_, _, depth)| depth);
    let mut taken: HashSet<Vec<u8>> = HashSet::with_capacity(units.len());
    let mut counts: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut names = Vec::with_capacity(units.len());
    for (index, unit) in units.iter().enumerate() {
        let mut name = if unit.placed {
            let mut name = Vec::new();
            for (at, range) in split[index].iter().skip(depth).enumerate() {
                if at > 0 {
                    name.push(b'/');
                }
                name.extend_from_slice(&unit.path[range.clone()]);
            }
            if name.is_empty() {
                name.extend_from_slice(HERE);
            }
            name
        } else {
            unit.path.to_vec()
        };
        if taken.contains(&name) {
            let count = counts.entry(name.clone()).or_insert(1);
            loop {
                *count += 1;
                let mut numbered = name.clone();
                numbered.extend_from_slice(format!(" ({count})").as_bytes());
                if !taken.contains(&numbered) {
                    name = numbered;
                    break;
                }
            }
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

/// The most characters of a key or a run's name shown as a label (a panel's title, its
/// heading, the legend, a tooltip): a longer one is cut to its first `LABEL_CHARS - 1` and
/// an ellipsis, so that laying out costs the same for a key of a megabyte. The data keeps
/// it whole.
pub const LABEL_CHARS: usize = 80;

/// The ellipsis a cut label ends with.
pub const ELLIPSIS: &str = "\u{2026}";

/// `text` as a label shows it: whole when it has at most [`LABEL_CHARS`] characters, else
/// its first `LABEL_CHARS - 1` and [`ELLIPSIS`]. A character is a code point of UTF-8, or
/// one byte that is not UTF-8 (as `surrogateescape` counts it). Reads at most
/// `4 * (LABEL_CHARS + 1)` bytes of `text`.
#[must_use]
pub fn label_of(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut count = 0;
    let mut at = 0;
    let mut cut_at = None;
    while at < text.len() {
        if count == LABEL_CHARS - 1 {
            cut_at = Some(at);
        }
        if count == LABEL_CHARS {
            let mut label = text[..cut_at.unwrap_or(at)].to_vec();
            label.extend_from_slice(ELLIPSIS.as_bytes());
            return std::borrow::Cow::Owned(label);
        }
        at += char_len(&text[at..]);
        count += 1;
    }
    std::borrow::Cow::Borrowed(text)
}

/// The length of the character `text` begins with: its UTF-8 sequence, or one byte where
/// that is not one.
fn char_len(text: &[u8]) -> usize {
    let width = match text.first() {
        Some(0x00..=0x7f) | None => return 1,
        Some(0xc2..=0xdf) => 2,
        Some(0xe0..=0xef) => 3,
        Some(0xf0..=0xf4) => 4,
        Some(_) => return 1,
    };
    match text.get(..width).map(std::str::from_utf8) {
        Some(Ok(_)) => width,
        _ => 1,
    }
}

/// The metric keys drawn when no pattern is given: the losses and the learning rate.
pub const DEFAULT_PATTERNS: &str = "loss,eval_loss,learning_rate";

/// The patterns of a text of globs (`--metric`, the viewer's picker): split at commas, each
/// trimmed of white space, the empty ones dropped.
#[must_use]
pub fn patterns_of(text: &str) -> Vec<&str> {
    text.split(',')
        .map(str::trim)
        .filter(|each| !each.is_empty())
        .collect()
}

/// The keys the globs pick, in their order: for each glob, the keys it matches (the core's
/// glob, [`Pattern::glob`], against the whole key) that no glob before it did, sorted by
/// their bytes (code points); each key once. A glob the core refuses picks none. Each glob
/// is matched against each key once, in time linear in both.
#[must_use]
pub fn pick_keys<'k, T: AsRef<[u8]>>(globs: &[&str], keys: &'k [T]) -> Vec<&'k [u8]> {
    let mut sorted: Vec<&[u8]> = keys.iter().map(AsRef::as_ref).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut taken = vec![false; sorted.len()];
    let mut picked = Vec::new();
    for glob in globs {
        let pattern = match Pattern::glob(glob) {
            Ok(pattern) => pattern,
            Err(_) => continue,
        };
        for (at, key) in sorted.iter().enumerate() {
            if !taken[at] && pattern.is_match(key) {
                taken[at] = true;
                picked.push(*key);
            }
        }
    }
    picked
}

/// A key's heading: its text before its last `/`; empty for a key without one.
#[must_use]
pub fn prefix_of(key: &[u8]) -> &[u8] {
    key.iter()
        .rposition(|&byte| byte == b'/')
        .map_or(&key[..0], |at| &key[..at])
}

/// The picked keys under their headings ([`prefix_of`]): the keys without `/` first (heading
/// empty), then each prefix in the order its first key was picked; in each, the keys in the
/// order picked. Each section is its heading and the indices of its keys in `picked`.
#[must_use]
pub fn sections<T: AsRef<[u8]>>(picked: &[T]) -> Vec<(&[u8], Vec<usize>)> {
    let mut found: Vec<(&[u8], Vec<usize>)> = vec![(&[][..], Vec::new())];
    let mut by_prefix: HashMap<&[u8], usize> = HashMap::new();
    by_prefix.insert(&[][..], 0);
    for (index, key) in picked.iter().enumerate() {
        let prefix = prefix_of(key.as_ref());
        let at = *by_prefix.entry(prefix).or_insert_with(|| {
            found.push((prefix, Vec::new()));
            found.len() - 1
        });
        found[at].1.push(index);
    }
    found.retain(|(_, keys)| !keys.is_empty());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted<'a>(names: &[&'a str]) -> Vec<&'a str> {
        natural_order(names)
            .into_iter()
            .map(|at| names[at])
            .collect()
    }

    #[test]
    fn numbers_are_ordered_as_numbers_and_the_rest_by_code_point() {
        let names = [
            "seed10",
            "seed2",
            "seed1",
            "a/seed2",
            "a/seed10",
            "b",
            "B",
            "lr1e-4-seed12",
            "lr1e-4-seed3",
            "é",
            "z",
            "10",
            "9",
            "",
            "ü10",
            "ü2",
            "a!1",
            "a1",
        ];
        assert_eq!(
            sorted(&names),
            [
                "",
                "9",
                "10",
                "B",
                "a1",
                "a!1",
                "a/seed2",
                "a/seed10",
                "b",
                "lr1e-4-seed3",
                "lr1e-4-seed12",
                "seed1",
                "seed2",
                "seed10",
                "z",
                "é",
                "ü2",
                "ü10",
            ]
        );
    }

    #[test]
    fn leading_zeros_are_the_same_number_and_ties_go_by_bytes() {
        assert_eq!(natural_cmp(b"x01", b"x1"), Ordering::Less); // `0` < `1`, the same number
        assert_eq!(natural_cmp(b"x1", b"x01"), Ordering::Greater);
        assert_eq!(natural_cmp(b"x001a", b"x1b"), Ordering::Less); // 1 = 1, then a < b
        assert_eq!(natural_cmp(b"x2", b"x0010"), Ordering::Less);
        assert_eq!(natural_cmp(b"same", b"same"), Ordering::Equal);
        assert_eq!(natural_cmp(b"", b""), Ordering::Equal);
        assert_eq!(natural_cmp(b"", b"0"), Ordering::Less);
        assert_eq!(
            sorted(&["x1", "x01", "x001", "x1"]),
            ["x001", "x01", "x1", "x1"]
        );
    }

    #[test]
    fn a_digit_run_of_any_length_is_compared_without_overflow() {
        let huge = format!("run{}", "9".repeat(100_000));
        let huger = format!("run1{}", "0".repeat(100_000));
        let zeros = format!("run{}{}", "0".repeat(100_000), "9".repeat(100_000));
        assert_eq!(
            natural_cmp(huge.as_bytes(), huger.as_bytes()),
            Ordering::Less
        );
        assert_eq!(
            natural_cmp(huge.as_bytes(), zeros.as_bytes()),
            Ordering::Greater
        );
        assert_eq!(
            natural_cmp(b"run18446744073709551616", b"run18446744073709551615"),
            Ordering::Greater
        );
    }

    #[test]
    fn digits_of_other_scripts_and_bytes_not_utf8_are_text() {
        // `١٢` (Arabic-Indic 12) is not a number here: compared by code point after ASCII.
        assert_eq!(
            sorted(&["\u{661}\u{662}", "12", "2"]),
            ["2", "12", "\u{661}\u{662}"]
        );
        assert_eq!(natural_cmp(b"a\xff2", b"a\xff10"), Ordering::Less);
        assert_eq!(natural_cmp(b"a\xff", b"a\xc3\xa9"), Ordering::Greater);
    }

    #[test]
    fn a_metrics_file_of_a_run_folder_stands_for_its_folder() {
        let names: [&[u8]; 2] = [b"metrics.jsonl", b"metrics.jsonl.gz"];
        assert_eq!(unit_of(b"runs/7/metrics.jsonl", &names), b"runs/7");
        assert_eq!(unit_of(b"runs/7/metrics.jsonl.gz", &names), b"runs/7");
        assert_eq!(
            unit_of(b"runs/7/other.jsonl", &names),
            b"runs/7/other.jsonl"
        );
        assert_eq!(unit_of(b"metrics.jsonl", &names), b"metrics.jsonl");
        assert_eq!(unit_of(b"/metrics.jsonl", &names), b"");
        assert_eq!(unit_of(b"", &names), b"");
    }

    fn placed(path: &str) -> Unit<'_> {
        Unit {
            path: path.as_bytes(),
            placed: true,
        }
    }

    fn names(units: &[Unit<'_>]) -> Vec<String> {
        run_names(units)
            .into_iter()
            .map(|name| String::from_utf8(name).unwrap())
            .collect()
    }

    #[test]
    fn a_run_is_named_by_its_path_below_the_common_folder() {
        assert_eq!(names(&[placed("runs/a"), placed("runs/b")]), ["a", "b"]);
        assert_eq!(
            names(&[placed("/w/nest/exp1/seed1"), placed("/w/nest/exp2/seed1")]),
            ["exp1/seed1", "exp2/seed1"]
        );
        assert_eq!(names(&[placed("/home/u/runs/7")]), ["7"]);
        assert_eq!(names(&[placed("tiny-run")]), ["tiny-run"]);
        assert_eq!(
            names(&[placed("/r/7/other.jsonl"), placed("/r/7")]),
            ["7/other.jsonl", "7"]
        );
        assert_eq!(names(&[placed("a//b/"), placed("a/c")]), ["b", "c"]);
        assert_eq!(names(&[placed("/")]), ["."]);
        assert_eq!(names(&[]), Vec::<String>::new());
    }

    #[test]
    fn below_a_folder_a_run_keeps_its_path_below_it_whichever_runs_are_there() {
        let below = |units: &[Unit<'_>], folder: &str| -> Vec<String> {
            run_names_below(units, Some(folder.as_bytes()))
                .into_iter()
                .map(|name| String::from_utf8(name).unwrap())
                .collect()
        };
        // alone, a run is its last part; below the sweep, its path below it
        assert_eq!(names(&[placed("/s/lr1/seed1")]), ["seed1"]);
        assert_eq!(below(&[placed("/s/lr1/seed1")], "/s"), ["lr1/seed1"]);
        assert_eq!(
            below(&[placed("/s/lr1/seed1"), placed("/s/lr2/seed1")], "/s/"),
            ["lr1/seed1", "lr2/seed1"]
        );
        // a run folder that is the folder itself (it lies in `/`), and a run outside it: the
        // folders they have in common
        assert_eq!(below(&[placed("/s")], "/s"), ["s"]);
        assert_eq!(
            below(&[placed("/s/a"), placed("/t/b")], "/s"),
            ["s/a", "t/b"]
        );
        // a loose name is kept; with no placed unit, the folder changes nothing
        let loose = Unit {
            path: b"-",
            placed: false,
        };
        assert_eq!(below(&[loose], "/s"), ["-"]);
    }

    #[test]
    fn names_alike_are_numbered_and_a_loose_name_is_kept() {
        let loose = Unit {
            path: b"metrics.jsonl",
            placed: false,
        };
        assert_eq!(
            names(&[placed("x/a"), placed("y/b"), loose, loose]),
            ["x/a", "y/b", "metrics.jsonl", "metrics.jsonl (2)"]
        );
        let stdin = Unit {
            path: b"-",
            placed: false,
        };
        assert_eq!(names(&[stdin, placed("/w/-")]), ["-", "- (2)"]);
        let taken = Unit {
            path: b"a (2)",
            placed: false,
        };
        let a = Unit {
            path: b"a",
            placed: false,
        };
        assert_eq!(names(&[a, taken, a, a]), ["a", "a (2)", "a (3)", "a (4)"]);
    }

    #[test]
    fn bytes_not_utf8_stay_in_a_name() {
        let units = [
            Unit {
                path: b"/w/s\xffx/1",
                placed: true,
            },
            Unit {
                path: b"/w/s\xffx/2",
                placed: true,
            },
        ];
        assert_eq!(run_names(&units), [b"1".to_vec(), b"2".to_vec()]);
        let odd = [
            Unit {
                path: b"/w/\xff",
                placed: true,
            },
            Unit {
                path: b"/w/b",
                placed: true,
            },
        ];
        assert_eq!(run_names(&odd), [b"\xff".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn a_long_label_is_cut_to_its_characters_and_an_ellipsis() {
        let long = "k".repeat(300_000);
        assert_eq!(
            &*label_of(long.as_bytes()),
            format!("{}\u{2026}", "k".repeat(79)).as_bytes()
        );
        let accents = "é".repeat(80);
        assert_eq!(&*label_of(accents.as_bytes()), accents.as_bytes());
        let faces = "😀".repeat(81);
        assert_eq!(
            &*label_of(faces.as_bytes()),
            format!("{}\u{2026}", "😀".repeat(79)).as_bytes()
        );
        let bytes = [b'\xff'; 81];
        let mut want = vec![b'\xff'; 79];
        want.extend_from_slice(ELLIPSIS.as_bytes());
        assert_eq!(&*label_of(&bytes), &want[..]);
        assert_eq!(&*label_of(b""), b"");
        assert_eq!(label_of(&[b'x'; 80]).len(), 80);
    }

    #[test]
    fn globs_pick_keys_in_their_order_each_once() {
        let keys = [
            "loss",
            "eval_loss",
            "learning_rate",
            "rewards/chosen",
            "rewards/rejected",
            "train/x",
            "train/y/z",
            "eval_accuracy",
            "loss",
        ];
        let picked = pick_keys(
            &[
                "rewards/*",
                "eval_*",
                "*loss",
                "rewards/chosen",
                "[",
                "nothing",
            ],
            &keys,
        );
        let picked: Vec<&str> = picked
            .iter()
            .map(|key| std::str::from_utf8(key).unwrap())
            .collect();
        assert_eq!(
            picked,
            [
                "rewards/chosen",
                "rewards/rejected",
                "eval_accuracy",
                "eval_loss",
                "loss"
            ]
        );
        // A glob past the core's bounds is refused: it picks none, the next glob goes on.
        let refused = "[a]".repeat(400_000);
        assert!(Pattern::glob(&refused).is_err());
        assert_eq!(pick_keys(&[refused.as_str(), "loss"], &keys), [b"loss"]);
        assert_eq!(pick_keys(&patterns_of(DEFAULT_PATTERNS), &keys).len(), 3);
        assert!(pick_keys::<&str>(&["*"], &[]).is_empty());
    }

    #[test]
    fn a_text_of_globs_is_split_at_commas_and_trimmed() {
        assert_eq!(patterns_of(" loss, eval_*,,  "), ["loss", "eval_*"]);
        assert!(patterns_of(" , ").is_empty());
        assert_eq!(
            patterns_of(DEFAULT_PATTERNS),
            ["loss", "eval_loss", "learning_rate"]
        );
    }

    #[test]
    fn keys_are_laid_out_under_their_prefixes() {
        let picked = [
            "rewards/a",
            "loss",
            "train/y/z",
            "rewards/b",
            "train/x",
            "eval_loss",
        ];
        let laid: Vec<(&[u8], Vec<usize>)> = sections(&picked);
        assert_eq!(
            laid,
            [
                (&b""[..], vec![1, 5]),
                (&b"rewards"[..], vec![0, 3]),
                (&b"train/y"[..], vec![2]),
                (&b"train"[..], vec![4]),
            ]
        );
        assert!(sections::<&str>(&[]).is_empty());
        assert_eq!(prefix_of(b"/x"), b"");
        assert_eq!(prefix_of(b"a/"), b"a");
    }
}
