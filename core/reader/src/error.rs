//! A line the reference rejects: its error as serde_json gives it, and where it lies.
//!
//! `category`, `message` and `column` are the reference's own (`serde_json::Error`'s
//! `classify()`, its text without the position, its position). The reference's data errors
//! met while building a variant from its buffer (a field missing, written twice or of the
//! wrong type) carry no position: their `column` is `None`, as in the reference.
//!
//! `path` is this project's: the JSON path of the value at fault (`$.step`, `$.x.y[2]`, `$`
//! for the line as a whole, `None` after the value: trailing characters). The reference does
//! not give one; `locate` finds it by walking the line again once it is known to be bad.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value as Json;

use crate::generated::{FIELDS, TAGS, TAG_FIELD};
use crate::values::Kind;

/// `serde_json::error::Category`, and two of the input's own: bytes that are not UTF-8 (the
/// reference takes `&str`) are a syntax error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Io,
    Syntax,
    Data,
    Eof,
}

impl Category {
    /// The name the contract gives the category (`syntax`, `eof`, `data`, `io`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Io => "io",
            Self::Syntax => "syntax",
            Self::Data => "data",
            Self::Eof => "eof",
        }
    }
}

/// Whether a line the reference rejects with `category` is cut short rather than invalid:
/// the input's last line, without its newline (`complete` false), rejected `eof` (the value
/// ends before its end). It is a line still being written (or a run killed while writing
/// it), not one no byte can mend: `check` warns of it, `status` calls it partial, `watch`
/// says nothing of it and a table leaves it out uncounted. The one rule for every reader.
#[must_use]
pub const fn is_cut(complete: bool, category: Category) -> bool {
    !complete && matches!(category, Category::Eof)
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A JSON path from the line's value (`$`), written by its `Display` (`render`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Path(pub Vec<Segment>);

impl Path {
    /// `$.key` for a key that is an `identifier`, `$[2]`; any other key is written `$["a b"]`,
    /// quoted with its backslashes and quotes escaped.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::from("$");
        for segment in &self.0 {
            match segment {
                Segment::Key(key) => push_key(&mut out, key),
                Segment::Index(index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

impl fmt::Display for Path {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.render())
    }
}

/// Whether a JSON path writes `key` after a dot: an identifier by Unicode's XID properties
/// (UAX #31), `_` or an `XID_Start` character, then `XID_Continue` characters. The tables are
/// `unicode-ident`'s, one Unicode version for every language the core serves, so that a key
/// has one path whatever Unicode version a runtime's own tables follow.
#[must_use]
pub fn identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .map_or(false, |c| c == '_' || unicode_ident::is_xid_start(c))
        && chars.all(unicode_ident::is_xid_continue)
}

fn push_key(out: &mut String, key: &str) {
    if identifier(key) {
        out.push('.');
        out.push_str(key);
    } else {
        out.push_str("[\"");
        out.push_str(&key.replace('\\', "\\\\").replace('"', "\\\""));
        out.push_str("\"]");
    }
}

/// A line the reference rejects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub category: Category,
    /// The reference's message, without its position.
    pub message: String,
    /// Where the reference found the error, in bytes from the line's start, from 1 (serde_json
    /// counts the byte it stopped at); `None` where the reference gives no position.
    pub column: Option<usize>,
    /// The JSON path of the value at fault; `None` after the value.
    pub path: Option<Path>,
    /// The token a syntax error lies on when it is `NaN`, `Infinity` or `-Infinity`: what
    /// Python's `json.dumps` writes for a float that is not finite, and JSON refuses (the
    /// reference's words stay as they are; a face may say what the token is beside them).
    pub nonfinite: Option<&'static str>,
}

/// The token at `column` (1-based, in bytes) of `line` when it is `NaN`, `Infinity` or
/// `-Infinity` (serde_json points at the token itself, past the sign of `-Infinity`).
#[must_use]
pub fn nonfinite_token(line: &[u8], column: usize) -> Option<&'static str> {
    let at = column.checked_sub(1)?;
    let rest = line.get(at..)?;
    if rest.starts_with(b"NaN") {
        Some("NaN")
    } else if rest.starts_with(b"-Infinity") {
        Some("-Infinity")
    } else if rest.starts_with(b"Infinity") {
        Some(if at > 0 && line.get(at - 1) == Some(&b'-') {
            "-Infinity"
        } else {
            "Infinity"
        })
    } else {
        None
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.message)?;
        if let Some(column) = self.column {
            write!(formatter, " at column {column}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The JSON path of the value at fault as every face of the core writes it (`$.step`,
    /// `$.x["a b"][2]`); `None` after the value.
    #[must_use]
    pub fn rendered_path(&self) -> Option<String> {
        self.path.as_ref().map(Path::render)
    }

    /// Bytes that are not UTF-8, from the first bad byte (`valid` bytes before it).
    #[must_use]
    pub fn utf8(valid: usize) -> Self {
        Self {
            category: Category::Syntax,
            message: "invalid UTF-8".to_owned(),
            column: Some(valid + 1),
            path: None,
            nonfinite: None,
        }
    }

    /// The category of serde_json's `error`.
    #[must_use]
    pub fn category_of(error: &serde_json::Error) -> Category {
        match error.classify() {
            serde_json::error::Category::Io => Category::Io,
            serde_json::error::Category::Syntax => Category::Syntax,
            serde_json::error::Category::Data => Category::Data,
            serde_json::error::Category::Eof => Category::Eof,
        }
    }

    /// The reference's `error` on `text`, placed: its path located (`locate`).
    #[must_use]
    pub fn from_serde(text: &str, error: &serde_json::Error) -> Self {
        let mut found = Self::unlocated(text, error);
        found.path = locate(text, found.category, &found.message, found.column.is_some());
        found
    }

    /// The reference's `error` on `text` with its column and words, its path not located
    /// (`None`): for a face that locates it only when it is asked for (`crate::path_of`),
    /// since walking the line again costs more than the rest of the error.
    #[must_use]
    pub fn unlocated(text: &str, error: &serde_json::Error) -> Self {
        let category = Self::category_of(error);
        let message = message_of(error);
        let column = if error.line() == 0 {
            None
        } else {
            Some(line_start(text, error.line()) + error.column())
        };
        let nonfinite = match (category, column) {
            (Category::Syntax, Some(column)) => nonfinite_token(text.as_bytes(), column),
            _ => None,
        };
        Self {
            category,
            message,
            column,
            path: None,
            nonfinite,
        }
    }
}

/// serde_json's text of `error` without the position it writes last (" at line {line} column
/// {column}", where it has one): its `Display`, stopped at the position's first piece, so that
/// the numbers are not written only to be cut off.
fn message_of(error: &serde_json::Error) -> String {
    struct UpToPosition(String);

    impl fmt::Write for UpToPosition {
        fn write_str(&mut self, piece: &str) -> fmt::Result {
            if piece == POSITION {
                return Err(fmt::Error); // the position follows: stop
            }
            self.0.push_str(piece);
            Ok(())
        }
    }

    const POSITION: &str = " at line ";
    let mut message = UpToPosition(String::with_capacity(64));
    let stopped = fmt::write(&mut message, format_args!("{error}")).is_err();
    let mut message = message.0;
    if !stopped && error.line() != 0 {
        // written in pieces other than serde_json 1.0.87's: the position cut off its text
        if let Some(at) = message.rfind(POSITION) {
            message.truncate(at);
        }
    }
    message
}

/// Bytes before the start of line `line` (from 1) of `text`.
fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0; // the usual case: a line of the file holds no newline
    }
    text.bytes()
        .enumerate()
        .filter(|&(_, byte)| byte == b'\n')
        .nth(line - 2)
        .map_or(0, |(at, _)| at + 1)
}

