//! Normalisation of what collectors return: URLs, snippets and publication dates (pure).
//!
//! Two hits are the same document when their URLs normalise to the same string, so the rules
//! here decide what the bundle deduplicates. They are deliberately conservative: scheme and
//! host case, default ports, fragments, a trailing slash and well-known tracking parameters
//! never change which document a URL names, so they are dropped; everything else (`www.`,
//! path case, other query parameters) might, so it is kept, with the remaining query
//! parameters sorted so that their order does not matter.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use unicode_segmentation::UnicodeSegmentation;
use url::Url;

/// Query parameters that only track a click and never select content. Matched
/// case-insensitively; `utm_*` is matched by prefix.
const TRACKING_PARAMS: &[&str] = &[
    "gclid", "gclsrc", "dclid", "fbclid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid", "ref",
    "ref_src", "ref_url", "_ga", "_gl", "spm", "cmpid", "s_cid", "mkt_tok",
];

/// Prefix of the Urchin tracking parameters (`utm_source`, `utm_medium`, ...).
const TRACKING_PREFIX: &str = "utm_";

/// The marker appended to a snippet or title that was cut.
pub const ELLIPSIS: char = '…';

/// Schemes an evidence URL may have: the web's, and `local:` (the local corpus names its
/// documents `local:<path>`). Any other scheme (`javascript:`, `data:`, `file:`...) names no
/// document a reader can open, and on a web page some of them are scripts.
pub const EVIDENCE_SCHEMES: &[&str] = &["http", "https", "local"];

/// Why a URL could not be normalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an evidence URL ({reason}): {url:?}")]
pub struct UrlError {
    /// The URL as given (bounded to 200 characters).
    pub url: String,
    /// The parser's complaint, or the scheme that is not allowed.
    pub reason: String,
}

/// Normalise a URL so that the same document found twice compares equal.
///
/// Scheme and host are lowercased and the default port dropped (the `url` crate does both for
/// the special schemes), the fragment is removed, tracking parameters are removed, the
/// remaining query parameters are sorted by key then value, and a trailing slash is removed
/// from any path other than the root.
///
/// # Errors
/// [`UrlError`] when the text is not an absolute URL, or its scheme is not one of
/// [`EVIDENCE_SCHEMES`].
pub fn normalize_url(raw: &str) -> Result<String, UrlError> {
    let trimmed = raw.trim();
    let error = |reason: String| UrlError {
        url: truncate_chars(trimmed, 200),
        reason,
    };
    let mut url = Url::parse(trimmed).map_err(|err| error(err.to_string()))?;
    if !EVIDENCE_SCHEMES.contains(&url.scheme()) {
        return Err(error(format!(
            "scheme {:?} is not one of {}",
            url.scheme(),
            EVIDENCE_SCHEMES.join(", ")
        )));
    }
    url.set_fragment(None);

    let mut params: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(key, _)| !is_tracking_param(key))
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    if params.is_empty() {
        url.set_query(None);
    } else {
        params.sort();
        url.query_pairs_mut().clear().extend_pairs(params);
    }

    if !url.cannot_be_a_base() {
        let path = url.path();
        if path.len() > 1 && path.ends_with('/') {
            let stripped = path.trim_end_matches('/');
            let stripped = if stripped.is_empty() { "/" } else { stripped }.to_owned();
            url.set_path(&stripped);
        }
    }
    Ok(url.into())
}

/// Whether `raw` is an absolute `http:` or `https:` URL: what a participant may cite (the
/// `local:` names of [`EVIDENCE_SCHEMES`] are the node's own documents).
pub fn is_web_url(raw: &str) -> bool {
    Url::parse(raw.trim()).is_ok_and(|url| matches!(url.scheme(), "http" | "https"))
}

fn is_tracking_param(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with(TRACKING_PREFIX) || TRACKING_PARAMS.contains(&key.as_str())
}

