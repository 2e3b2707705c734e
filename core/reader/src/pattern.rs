//! The patterns a user gives over names and keys: a regular expression (`--only`,
//! `--group`, the viewer's groups) searched for anywhere in a run's name, and a glob
//! (`--metric`, the viewer's picker: fnmatch's `*`, `?`, `[...]`) matched against a whole
//! metric key. Both are matched by Rust's `regex` crate, in time linear in the pattern and
//! the text together (finite automata, no backtracking), for every language the core
//! serves: the command line and the viewer match alike.
//!
//! A pattern is refused, not built, when its parse nests deeper than [`NEST_LIMIT`] or its
//! compiled program would take more than [`SIZE_LIMIT`] bytes (`a{99999999999}`,
//! `(((...)))` two thousand deep); the refusal is one line of text ([`Pattern::regex`]).
//! Names and keys are matched as bytes: a name's bytes that are not UTF-8 are matched by
//! an escape of their own (`(?-u:\xFF)`), never by `.` or a class.

use regex::bytes::{Regex, RegexBuilder};

/// The most bytes a pattern's compiled program may take (the crate's own default is ten
/// times this): far above any pattern written by hand, refused long before it costs.
pub const SIZE_LIMIT: usize = 1 << 20;

/// The most bytes the lazy automaton's cache of a pattern may take; past it, the match
/// goes on by the slower automaton, still linear.
pub const DFA_SIZE_LIMIT: usize = 2 << 20;

/// The deepest nesting of groups, classes and repetitions a pattern may have: the parse and
/// the compilation walk it by recursion, on a WebAssembly stack too.
pub const NEST_LIMIT: u32 = 100;

/// A pattern, compiled: a regular expression searched for in a text, or a glob matched
/// against the whole of it.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Regex,
    /// Whether the expression has a capture group: a group's key is then its first.
    groups: bool,
}

impl Pattern {
    /// A regular expression in the `regex` crate's syntax, searched for anywhere in a text.
    ///
    /// # Errors
    ///
    /// Returns why the pattern is refused, in one line: its syntax, or its size past
    /// [`SIZE_LIMIT`] or [`NEST_LIMIT`].
    pub fn regex(text: &str) -> Result<Self, String> {
        let regex = RegexBuilder::new(text)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .nest_limit(NEST_LIMIT)
            .build()
            .map_err(|error| one_line(&error))?;
        let groups = regex.captures_len() > 1;
        Ok(Self { regex, groups })
    }

    /// A glob as `fnmatch.fnmatchcase` reads one, matched against the whole of a text: `*`
    /// any run of characters (`/` and newlines included), `?` one character, `[abc]`,
    /// `[a-z]` a class and `[!abc]` its complement (a range written backwards is no
    /// member; `]` first in a class is a member; a `[` never closed is itself), any other
    /// character itself, case counting.
    ///
    /// # Errors
    ///
    /// Returns why the glob is refused (a glob of thousands of classes past
    /// [`SIZE_LIMIT`]), in one line.
    pub fn glob(text: &str) -> Result<Self, String> {
        Self::regex(&glob_regex(text)).map(|pattern| Self {
            groups: false,
            ..pattern
        })
    }

    /// The expression's text, as given (a glob's: its translation).
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.regex.as_str()
    }

    /// Whether the expression has a capture group.
    #[must_use]
    pub const fn groups(&self) -> bool {
        self.groups
    }

    /// Whether the pattern matches `text` (a regular expression anywhere in it, a glob the
    /// whole of it).
    #[must_use]
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.regex.is_match(text)
    }

    /// The key of `text`'s group, where the pattern matches it: the text of the first
    /// capture group when the expression has one (empty when that group took no part in
    /// the match), else the whole match; `None` where it does not match.
    #[must_use]
    pub fn key<'t>(&self, text: &'t [u8]) -> Option<&'t [u8]> {
        if !self.groups {
            return self.regex.find(text).map(|found| found.as_bytes());
        }
        let captures = self.regex.captures(text)?;
        Some(captures.get(1).map_or(&[][..], |group| group.as_bytes()))
    }
}

/// A refusal of the crate's in one line: a syntax error's last line (the crate's message
/// draws the pattern and a caret above it), its size as said.
fn one_line(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text.lines().rev().find(|line| !line.trim().is_empty());
    let line = last.unwrap_or("not a regular expression").trim();
    line.strip_prefix("error: ").unwrap_or(line).to_owned()
}

/// The regular expression of a glob: fnmatch's translation, anchored at both ends, in the
/// crate's syntax (every character of the glob's own escaped).
fn glob_regex(glob: &str) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::from(r"(?s)\A(?:");
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' => match class_end(&chars, i) {
                None => out.push_str(r"\["),
                Some(end) => {
                    out.push_str(&class_regex(&chars[i..end]));
                    i = end + 1;
                }
            },
            _ => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push_str(r")\z");
    out
}

/// Where the class opened before `start` closes: the `]` after an optional `!` and an
/// optional first `]` (both members then); `None` when it never does.
fn class_end(chars: &[char], start: usize) -> Option<usize> {
    let mut j = start;
    if chars.get(j) == Some(&'!') {
        j += 1;
    }
    if chars.get(j) == Some(&']') {
        j += 1;
    }
    chars
        .get(j..)?
        .iter()
        .position(|&c| c == ']')
        .map(|at| j + at)
}