/// The path of the value at fault in a rejected line.
fn locate(text: &str, category: Category, message: &str, placed: bool) -> Option<Path> {
    if message == "trailing characters" {
        return None;
    }
    let top = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if category != Category::Data {
        return Some(walk_path(text));
    }
    if placed {
        // Met while filling the buffer: the tag, or the line's own type.
        let tag = message == format!("duplicate field `{TAG_FIELD}`")
            || message.starts_with("unknown variant")
            || message.ends_with("expected variant identifier");
        return Some(Path(match (tag, top.starts_with('[')) {
            (false, _) => vec![],
            (true, true) => vec![Segment::Index(0)],
            (true, false) => vec![Segment::Key(TAG_FIELD.to_owned())],
        }));
    }
    // Met while building the variant from the buffer: the whole line is JSON, an array
    // (the sequence form) or an object.
    Some(Path(if top.starts_with('[') {
        serde_json::from_str::<Vec<Json>>(text)
            .map_or_else(|_| vec![], |items| in_sequence(&items, message))
    } else {
        in_object(text)
    }))
}

/// The path at which serde_json's parser stops, walking the line as the buffer is filled.
fn walk_path(text: &str) -> Path {
    let stack = RefCell::new(Vec::new());
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let _ = Tracked { stack: &stack }.deserialize(&mut deserializer);
    Path(stack.into_inner())
}

