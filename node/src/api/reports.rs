//! The report files the API serves, each read and checked once per version of the file.
//!
//! A question page, a bundle and the court's page serve report files as the node wrote them
//! (evidence as committed), once each has been checked to read as a report. The court page
//! does so for every operator report of every case on each request, and the read, the parse
//! and the typed check are what the request costs; so the checked value is kept, keyed by what
//! changes when the file does: its inode (a report is replaced by a rename), its length and
//! its modification time. A file that fails the check is not kept: it is read again (and
//! logged by the caller) on each request, as before.

use std::{
    collections::HashMap,
    os::unix::fs::MetadataExt as _,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
    time::SystemTime,
};

use serde::Deserialize as _;
use serde_json::Value;

/// Why a report file is not served.
#[derive(Debug, thiserror::Error)]
pub enum NotServed {
    /// Unreadable, too large, not JSON or not an object.
    #[error(transparent)]
    Read(#[from] crate::audit::ReportFileError),
    /// A JSON object, but not a [`crate::report::Report`].
    #[error("{} is not a report: {source}", path.display())]
    NotReport {
        /// The file.
        path: PathBuf,
        /// Where its JSON departs from a report.
        source: serde_json::Error,
    },
}

fn check(path: &Path) -> Result<Value, NotServed> {
    let value = crate::audit::read_report(path)?;
    match crate::report::Report::deserialize(&value) {
        Ok(_) => Ok(value),
        Err(source) => Err(NotServed::NotReport {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Files kept at most: a node's recent reports and those the court pages show.
pub const MAX_ENTRIES: usize = 256;

/// File bytes kept at most (the parsed values take a few times more): one report of the largest
/// size the audit reads, or hundreds of real ones (5 to 30 KB).
pub const MAX_BYTES: u64 = crate::audit::MAX_REPORT_BYTES;

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    inode: u64,
    len: u64,
    modified: SystemTime,
}

impl Version {
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok()?,
        })
    }
}

struct Entry {
    version: Version,
    value: Arc<Value>,
    /// The tick of its last use: the smallest is evicted first.
    used: u64,
}

#[derive(Default)]
struct Entries {
    by_path: HashMap<PathBuf, Entry>,
    bytes: u64,
    tick: u64,
}

impl Entries {
    fn remove(&mut self, path: &Path) {
        if let Some(gone) = self.by_path.remove(path) {
            self.bytes = self.bytes.saturating_sub(gone.version.len);
        }
    }

    /// Drop the least recently used entries until both bounds hold.
    fn evict(&mut self, max_entries: usize, max_bytes: u64) {
        while self.by_path.len() > max_entries || self.bytes > max_bytes {
            let Some(oldest) = self
                .by_path
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(path, _)| path.clone())
            else {
                return;
            };
            self.remove(&oldest);
        }
    }
}

/// Checked report files by path, bounded in entries and bytes, least recently used evicted.
pub struct ReportCache {
    entries: Mutex<Entries>,
    max_entries: usize,
    max_bytes: u64,
}

/// At most [`MAX_ENTRIES`] files and [`MAX_BYTES`] file bytes.
impl Default for ReportCache {
    fn default() -> Self {
        Self::new(MAX_ENTRIES, MAX_BYTES)
    }
}

impl ReportCache {
    /// The report file at `path` as written, read through the audit's bounded reader and
    /// checked to be a [`crate::report::Report`]; kept while the file is unchanged.
    ///
    /// # Errors
    /// [`NotServed`]: unreadable, not JSON, or not a report.
    pub fn read(&self, path: &Path) -> Result<Arc<Value>, NotServed> {
        self.get(path, check)
    }

    /// An empty cache of at most `max_entries` files and `max_bytes` file bytes.
    pub fn new(max_entries: usize, max_bytes: u64) -> Self {
        Self {
            entries: Mutex::new(Entries::default()),
            max_entries,
            max_bytes,
        }
    }

