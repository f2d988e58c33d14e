//! One line in, one line out: the pure halves of the offline commands (`veritas stats`,
//! `commit`, `prove`, `verify-proof`), which the node's CLI wraps with file reading and
//! printing and the fuzz targets call directly.
//!
//! Every line is processed before anything is printed, so bad input leaves stdout empty (no
//! half-written output for a script to mistake for a result).

use anyhow::bail;

pub mod commit;
pub mod prove;
pub mod stats;
pub mod verify_proof;

/// One input line's problem, with where in the line it is (`[2].vote`, `evidence[0].x`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LineError {
    /// What went wrong, naming the field.
    pub message: String,
}

impl LineError {
    /// A message naming a field.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Deserialize one line; on failure say which field (e.g. `field [3].vote: unknown variant`).
///
/// The fast path is plain serde; only a failing line is parsed again with a path tracker.
///
/// # Errors
/// Broken JSON or a field of the wrong type or value.
pub fn parse_line<'a, T: serde::Deserialize<'a>>(line: &'a str) -> Result<T, LineError> {
    serde_json::from_str(line).map_err(|_| {
        let mut de = serde_json::Deserializer::from_str(line);
        match serde_path_to_error::deserialize::<_, T>(&mut de) {
            Err(e) => {
                let path = e.path().to_string();
                let inner = e.into_inner();
                if inner.is_syntax() || inner.is_eof() || path == "." {
                    LineError::new(format!("invalid JSON: {inner}"))
                } else {
                    LineError::new(format!("field {path}: {inner}"))
                }
            }
            // The value itself reads: what failed is the text after it, which the path
            // tracker does not look at.
            Ok(_) => match de.end() {
                Err(e) => LineError::new(format!("invalid JSON: {e}")),
                Ok(()) => LineError::new("invalid input"),
            },
        }
    })
}

/// Apply `f` to every non-blank line (1-based line numbers in errors) and return the
/// output lines, each followed by `\n`, or the first error.
///
/// # Errors
/// The first line that is not UTF-8 or that `f` rejects, with its line number.
pub fn map_lines(
    input: &[u8],
    mut f: impl FnMut(&str) -> Result<String, LineError>,
) -> anyhow::Result<String> {
    let mut out = String::new();
    for (i, raw) in input.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = match std::str::from_utf8(raw) {
            Ok(line) => line,
            Err(e) => bail!("line {number}: invalid UTF-8 at byte {}", e.valid_up_to()),
        };
        if line.trim().is_empty() {
            continue;
        }
        let produced = f(line).map_err(|e| anyhow::anyhow!("line {number}: {e}"))?;
        out.push_str(&produced);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn numbers_lines_and_stops_at_the_first_error() {
        let ok = map_lines(b"a\n\n b\r\n", |l| Ok(l.trim().to_uppercase())).unwrap();
        assert_eq!(ok, "A\nB\n");
        let err = map_lines(b"a\nbad\nc", |l| {
            if l == "bad" {
                Err(LineError::new("no"))
            } else {
                Ok(l.into())
            }
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "line 2: no");
        let err = map_lines(b"ok\n\xff\xfe\n", |l| Ok(l.into())).unwrap_err();
        assert_eq!(err.to_string(), "line 2: invalid UTF-8 at byte 0");
    }

    #[test]
    fn parse_errors_name_the_field() {
        #[derive(Debug, serde::Deserialize)]
        struct T {
            #[allow(dead_code)]
            a: Vec<u32>,
        }
        assert!(
            parse_line::<T>(r#"{"a":[1,"x"]}"#)
                .unwrap_err()
                .message
                .starts_with("field a[1]: ")
        );
        assert!(
            parse_line::<T>(r#"{"a":[1"#)
                .unwrap_err()
                .message
                .starts_with("invalid JSON: ")
        );
    }

    /// Found by the `commit` fuzz target: text after a complete value used to be reported
    /// as a bare "invalid input".
    #[test]
    fn trailing_text_is_named() {
        #[derive(Debug, serde::Deserialize)]
        struct T {
            #[allow(dead_code)]
            a: u32,
        }
        let err = parse_line::<T>(r#"{"a":1} x"#).unwrap_err().message;
        assert_eq!(
            err, "invalid JSON: trailing characters at line 1 column 9",
            "{err}"
        );
    }
}
