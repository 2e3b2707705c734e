//! The single pass: a line read straight into its variant, without the buffer that serde's
//! internally tagged enums fill first (serde-rs/serde#1495), by serde_json's own parser.
//!
//! It answers only where its answer is the reference's, and gives up (`None`) anywhere
//! else, leaving the line to `MetricLine`'s derived `Deserialize` (the reference's own
//! reading): why a value it returns is the reference's value —
//!
//! - it reads the same text with the same `serde_json::Deserializer`, and a known field's
//!   value with the same number parser into the same type (`f64`, `u64`, `Option` of
//!   either: serde_json's `deserialize_f64`, `_u64` and `_option` accept exactly the values
//!   that the buffered `Content` hands to those types, with the same bits);
//! - every other value is walked with `deserialize_any`, as the buffer is filled: strings
//!   decoded (escapes and surrogates checked), numbers parsed (range checked), the same
//!   nesting limit; `IgnoredAny` would skip numbers and escapes unchecked, so it is not used;
//! - any key written twice, a tag that is not a plain string naming a variant, a stage name
//!   that is not a plain string, a required field absent, an array for a line, a value of
//!   another type in a field of any variant: each makes it give up.
//!
//! The fuzzing (`nox -s fuzz`) holds this to the reference on every answer.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

use crate::generated::{
    union_index, JobStage, MetricLine, FIELDS, MAX_FIELDS, SLOTS, TAGS, TAG_FIELD, UNION,
};
use crate::values::{Kind, Value};

/// The line, when the single pass answers it.
pub(crate) fn read(text: &str) -> Option<MetricLine> {
    serde_json::from_str::<Single>(text)
        .ok()
        .map(|single| single.0)
}

struct Single(MetricLine);

impl<'de> Deserialize<'de> for Single {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LineVisitor)
    }
}

fn give_up<E: de::Error>() -> E {
    E::custom("left to the derived reader")
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Single;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a metrics line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Single, A::Error> {
        let mut tag: Option<usize> = None;
        let mut slots: [Option<Value>; UNION.len()] = [None; UNION.len()];
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Tag => {
                    if tag.is_some() {
                        return Err(give_up());
                    }
                    tag = Some(map.next_value::<Tag>()?.0);
                }
                Key::Field(index) => {
                    if slots[index].is_some() {
                        return Err(give_up());
                    }
                    slots[index] = Some(map.next_value_seed(KindSeed(UNION[index].1))?);
                }
                Key::Other => {
                    map.next_value::<Walk>()?;
                }
            }
        }
        let variant = tag.ok_or_else(give_up)?;
        let mut values = [Value::U64(0); MAX_FIELDS];
        let fields = FIELDS[variant];
        for (at, (&slot, &(_, kind))) in SLOTS[variant].iter().zip(fields).enumerate() {
            values[at] = match slots[slot] {
                Some(value) => value,
                None => kind.absent().ok_or_else(give_up)?,
            };
        }
        MetricLine::from_values(variant, &values[..fields.len()])
            .map(Single)
            .ok_or_else(give_up)
    }
}

/// A key: the tag, a field of some variant (its index in `UNION`), or another.
enum Key {
    Tag,
    Field(usize),
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(if key == TAG_FIELD {
            Key::Tag
        } else {
            union_index(key).map_or(Key::Other, Key::Field)
        })
    }
}

/// A tag: a plain string naming a variant (its index in `TAGS`).
struct Tag(usize);

impl<'de> Deserialize<'de> for Tag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(&TAGS)).map(Tag)
    }
}

/// The index of a plain string among `names`.
struct NameVisitor<'a>(&'a [&'a str]);

impl<'de> Visitor<'de> for NameVisitor<'_> {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a name")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| *name == text)
            .ok_or_else(give_up)
    }
}

const STAGE_NAMES: [&str; JobStage::ALL.len()] = {
    let mut names = [""; JobStage::ALL.len()];
    let mut at = 0;
    while at < names.len() {
        names[at] = JobStage::ALL[at].name();
        at += 1;
    }
    names
};

/// A field's value, read as its kind.
struct KindSeed(Kind);

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Ok(match self.0 {
            Kind::F64 => Value::F64(f64::deserialize(deserializer)?),
            Kind::U64 => Value::U64(u64::deserialize(deserializer)?),
            Kind::OptF64 => Value::OptF64(Option::<f64>::deserialize(deserializer)?),
            Kind::OptU64 => Value::OptU64(Option::<u64>::deserialize(deserializer)?),
            Kind::Stage => {
                let at = deserializer.deserialize_str(NameVisitor(&STAGE_NAMES))?;
                Value::Stage(JobStage::ALL[at])
            }
        })
    }
}

/// Any value, walked as the reference's buffer reads it (`deserialize_any`), and dropped.
pub(crate) struct Walk;

impl<'de> Deserialize<'de> for Walk {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WalkVisitor)
    }
}

struct WalkVisitor;

impl<'de> Visitor<'de> for WalkVisitor {
    type Value = Walk;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Walk, E> {
        Ok(Walk)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Walk, A::Error> {
        while seq.next_element::<Walk>()?.is_some() {}
        Ok(Walk)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Walk, A::Error> {
        while map.next_key::<Walk>()?.is_some() {
            map.next_value::<Walk>()?;
        }
        Ok(Walk)
    }
}