/// A glob's class (what is between its brackets) as the crate's class: each member a
/// character or a range `a-z`, escaped; a range written backwards no member. No member
/// matches nothing; `[!]` (the complement of none) any character.
fn class_regex(inside: &[char]) -> String {
    let (negated, inside) = match inside.split_first() {
        Some(('!', rest)) => (true, rest),
        _ => (false, inside),
    };
    let mut members = String::new();
    let mut k = 0;
    while let Some(&first) = inside.get(k) {
        match (inside.get(k + 1), inside.get(k + 2)) {
            (Some('-'), Some(&last)) => {
                if first <= last {
                    members.push_str(&escaped(first));
                    members.push('-');
                    members.push_str(&escaped(last));
                }
                k += 3;
            }
            _ => {
                members.push_str(&escaped(first));
                k += 1;
            }
        }
    }
    match (members.is_empty(), negated) {
        (true, true) => ".".to_owned(),
        // a class of no character: nothing matches it. The crate refuses an empty class; a
        // byte that no UTF-8 text holds stands for it (keys are UTF-8 text)
        (true, false) => r"(?-u:\xFF)".to_owned(),
        (false, true) => format!("[^{members}]"),
        (false, false) => format!("[{members}]"),
    }
}

/// A character as a member of the crate's class, matched as itself.
fn escaped(c: char) -> String {
    regex::escape(c.encode_utf8(&mut [0; 4]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(text: &str) -> Pattern {
        Pattern::glob(text).expect("a glob")
    }

    #[test]
    fn a_pattern_past_the_bounds_is_refused_in_one_line() {
        let nested = format!("{}a{}", "(".repeat(2000), ")".repeat(2000));
        for text in [
            "a{99999999999}",
            "(",
            "a{1000}{1000}",
            nested.as_str(),
            "[z-a]",
        ] {
            let refused = Pattern::regex(text).expect_err(text);
            assert!(!refused.is_empty() && !refused.contains('\n'), "{refused}");
        }
        assert!(Pattern::regex(&nested).unwrap_err().contains("nest"));
        assert!(Pattern::regex("a{1000}{1000}")
            .unwrap_err()
            .contains("size limit"));
    }

    #[test]
    fn a_pattern_that_backtracks_elsewhere_is_answered_in_one_pass() {
        // a backtracking engine tries every split of the a's between the two `+`
        let pattern = Pattern::regex("(a+)+$").expect("a pattern");
        let mut name = vec![b'a'; 100_000];
        name.push(b'!');
        assert!(!pattern.is_match(&name));
        assert_eq!(pattern.key(&name), None);
        name.pop();
        // the first iteration of the group takes every `a`: the key is the whole name
        assert_eq!(pattern.key(&name), Some(&name[..]));
    }

    #[test]
    fn a_groups_key_is_its_first_capture_group_else_the_match() {
        let captured = Pattern::regex(r"lr(\d)").expect("a pattern");
        assert!(captured.groups());
        assert_eq!(captured.key(b"a-lr1-s2"), Some(&b"1"[..]));
        assert_eq!(captured.key(b"solo"), None);
        let whole = Pattern::regex(r"lr\d").expect("a pattern");
        assert!(!whole.groups());
        assert_eq!(whole.key(b"a-lr1-s2"), Some(&b"lr1"[..]));
        // a first group that takes no part in the match: the empty key
        let either = Pattern::regex(r"(x)|seed").expect("a pattern");
        assert_eq!(either.key(b"seed1"), Some(&b""[..]));
        assert!(Pattern::regex("(?:a)")
            .map(|p| !p.groups())
            .unwrap_or(false));
    }

    #[test]
    fn a_name_is_matched_as_bytes_anywhere_in_it() {
        let pattern = Pattern::regex(r"(?-u:\xFF)b").expect("a pattern");
        assert!(pattern.is_match(b"a\xFFb"));
        assert!(!Pattern::regex("^a.b$")
            .expect("a pattern")
            .is_match(b"a\xFFb"));
        assert!(Pattern::regex("seed1$").expect("a").is_match(b"x/seed1"));
        assert!(!Pattern::regex("seed1$").expect("a").is_match(b"x/seed1\n"));
    }

    #[test]
    fn a_glob_matches_as_fnmatchcase() {
        // each glob, the keys it matches among these, reasoned from fnmatch's rules
        let keys = [
            "loss",
            "eval_loss",
            "a]b",
            "a-b",
            "a.b",
            "x[1]",
            "x!",
            "*",
            "?",
            "[",
            "a\nb",
            "Ünï/ß",
        ];
        let cases: [(&str, &[&str]); 16] = [
            ("*", &keys),
            ("?", &["*", "?", "["]),
            ("*loss", &["loss", "eval_loss"]),
            ("a?b", &["a]b", "a-b", "a.b", "a\nb"]),
            ("a[.-]b", &["a-b", "a.b"]),
            ("a[]]b", &["a]b"]),
            ("a[!]]b", &["a-b", "a.b", "a\nb"]),
            ("x[[]1]", &["x[1]"]),
            ("x[1", &[]),
            ("[", &["["]),
            ("[!]", &[]),
            ("[z-a]*", &[]),
            ("[*]", &["*"]),
            ("\\*", &[]),
            ("Ü*", &["Ünï/ß"]),
            ("x[!a-z]", &["x!"]),
        ];
        for (text, want) in cases {
            let pattern = glob(text);
            let got: Vec<&str> = keys
                .iter()
                .copied()
                .filter(|key| pattern.is_match(key.as_bytes()))
                .collect();
            assert_eq!(got, want.to_vec(), "glob {text:?}");
            assert!(!pattern.groups());
        }
    }

    #[test]
    fn a_glob_of_many_stars_is_answered_in_one_pass() {
        let pattern = glob(&format!("{}*b", "*a".repeat(50)));
        let key = "a".repeat(300_000);
        assert!(!pattern.is_match(key.as_bytes()));
    }
}
