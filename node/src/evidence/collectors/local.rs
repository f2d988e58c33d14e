//! The local corpus: a folder of Markdown or text documents searched with BM25 (tantivy), in
//! process and offline — the default collector, and the one every test can run.
//!
//! A document may open with a small front matter between `---` lines:
//!
//! ```text
//! ---
//! title: Council approves the Harbor Street bike lane
//! url: https://millbrook-ledger.example/2026/03/harbor-street-vote
//! published: 2026-03-11
//! ---
//! Body text, in paragraphs separated by blank lines.
//! ```
//!
//! Without a `title` the first heading or line is used; without a `url` the document is named
//! `local:<path relative to the folder>`; without `published` it is undated.
//!
//! Each paragraph (short ones merged with the next, so a heading stays with its text) is
//! indexed as its own passage, so the snippet of a hit is the best-matching passage, not the
//! opening of the document; a document's score is its best passage's. The index lives in RAM
//! and is rebuilt on the next search whenever the folder's fingerprint (relative paths, sizes
//! and modification times of the documents) changes, so editing the corpus needs no restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use async_trait::async_trait;
use sha2::{Digest, Sha256};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, TantivyDocument, Term, doc};

use super::{Collector, CollectorError, Hit, SearchRequest, clean_hit};
use crate::bundle::Source;
use crate::question::terms::STOP_WORDS;
pub use veritas_core::config::evidence::LocalConfig;

/// File extensions read as documents.
const EXTENSIONS: &[&str] = &["md", "markdown", "txt"];
/// Name of the analyzer registered on the index.
const ANALYZER: &str = "veritas_en";
/// Paragraphs with fewer words are merged into the next one (headings, one-line datelines).
const MIN_PASSAGE_WORDS: usize = 12;
/// Title matches count this much more than body matches.
const TITLE_BOOST: f32 = 1.5;
/// tantivy's writer wants at least 15 MB per thread; the corpus is small, one thread is enough.
const WRITER_BUDGET_BYTES: usize = 20_000_000;

/// One parsed document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Path relative to the corpus folder, with `/` separators.
    pub path: String,
    /// Title from the front matter, else the first line.
    pub title: String,
    /// URL from the front matter, else `local:<path>`.
    pub url: String,
    /// Publication date as written in the front matter.
    pub published: Option<String>,
    /// The body's passages.
    pub passages: Vec<String>,
}

/// The local corpus collector.
#[derive(Clone)]
pub struct LocalCorpus {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LocalCorpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalCorpus")
            .field("dir", &self.inner.config.dir)
            .finish_non_exhaustive()
    }
}

struct Inner {
    config: LocalConfig,
    /// The index of the folder as it was at `fingerprint`; rebuilt when the folder changes.
    /// A std Mutex: it is only held inside `spawn_blocking`, never across an await.
    loaded: Mutex<Option<Arc<Loaded>>>,
}

struct Loaded {
    fingerprint: [u8; 32],
    documents: Vec<Document>,
    /// (document index, passage index) of each indexed passage, by passage id.
    passages: Vec<(usize, usize)>,
    index: Index,
    reader: IndexReader,
    title: Field,
    body: Field,
    passage_id: Field,
}