/// Runs of whitespace (newlines and tabs included) as one space, none at either end.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Collapse whitespace and cut a snippet to at most `max_words` words and `max_chars`
/// characters, on word boundaries, appending [`ELLIPSIS`] when anything was cut.
///
/// Words are Unicode word segments (UAX #29) that contain a letter or digit, so punctuation
/// does not count and scripts without spaces (each CJK ideograph is a segment) are cut too.
/// The character cap protects against text with no boundary at all (a single very long
/// "word", a base64 blob): when no space lies before the cap, the cut falls on the last
/// grapheme boundary before it. The ellipsis counts towards `max_chars`.
pub fn trim_snippet(text: &str, max_words: usize, max_chars: usize) -> String {
    let collapsed = collapse_whitespace(text);
    let mut cut = false;

    let mut words = 0usize;
    let mut end = collapsed.len();
    for (start, segment) in collapsed.split_word_bound_indices() {
        if segment.chars().any(char::is_alphanumeric) {
            if words == max_words {
                end = start;
                cut = true;
                break;
            }
            words += 1;
        }
    }
    let mut out = collapsed[..end].trim_end().to_owned();

    // Room for the text when an ellipsis must follow it.
    let budget = max_chars.saturating_sub(1);
    let limit = if cut { budget } else { max_chars };
    if out.chars().count() > limit {
        out = cut_chars_on_boundary(&out, budget);
        cut = true;
    }
    if cut && max_chars > 0 {
        out.push(ELLIPSIS);
    }
    out
}

/// Cut `text` to at most `budget` characters: at the last space before the cap when there is
/// one, else at the last grapheme boundary before it (never inside a character).
fn cut_chars_on_boundary(text: &str, budget: usize) -> String {
    let mut taken = 0usize;
    let mut byte_end = 0usize;
    for grapheme in text.graphemes(true) {
        let len = grapheme.chars().count();
        if taken + len > budget {
            break;
        }
        taken += len;
        byte_end += grapheme.len();
    }
    let head = &text[..byte_end];
    if byte_end < text.len() {
        // Prefer a word boundary when one exists inside the kept part.
        if let Some(space) = head.rfind(' ')
            && space > 0
        {
            return head[..space].trim_end().to_owned();
        }
    }
    head.to_owned()
}

