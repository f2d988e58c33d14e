//! The layer check: every `crate::` path under `src/` must point to a module of a lower layer
//! than the file's own, per the table in the crate docs (`lib.rs`, "Layers").
//!
//! It reads the source text rather than compiler output: a path is found wherever `crate::`
//! appears outside a line comment — `use` lines, paths in expressions and paths in strings
//! such as `#[serde(with = "crate::decimal")]` — and its first segment (each item's first
//! segment for a `crate::{…}` group) is the module it imports. Doc comments are skipped: an
//! intra-doc link is not an import.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

/// The crate root, whose docs hold the table.
const LIB: &str = "lib.rs";

/// Module name → layer, from the `//! | n | `a`, `b` |` rows of the crate docs.
fn layer_table(lib: &str) -> BTreeMap<String, u32> {
    table_rows(lib, "//! |")
}

/// Module name → layer, from the rows `<prefix> n | `a`, `b` |` of `text` (the crate docs, or
/// the README's table, whose rows start at `|`).
fn table_rows(text: &str, prefix: &str) -> BTreeMap<String, u32> {
    let mut table = BTreeMap::new();
    for line in text.lines() {
        let Some(row) = line.strip_prefix(prefix) else {
            continue;
        };
        let mut cells = row.split('|');
        let Some(Ok(layer)) = cells.next().map(|c| c.trim().parse::<u32>()) else {
            continue;
        };
        for name in cells.next().unwrap_or_default().split(',') {
            let name = name.trim().trim_matches('`');
            if !name.is_empty() {
                let previous = table.insert(name.to_owned(), layer);
                assert!(previous.is_none(), "`{name}` is in the layer table twice");
            }
        }
    }
    table
}

/// The modules `lib.rs` declares public (`pub mod x;`).
fn declared_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// The line without its `//` comment (a `//` right after `:` is a URL in a string, kept).
fn code_of(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(at) = line[i..].find("//") {
        let at = i + at;
        if at == 0 || bytes[at - 1] != b':' {
            return &line[..at];
        }
        i = at + 2;
    }
    line
}

fn ident_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The modules a `crate::` path names, given the text right after `crate::`.
fn targets(after: &str) -> Vec<String> {
    let Some(group) = after.strip_prefix('{') else {
        return vec![ident_at(after).to_owned()];
    };
    // The first segment of each top-level item of the group.
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut item_start = true;
    let mut rest = group;
    while let Some(c) = rest.chars().next() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && (c.is_ascii_alphabetic() || c == '_') => {
                out.push(ident_at(rest).to_owned());
                item_start = false;
            }
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Every (line number, target module) of `crate::` paths in `source`.
fn imports(source: &str) -> Vec<(usize, String)> {
    // Join code lines so a `crate::{` group spanning lines is read whole; keep line starts.
    let mut code = String::new();
    let mut starts = Vec::new();
    for line in source.lines() {
        starts.push(code.len());
        code.push_str(code_of(line));
        code.push('\n');
    }
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let at = from + at;
        from = at + "crate::".len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` in a macro, or an identifier ending in `crate`.
        }
        let line = starts.partition_point(|s| *s <= at);
        for target in targets(&code[from..]) {
            if !target.is_empty() && target != "self" {
                out.push((line, target));
            }
        }
    }
    out
}

/// The top-level module a file under `src/` belongs to (`chain/reader.rs` → `chain`).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    Some(first.strip_suffix(".rs").unwrap_or(first).to_owned())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every arrow that does not point down, as `file:line: from (layer) imports to (layer)`.
fn violations(src: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(src.join(LIB)).unwrap_or_else(|e| panic!("{LIB}: {e}"));
    let table = layer_table(&lib);
    let mut out = Vec::new();
    for module in declared_modules(&lib) {
        if !table.contains_key(&module) {
            out.push(format!(
                "module `{module}` is not in the layer table of {LIB}"
            ));
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    for path in files {
        let relative = path.strip_prefix(src).unwrap_or(&path);
        // Not layered: the crate root, the binary (whose `crate` is another crate) and this
        // check (whose test inputs are `crate::` paths).
        if [LIB, "main.rs", "layers.rs"]
            .iter()
            .any(|skip| relative == Path::new(skip))
        {
            continue;
        }
        let Some(module) = module_of(relative) else {
            continue;
        };
        let Some(&own) = table.get(&module) else {
            out.push(format!(
                "{}: module `{module}` has no layer",
                relative.display()
            ));
            continue;
        };
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        for (line, target) in imports(&source) {
            if target == module {
                continue;
            }
            match table.get(&target) {
                Some(&layer) if layer < own => {}
                Some(&layer) => out.push(format!(
                    "{}:{line}: `{module}` (layer {own}) imports `{target}` (layer {layer})",
                    relative.display()
                )),
                None => out.push(format!(
                    "{}:{line}: `{module}` imports `{target}`, which has no layer",
                    relative.display()
                )),
            }
        }
    }
    out
}

#[test]
fn arrows_point_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "imports against the layer table in src/lib.rs (a module imports only lower layers):\n{}",
        found.join("\n")
    );
}

/// The README's "Data flow and code layout" section lists the modules and their layers for a
/// newcomer; it must say what `lib.rs` says, so a new, moved or removed module fails here until
/// the README follows.
#[test]
fn readme_names_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let readme = read(&root.join("../README.md"));
    let section = readme
        .split("\n## Data flow and code layout\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("README.md has no \"## Data flow and code layout\" section"));
    let lib = read(&root.join("src").join(LIB));
    assert_eq!(
        table_rows(section, "| "),
        layer_table(&lib),
        "README.md's module table differs from the layer table of src/lib.rs"
    );
}

#[test]
fn paths_are_read_from_use_groups_strings_and_code() {
    let source = "use crate::{\n    chain::{self, reader},\n    store::Store,\n};\n\
                  // crate::cli in a comment\n\
                  #[serde(with = \"crate::decimal\")]\n\
                  let x = crate::stats::to_wad(c); // crate::web\n\
                  macro_rules! m { () => { $crate::api::x() } }\n\
                  let url = \"https://example.com\"; use crate::{self as me, plot};\n";
    let found: Vec<(usize, String)> = imports(source);
    let names: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(names, ["chain", "store", "decimal", "stats", "plot"]);
    assert_eq!(found[0].0, 1);
    assert_eq!(found[2].0, 6);
}

#[test]
fn the_table_is_read_from_the_crate_docs() {
    let lib = "//! | layer | modules |\n//! |---|---|\n//! | 0 | `clock`, `live` |\n\
               //! | 3 | `chain` |\npub mod chain;\npub mod clock;\n";
    let table = layer_table(lib);
    assert_eq!(table.get("clock"), Some(&0));
    assert_eq!(table.get("chain"), Some(&3));
    assert_eq!(table.len(), 3);
    assert_eq!(declared_modules(lib), ["chain", "clock"]);
}
