//! What the tests of the golden suites share: a reader of their JSON files that keeps each
//! number's text (parsed by `str::parse`, correctly rounded), where serde_json's default
//! reading, the one under test, is best-effort and could be one float away.

#![allow(dead_code)] // each test file uses its part

use std::fs;
use std::path::Path;

/// A JSON value with its numbers as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn field(&self, key: &str) -> &Json {
        self.get(key)
            .unwrap_or_else(|| panic!("no `{key}` in {self:?}"))
    }

    pub fn text(&self) -> &str {
        match self {
            Json::String(text) => text,
            _ => panic!("not a string: {self:?}"),
        }
    }

    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => panic!("not an array: {self:?}"),
        }
    }

    pub fn flag(&self) -> bool {
        match self {
            Json::Bool(flag) => *flag,
            _ => panic!("not a boolean: {self:?}"),
        }
    }

    pub fn count(&self) -> Option<u64> {
        match self {
            Json::Null => None,
            Json::Number(text) => Some(text.parse().expect("a u64")),
            _ => panic!("not a count: {self:?}"),
        }
    }
}

/// A reader of RFC 8259 JSON, enough for the suite's own files.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    pub fn parse(text: &str) -> Json {
        let mut reader = Reader {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = reader.value();
        reader.space();
        assert_eq!(reader.at, reader.bytes.len(), "trailing characters");
        value
    }

    fn peek(&self) -> u8 {
        *self.bytes.get(self.at).expect("JSON cut short")
    }

    fn next(&mut self) -> u8 {
        let byte = self.peek();
        self.at += 1;
        byte
    }

    fn space(&mut self) {
        while self.at < self.bytes.len() && b" \t\n\r".contains(&self.bytes[self.at]) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Json {
        assert!(
            self.bytes[self.at..].starts_with(word.as_bytes()),
            "bad literal"
        );
        self.at += word.len();
        value
    }

    fn value(&mut self) -> Json {
        self.space();
        match self.peek() {
            b'n' => self.literal("null", Json::Null),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'"' => Json::String(self.string()),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == b']' {
                    self.at += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.space();
                    match self.next() {
                        b',' => continue,
                        b']' => return Json::Array(items),
                        other => panic!("bad array at {}: {:?}", self.at, other as char),
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut entries = Vec::new();
                self.space();
                if self.peek() == b'}' {
                    self.at += 1;
                    return Json::Object(entries);
                }
                loop {
                    self.space();
                    let key = self.string();
                    self.space();
                    assert_eq!(self.next(), b':', "a colon");
                    entries.push((key, self.value()));
                    self.space();
                    match self.next() {
                        b',' => continue,
                        b'}' => return Json::Object(entries),
                        other => panic!("bad object at {}: {:?}", self.at, other as char),
                    }
                }
            }
            _ => {
                let start = self.at;
                while self.at < self.bytes.len()
                    && b"+-.0123456789eE".contains(&self.bytes[self.at])
                {
                    self.at += 1;
                }
                assert!(self.at > start, "a value at {start}");
                let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII");
                Json::Number(text.to_owned())
            }
        }
    }

    fn hex4(&mut self) -> u32 {
        let digits = std::str::from_utf8(&self.bytes[self.at..self.at + 4]).expect("ASCII");
        self.at += 4;
        u32::from_str_radix(digits, 16).expect("four hex digits")
    }

    fn string(&mut self) -> String {
        assert_eq!(self.next(), b'"', "a string");
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.next() {
                b'"' => return String::from_utf8(out).expect("UTF-8"),
                b'\\' => {
                    let escaped = match self.next() {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut code = self.hex4();
                            if (0xd800..0xdc00).contains(&code)
                                && self.bytes[self.at..].starts_with(b"\\u")
                            {
                                self.at += 2;
                                let low = self.hex4();
                                code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                            }
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        other => panic!("bad escape {:?}", other as char),
                    };
                    let mut buffer = [0; 4];
                    out.extend_from_slice(escaped.encode_utf8(&mut buffer).as_bytes());
                }
                byte => out.push(byte),
            }
        }
    }
}

pub fn read_json(path: &Path) -> Json {
    let text =
        fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    Reader::parse(&text)
}
