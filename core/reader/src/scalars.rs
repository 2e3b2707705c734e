//! The scalars a line carries beside the reference's fields: a log's `scalars`, an end's
//! `summary` (`$defs/Scalars` of `metrics-line.schema.json`, contract 2.1.0).
//!
//! The reference does not know these fields and ignores them, so they never change a line's
//! verdict: they are read from a line already read as the reference reads it, a second look
//! at the same text. What the schema refuses in them (a value that is a string other than a
//! non-finite number's word, a boolean, an object, a field that is not an object, a key or
//! the field given twice) is kept as a [`Refusal`], which `check` says as a warning; the rest
//! of the map stays readable.
//!
//! [`Stats`] folds a run's scalars into each key's latest value and its lowest and highest
//! finite values: what `status` reports per key.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::error::{Path, Segment};
use crate::reports::{ScalarStats, ScalarValue, StepValue};

/// One value of a scalar map: a finite number, null, or a non-finite number by its word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A finite JSON number, read as serde_json reads an `f64`.
    Number(f64),
    /// `null`: the writer had no value (a mean over nothing).
    Null,
    /// `"NaN"`.
    NaN,
    /// `"Infinity"`.
    Infinity,
    /// `"-Infinity"`.
    NegInfinity,
}

impl Scalar {
    /// The value as a float: null is `None`, the words their IEEE values.
    #[must_use]
    pub fn float(self) -> Option<f64> {
        match self {
            Self::Number(value) => Some(value),
            Self::Null => None,
            Self::NaN => Some(f64::NAN),
            Self::Infinity => Some(f64::INFINITY),
            Self::NegInfinity => Some(f64::NEG_INFINITY),
        }
    }

    /// The word of a non-finite value (`NaN`, `Infinity`, `-Infinity`); `None` for the
    /// others.
    #[must_use]
    pub const fn word(self) -> Option<&'static str> {
        match self {
            Self::NaN => Some("NaN"),
            Self::Infinity => Some("Infinity"),
            Self::NegInfinity => Some("-Infinity"),
            Self::Number(_) | Self::Null => None,
        }
    }

    /// The value a float is written as: a finite number, or its word.
    #[must_use]
    pub fn of_float(value: f64) -> Self {
        if value.is_nan() {
            Self::NaN
        } else if value == f64::INFINITY {
            Self::Infinity
        } else if value == f64::NEG_INFINITY {
            Self::NegInfinity
        } else {
            Self::Number(value)
        }
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self, self.word()) {
            (Self::Number(value), _) => serializer.serialize_f64(*value),
            (_, Some(word)) => serializer.serialize_str(word),
            _ => serializer.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_any(EntryVisitor)? {
            Entry::Scalar(scalar) => Ok(scalar),
            Entry::Refused(what) => Err(de::Error::custom(format_args!("{}", what.text()))),
        }
    }
}

/// What a refused value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A string other than `NaN`, `Infinity`, `-Infinity`.
    String,
    Boolean,
    Array,
    Object,
    /// The field itself is not an object (what it is instead).
    NotObject(&'static str),
    /// The key (or the field) came twice in the line: the last one is kept.
    Twice,
}

impl Refused {
    /// The words of a refusal.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Boolean => "a boolean",
            Self::Array => "an array",
            Self::Object => "an object",
            Self::NotObject(what) => what,
            Self::Twice => "given twice in the line",
        }
    }
}

/// A part of a scalar map the schema refuses: where (the field's name and the key, `None` for
/// the field itself), and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub key: Option<String>,
    pub what: Refused,
}

/// A line's scalar map: its keys and values in the writer's order, and what of it the
/// schema refuses (left out of `entries`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scalars {
    pub entries: Vec<(String, Scalar)>,
    pub refused: Vec<Refusal>,
}

impl Scalars {
    /// The value of `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<Scalar> {
        self.entries
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    }

    /// The words of each refusal of this map, the field named `field` (`scalars`), with the
    /// JSON path of the part refused.
    #[must_use]
    pub fn refusals(&self, field: &str) -> Vec<(String, String)> {
        self.refused
            .iter()
            .map(|refusal| {
                let mut path = vec![Segment::Key(field.to_owned())];
                let what = refusal.what.text();
                let message = match (&refusal.key, refusal.what) {
                    (None, Refused::Twice) => format!("`{field}` is {what}: the last one is read"),
                    (None, _) => format!(
                        "`{field}` is {what}, not an object of scalars: its values are not read"
                    ),
                    (Some(key), Refused::Twice) => {
                        path.push(Segment::Key(key.clone()));
                        format!("a key of `{field}` is {what}: the last value is read")
                    }
                    (Some(key), _) => {
                        path.push(Segment::Key(key.clone()));
                        format!(
                            "a value of `{field}` is {what}, where a scalar is a number, null, \"NaN\", \"Infinity\" or \"-Infinity\": it is left out"
                        )
                    }
                };
                (Path(path).render(), message)
            })
            .collect()
    }
}