    /// The checked value of the file at `path`: kept from an earlier call while the file is
    /// the same version, else what `check` reads from it now (kept when it passes).
    ///
    /// # Errors
    /// What `check` says of a file that does not pass.
    pub fn get<E>(
        &self,
        path: &Path,
        check: impl FnOnce(&Path) -> Result<Value, E>,
    ) -> Result<Arc<Value>, E> {
        let version = Version::of(path);
        if let Some(version) = version
            && let Some(value) = self.kept(path, version)
        {
            return Ok(value);
        }
        // Read outside the lock: other requests are served meanwhile. The version was taken
        // before the read, so what is kept is never older than its key.
        let checked = check(path).map(Arc::new);
        let mut entries = self.lock();
        entries.remove(path);
        if let (Ok(value), Some(version)) = (&checked, version) {
            entries.tick += 1;
            let used = entries.tick;
            entries.bytes += version.len;
            let value = Arc::clone(value);
            let entry = Entry {
                version,
                value,
                used,
            };
            entries.by_path.insert(path.to_owned(), entry);
            entries.evict(self.max_entries, self.max_bytes);
        }
        checked
    }

    fn kept(&self, path: &Path, version: Version) -> Option<Arc<Value>> {
        let mut entries = self.lock();
        entries.tick += 1;
        let tick = entries.tick;
        let entry = entries
            .by_path
            .get_mut(path)
            .filter(|e| e.version == version)?;
        entry.used = tick;
        Some(Arc::clone(&entry.value))
    }

    /// The entries; a panic while they were held cannot leave them wrong enough to matter
    /// (at worst a byte count off, corrected as entries go).
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_path.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::cell::Cell;

    use serde_json::json;

    use super::*;

    /// Reads the file as JSON, counting the reads.
    fn counting(reads: &Cell<u32>) -> impl Fn(&Path) -> Result<Value, String> + '_ {
        move |path| {
            reads.set(reads.get() + 1);
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            serde_json::from_str(&text).map_err(|e| e.to_string())
        }
    }

    #[test]
    fn an_unchanged_file_is_read_once_and_a_rewritten_one_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.json");
        let cache = ReportCache::new(4, 1 << 20);
        let reads = Cell::new(0);
        std::fs::write(&path, r#"{"root": "a"}"#).unwrap();
        for _ in 0..3 {
            let got = cache.get(&path, counting(&reads)).unwrap();
            assert_eq!(*got, json!({"root": "a"}));
        }
        assert_eq!(reads.get(), 1, "kept while unchanged");
        // Replaced as the node writes reports (a new file renamed over it), same length.
        let tmp = dir.path().join("1.json.tmp");
        std::fs::write(&tmp, r#"{"root": "b"}"#).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert_eq!(
            *cache.get(&path, counting(&reads)).unwrap(),
            json!({"root": "b"})
        );
        // Written in place, longer.
        std::fs::write(&path, r#"{"root": "cc"}"#).unwrap();
        assert_eq!(
            *cache.get(&path, counting(&reads)).unwrap(),
            json!({"root": "cc"})
        );
        assert_eq!(reads.get(), 3);
    }

    #[test]
    fn a_file_that_fails_the_check_is_not_kept_nor_its_earlier_version_served() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.json");
        let cache = ReportCache::new(4, 1 << 20);
        let reads = Cell::new(0);
        std::fs::write(&path, r#"{"root": "a"}"#).unwrap();
        cache.get(&path, counting(&reads)).unwrap();
        std::fs::write(&path, "not json").unwrap();
        for _ in 0..2 {
            assert!(cache.get(&path, counting(&reads)).is_err());
        }
        assert_eq!((reads.get(), cache.len()), (3, 0));
        std::fs::remove_file(&path).unwrap();
        assert!(cache.get(&path, counting(&reads)).is_err());
    }

    #[test]
    fn the_least_recently_used_go_first_within_both_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let (a, b, c) = (file("a", "1"), file("b", "2"), file("c", "3"));
        let cache = ReportCache::new(2, 1 << 20);
        let reads = Cell::new(0);
        for path in [&a, &b, &a, &c] {
            cache.get(path, counting(&reads)).unwrap();
        }
        assert_eq!(
            (reads.get(), cache.len()),
            (3, 2),
            "b went, a was used after it"
        );
        cache.get(&a, counting(&reads)).unwrap();
        assert_eq!(reads.get(), 3, "a kept");
        cache.get(&b, counting(&reads)).unwrap();
        assert_eq!(reads.get(), 4, "b read again");
        // A byte bound below two files keeps one; a file over it is not kept at all.
        let cache = ReportCache::new(8, 1);
        cache.get(&a, counting(&reads)).unwrap();
        cache.get(&b, counting(&reads)).unwrap();
        assert_eq!(cache.len(), 1);
        let big = file("big", "12");
        cache.get(&big, counting(&reads)).unwrap();
        assert_eq!(cache.len(), 0);
    }
}
