//! Reading a report the auditor is handed: bounded, and decoded into a JSON object or refused.
//!
//! The report comes from the operator being audited, so it is hostile input: a file (or a
//! response body) larger than [`MAX_REPORT_BYTES`] is refused without being read into memory,
//! and text that is not JSON, or JSON that is not an object, is refused with an error naming
//! the source. The JSON is then read once as the node's report type ([`super::input`]).

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use serde_json::Value;

/// The largest report accepted: 16 MiB, about 600 times a real one (`veritas resolve` over
/// the demo corpus, with its search record and 18 ballots: 28 KB; the default committee casts
/// at most 30), so anything near it is not a report a node wrote.
pub const MAX_REPORT_BYTES: u64 = 16 * 1024 * 1024;

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportFileError {
    /// The file cannot be opened or read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The report is larger than [`MAX_REPORT_BYTES`]; nothing more than that was read.
    #[error(
        "{source_name} is larger than a report may be ({size}{more} bytes, limit {limit}): refused"
    )]
    TooLarge {
        /// File path or URL.
        source_name: String,
        /// The size seen (at least `limit + 1`).
        size: u64,
        /// "+" when only part of it was read, so the size is a lower bound.
        more: &'static str,
        /// [`MAX_REPORT_BYTES`].
        limit: u64,
    },
    /// The text is not JSON.
    #[error("{source_name} is not JSON: {reason}")]
    NotJson {
        /// File path or URL.
        source_name: String,
        /// The parser's message (line and column).
        reason: String,
    },
    /// Valid JSON, but not an object (a report is one object of keys).
    #[error("{source_name} is JSON but not a report: expected an object, found {found}")]
    NotObject {
        /// File path or URL.
        source_name: String,
        /// The kind of value found.
        found: &'static str,
    },
}

/// Read and decode the report file at `path`.
///
/// # Errors
/// [`ReportFileError`]: unreadable, too large, not JSON, or not an object.
pub fn read_report(path: &Path) -> Result<Value, ReportFileError> {
    let io = |source| ReportFileError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let name = path.display().to_string();
    let size = file.metadata().map_err(io)?.len();
    if size > MAX_REPORT_BYTES {
        return Err(too_large(name, size, ""));
    }
    // The length can lie (a growing file, a device): read at most one byte past the limit.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(MAX_REPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    parse_report(&bytes, &name)
}

/// The error for a report of at least `size` bytes (`more`: "+" when not read to its end).
pub fn too_large(source_name: String, size: u64, more: &'static str) -> ReportFileError {
    ReportFileError::TooLarge {
        source_name,
        size,
        more,
        limit: MAX_REPORT_BYTES,
    }
}

/// Decode report bytes read from `source_name` (a path or URL, for the messages).
///
/// # Errors
/// [`ReportFileError`]: too large, not JSON, or not an object.
pub fn parse_report(bytes: &[u8], source_name: &str) -> Result<Value, ReportFileError> {
    let len = bytes.len() as u64;
    if len > MAX_REPORT_BYTES {
        return Err(too_large(source_name.to_owned(), len, "+"));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| ReportFileError::NotJson {
        source_name: source_name.to_owned(),
        reason: e.to_string(),
    })?;
    let found = match &value {
        Value::Object(_) => return Ok(value),
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
    };
    Err(ReportFileError::NotObject {
        source_name: source_name.to_owned(),
        found,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn bounded_and_shaped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, br#"{"question": {"text": "q"}}"#).unwrap();
        assert!(read_report(&path).unwrap().is_object());
        // A sparse file one byte over the limit: refused from its length, nothing read.
        let big = dir.path().join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_REPORT_BYTES + 1)
            .unwrap();
        let e = read_report(&big).unwrap_err().to_string();
        let limit = MAX_REPORT_BYTES;
        assert!(
            e.ends_with(&format!("({} bytes, limit {limit}): refused", limit + 1)),
            "{e}"
        );
        // A file whose length says nothing (a device): read one byte past the limit, no more.
        let e = read_report(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!("({}+ bytes, limit {limit}): refused", limit + 1)),
            "{e}"
        );
        for (text, expected) in [
            ("[1, 2]", "expected an object, found an array"),
            ("null", "found null"),
            ("\"x\"", "found a string"),
            ("{\"a\": ", "is not JSON"),
            ("\u{feff}{}", "is not JSON"),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = read_report(&path).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
        // Nesting past serde_json's recursion limit is an error, not a stack overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_report(deep.as_bytes(), "deep").is_err());
        let e = read_report(&dir.path().join("absent.json"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("reading "), "{e}");
    }
}
