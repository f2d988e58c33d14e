//! The layer check: every `crate::` path under `src/` must point to a module of a lower layer
//! than the file's own, per the table in the crate docs (`lib.rs`, "Layers"), and the
//! submodules of one module must not import each other in a cycle.
//!
//! It reads the source text rather than compiler output: a path is found wherever `crate::`
//! or `super::` appears outside a line comment — `use` lines, paths in expressions and paths
//! in strings such as `#[serde(with = "crate::decimal")]` — and is expanded in full (each
//! leaf of a `crate::{…}` group). Its longest prefix the table names is the module it
//! imports: a row may name a submodule (`watcher::events`) that sits at a layer of its own.
//! Doc comments are skipped: an intra-doc link is not an import.
//!
//! Inside one row, an import from submodule `a` into its sibling `b` (`crate::jury::juror`
//! or `super::juror` from `jury/ballot.rs`) is an arrow `a -> b`; any cycle of such arrows
//! fails, at every depth (`evidence::collectors` and its children alike). The parent module
//! (`mod.rs`) is not part of it: it declares its children and re-exports their items, and an
//! import of such a re-export is not seen as an arrow to the child.

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

/// The paths (segments after `crate::` or `super::`) a path names, given the text right after
/// its prefix: one path, or one per leaf of a `{…}` group, nested groups expanded
/// (`{chain::{self, reader}, store::Store}` → `chain`, `chain::reader`, `store::Store`).
fn paths(after: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    expand(after, &mut Vec::new(), &mut out);
    out
}

/// Read one path item from `text` (a `::`-separated run of identifiers, maybe ending in a
/// group) below `prefix`, push every full path it names, and return the text after it.
fn expand<'a>(mut text: &'a str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> &'a str {
    let depth = prefix.len();
    loop {
        text = text.trim_start();
        if let Some(group) = text.strip_prefix('{') {
            text = group;
            loop {
                text = expand(text, prefix, out);
                // Past the item's tail (` as name`) to the next item or the group's end.
                let end = text.find([',', '}']).unwrap_or(text.len());
                text = &text[end..];
                if let Some(rest) = text.strip_prefix(',') {
                    text = rest;
                    continue;
                }
                text = text.strip_prefix('}').unwrap_or(text);
                break;
            }
            break;
        }
        let ident = ident_at(text);
        if ident.is_empty() {
            if prefix.len() > depth {
                out.push(prefix.clone());
            }
            break;
        }
        text = &text[ident.len()..];
        if ident != "self" {
            prefix.push(ident.to_owned());
        }
        match text.strip_prefix("::") {
            Some(rest) => text = rest,
            None => {
                if prefix.len() > depth || ident == "self" {
                    out.push(prefix.clone());
                }
                break;
            }
        }
    }
    prefix.truncate(depth);
    text
}

/// Where a path starts: the crate root (`crate::`) or the file's parent module (`super::`,
/// maybe repeated: the count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Crate,
    Super(usize),
}

/// Every (line number, root, path) of the `crate::` and `super::` paths in `source`. The
/// `super::` paths are read only before the file's first `#[cfg(test)]`: a test module nested
/// in the file would resolve them one level lower, and a test's reach across modules is not
/// the library's shape (its `crate::` paths still count).
fn imports(source: &str) -> Vec<(usize, Root, Vec<String>)> {
    // Join code lines so a `crate::{` group spanning lines is read whole; keep line starts.
    let mut code = String::new();
    let mut starts = Vec::new();
    for line in source.lines() {
        starts.push(code.len());
        code.push_str(code_of(line));
        code.push('\n');
    }
    let library_end = code.find("#[cfg(test)]").unwrap_or(code.len());
    let mut out = Vec::new();
    for keyword in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let at = from + at;
            from = at + keyword.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == ':')
            {
                continue; // `$crate::`, an identifier ending in `crate`, or a later `super::`.
            }
            let root = if keyword == "crate::" {
                Root::Crate
            } else {
                if at >= library_end {
                    continue;
                }
                let mut levels = 1;
                while code[from..].starts_with("super::") {
                    levels += 1;
                    from += "super::".len();
                }
                Root::Super(levels)
            };
            let line = starts.partition_point(|s| *s <= at);
            for path in paths(&code[from..]) {
                if !path.is_empty() {
                    out.push((line, root, path));
                }
            }
        }
    }
    out.sort_by_key(|(line, ..)| *line);
    out
}

/// The module path of a file under `src/` (`contract/reader/mod.rs` → `contract::reader`,
/// `api/court.rs` → `api::court`, `api.rs` → `api`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut out: Vec<String> = relative
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .map(|c| c.strip_suffix(".rs").unwrap_or(c).to_owned())
        .collect();
    if out.last().is_some_and(|l| l == "mod") {
        out.pop();
    }
    out
}

