//! Juror personas as data: `name`, `bias` and `prompt`, one TOML file each.
//!
//! The five shipped personas live in the repository's `archetypes/` folder and are compiled
//! into the binary, so `veritas` works from any directory; an operator adds their own by
//! pointing `jury.archetypes_dir` at a folder of the same files (they replace the shipped set).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One juror persona.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Archetype {
    /// Display name, as it appears in ballots and reports.
    pub name: String,
    /// How this juror leans, in one sentence.
    pub bias: String,
    /// The persona text the juror reads.
    pub prompt: String,
}

/// Why archetypes could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ArchetypeError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The path.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A file is not a valid archetype.
    #[error("{path} is not a valid archetype: {reason}")]
    Invalid {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The folder holds no archetype.
    #[error("no archetype (*.toml) in {0}")]
    Empty(PathBuf),
}

const SHIPPED: [(&str, &str); 5] = [
    (
        "strict_empiricist.toml",
        include_str!("../../../archetypes/strict_empiricist.toml"),
    ),
    (
        "permissive_interpreter.toml",
        include_str!("../../../archetypes/permissive_interpreter.toml"),
    ),
    (
        "skeptic.toml",
        include_str!("../../../archetypes/skeptic.toml"),
    ),
    (
        "source_quality_hawk.toml",
        include_str!("../../../archetypes/source_quality_hawk.toml"),
    ),
    (
        "contrarian.toml",
        include_str!("../../../archetypes/contrarian.toml"),
    ),
];

impl Archetype {
    /// Parse one archetype file's text.
    ///
    /// # Errors
    /// [`ArchetypeError::Invalid`] on bad TOML, a missing key or an empty name or prompt.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ArchetypeError> {
        let invalid = |reason: String| ArchetypeError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        let mut a: Archetype = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        a.name = a.name.trim().to_owned();
        a.bias = a.bias.trim().to_owned();
        a.prompt = a.prompt.trim().to_owned();
        if a.name.is_empty() || a.prompt.is_empty() {
            return Err(invalid("name and prompt must not be empty".to_owned()));
        }
        Ok(a)
    }

    /// The five shipped personas, in a fixed order (the sampler indexes into it).
    pub fn shipped() -> Vec<Archetype> {
        SHIPPED
            .iter()
            .filter_map(|(file, text)| Archetype::parse(Path::new(file), text).ok())
            .collect()
    }

    /// Every `*.toml` file of `dir`, sorted by file name (so the order, and with it the
    /// seeded draws, does not depend on the file system).
    ///
    /// # Errors
    /// An unreadable folder or file, an invalid file, or no file at all.
    pub fn load_dir(dir: &Path) -> Result<Vec<Archetype>, ArchetypeError> {
        let io = |path: &Path, e: std::io::Error| ArchetypeError::Io {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| io(dir, e))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(ArchetypeError::Empty(dir.to_path_buf()));
        }
        files
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).map_err(|e| io(p, e))?;
                Archetype::parse(p, &text)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_shipped_personas_parse() {
        let all = Archetype::shipped();
        let names: Vec<&str> = all.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Strict Empiricist",
                "Permissive Interpreter",
                "Skeptic",
                "Source Quality Hawk",
                "Contrarian"
            ]
        );
        assert!(
            all.iter()
                .all(|a| !a.bias.is_empty() && a.prompt.len() > 50)
        );
    }

    #[test]
    fn repository_folder_matches_the_compiled_set() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../archetypes");
        let mut from_dir = Archetype::load_dir(&dir).unwrap();
        let mut shipped = Archetype::shipped();
        from_dir.sort_by(|a, b| a.name.cmp(&b.name));
        shipped.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(from_dir, shipped);
    }

    #[test]
    fn invalid_files_are_rejected_with_the_path() {
        let err = Archetype::parse(
            Path::new("x.toml"),
            "name = \"\"\nbias = \"b\"\nprompt = \"p\"",
        )
        .unwrap_err();
        assert!(err.to_string().contains("x.toml"));
        assert!(Archetype::parse(Path::new("y.toml"), "name = 3").is_err());
    }
}
