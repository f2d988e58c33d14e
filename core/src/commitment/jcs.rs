//! RFC 8785 JSON Canonicalization Scheme (JCS) for the values evidence items may hold.
//!
//! Evidence items are JSON objects of strings, integers, booleans and nulls (nested arrays
//! and objects are canonicalised too). RFC 8785 serialises numbers the way ECMAScript does,
//! which is only unambiguous for integers that a double holds exactly, so floats (any number
//! written with a fraction or an exponent, such as `1.0` or `1e3`) and integers outside
//! ±(2^53 − 1) (I-JSON's safe range) are rejected instead of being silently rounded.
//!
//! Canonical form: no whitespace; object members sorted by their names as UTF-16 code
//! units (RFC 8785 §3.2.3); strings escaped as RFC 8785 §3.2.2.2 says (`\"`, `\\`, `\b`,
//! `\t`, `\n`, `\f`, `\r`, other control characters as `\u00xx` in lower-case hex,
//! everything else, non-ASCII included, as raw UTF-8); integers in plain decimal.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use super::CommitmentError;

/// Largest integer magnitude a double holds exactly with its neighbours (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The RFC 8785 canonical form of `value`.
///
/// # Errors
/// [`CommitmentError::Float`] or [`CommitmentError::IntegerOutOfRange`] naming the
/// offending field (`$` is the value itself).
pub fn canonical_json(value: &Value) -> Result<String, CommitmentError> {
    canonical_item(value, None)
}

/// Canonical form of evidence item `item` (0-based position in the evidence array), whose
/// errors name the item.
pub(crate) fn canonical_item(
    value: &Value,
    item: Option<usize>,
) -> Result<String, CommitmentError> {
    let mut out = String::with_capacity(256);
    let mut path = Vec::new();
    write_value(&mut out, value, &mut path).map_err(|fault| fault.into_error(item, &path))?;
    Ok(out)
}

/// One step of the path from the item to the offending value.
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// What was wrong, before the path is formatted (only on the error path).
enum Fault {
    Float(String),
    OutOfRange(String),
}

impl Fault {
    fn into_error(self, item: Option<usize>, path: &[Segment<'_>]) -> CommitmentError {
        let mut field = String::new();
        for segment in path {
            match segment {
                Segment::Key(k) => {
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(k);
                }
                Segment::Index(i) => {
                    let _ = write!(field, "[{i}]");
                }
            }
        }
        match self {
            Fault::Float(value) => CommitmentError::Float { item, field, value },
            Fault::OutOfRange(value) => CommitmentError::IntegerOutOfRange { item, field, value },
        }
    }
}

fn write_value<'a>(
    out: &mut String,
    value: &'a Value,
    path: &mut Vec<Segment<'a>>,
) -> Result<(), Fault> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_integer(out, n)?,
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                path.push(Segment::Index(i));
                write_value(out, item, path)?;
                path.pop();
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, path)?,
    }
    Ok(())
}

fn write_object<'a>(
    out: &mut String,
    map: &'a Map<String, Value>,
    path: &mut Vec<Segment<'a>>,
) -> Result<(), Fault> {
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    // RFC 8785 §3.2.3: sort by UTF-16 code units, not by code points or UTF-8 bytes (they
    // differ for characters above U+FFFF against U+E000..U+FFFF).
    members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    out.push('{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        path.push(Segment::Key(key));
        write_value(out, value, path)?;
        path.pop();
    }
    out.push('}');
    Ok(())
}

/// Integers only, within ±(2^53 − 1). Works whether or not serde_json's
/// `arbitrary_precision` is on: a literal with a fraction or exponent is never an i64/u64.
fn write_integer(out: &mut String, n: &Number) -> Result<(), Fault> {
    let magnitude = if let Some(i) = n.as_i64() {
        i.unsigned_abs()
    } else if let Some(u) = n.as_u64() {
        u
    } else if n.is_f64()
        && n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() > MAX_SAFE_INTEGER as f64)
    {
        // An integer literal too large for u64 parses as a float: it is out of range.
        return Err(Fault::OutOfRange(n.to_string()));
    } else {
        return Err(Fault::Float(n.to_string()));
    };
    if magnitude > MAX_SAFE_INTEGER {
        return Err(Fault::OutOfRange(n.to_string()));
    }
    let _ = write!(out, "{n}");
    Ok(())
}

/// RFC 8785 §3.2.2.2 string escaping.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn canon(text: &str) -> String {
        canonical_json(&serde_json::from_str(text).unwrap()).unwrap()
    }

    #[test]
    fn sorts_keys_and_strips_whitespace() {
        assert_eq!(
            canon(r#"{ "b": 1, "a": [true, null, "x"], "c": {"z": -5, "y": 0} }"#),
            r#"{"a":[true,null,"x"],"b":1,"c":{"y":0,"z":-5}}"#
        );
    }

    #[test]
    fn sorts_by_utf16_code_units() {
        // U+1F600 is the surrogate pair D83D DE00 in UTF-16, which sorts before U+FB01 (FB01)
        // although its code point is larger; "\r" (000D) sorts first, "1" (0031) before "A".
        let v = json!({"\u{fb01}": 1, "\u{1f600}": 2, "A": 3, "1": 4, "\r": 5});
        assert_eq!(
            canonical_json(&v).unwrap(),
            "{\"\\r\":5,\"1\":4,\"A\":3,\"\u{1f600}\":2,\"\u{fb01}\":1}"
        );
    }

    #[test]
    fn escapes_like_rfc_8785() {
        let v = json!("\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\"\\/\u{7f}é\u{2028}😀");
        assert_eq!(
            canonical_json(&v).unwrap(),
            "\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f\\\"\\\\/\u{7f}é\u{2028}😀\""
        );
    }

    #[test]
    fn integers_in_plain_decimal() {
        assert_eq!(
            canon("[0, 7, 9007199254740991, -9007199254740991]"),
            "[0,7,9007199254740991,-9007199254740991]"
        );
        // serde_json reads `-0` as the float −0.0 (it cannot tell it from `-0.0`): rejected.
        assert!(matches!(
            canonical_json(&serde_json::from_str("-0").unwrap()),
            Err(CommitmentError::Float { .. })
        ));
    }

    #[test]
    fn rejects_floats_with_field() {
        for text in [
            r#"{"a":{"b":[1, 1.0]}}"#,
            r#"{"a":{"b":[1, 1e3]}}"#,
            r#"{"a":{"b":[1, -2.5E-3]}}"#,
        ] {
            let err = canonical_json(&serde_json::from_str(text).unwrap()).unwrap_err();
            assert!(
                matches!(&err, CommitmentError::Float { item: None, field, .. } if field == "a.b[1]"),
                "{err}"
            );
            assert!(err.to_string().contains("$.a.b[1]"), "{err}");
        }
    }

    #[test]
    fn rejects_unsafe_integers() {
        for text in [
            "9007199254740992",
            "-9007199254740992",
            "18446744073709551615",
            "123456789012345678901234567890",
        ] {
            let err = canonical_json(&serde_json::from_str(text).unwrap()).unwrap_err();
            assert!(
                matches!(err, CommitmentError::IntegerOutOfRange { .. }),
                "{text}: {err}"
            );
        }
    }
}
