//! The core's patterns (`overbrainer_core::pattern`) for JavaScript: a pattern and the texts
//! to match in the input, each answered in the output, so that the viewer matches names
//! and keys as the command line does.

use overbrainer_core::pattern::Pattern;

use super::{put_u32, with_state, State};

/// The next text of the input: a `u32` length and as many bytes (UTF-8).
fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (head, tail) = (rest.get(..4)?, rest.get(4..)?);
    let len = usize::try_from(u32::from_le_bytes(head.try_into().ok()?)).ok()?;
    let text = tail.get(..len)?;
    *rest = tail.get(len..)?;
    Some(text)
}

/// Each text of `rest` answered into `out` (see `ob_pattern_keys`), or why the pattern is
/// refused.
fn answer(mut rest: &[u8], glob: bool, out: &mut Vec<u8>) -> Result<(), String> {
    let text = take(&mut rest).ok_or("no pattern in the input")?;
    let text = std::str::from_utf8(text).map_err(|_| "a pattern that is not UTF-8")?;
    let pattern = if glob {
        Pattern::glob(text)?
    } else {
        Pattern::regex(text)?
    };
    while !rest.is_empty() {
        let text = take(&mut rest).ok_or("a text cut short in the input")?;
        match pattern.key(text) {
            None => put_u32(out, 0),
            Some(_) if glob => put_u32(out, 1),
            Some(key) => {
                put_u32(out, key.len().saturating_add(1));
                out.extend_from_slice(key);
            }
        }
    }
    Ok(())
}

/// The pattern (a regular expression, or a glob when `glob` is not `0`) and the texts in
/// the first `len` bytes of the input (each a `u32` length and its UTF-8, the pattern
/// first), matched: `1`, and the output holds for each text a `u32`, `0` where the pattern
/// does not match it, else its key's length plus one and the key (a regular expression's
/// first capture group, else its match; a glob's: none); or `0`, and the output holds why
/// the pattern is refused (one line).
#[no_mangle]
pub extern "C" fn ob_pattern_keys(len: usize, glob: u32) -> u32 {
    with_state(|state| {
        let State { input, output, .. } = state;
        output.clear();
        match answer(input.get(..len).unwrap_or(&[]), glob != 0, output) {
            Ok(()) => 1,
            Err(why) => {
                output.clear();
                output.extend_from_slice(why.as_bytes());
                0
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(texts: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for text in texts {
            put_u32(&mut out, text.len());
            out.extend_from_slice(text.as_bytes());
        }
        out
    }

    #[test]
    fn each_text_is_answered_with_its_key() {
        let mut out = Vec::new();
        let given = input(&[r"lr(\d)", "a-lr1", "solo"]);
        assert_eq!(answer(&given, false, &mut out), Ok(()));
        assert_eq!(
            out,
            [&2u32.to_le_bytes()[..], b"1", &0u32.to_le_bytes()].concat()
        );
        out.clear();
        assert_eq!(answer(&input(&["a*", "ab", "b"]), true, &mut out), Ok(()));
        assert_eq!(out, [1u32.to_le_bytes(), 0u32.to_le_bytes()].concat());
    }

    #[test]
    fn a_refused_pattern_or_a_cut_input_is_said() {
        let mut out = Vec::new();
        let nested = format!("{}{}", "(".repeat(2000), ")".repeat(2000));
        assert!(answer(&input(&[&nested]), false, &mut out)
            .unwrap_err()
            .contains("nest"));
        let mut cut = input(&["a", "abc"]);
        cut.pop();
        assert!(answer(&cut, false, &mut out).is_err());
        assert!(answer(&[], false, &mut out).is_err());
    }
}