impl LocalCorpus {
    /// Open the folder (the index is built on the first search).
    ///
    /// # Errors
    /// [`CollectorError::Io`] when the folder does not exist or is not a folder.
    pub fn open(config: &LocalConfig) -> Result<Self, CollectorError> {
        let meta = std::fs::metadata(&config.dir).map_err(|source| CollectorError::Io {
            path: config.dir.clone(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(CollectorError::Io {
                path: config.dir.clone(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
            });
        }
        Ok(Self {
            inner: Arc::new(Inner {
                config: config.clone(),
                loaded: Mutex::new(None),
            }),
        })
    }

    /// Search synchronously (blocking file I/O and CPU): one ranked list per query.
    ///
    /// # Errors
    /// [`CollectorError`] when the folder cannot be read or indexed.
    pub fn search_blocking(&self, queries: &[String]) -> Result<Vec<Hit>, CollectorError> {
        self.inner.search(queries)
    }

    /// The folder's current fingerprint: the next search rebuilds the index when it differs
    /// from the one the index was built at.
    ///
    /// # Errors
    /// [`CollectorError::Io`] when the folder cannot be listed.
    pub fn fingerprint(&self) -> Result<[u8; 32], CollectorError> {
        Ok(fingerprint(&self.inner.config.dir)?.fingerprint)
    }
}

impl Inner {
    fn search(&self, queries: &[String]) -> Result<Vec<Hit>, CollectorError> {
        let loaded = self.current()?;
        let mut hits = Vec::new();
        for query in queries {
            hits.extend(loaded.search(query, self.config.max_hits_per_query)?);
        }
        Ok(hits)
    }

    /// The index for the folder as it is now, rebuilding it if the fingerprint changed.
    fn current(&self) -> Result<Arc<Loaded>, CollectorError> {
        let Listing {
            fingerprint: print,
            files,
        } = fingerprint(&self.config.dir)?;
        let mut slot = self.loaded.lock().map_err(|_| {
            CollectorError::Index("index lock poisoned by an earlier panic".to_owned())
        })?;
        if let Some(loaded) = slot.as_ref().filter(|l| l.fingerprint == print) {
            return Ok(Arc::clone(loaded));
        }
        let started = std::time::Instant::now();
        let documents = files
            .iter()
            .map(|(rel, path)| {
                let text = std::fs::read_to_string(path).map_err(|source| CollectorError::Io {
                    path: path.clone(),
                    source,
                })?;
                Ok(parse_document(rel, &text))
            })
            .collect::<Result<Vec<_>, CollectorError>>()?;
        let loaded = Arc::new(Loaded::build(print, documents)?);
        tracing::info!(target: "veritas::evidence::local", dir = %self.config.dir.display(), documents = loaded.documents.len(), passages = loaded.passages.len(), elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX), "local corpus indexed");
        *slot = Some(Arc::clone(&loaded));
        Ok(loaded)
    }
}

fn index_error(err: tantivy::TantivyError) -> CollectorError {
    CollectorError::Index(err.to_string())
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| (*w).to_owned()),
        ))
        .filter(Stemmer::new(Language::English))
        .build()
}

impl Loaded {
    fn build(fingerprint: [u8; 32], documents: Vec<Document>) -> Result<Self, CollectorError> {
        let mut schema = Schema::builder();
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let title = schema.add_text_field("title", text.clone());
        let body = schema.add_text_field("body", text);
        let passage_id = schema.add_u64_field("passage", STORED | FAST);
        let index = Index::create_in_ram(schema.build());
        index.tokenizers().register(ANALYZER, analyzer());

        let mut writer = index
            .writer_with_num_threads::<TantivyDocument>(1, WRITER_BUDGET_BYTES)
            .map_err(index_error)?;
        let mut passages = Vec::new();
        for (d, document) in documents.iter().enumerate() {
            for (p, passage) in document.passages.iter().enumerate() {
                let id = u64::try_from(passages.len()).unwrap_or(u64::MAX);
                writer
                    .add_document(doc!(
                        title => document.title.as_str(),
                        body => passage.as_str(),
                        passage_id => id,
                    ))
                    .map_err(index_error)?;
                passages.push((d, p));
            }
        }
        writer.commit().map_err(index_error)?;
        let reader = index.reader().map_err(index_error)?;
        Ok(Self {
            fingerprint,
            documents,
            passages,
            index,
            reader,
            title,
            body,
            passage_id,
        })
    }