/// A path from the crate root: `crate::` paths as written, `super::` ones resolved against
/// the file's module path.
fn absolute(own: &[String], root: Root, path: Vec<String>) -> Option<Vec<String>> {
    match root {
        Root::Crate => Some(path),
        Root::Super(levels) => {
            let base = own.len().checked_sub(levels)?;
            Some(own[..base].iter().cloned().chain(path).collect())
        }
    }
}

/// The table row a module path belongs to: its longest prefix the table names (`watcher`, or
/// `watcher::events` when that submodule has its own row).
fn unit_of(path: &[String], table: &BTreeMap<String, u32>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|name| table.contains_key(name))
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

/// Whether `path` (from the crate root) is a module with a file of its own (`a/b.rs` or
/// `a/b/mod.rs`), as opposed to an item.
fn is_module_file(src: &Path, path: &[String]) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return false;
    };
    let dir: PathBuf = parent.iter().collect();
    src.join(&dir).join(format!("{last}.rs")).is_file()
        || src.join(&dir).join(last).join("mod.rs").is_file()
}

/// One import between two sibling submodules: inside `parent`, `from` imports `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Arrow {
    parent: String,
    from: String,
    to: String,
    at: String,
}

/// The sibling arrow an import makes, if any: the file at module path `own` imports `target`,
/// and below their common prefix (not the crate root) the two go on into different
/// submodules of one table row. The parent module itself (`mod.rs`) is no sibling: it
/// declares and re-exports its children.
fn sibling_arrow(
    src: &Path,
    own: &[String],
    target: &[String],
    table: &BTreeMap<String, u32>,
) -> Option<(String, String, String)> {
    let common = own.iter().zip(target).take_while(|(a, b)| a == b).count();
    let (from, to) = (own.get(common)?, target.get(common)?);
    if common == 0 || unit_of(own, table) != unit_of(target, table) {
        return None; // Between rows: the layer table orders them.
    }
    if !is_module_file(src, &target[..=common]) {
        return None; // An item of the parent (a re-export), not a sibling module.
    }
    Some((own[..common].join("::"), from.clone(), to.clone()))
}

/// The cycles among the arrows: each as `parent: a -> b -> a` with the import of each step.
fn cycles(arrows: &[Arrow]) -> Vec<String> {
    let mut graph: BTreeMap<(&str, &str), Vec<&Arrow>> = BTreeMap::new();
    for a in arrows {
        graph
            .entry((a.parent.as_str(), a.from.as_str()))
            .or_default()
            .push(a);
    }
    let mut out = Vec::new();
    let mut reported = std::collections::BTreeSet::new();
    // A search from each module back to itself; a module has few submodules.
    for &(parent, start) in graph.keys() {
        let mut stack: Vec<(&str, Vec<&Arrow>)> = vec![(start, Vec::new())];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((node, trail)) = stack.pop() {
            for arrow in graph.get(&(parent, node)).into_iter().flatten() {
                let mut trail = trail.clone();
                trail.push(arrow);
                if arrow.to == start {
                    let mut members: Vec<&str> = trail.iter().map(|a| a.from.as_str()).collect();
                    members.sort_unstable();
                    if reported.insert((parent, members)) {
                        let steps: Vec<String> = trail
                            .iter()
                            .map(|a| format!("{} -> {} ({})", a.from, a.to, a.at))
                            .collect();
                        out.push(format!("cycle inside `{parent}`: {}", steps.join(", ")));
                    }
                } else if seen.insert(arrow.to.as_str()) {
                    stack.push((arrow.to.as_str(), trail));
                }
            }
        }
    }
    out
}

/// Every arrow that does not point down, as `file:line: from (layer) imports to (layer)`, and
/// every cycle between the submodules of one row (`cycle inside `jury`: ballot -> juror …`).
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
    let mut arrows = Vec::new();
    for path in files {
        out.extend(file_violations(src, &path, &table, &mut arrows));
    }
    arrows.sort();
    arrows.dedup_by(|a, b| (&a.parent, &a.from, &a.to) == (&b.parent, &b.from, &b.to));
    out.extend(cycles(&arrows));
    out
}

/// Every file but the crate root, the binary (whose `crate` is another crate) and this check
/// (whose test inputs are `crate::` paths).
fn is_layered(relative: &Path) -> bool {
    ![LIB, "main.rs", "layers.rs"]
        .iter()
        .any(|skip| relative == Path::new(skip))
}