/// Cut a string to at most `max` characters (no ellipsis); for titles and error excerpts.
pub fn truncate_chars(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// Why a publication date could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unreadable publication date {0:?}")]
pub struct DateError(pub String);

/// Read a publication date in any of the formats collectors produce: RFC 3339, RFC 2822
/// (Tavily's news results, HTTP dates), `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS` without a zone.
///
/// Dates without a zone are taken as UTC; a bare date is its first instant (00:00 UTC).
///
/// # Errors
/// [`DateError`] when none of the formats matches.
pub fn parse_published(raw: &str) -> Result<DateTime<Utc>, DateError> {
    let text = raw.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
        return Ok(dt.with_timezone(&Utc));
    }
    if let Ok(dt) = DateTime::parse_from_rfc2822(text) {
        return Ok(dt.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(naive.and_utc());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(midnight) = date.and_hms_opt(0, 0, 0)
    {
        return Ok(midnight.and_utc());
    }
    Err(DateError(truncate_chars(text, 100)))
}

/// The canonical text of a publication time in a bundle: RFC 3339, UTC, whole seconds.
pub fn format_published(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(raw: &str) -> String {
        match normalize_url(raw) {
            Ok(url) => url,
            Err(err) => panic!("{raw}: {err}"),
        }
    }

    #[test]
    fn scheme_host_case_default_port_fragment_and_trailing_slash_are_dropped() {
        assert_eq!(
            norm("HTTPS://News.Example.COM:443/City/Council/#votes"),
            "https://news.example.com/City/Council"
        );
        assert_eq!(norm("http://example.com:80"), "http://example.com/");
        assert_eq!(
            norm("http://example.com:8080/a/"),
            "http://example.com:8080/a"
        );
        assert_eq!(norm("https://example.com//"), "https://example.com/");
    }

    #[test]
    fn urls_differing_only_in_tracking_parameters_are_equal() {
        let plain = norm("https://example.com/story?id=7&page=2");
        for tracked in [
            "https://example.com/story?utm_source=x&id=7&utm_medium=y&page=2",
            "https://example.com/story?page=2&id=7&gclid=abc",
            "https://example.com/story/?id=7&fbclid=Z&page=2&ref=home#top",
            "https://EXAMPLE.com/story?UTM_Campaign=spring&page=2&id=7",
        ] {
            assert_eq!(norm(tracked), plain, "{tracked}");
        }
        assert_eq!(
            norm("https://example.com/a?utm_source=x"),
            "https://example.com/a"
        );
    }

    #[test]
    fn content_parameters_and_path_case_are_kept() {
        assert_ne!(
            norm("https://example.com/a?id=1"),
            norm("https://example.com/a?id=2")
        );
        assert_ne!(norm("https://example.com/A"), norm("https://example.com/a"));
        assert_eq!(
            norm("https://example.com/a?b=2&a=1&b=1"),
            "https://example.com/a?a=1&b=1&b=2"
        );
    }

    #[test]
    fn unicode_hosts_and_paths_normalise() {
        assert_eq!(
            norm("https://Bücher.example/straße/"),
            "https://xn--bcher-kva.example/stra%C3%9Fe"
        );
        assert_eq!(
            norm("https://xn--bcher-kva.example/straße"),
            norm("https://BÜCHER.example/straße/")
        );
    }

    #[test]
    fn relative_and_empty_urls_are_errors() {
        assert!(normalize_url("/just/a/path").is_err());
        assert!(normalize_url("").is_err());
        assert!(normalize_url("not a url").is_err());
        assert_eq!(norm("local:demo/council.md"), "local:demo/council.md");
    }

    #[test]
    fn scripts_and_other_schemes_are_errors_naming_the_scheme() {
        for (raw, scheme) in [
            ("javascript:alert(1)", "javascript"),
            // The parser, not a prefix test: case, blanks and tabs do not hide the scheme.
            (" JaVaScRiPt:alert(1)", "javascript"),
            ("java\tscript:alert(1)", "javascript"),
            ("data:text/html,<script>alert(1)</script>", "data"),
            ("file:///etc/passwd", "file"),
            ("vbscript:msgbox(1)", "vbscript"),
        ] {
            match normalize_url(raw) {
                Ok(url) => panic!("{raw:?} was accepted as {url}"),
                Err(err) => assert!(
                    err.reason.contains(&format!("scheme \"{scheme}\"")),
                    "{raw:?}: {err}"
                ),
            }
        }
        assert_eq!(norm("HTTPS://a.example/x"), "https://a.example/x");
    }

    #[test]
    fn snippet_under_the_limit_only_collapses_whitespace() {
        assert_eq!(trim_snippet("  a  b\n\nc\t d ", 200, 2000), "a b c d");
        assert_eq!(trim_snippet("", 200, 2000), "");
    }

    #[test]
    fn snippet_is_cut_after_the_last_allowed_word() {
        let text = (1..=250)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let out = trim_snippet(&text, 200, 10_000);
        assert!(out.ends_with("w200…"), "{out}");
        assert!(!out.contains("w201"));
        // Punctuation is not a word: a snippet of exactly 3 words plus punctuation is intact.
        assert_eq!(
            trim_snippet("one, two — three!", 3, 100),
            "one, two — three!"
        );
        assert_eq!(
            trim_snippet("one, two — three! four", 3, 100),
            "one, two — three!…"
        );
    }

    #[test]
    fn unicode_words_count_and_cut_on_boundaries() {
        assert_eq!(
            trim_snippet("Zürich café naïve résumé", 2, 100),
            "Zürich café…"
        );
        // Each CJK ideograph is a word segment, so unspaced text is still cut.
        assert_eq!(trim_snippet("市议会批准了自行车道", 4, 100), "市议会批…");
        // Emoji with modifiers are one grapheme and never split.
        let out = trim_snippet(&"👩🏽‍🚒".repeat(10), 200, 5);
        assert_eq!(out, "👩🏽‍🚒…");
    }

    #[test]
    fn a_single_very_long_word_is_cut_by_the_char_cap() {
        let word = "x".repeat(10_000);
        let out = trim_snippet(&word, 200, 1_600);
        assert_eq!(out.chars().count(), 1_600);
        assert!(out.ends_with(ELLIPSIS));
        let accented = "é".repeat(3_000);
        let out = trim_snippet(&accented, 200, 100);
        assert_eq!(out.chars().count(), 100);
    }

    #[test]
    fn the_char_cap_prefers_a_space() {
        let text = format!("short words then {}", "y".repeat(500));
        assert_eq!(trim_snippet(&text, 200, 100), "short words then…");
    }

    #[test]
    fn dates_in_every_collector_format_parse() {
        let expected = "2026-03-10T00:00:00Z";
        for raw in [
            "2026-03-10",
            "2026-03-10T00:00:00Z",
            "2026-03-10T02:00:00+02:00",
            "Tue, 10 Mar 2026 00:00:00 GMT",
            "2026-03-10T00:00:00",
            " 2026-03-10 00:00:00 ",
        ] {
            let parsed = parse_published(raw).map(format_published);
            assert_eq!(parsed.as_deref(), Ok(expected), "{raw}");
        }
    }

    #[test]
    fn bad_dates_are_errors() {
        for raw in [
            "",
            "yesterday",
            "2026-02-30",
            "2026-13-01",
            "10/03/2026",
            "2026-03-10T25:00:00Z",
        ] {
            assert!(parse_published(raw).is_err(), "{raw}");
        }
    }
}