    /// The best `limit` documents for `query`, each with its best passage.
    fn search(&self, query: &str, limit: usize) -> Result<Vec<Hit>, CollectorError> {
        let terms = self.terms(query)?;
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let query_obj = self.any_term(&terms);
        let searcher = self.reader.searcher();
        // Several passages of one document may rank; fetch enough to fill `limit` documents.
        let fetch = limit.saturating_mul(8).min(self.passages.len().max(1));
        let top = searcher
            .search(&query_obj, &TopDocs::with_limit(fetch))
            .map_err(index_error)?;

        let mut seen_docs: Vec<usize> = Vec::new();
        let mut hits = Vec::new();
        for (score, address) in top {
            let Some((d, p)) = self.passage_at(&searcher, address)? else {
                continue;
            };
            if seen_docs.contains(&d) {
                continue;
            }
            seen_docs.push(d);
            let document = &self.documents[d];
            let hit = Hit {
                query: Some(query.to_owned()),
                rank: u32::try_from(hits.len()).unwrap_or(u32::MAX),
                score: f64::from(score),
                url: document.url.clone(),
                title: document.title.clone(),
                snippet: document.passages[p].clone(),
                published_at: document.published.clone(),
                source: Source::Local,
                submitter: None,
            };
            match clean_hit(hit) {
                Ok(hit) => hits.push(hit),
                Err(err) => {
                    tracing::warn!(target: "veritas::evidence::local", path = %document.path, error = %err, "corpus document left out");
                }
            }
            if hits.len() == limit {
                break;
            }
        }
        Ok(hits)
    }

    /// The query's distinct terms, through the same analyzer as the corpus (lower-cased,
    /// stemmed, stop words out).
    fn terms(&self, query: &str) -> Result<Vec<String>, CollectorError> {
        let mut analyzer = self
            .index
            .tokenizer_for_field(self.body)
            .map_err(index_error)?;
        let mut terms: Vec<String> = Vec::new();
        let mut stream = analyzer.token_stream(query);
        while let Some(token) = stream.next() {
            if !terms.contains(&token.text) {
                terms.push(token.text.clone());
            }
        }
        Ok(terms)
    }

    /// Passages with any of `terms` in their body or (boosted) title. Built from tokens, not
    /// parsed: question text full of `?`, `:` and quotes is not query syntax.
    fn any_term(&self, terms: &[String]) -> BooleanQuery {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in terms {
            let body = TermQuery::new(
                Term::from_field_text(self.body, term),
                IndexRecordOption::WithFreqs,
            );
            let title = TermQuery::new(
                Term::from_field_text(self.title, term),
                IndexRecordOption::WithFreqs,
            );
            clauses.push((Occur::Should, Box::new(body)));
            clauses.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(title), TITLE_BOOST)),
            ));
        }
        BooleanQuery::new(clauses)
    }

    /// The (document, passage) a search result points at; `None` for one without a known
    /// passage id.
    fn passage_at(
        &self,
        searcher: &tantivy::Searcher,
        address: tantivy::DocAddress,
    ) -> Result<Option<(usize, usize)>, CollectorError> {
        let stored: TantivyDocument = searcher.doc(address).map_err(index_error)?;
        let id = stored
            .get_first(self.passage_id)
            .and_then(|v| v.as_u64())
            .and_then(|id| usize::try_from(id).ok());
        Ok(id.and_then(|id| self.passages.get(id).copied()))
    }
}

/// List the documents under `dir` and fingerprint them (SHA-256 over each document's relative
/// path, size and modification time): cheap enough to run before every search.
///
/// # Errors
/// [`CollectorError::Io`] when the folder or an entry cannot be read.
fn fingerprint(dir: &Path) -> Result<Listing, CollectorError> {
    let mut files = Vec::new();
    list_documents(dir, dir, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for (rel, path) in &files {
        let meta = std::fs::metadata(path).map_err(|source| CollectorError::Io {
            path: path.clone(),
            source,
        })?;
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        hasher.update(rel.as_bytes());
        hasher.update([0u8]);
        hasher.update(meta.len().to_le_bytes());
        hasher.update(mtime.to_le_bytes());
    }
    Ok(Listing {
        fingerprint: hasher.finalize().into(),
        files,
    })
}

/// The documents of the corpus folder as they are now.
struct Listing {
    /// SHA-256 over relative paths, sizes and modification times.
    fingerprint: [u8; 32],
    /// (relative path with `/` separators, full path), sorted.
    files: Vec<(String, PathBuf)>,
}

fn list_documents(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, PathBuf)>,
) -> Result<(), CollectorError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CollectorError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| CollectorError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|source| CollectorError::Io {
            path: path.clone(),
            source,
        })?;
        if kind.is_dir() {
            list_documents(root, &path, out)?;
        } else if kind.is_file()
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, path));
        }
    }
    Ok(())
}

