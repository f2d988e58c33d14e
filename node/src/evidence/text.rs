//! Evidence text from parties the node does not trust (the search API, on-chain submitters,
//! corpus files) made bounded and inert before it becomes a hit (pure).
//!
//! A hit's fields reach the jurors' prompts, the report and the web view. Two things in them
//! can do harm there whatever the bundle rules later trim:
//!
//! - **Size.** A search result or a submission can carry megabytes; every hit is kept in the
//!   report's raw hits. URLs over [`MAX_URL_BYTES`] are refused (a cut URL names another
//!   document), titles and snippets are cut at [`MAX_TITLE_CHARS`] and [`MAX_SNIPPET_CHARS`]
//!   on a character boundary, publication dates at [`MAX_DATE_CHARS`].
//! - **Invisible control.** Control characters (NUL, escape sequences, C1 controls) and the
//!   bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) make text
//!   display as something other than what it says: to a reader of the web view, to an
//!   auditor's terminal, to a model's tokenizer. Whitespace controls (tab, newline, ...)
//!   become a space; the others are removed.
//!
//! URLs are only length-checked: their control and non-ASCII characters are percent-encoded
//! by [`crate::evidence::normalize::normalize_url`], and the audit compares that
//! normalisation of the raw submitted URL with the bundle's.

/// Longest URL accepted, in bytes (the de-facto limit of browsers, sitemaps and CDNs).
pub const MAX_URL_BYTES: usize = 2048;
/// Longest title kept, in characters (the bundle rules cut titles further, to 200 by default).
pub const MAX_TITLE_CHARS: usize = 1_000;
/// Longest snippet kept, in characters (the bundle rules cut snippets further, to 200 words
/// and 2,000 characters by default).
pub const MAX_SNIPPET_CHARS: usize = 20_000;
/// Longest publication date kept, in characters (every format read is under 40).
pub const MAX_DATE_CHARS: usize = 64;

/// Why a hit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("URL over {MAX_URL_BYTES} bytes ({0} bytes)")]
pub struct UrlTooLong(pub usize);

/// Whether `url` is short enough to be taken as a document's address.
///
/// # Errors
/// [`UrlTooLong`] when it is longer than [`MAX_URL_BYTES`].
pub fn check_url(url: &str) -> Result<(), UrlTooLong> {
    if url.len() > MAX_URL_BYTES {
        return Err(UrlTooLong(url.len()));
    }
    Ok(())
}

/// Whether `c` changes how the text around it is displayed without being visible itself:
/// a bidirectional embedding, override or isolate.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without control characters or bidi controls (whitespace controls become a space),
/// cut to at most `max_chars` characters on a character boundary.
pub fn clean(text: &str, max_chars: usize) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_control() {
                c.is_whitespace().then_some(' ')
            } else if is_bidi_control(c) {
                None
            } else {
                Some(c)
            }
        })
        .take(max_chars)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_removed_and_whitespace_kept_as_spaces() {
        assert_eq!(clean("a\u{202E}b\u{2066}c\u{2069}d\u{202A}e", 100), "abcde");
        assert_eq!(clean("x\0y\u{1b}[31mz\u{7f}\u{9b}", 100), "xy[31mz");
        assert_eq!(
            clean("line\nbreak\ttab\r\u{85}end", 100),
            "line break tab  end"
        );
        // Letters of right-to-left scripts and ordinary marks stay.
        assert_eq!(clean("שלום \u{200F}مرحبا", 100), "שלום \u{200F}مرحبا");
    }

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(clean("Ünïcödé", 3), "Ünï");
        assert_eq!(
            clean(&"€".repeat(50_000), MAX_SNIPPET_CHARS)
                .chars()
                .count(),
            MAX_SNIPPET_CHARS
        );
        assert_eq!(clean("", 10), "");
    }

    proptest::proptest! {
        /// Whatever the text: within the cap, no control character, no bidi control.
        #[test]
        fn cleaned_text_is_bounded_and_inert(text in proptest::collection::vec(proptest::char::any(), 0..300), max in 0usize..200) {
            let text: String = text.into_iter().collect();
            let out = clean(&text, max);
            proptest::prop_assert!(out.chars().count() <= max);
            proptest::prop_assert!(!out.chars().any(|c| c.is_control() || is_bidi_control(c)), "{out:?}");
        }
    }
}