/// Any value, walked with `deserialize_any`, its current path kept in `stack`: a key's
/// segment is pushed once its colon is read, an element's once it is known to come.
#[derive(Clone, Copy)]
struct Tracked<'s> {
    stack: &'s RefCell<Vec<Segment>>,
}

impl<'de> DeserializeSeed<'de> for Tracked<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

struct Under<'s>(Tracked<'s>, Segment);

impl<'de> DeserializeSeed<'de> for Under<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.stack.borrow_mut().push(self.1);
        deserializer.deserialize_any(self.0)?;
        self.0.stack.borrow_mut().pop();
        Ok(())
    }
}

struct KeyText;

impl<'de> Visitor<'de> for KeyText {
    type Value = String;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<String, E> {
        Ok(key.to_owned())
    }
}

struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyText).map(Key)
    }
}

impl<'de> Visitor<'de> for Tracked<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(Under(self, Segment::Index(index)))?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key::<Key>()? {
            map.next_value_seed(Under(self, Segment::Key(key)))?;
        }
        Ok(())
    }
}

/// Whether `value` is one the reference's buffer gives a field of `kind` (serde's
/// `ContentDeserializer`: any number for `f64`, an integer from 0 for `u64`, null for an
/// `Option`; a stage's name, or a one-key map from it to null or `{}`).
fn fits(kind: Kind, value: &Json) -> bool {
    match (kind, value) {
        (Kind::OptF64 | Kind::OptU64, Json::Null) => true,
        (Kind::F64 | Kind::OptF64, Json::Number(_)) => true,
        (Kind::U64 | Kind::OptU64, Json::Number(number)) => number.is_u64(),
        (Kind::Stage, Json::String(name)) => stage_name(name),
        (Kind::Stage, Json::Object(map)) => {
            map.len() == 1
                && map.iter().all(|(name, value)| {
                    stage_name(name)
                        && match value {
                            Json::Null => true,
                            Json::Object(inner) => inner.is_empty(),
                            _ => false,
                        }
                })
        }
        _ => false,
    }
}

fn stage_name(name: &str) -> bool {
    crate::generated::JobStage::ALL
        .iter()
        .any(|stage| stage.name() == name)
}

/// The variant a tag names.
fn variant_of(tag: &Json) -> Option<usize> {
    let tag = tag.as_str()?;
    TAGS.iter().position(|name| *name == tag)
}

/// The first element at fault in a line written as an array: tag, then fields in order.
fn in_sequence(items: &[Json], message: &str) -> Vec<Segment> {
    let variant = match items.first().map(variant_of) {
        None => return vec![],
        Some(None) => return vec![Segment::Index(0)],
        Some(Some(variant)) => variant,
    };
    let fields = FIELDS[variant];
    if message.starts_with("invalid length") {
        return vec![Segment::Index(items.len().min(fields.len() + 1))];
    }
    items
        .iter()
        .skip(1)
        .zip(fields)
        .position(|(value, &(_, kind))| !fits(kind, value))
        .map_or_else(Vec::new, |at| vec![Segment::Index(at + 1)])
}