/// Parse one document: optional front matter, then passages.
pub fn parse_document(rel_path: &str, text: &str) -> Document {
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n");
    let mut title = None;
    let mut url = None;
    let mut published = None;
    let mut body = text.as_str();
    if let Some(rest) = text.strip_prefix("---\n")
        && let Some(end) = rest.find("\n---")
    {
        for line in rest[..end].lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim().trim_matches('"').trim();
            if value.is_empty() {
                continue;
            }
            match key.trim().to_ascii_lowercase().as_str() {
                "title" => title = Some(value.to_owned()),
                "url" => url = Some(value.to_owned()),
                "published" | "published_at" | "date" => published = Some(value.to_owned()),
                _ => {}
            }
        }
        let after = &rest[end + "\n---".len()..];
        body = after.split_once('\n').map_or("", |(_, b)| b);
    }
    let passages = passages(body);
    let title = title.unwrap_or_else(|| {
        body.lines()
            .map(|l| l.trim().trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .unwrap_or(rel_path)
            .to_owned()
    });
    Document {
        path: rel_path.to_owned(),
        title,
        url: url.unwrap_or_else(|| format!("local:{rel_path}")),
        published,
        passages,
    }
}

/// Split a body into passages: paragraphs separated by blank lines, whitespace collapsed,
/// Markdown heading marks removed, paragraphs under [`MIN_PASSAGE_WORDS`] merged into the next.
fn passages(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for paragraph in body.split("\n\n") {
        let text = paragraph
            .lines()
            .map(|l| l.trim().trim_start_matches('#').trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if text.is_empty() {
            continue;
        }
        if !pending.is_empty() {
            pending.push(' ');
        }
        pending.push_str(&text);
        if pending.split_whitespace().count() >= MIN_PASSAGE_WORDS {
            out.push(std::mem::take(&mut pending));
        }
    }
    if !pending.is_empty() {
        match out.last_mut() {
            Some(last) => {
                last.push(' ');
                last.push_str(&pending);
            }
            None => out.push(pending),
        }
    }
    out
}

#[async_trait]
impl Collector for LocalCorpus {
    fn name(&self) -> &str {
        "local"
    }

    async fn collect(&self, request: &SearchRequest<'_>) -> Result<Vec<Hit>, CollectorError> {
        let inner = Arc::clone(&self.inner);
        let queries = request.queries.to_vec();
        tokio::task::spawn_blocking(move || inner.search(&queries))
            .await
            .map_err(|err| CollectorError::Index(format!("search task failed: {err}")))?
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        if let Err(err) = fs::write(dir.join(name), text) {
            panic!("write {name}: {err}");
        }
    }

    fn corpus(dir: &Path) -> LocalCorpus {
        let config = LocalConfig {
            dir: dir.to_path_buf(),
            ..LocalConfig::default()
        };
        match LocalCorpus::open(&config) {
            Ok(c) => c,
            Err(err) => panic!("open: {err}"),
        }
    }

    fn search(corpus: &LocalCorpus, query: &str) -> Vec<Hit> {
        match corpus.search_blocking(&[query.to_owned()]) {
            Ok(h) => h,
            Err(err) => panic!("search: {err}"),
        }
    }

    fn tempdir() -> tempfile::TempDir {
        match tempfile::tempdir() {
            Ok(d) => d,
            Err(err) => panic!("tempdir: {err}"),
        }
    }

    const FERRY: &str = "---\ntitle: Ferry service update\nurl: https://ledger.example/ferry\npublished: 2026-01-20\n---\n# Ferry\n\nThe Oakvale ferry will stay out of service until March while the pier is repaired by the harbour authority engineers.\n\nIn other news the library opens a new reading room on Saturdays for students and families alike.\n";

    #[test]
    fn front_matter_and_passages_are_parsed() {
        let doc = parse_document("news/ferry.md", FERRY);
        assert_eq!(doc.title, "Ferry service update");
        assert_eq!(doc.url, "https://ledger.example/ferry");
        assert_eq!(doc.published.as_deref(), Some("2026-01-20"));
        assert_eq!(doc.passages.len(), 2);
        assert!(
            doc.passages[0].starts_with("Ferry The Oakvale ferry"),
            "{:?}",
            doc.passages
        );
    }

    #[test]
    fn documents_without_front_matter_get_a_local_url_and_first_line_title() {
        let doc = parse_document("notes.txt", "Harbor notes\nthe pier is closed\n");
        assert_eq!(doc.title, "Harbor notes");
        assert_eq!(doc.url, "local:notes.txt");
        assert_eq!(doc.published, None);
        assert_eq!(doc.passages, ["Harbor notes the pier is closed"]);
        // An unterminated front matter is body text.
        let doc = parse_document("x.md", "---\ntitle: never closed\nbody");
        assert_eq!(doc.url, "local:x.md");
    }

    #[test]
    fn bm25_finds_the_best_passage_and_ranks_documents() {
        let dir = tempdir();
        write(dir.path(), "ferry.md", FERRY);
        write(
            dir.path(),
            "library.txt",
            "Library hours\n\nThe library reading room opens on Saturdays and Sundays from February, the librarian said on Monday.\n",
        );
        write(dir.path(), "ignored.json", "{\"ferry\": \"pier\"}");
        let corpus = corpus(dir.path());

        let hits = search(&corpus, "When will the ferry return to service?");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].url, "https://ledger.example/ferry");
        assert!(hits[0].snippet.contains("out of service until March"));
        assert_eq!(hits[0].source, Source::Local);

        let hits = search(&corpus, "library reading room Saturdays");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].url, "local:library.txt");
        assert_eq!(hits[0].rank, 0);
        assert_eq!(hits[1].rank, 1);
        // The ferry document's hit is its library paragraph, not its opening.
        assert!(hits[1].snippet.contains("reading room"));
        assert!(hits[0].score >= hits[1].score);

        assert!(search(&corpus, "the of and?").is_empty());
        assert!(search(&corpus, "title: \"quoted\" (AND) OR -x").is_empty());
    }

    #[test]
    fn the_index_is_rebuilt_when_the_folder_changes() {
        let dir = tempdir();
        write(
            dir.path(),
            "a.md",
            "Alpha\n\nThe council met on Tuesday to discuss parking rules downtown and beyond the river.\n",
        );
        let corpus = corpus(dir.path());
        assert!(search(&corpus, "marathon").is_empty());
        let before = corpus.fingerprint().ok();

        fs::create_dir(dir.path().join("sport")).ok();
        write(
            &dir.path().join("sport"),
            "race.md",
            "Marathon\n\nThe marathon was won in two hours eleven minutes by a local runner from the valley.\n",
        );
        assert_ne!(corpus.fingerprint().ok(), before);
        let hits = search(&corpus, "marathon winner");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].url, "local:sport/race.md");

        fs::remove_file(dir.path().join("sport/race.md")).ok();
        assert!(search(&corpus, "marathon").is_empty());
    }

    #[test]
    fn a_missing_folder_is_an_io_error() {
        let config = LocalConfig {
            dir: PathBuf::from("does/not/exist"),
            ..LocalConfig::default()
        };
        assert!(matches!(
            LocalCorpus::open(&config),
            Err(CollectorError::Io { .. })
        ));
    }
}