/// The imports of one file that point up or at a module without a layer (or the file's own
/// module without one: the one finding). Its imports between sibling submodules go to
/// `arrows`, for the cycle search.
fn file_violations(
    src: &Path,
    path: &Path,
    table: &BTreeMap<String, u32>,
    arrows: &mut Vec<Arrow>,
) -> Vec<String> {
    let relative = path.strip_prefix(src).unwrap_or(path);
    if !is_layered(relative) {
        return Vec::new();
    }
    let own_path = module_path(relative);
    let Some(module) = unit_of(&own_path, table) else {
        return vec![format!(
            "{}: module `{}` has no layer",
            relative.display(),
            own_path.join("::")
        )];
    };
    let own = table[&module];
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for (line, root, import) in imports(&source) {
        let Some(target_path) = absolute(&own_path, root, import) else {
            continue;
        };
        if let Some((parent, from, to)) = sibling_arrow(src, &own_path, &target_path, table) {
            arrows.push(Arrow {
                parent,
                from,
                to,
                at: format!("{}:{line}", relative.display()),
            });
        }
        let Some(target) = unit_of(&target_path, table) else {
            if root == Root::Crate {
                out.push(format!(
                    "{}:{line}: `{module}` imports `{}`, which has no layer",
                    relative.display(),
                    target_path.join("::")
                ));
            }
            continue;
        };
        if target == module {
            continue;
        }
        match table[&target] {
            layer if layer < own => {}
            layer => out.push(format!(
                "{}:{line}: `{module}` (layer {own}) imports `{target}` (layer {layer})",
                relative.display()
            )),
        }
    }
    out
}

/// Fail with every violation under `dir` (relative to this crate's manifest), naming the table.
fn assert_arrows_point_down(dir: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "imports against the layer table in {dir}/lib.rs (a module imports only lower layers):\n{}",
        found.join("\n")
    );
}

#[test]
fn arrows_point_down() {
    assert_arrows_point_down("src");
}

/// The same rule inside `veritas-core` (core/src), against the table of its own `lib.rs`.
#[test]
fn core_arrows_point_down() {
    assert_arrows_point_down("../core/src");
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
                  let url = \"https://example.com\"; use crate::{self as me, plot};\n\
                  use super::super::{ballot::Usage, Juror};\n\
                  #[cfg(test)]\nmod tests { use super::*; use crate::jury; }\n";
    let found = imports(source);
    let names: Vec<(usize, String)> = found
        .iter()
        .map(|(line, root, path)| {
            let root = match root {
                Root::Crate => "crate".to_owned(),
                Root::Super(n) => format!("super{n}"),
            };
            (*line, format!("{root}::{}", path.join("::")))
        })
        .collect();
    let expected = [
        (1, "crate::chain"),
        (1, "crate::chain::reader"),
        (1, "crate::store::Store"),
        (6, "crate::decimal"),
        (7, "crate::stats::to_wad"),
        (9, "crate::plot"),
        (10, "super2::ballot::Usage"),
        (10, "super2::Juror"),
        (12, "crate::jury"),
    ];
    let expected: Vec<(usize, String)> = expected
        .iter()
        .map(|(l, p)| (*l, (*p).to_owned()))
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn super_paths_resolve_against_the_file_and_rows_take_the_longest_prefix() {
    let own = module_path(Path::new("jury/ballot.rs"));
    assert_eq!(own, ["jury", "ballot"]);
    assert_eq!(
        module_path(Path::new("contract/reader/mod.rs")),
        ["contract", "reader"]
    );
    let usage = absolute(&own, Root::Super(1), vec!["juror".into(), "Usage".into()]);
    assert_eq!(
        usage,
        Some(vec!["jury".into(), "juror".into(), "Usage".into()])
    );
    let table: BTreeMap<String, u32> =
        [("watcher".to_owned(), 4), ("watcher::events".to_owned(), 1)]
            .into_iter()
            .collect();
    let events: Vec<String> = vec!["watcher".into(), "events".into(), "NewQuestion".into()];
    assert_eq!(unit_of(&events, &table).as_deref(), Some("watcher::events"));
    assert_eq!(unit_of(&events[..1], &table).as_deref(), Some("watcher"));
}

#[test]
fn a_cycle_between_submodules_is_found_with_its_imports() {
    let arrow = |from: &str, to: &str, at: &str| Arrow {
        parent: "jury".into(),
        from: from.into(),
        to: to.into(),
        at: at.into(),
    };
    let arrows = [
        arrow("ballot", "juror", "jury/ballot.rs:365"),
        arrow("juror", "archetype", "jury/juror.rs:11"),
        arrow("juror", "ballot", "jury/juror.rs:12"),
    ];
    assert_eq!(
        cycles(&arrows),
        [
            "cycle inside `jury`: ballot -> juror (jury/ballot.rs:365), juror -> ballot (jury/juror.rs:12)"
        ]
    );
    assert!(cycles(&arrows[1..]).is_empty());
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
