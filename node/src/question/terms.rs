//! Key terms of a question: the words left once English stop words and question scaffolding
//! are removed (pure). The fallback planner searches for them, and the local corpus removes
//! the same words at index time so both sides agree on what carries meaning.

/// English function words plus the scaffolding forecasting questions are phrased in ("will",
/// "before", "did"...). Kept short on purpose: a content word wrongly dropped costs recall.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "between", "both", "but", "by", "can", "could", "did", "do", "does",
    "doing", "during", "each", "for", "from", "had", "has", "have", "having", "he", "her", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "itself", "more", "most", "no", "nor",
    "not", "of", "on", "or", "other", "our", "out", "over", "own", "same", "shall", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "was", "we",
    "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will",
    "with", "would", "yes", "you", "your",
];

/// Whether `word` (already lowercased) is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// The question's key terms in order of first appearance, lowercased, without stop words,
/// duplicates or pure punctuation. Digits are kept ("2026", "10" matter in questions).
pub fn key_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-')) {
        let word = raw
            .trim_matches(|c: char| c == '\'' || c == '-')
            .to_lowercase();
        let word = word.strip_suffix("'s").unwrap_or(&word).to_owned();
        if word.is_empty() || is_stop_word(&word) || terms.contains(&word) {
            continue;
        }
        terms.push(word);
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_punctuation_are_removed() {
        assert_eq!(
            key_terms(
                "Will the Millbrook City Council approve the Harbor Street bike lane before 1 April 2026?"
            ),
            [
                "millbrook",
                "city",
                "council",
                "approve",
                "harbor",
                "street",
                "bike",
                "lane",
                "1",
                "april",
                "2026"
            ]
        );
    }

    #[test]
    fn duplicates_possessives_and_unicode_are_handled() {
        assert_eq!(
            key_terms("Zürich's café: the café of Zürich?"),
            ["zürich", "café"]
        );
        assert_eq!(key_terms("  ?? "), Vec::<String>::new());
        assert_eq!(
            key_terms("state-of-the-art 'quoted' words"),
            ["state-of-the-art", "quoted", "words"]
        );
    }
}