/// The first entry at fault in a line written as an object, in the order serde's derived
/// visitor meets them: a field of the variant written twice, or of a value it refuses.
fn in_object(text: &str) -> Vec<Segment> {
    let entries = match serde_json::from_str::<Entries>(text) {
        Ok(entries) => entries,
        Err(_) => return vec![],
    };
    let variant = entries
        .0
        .iter()
        .find(|(key, _)| key == TAG_FIELD)
        .and_then(|(_, tag)| variant_of(tag));
    let variant = match variant {
        Some(variant) => variant,
        None => return vec![],
    };
    let fields = FIELDS[variant];
    let mut seen = vec![false; fields.len()];
    for (key, value) in &entries.0 {
        let at = match fields.iter().position(|(name, _)| name == key) {
            Some(at) => at,
            None => continue,
        };
        if seen[at] || !fits(fields[at].1, value) {
            return vec![Segment::Key(key.clone())];
        }
        seen[at] = true;
    }
    vec![] // a field missing: the line as a whole
}

/// A JSON object's entries in order, duplicates kept.
struct Entries(Vec<(String, Json)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Json>()? {
                    entries.push((key, value));
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::{identifier, is_cut, Category, Path, Segment};
    use crate::read_line;

    fn category(line: &str) -> Category {
        read_line(line.as_bytes()).map_or_else(|error| error.category, |_| panic!("{line}"))
    }

    #[test]
    fn a_line_is_cut_only_when_last_without_its_newline_and_rejected_eof() {
        // the value stops before its end: a line still being written
        let stopped = category(r#"{"event":"end","ti"#);
        assert_eq!(stopped, Category::Eof);
        // the input's last line, no newline after it: the writer may yet finish it
        assert!(is_cut(false, stopped));
        // a newline ends it (so does any line before the last): no byte can mend it
        assert!(!is_cut(true, stopped));
        // a value that is wrong, not unfinished, is invalid wherever it stands
        let wrong = category(r#"{"event":"end",}"#);
        assert_eq!(wrong, Category::Syntax);
        assert!(!is_cut(false, wrong));
        let missing = category(r#"{"event":"end"}"#);
        assert_eq!(missing, Category::Data);
        assert!(!is_cut(false, missing));
    }

    fn key_path(key: &str) -> String {
        Path(vec![Segment::Key(key.to_owned()), Segment::Index(2)]).render()
    }

    #[test]
    fn a_key_is_written_after_a_dot_when_it_is_an_identifier_by_xid() {
        assert_eq!(key_path("step"), "$.step[2]");
        assert_eq!(key_path("_x9"), "$._x9[2]");
        assert_eq!(key_path("_"), "$._[2]");
        assert_eq!(key_path("é"), "$.é[2]");
        assert_eq!(key_path("x\u{0301}"), "$.x\u{0301}[2]"); // a combining mark continues
        assert_eq!(key_path("\u{1E290}"), "$.\u{1E290}[2]"); // Toto (Unicode 14.0)
    }

    #[test]
    fn any_other_key_is_quoted_with_its_backslashes_and_quotes_escaped() {
        assert_eq!(key_path(""), r#"$[""][2]"#);
        assert_eq!(key_path("2step"), r#"$["2step"][2]"#);
        assert_eq!(key_path("a b"), r#"$["a b"][2]"#);
        assert_eq!(key_path("a\"b"), r#"$["a\"b"][2]"#);
        assert_eq!(key_path("a\\b"), r#"$["a\\b"][2]"#);
        assert_eq!(key_path("\u{0301}x"), "$[\"\u{0301}x\"][2]"); // a mark does not start one
        assert_eq!(key_path("a-b"), r#"$["a-b"][2]"#);
    }

    #[test]
    fn code_points_later_unicode_versions_assign_are_no_identifier() {
        // Kawi (15.0), CJK Extension I (15.1), Pepet (16.0), Tangut components (17.0): not in
        // the tables the rule reads, whatever a runtime's own tables say of them.
        for key in ["\u{11F04}", "\u{2EBF0}", "a\u{0897}", "\u{18D80}"] {
            assert!(!identifier(key), "{key:?}");
            assert_eq!(key_path(key), format!("$[\"{key}\"][2]"));
        }
    }

    #[test]
    fn a_path_displays_as_it_renders() {
        let path = Path(vec![
            Segment::Key("x".to_owned()),
            Segment::Key("a b".to_owned()),
            Segment::Index(0),
        ]);
        assert_eq!(path.to_string(), r#"$.x["a b"][0]"#);
        assert_eq!(Path::default().to_string(), "$");
    }
}