impl Serialize for Scalars {
    /// The map as the contract writes it: its readable entries, in order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in &self.entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Scalars {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MapVisitor)
    }
}

/// One value met in a map, kept or refused.
enum Entry {
    Scalar(Scalar),
    Refused(Refused),
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a scalar")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Entry, E> {
        Ok(Entry::Refused(Refused::Boolean))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Entry, E> {
        // serde_json's own conversion of an integer literal read into an `f64`
        Ok(Entry::Scalar(Scalar::Number(value as f64)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Entry, E> {
        Ok(Entry::Scalar(Scalar::Number(value as f64)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Entry, E> {
        Ok(Entry::Scalar(Scalar::Number(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Entry, E> {
        Ok(match value {
            "NaN" => Entry::Scalar(Scalar::NaN),
            "Infinity" => Entry::Scalar(Scalar::Infinity),
            "-Infinity" => Entry::Scalar(Scalar::NegInfinity),
            _ => Entry::Refused(Refused::String),
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Entry, E> {
        Ok(Entry::Scalar(Scalar::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Entry::Refused(Refused::Array))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Entry::Refused(Refused::Object))
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(EntryVisitor)
    }
}

struct MapVisitor;

impl MapVisitor {
    fn not_object(what: &'static str) -> Scalars {
        Scalars {
            entries: Vec::new(),
            refused: vec![Refusal {
                key: None,
                what: Refused::NotObject(what),
            }],
        }
    }
}

impl<'de> Visitor<'de> for MapVisitor {
    type Value = Scalars;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object of scalars")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalars, E> {
        Ok(Self::not_object("a boolean"))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Scalars, E> {
        Ok(Self::not_object("a number"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Scalars, E> {
        Ok(Self::not_object("a number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scalars, E> {
        Ok(Self::not_object("a number"))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Scalars, E> {
        Ok(Self::not_object("a string"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalars, E> {
        Ok(Self::not_object("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalars, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::not_object("an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalars, A::Error> {
        let mut entries = Entries::default();
        let mut refused = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let entry = map.next_value::<Entry>()?;
            // A key given twice: the last value is read, as JSON readers (Python's, the
            // JavaScript engines') read an object.
            if entries.drop(&key) {
                refused.push(refusal(&key, Refused::Twice));
            }
            match entry {
                Entry::Scalar(value) => entries.push(key, value),
                Entry::Refused(what) => refused.push(refusal(&key, what)),
            }
        }
        Ok(Scalars {
            entries: entries.into_entries(),
            refused,
        })
    }
}

/// A map's entries as they are read, each key once: a key given again drops its earlier
/// entry and is kept at its new place. Each key's place is found in an ordered index (a
/// tree, not a hash: keys written to collide cannot slow it, and a WebAssembly build has no
/// random hash seed) and a dropped entry leaves a hole, closed once at the end, so that a map
/// of n keys, repeated or not, costs time n log n.
#[derive(Default)]
struct Entries {
    slots: Vec<Option<(String, Scalar)>>,
    at: BTreeMap<String, usize>,
}

impl Entries {
    /// Drops the entry of `key`, if one is kept: whether one was.
    fn drop(&mut self, key: &str) -> bool {
        match self.at.remove(key) {
            Some(at) => {
                if let Some(slot) = self.slots.get_mut(at) {
                    *slot = None;
                }
                true
            }
            None => false,
        }
    }

    /// Keeps `value` for `key`, a key no entry holds.
    fn push(&mut self, key: String, value: Scalar) {
        self.at.insert(key.clone(), self.slots.len());
        self.slots.push(Some((key, value)));
    }

    /// The entries kept, in the order they were last given.
    fn into_entries(self) -> Vec<(String, Scalar)> {
        self.slots.into_iter().flatten().collect()
    }
}

fn refusal(key: &str, what: Refused) -> Refusal {
    Refusal {
        key: Some(key.to_owned()),
        what,
    }
}

/// The scalar map named `field` of a line known to be a metrics record of the reference
/// (an object: the reference's array form holds only the known fields): `None` when the line
/// has no such key. Read by serde_json, as the line was: its numbers are the reference's.
#[must_use]
pub fn read(text: &str, field: &str) -> Option<Scalars> {
    // Only a line that names the field, or holds an escape (a key may be written with
    // one), is read again.
    let named = memchr::memmem::find(text.as_bytes(), field.as_bytes()).is_some();
    if !named && memchr::memchr(b'\\', text.as_bytes()).is_none() {
        return None;
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    FieldOf { field }.deserialize(&mut reader).ok().flatten()
}

/// A seed that reads one field of an object, every other ignored.
struct FieldOf<'a> {
    field: &'a str,
}

impl<'de, 'a> DeserializeSeed<'de> for FieldOf<'a> {
    type Value = Option<Scalars>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'a> Visitor<'de> for FieldOf<'a> {
    type Value = Option<Scalars>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a metrics line")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found: Option<Scalars> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key != self.field {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let mut scalars = map.next_value::<Scalars>()?;
            if found.is_some() {
                // the field twice: the last is read, and said
                scalars.refused.insert(
                    0,
                    Refusal {
                        key: None,
                        what: Refused::Twice,
                    },
                );
            }
            found = Some(scalars);
        }
        Ok(found)
    }
}

/// One key's stats at its first value, `value` at `step`.
fn first(step: u64, value: Scalar) -> ScalarStats {
    let finite = match value {
        Scalar::Number(value) => Some(StepValue { step, value }),
        _ => None,
    };
    ScalarStats {
        last: ScalarValue { step, value },
        min: finite.clone(),
        max: finite,
    }
}

/// `kept` followed by `later`'s stats (of later lines of the same run): the latest value is
/// the later one's, a lowest or highest value the first to reach it.
fn then(kept: &mut ScalarStats, later: &ScalarStats) {
    kept.last = later.last.clone();
    if let Some(low) = &later.min {
        if kept.min.as_ref().map_or(true, |min| low.value < min.value) {
            kept.min = Some(low.clone());
        }
    }
    if let Some(high) = &later.max {
        if kept.max.as_ref().map_or(true, |max| high.value > max.value) {
            kept.max = Some(high.clone());
        }
    }
}

/// Each key's stats over a run's scalar maps, by key (in the order of the keys' bytes): the
/// status report's `scalars`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub keys: BTreeMap<String, ScalarStats>,
}

impl Stats {
    /// A map read at `step`.
    pub fn add(&mut self, step: u64, scalars: &Scalars) {
        for (key, value) in &scalars.entries {
            let stats = first(step, *value);
            match self.keys.get_mut(key.as_str()) {
                Some(kept) => then(kept, &stats),
                None => {
                    self.keys.insert(key.clone(), stats);
                }
            }
        }
    }

    /// These stats followed by `later`'s.
    pub fn then(&mut self, later: Self) {
        for (key, stats) in later.keys {
            match self.keys.get_mut(key.as_str()) {
                Some(kept) => then(kept, &stats),
                None => {
                    self.keys.insert(key, stats);
                }
            }
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_of(text: &str) -> Option<Scalars> {
        read(text, "scalars")
    }

    #[test]
    fn values_and_refusals() {
        let scalars = read_of(
            r#"{"event":"log","scalars":{"a":1,"b":-2.5,"c":null,"d":"NaN","e":"Infinity","f":"-Infinity","g":"x","h":true,"i":[1],"j":{},"a":3}}"#,
        )
        .unwrap();
        let keys: Vec<&str> = scalars.entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "c", "d", "e", "f", "a"]);
        assert_eq!(scalars.get("a"), Some(Scalar::Number(3.0)));
        assert_eq!(scalars.get("d"), Some(Scalar::NaN));
        assert_eq!(scalars.get("c"), Some(Scalar::Null));
        let refused: Vec<Refused> = scalars.refused.iter().map(|r| r.what).collect();
        assert_eq!(
            refused,
            [
                Refused::String,
                Refused::Boolean,
                Refused::Array,
                Refused::Object,
                Refused::Twice
            ]
        );
        let said = scalars.refusals("scalars");
        assert_eq!(said[0].0, "$.scalars.g");
        assert_eq!(
            serde_json::to_string(&scalars).unwrap(),
            r#"{"b":-2.5,"c":null,"d":"NaN","e":"Infinity","f":"-Infinity","a":3.0}"#
        );
    }

    #[test]
    fn a_field_not_an_object_or_twice_or_absent() {
        let scalars = read_of(r#"{"scalars":5,"event":"log"}"#).unwrap();
        assert_eq!(scalars.refused[0].what, Refused::NotObject("a number"));
        assert_eq!(scalars.refusals("scalars")[0].0, "$.scalars");
        let twice = read_of(r#"{"scalars":{"a":1},"scalars":{"b":2}}"#).unwrap();
        assert_eq!(twice.get("b"), Some(Scalar::Number(2.0)));
        assert_eq!(twice.refused[0].what, Refused::Twice);
        assert_eq!(read_of(r#"{"event":"log","x":"scalars"}"#), None);
        assert_eq!(read_of(r#"["log",1,2]"#), None);
        let escaped = read_of(r#"{"scal\u0061rs":{"a":1}}"#).unwrap();
        assert_eq!(escaped.get("a"), Some(Scalar::Number(1.0)));
    }

    #[test]
    fn a_key_given_again_is_read_at_its_last_place() {
        // `a` refused at its second value drops its first; its third is then a key no entry
        // holds, so it is not said twice again. `d` is refused first, so its number is new.
        let scalars = read_of(
            r#"{"scalars":{"a":1,"b":2,"a":"x","c":3,"a":4,"b":5,"d":true,"d":6,"c":7,"c":8}}"#,
        )
        .unwrap();
        let kept: Vec<(&str, Scalar)> = scalars
            .entries
            .iter()
            .map(|(key, value)| (key.as_str(), *value))
            .collect();
        assert_eq!(
            kept,
            [
                ("a", Scalar::Number(4.0)),
                ("b", Scalar::Number(5.0)),
                ("d", Scalar::Number(6.0)),
                ("c", Scalar::Number(8.0)),
            ]
        );
        let refused: Vec<(&str, Refused)> = scalars
            .refused
            .iter()
            .map(|refusal| (refusal.key.as_deref().unwrap_or(""), refusal.what))
            .collect();
        assert_eq!(
            refused,
            [
                ("a", Refused::Twice),
                ("a", Refused::String),
                ("b", Refused::Twice),
                ("d", Refused::Boolean),
                ("c", Refused::Twice),
                ("c", Refused::Twice),
            ]
        );
    }

    #[test]
    fn many_keys_each_given_twice() {
        // every key given twice, in two rounds: each read at its second place, each said
        // twice once, the first round's holes closed
        let count = 50_000;
        let mut text = String::from(r#"{"scalars":{"#);
        for round in 0..2 {
            for key in 0..count {
                if round + key > 0 {
                    text.push(',');
                }
                text.push_str(&format!("\"k{key}\":{}", key * 2 + round));
            }
        }
        text.push_str("}}");
        let scalars = read_of(&text).unwrap();
        assert_eq!(scalars.entries.len(), count);
        assert_eq!(scalars.refused.len(), count);
        for (at, (key, value)) in scalars.entries.iter().enumerate() {
            assert_eq!(*key, format!("k{at}"));
            assert_eq!(*value, Scalar::Number((at * 2 + 1) as f64));
        }
        assert!(scalars.refused.iter().all(|r| r.what == Refused::Twice));
    }

    #[test]
    fn stats_by_parts_equal_stats_whole() {
        let maps = [
            (1, Scalar::Number(2.0)),
            (2, Scalar::NaN),
            (3, Scalar::Number(1.0)),
            (4, Scalar::Number(1.0)),
            (5, Scalar::Null),
        ];
        let mut whole = Stats::default();
        let mut first = Stats::default();
        let mut second = Stats::default();
        for (at, (step, value)) in maps.iter().enumerate() {
            let scalars = Scalars {
                entries: vec![("k".to_owned(), *value)],
                refused: Vec::new(),
            };
            whole.add(*step, &scalars);
            if at < 3 { &mut first } else { &mut second }.add(*step, &scalars);
        }
        first.then(second);
        assert_eq!(first, whole);
        let k = &whole.keys["k"];
        assert_eq!(
            k.min,
            Some(StepValue {
                step: 3,
                value: 1.0
            })
        );
        assert_eq!(
            k.max,
            Some(StepValue {
                step: 1,
                value: 2.0
            })
        );
        assert_eq!(
            k.last,
            ScalarValue {
                step: 5,
                value: Scalar::Null
            }
        );
    }
}
