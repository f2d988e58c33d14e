//! The configuration reference, generated from the configuration types themselves.
//!
//! The book's reference page (`book/src/config-reference.md`, `veritas config --reference`)
//! must not drift from the code, so it is not written by hand: this module reads the Rust
//! sources of every type in the [`Config`] tree (embedded at build time with `include_str!`),
//! takes each field's name, type, serde attributes and `///` doc comment, walks the tree from
//! `Config` down (sections, arrays of tables, flattened and internally tagged types), and takes
//! every default from the types' own `Default` values serialised to TOML. A unit test fails when
//! the committed page differs from what this module generates, and when a field's type is one
//! it cannot describe.
//!
//! The parser knows only the shapes the configuration types use: `pub struct Name {` with one
//! `pub field: Type,` per line, and `pub enum Name {` with unit or one-field tuple variants.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::jury::pool::{JurorConfig, JurorKind, ReplayConfig};
use crate::llm::openai::OpenAiConfig;

/// The sources of every type the configuration tree holds (paths relative to `core/src`: the
/// configuration types live in the `veritas-core` crate).
const SOURCES: &[(&str, &str)] = &[
    (
        "config/mod.rs",
        include_str!("../../../core/src/config/mod.rs"),
    ),
    (
        "config/jury.rs",
        include_str!("../../../core/src/config/jury.rs"),
    ),
    (
        "config/evidence.rs",
        include_str!("../../../core/src/config/evidence.rs"),
    ),
    (
        "config/routing.rs",
        include_str!("../../../core/src/config/routing.rs"),
    ),
    (
        "config/model.rs",
        include_str!("../../../core/src/config/model.rs"),
    ),
    (
        "stats/stopping.rs",
        include_str!("../../../core/src/stats/stopping.rs"),
    ),
    (
        "stats/ballot.rs",
        include_str!("../../../core/src/stats/ballot.rs"),
    ),
];

/// One field of a struct, or one variant of an enum, as written in the source.
#[derive(Debug, Clone, Default)]
struct Item {
    name: String,
    /// The field's type, or the variant's one field (empty for a unit variant).
    ty: String,
    doc: Vec<String>,
    /// The `#[serde(...)]` arguments, joined.
    serde: String,
}

/// A struct or an enum.
#[derive(Debug, Clone, Default)]
struct TypeDef {
    is_enum: bool,
    /// The container's `#[serde(...)]` arguments, joined.
    serde: String,
    items: Vec<Item>,
}

/// Every `pub struct` and `pub enum` of [`SOURCES`], by name (the first definition wins).
fn parse_sources() -> BTreeMap<String, TypeDef> {
    let mut types = BTreeMap::new();
    for (_, text) in SOURCES {
        parse_into(text, &mut types);
    }
    types
}

fn serde_args(attr: &str) -> Option<&str> {
    attr.strip_prefix("#[serde(")?.strip_suffix(")]")
}

fn parse_into(text: &str, types: &mut BTreeMap<String, TypeDef>) {
    let mut pending = Pending::default();
    let mut current: Option<(String, TypeDef)> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if raw.starts_with('}') {
            if let Some((name, def)) = current.take() {
                types.entry(name).or_insert(def);
            }
            pending.clear();
        } else if let Some((_, def)) = current.as_mut() {
            read_member(line, def, &mut pending);
        } else if !pending.read(line) {
            match type_header(raw) {
                Some((name, is_enum)) => {
                    let serde = pending.take_serde();
                    current = Some((
                        name,
                        TypeDef {
                            is_enum,
                            serde,
                            items: Vec::new(),
                        },
                    ));
                    pending.doc.clear();
                }
                None if !line.starts_with("#[") => pending.clear(),
                None => {}
            }
        }
    }
}

/// Doc lines and `#[serde(...)]` arguments read so far, waiting for the item they belong to.
#[derive(Default)]
struct Pending {
    doc: Vec<String>,
    serde: Vec<String>,
}

impl Pending {
    /// Keep `line` when it is a doc comment or a serde attribute; `false` for any other line.
    fn read(&mut self, line: &str) -> bool {
        if let Some(d) = line.strip_prefix("///") {
            self.doc.push(d.trim().to_owned());
        } else if let Some(args) = serde_args(line) {
            self.serde.push(args.to_owned());
        } else {
            return false;
        }
        true
    }

    /// Drop what was read: the next line is not the item it described.
    fn clear(&mut self) {
        self.doc.clear();
        self.serde.clear();
    }

    /// The serde arguments read, joined, for the item they belong to.
    fn take_serde(&mut self) -> String {
        std::mem::take(&mut self.serde).join(", ")
    }
}

/// `pub struct Name {` → (`Name`, false), `pub enum Name {` → (`Name`, true).
fn type_header(raw: &str) -> Option<(String, bool)> {
    let header = |kw: &str| {
        raw.strip_prefix(kw)
            .and_then(|l| l.strip_suffix(" {"))
            .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .map(str::to_owned)
    };
    header("pub struct ")
        .map(|name| (name, false))
        .or_else(|| header("pub enum ").map(|name| (name, true)))
}

/// One line inside a type's body: doc lines and attributes wait for their item; a public field
/// or a variant becomes an item carrying them.
fn read_member(line: &str, def: &mut TypeDef, pending: &mut Pending) {
    if pending.read(line) || line.starts_with("#[") || line.starts_with("//") || line.is_empty() {
        // Other attributes (`#[default]`) and plain comments.
        return;
    }
    match member(line, def.is_enum) {
        Some(item) => def.items.push(Item {
            doc: std::mem::take(&mut pending.doc),
            serde: pending.take_serde(),
            ..item
        }),
        // A private field: not part of the configuration.
        None => pending.clear(),
    }
}

/// A variant (`Name` or `Name(Type)`) or a public field (`pub name: Type,`); `None` for a
/// private field.
fn member(line: &str, is_enum: bool) -> Option<Item> {
    if is_enum {
        let body = line.trim_end_matches(',');
        return Some(match body.split_once('(') {
            Some((variant, ty)) => Item {
                name: variant.to_owned(),
                ty: ty.trim_end_matches(')').to_owned(),
                ..Item::default()
            },
            None => Item {
                name: body.to_owned(),
                ..Item::default()
            },
        });
    }
    let (field, ty) = line.strip_prefix("pub ")?.split_once(':')?;
    Some(Item {
        name: field.trim().to_owned(),
        ty: ty.trim().trim_end_matches(',').to_owned(),
        ..Item::default()
    })
}

/// A `#[serde(key = "value")]` argument's value.
fn serde_value<'a>(serde: &'a str, key: &str) -> Option<&'a str> {
    serde.split(',').find_map(|arg| {
        let (k, v) = arg.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"'))
    })
}

fn has_flag(serde: &str, flag: &str) -> bool {
    serde.split(',').any(|arg| arg.trim() == flag)
}

/// A variant name as serde writes it under the container's `rename_all`.
fn renamed(variant: &str, rename_all: Option<&str>) -> String {
    match rename_all {
        Some("lowercase") => variant.to_lowercase(),
        Some("UPPERCASE") => variant.to_uppercase(),
        Some("snake_case") => {
            let mut out = String::new();
            for (i, c) in variant.chars().enumerate() {
                if c.is_uppercase() && i > 0 {
                    out.push('_');
                }
                out.extend(c.to_lowercase());
            }
            out
        }
        _ => variant.to_owned(),
    }
}

/// `Option<T>` → (T, true); the last path segment of a type (`crate::a::B` → `B`).
fn unwrap_type(ty: &str) -> (String, bool) {
    let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    match ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        Some(inner) => (last_segment(inner), true),
        None => (last_segment(&ty), false),
    }
}

fn last_segment(ty: &str) -> String {
    match ty.split_once('<') {
        Some((outer, inner)) => {
            let outer = outer.rsplit("::").next().unwrap_or(outer);
            let inner = inner.trim_end_matches('>');
            let args: Vec<String> = inner.split(',').map(last_segment).collect();
            format!("{outer}<{}>", args.join(", "))
        }
        None => ty.rsplit("::").next().unwrap_or(ty).to_owned(),
    }
}

/// One key of the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// Dotted path from the root, `[]` after an array of tables (`jury.jurors[].model`).
    pub path: String,
    /// What a value looks like.
    pub ty: String,
    /// The default in TOML, or `unset`.
    pub default: String,
    /// The doc comment, one line.
    pub doc: String,
}

/// A section (table) of the reference and its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// `chain`, `jury.jurors[]`, ...
    pub path: String,
    /// The doc comment of the field that holds it.
    pub doc: String,
    /// Its keys, in declaration order.
    pub keys: Vec<Key>,
}

/// The whole reference: every section and key of [`Config`], and the field types the walk
/// could not describe (none, or the test fails).
#[derive(Debug, Clone, Default)]
pub struct Reference {
    /// Sections in the order a depth-first walk from `Config` meets them.
    pub sections: Vec<Section>,
    /// `path: Type` of every field whose type is neither a known value nor a parsed type.
    pub unknown: Vec<String>,
}

impl Reference {
    /// Every key, all sections.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.sections.iter().flat_map(|s| s.keys.iter())
    }
}

/// The description of a value type, or `None` when it is a struct or enum to walk into.
fn value_type(ty: &str, serde: &str) -> Option<String> {
    let with = serde_value(serde, "with");
    Some(
        match ty {
            "String" => "string",
            "PathBuf" => "path",
            "bool" => "boolean",
            "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" => "integer",
            "f32" | "f64" => "number",
            "Duration" if with == Some("humantime_serde") => {
                "duration (`\"500ms\"`, `\"2s\"`, `\"10m\"`)"
            }
            "Address" => "address (`\"0x…\"`)",
            "U256" if with == Some("crate::decimal") => "wei, a decimal string",
            "SocketAddr" => "`\"IP:port\"`",
            "BTreeMap<String, u64>" => "table of name = integer",
            "Vec<String>" => "array of strings",
            _ => return None,
        }
        .to_owned(),
    )
}

fn one_line(doc: &[String]) -> String {
    doc.join(" ").replace('|', "\\|").trim().to_owned()
}

/// A sub-table met during a walk: its type, its path and the doc of the field that holds it.
struct Table {
    ty: String,
    path: String,
    doc: String,
}

/// A unit-variant enum's type as the reference shows it: every value serde accepts.
fn one_of(t: &TypeDef, optional: bool) -> String {
    let rename_all = serde_value(&t.serde, "rename_all");
    let values: Vec<String> = t
        .items
        .iter()
        .map(|v| format!("`\"{}\"`", renamed(&v.name, rename_all)))
        .collect();
    format!(
        "one of {}{}",
        values.join(", "),
        if optional { ", optional" } else { "" }
    )
}

struct Walker {
    types: BTreeMap<String, TypeDef>,
    defaults: BTreeMap<String, String>,
    out: Reference,
}

impl Walker {
    fn default_of(&self, path: &str) -> String {
        self.defaults
            .get(path)
            .map_or_else(|| "unset".to_owned(), |v| format!("`{v}`"))
    }

    /// Walk struct `ty` as section `path` (already pushed at index `section`): its value keys
    /// into that section, flattened types too, and its sub-tables as sections after it.
    fn walk(&mut self, ty: &str, path: &str, section: usize, note: &str) {
        let Some(def) = self.types.get(ty).cloned() else {
            self.out.unknown.push(format!("{path}: {ty}"));
            return;
        };
        let tables: Vec<Table> = def
            .items
            .iter()
            .filter_map(|item| self.walk_item(item, path, section, note))
            .collect();
        for table in tables {
            let index = self.out.sections.len();
            self.out.sections.push(Section {
                path: table.path.clone(),
                doc: table.doc,
                keys: Vec::new(),
            });
            self.walk(&table.ty, &table.path, index, "");
        }
    }

    /// One field of a struct walked as `path`: a key of the section, flattened keys, or the
    /// sub-table it names (returned, walked after the section's own keys).
    fn walk_item(&mut self, item: &Item, path: &str, section: usize, note: &str) -> Option<Table> {
        if has_flag(&item.serde, "skip") {
            return None;
        }
        let (base, optional) = unwrap_type(&item.ty);
        let key = serde_value(&item.serde, "rename").unwrap_or(item.name.as_str());
        let key_path = if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        };
        if has_flag(&item.serde, "flatten") {
            self.flatten(&base, path, section, note);
            return None;
        }
        let doc = format!("{note}{}", one_line(&item.doc));
        if let Some(value) = value_type(&base, &item.serde) {
            let ty = if optional {
                format!("{value}, optional")
            } else {
                value
            };
            self.push_key(section, key_path, ty, doc);
            return None;
        }
        if let Some(inner) = base.strip_prefix("Vec<").and_then(|t| t.strip_suffix('>')) {
            return Some(Table {
                ty: inner.to_owned(),
                path: format!("{key_path}[]"),
                doc,
            });
        }
        match self.types.get(&base) {
            Some(t) if t.is_enum => {
                let ty = one_of(t, optional);
                self.push_key(section, key_path, ty, doc);
                None
            }
            Some(_) => Some(Table {
                ty: base,
                path: key_path,
                doc,
            }),
            None => {
                self.out.unknown.push(format!("{key_path}: {}", item.ty));
                None
            }
        }
    }

    /// Add key `path` to section `section`, with its default.
    fn push_key(&mut self, section: usize, path: String, ty: String, doc: String) {
        let default = self.default_of(&path);
        self.out.sections[section].keys.push(Key {
            path,
            ty,
            default,
            doc,
        });
    }

    /// A `#[serde(flatten)]` field of type `ty`: a struct's keys join the section; an
    /// internally tagged enum adds its tag key and each variant's keys, marked with the tag.
    fn flatten(&mut self, ty: &str, path: &str, section: usize, note: &str) {
        let Some(def) = self.types.get(ty).cloned() else {
            self.out.unknown.push(format!("{path} (flattened): {ty}"));
            return;
        };
        if !def.is_enum {
            self.walk(ty, path, section, note);
            return;
        }
        let Some(tag) = serde_value(&def.serde, "tag") else {
            self.out
                .unknown
                .push(format!("{path} (flattened enum without a tag): {ty}"));
            return;
        };
        let rename_all = serde_value(&def.serde, "rename_all");
        let names: Vec<String> = def
            .items
            .iter()
            .map(|v| renamed(&v.name, rename_all))
            .collect();
        let kinds: Vec<String> = def
            .items
            .iter()
            .zip(&names)
            .map(|(v, n)| {
                let doc = one_line(&v.doc);
                let doc = doc.trim_end_matches('.');
                let mut chars = doc.chars();
                let doc: String = chars
                    .next()
                    .map(|c| c.to_lowercase().chain(chars).collect())
                    .unwrap_or_default();
                format!("`\"{n}\"`: {doc}")
            })
            .collect();
        let tag_path = format!("{path}.{tag}");
        let default = self.default_of(&tag_path);
        self.out.sections[section].keys.push(Key {
            path: tag_path,
            ty: format!(
                "one of {}",
                names
                    .iter()
                    .map(|n| format!("`\"{n}\"`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            default,
            doc: format!("{note}Which kind: {}.", kinds.join("; ")),
        });
        for (variant, name) in def.items.iter().zip(&names) {
            if variant.ty.is_empty() {
                continue;
            }
            let (inner, _) = unwrap_type(&variant.ty);
            self.walk(&inner, path, section, &format!("(`{tag} = \"{name}\"`) "));
        }
    }
}

/// Every leaf of a TOML value as (dotted path, TOML text); arrays of tables as `path[]`
/// (the first table that has a key gives its default).
fn flatten_toml(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_toml(&path, v, out);
            }
        }
        toml::Value::Array(items)
            if items.iter().all(toml::Value::is_table) && !items.is_empty() =>
        {
            for item in items {
                flatten_toml(&format!("{prefix}[]"), item, out);
            }
        }
        leaf => {
            out.entry(prefix.to_owned())
                .or_insert_with(|| short_float(leaf).unwrap_or_else(|| leaf.to_string()));
        }
    }
}

/// An `f32` field serialised through `f64` prints as 0.20000000298023224: the shortest text
/// of the `f32` it came from when it is exactly one (`Some("0.2")`), else `None`.
pub(crate) fn short_float(value: &toml::Value) -> Option<String> {
    let toml::Value::Float(f) = value else {
        return None;
    };
    // The narrowing is the point: is the value exactly an f32?
    #[allow(clippy::cast_possible_truncation)]
    let narrow = *f as f32;
    (f64::from(narrow).to_bits() == f.to_bits() && narrow.is_finite())
        .then(|| format!("{narrow:?}"))
}

/// The defaults of every key: [`Config::default`], plus the defaults of the optional sections
/// and of each kind of juror (the built-in pool holds only the embedded one).
fn defaults() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let defaults = Config::default();
    let optional = Config {
        planner_model: Some(OpenAiConfig::default()),
        jury: crate::jury::pool::JuryConfig {
            jurors: vec![
                JurorConfig {
                    weight: 1,
                    kind: JurorKind::Openai(OpenAiConfig::default()),
                },
                JurorConfig {
                    weight: 1,
                    kind: JurorKind::Replay(ReplayConfig::default()),
                },
            ],
            ..defaults.jury.clone()
        },
        ..defaults.clone()
    };
    let values = [
        toml::Value::try_from(defaults),
        toml::Value::try_from(optional),
    ];
    for value in values.into_iter().flatten() {
        flatten_toml("", &value, &mut out);
    }
    out
}

/// Walk the configuration tree from [`Config`].
pub fn reference() -> Reference {
    let mut walker = Walker {
        types: parse_sources(),
        defaults: defaults(),
        out: Reference::default(),
    };
    walker.out.sections.push(Section {
        path: String::new(),
        doc: String::new(),
        keys: Vec::new(),
    });
    walker.walk("Config", "", 0, "");
    let mut out = walker.out;
    out.sections.retain(|s| !s.keys.is_empty());
    out
}

/// The reference as the book's page (`book/src/config-reference.md`).
pub fn markdown() -> String {
    let r = reference();
    let mut page = String::from(
        "# Configuration reference\n\n\
         <!-- Generated by `veritas config --reference` from the configuration types \
         (node/src/cli/config_reference.rs); do not edit by hand. The unit test \
         `cli::config_reference::tests::the_book_page_is_generated` fails when this page \
         differs from the code. -->\n\n\
         Every key of `veritas.toml`, with its type, its default and its doc comment, generated \
         from the configuration types (`core/src/config/` and the types it holds). How the \
         layers combine (defaults < file < `VERITAS__<SECTION>__<KEY>` environment < flags) and \
         what each section is for: the [operator guide](operator-guide.md#configuration). \
         `veritas.example.toml` holds every key below, commented where it is optional, and \
         `veritas config` prints the configuration a node would run with. A key in an array of \
         tables (`[[jury.jurors]]`) is written `jury.jurors[].key`; \"unset\" means the key is \
         absent by default.\n",
    );
    for section in &r.sections {
        let header = match section.path.strip_suffix("[]") {
            Some(array) => format!("[[{array}]]"),
            None => format!("[{}]", section.path),
        };
        page.push_str(&format!("\n## `{header}`\n\n"));
        if !section.doc.is_empty() {
            page.push_str(&section.doc);
            page.push_str("\n\n");
        }
        page.push_str("| key | type | default | what it does |\n| --- | --- | --- | --- |\n");
        for key in &section.keys {
            let name = key
                .path
                .strip_prefix(&format!("{}.", section.path))
                .unwrap_or(&key.path);
            page.push_str(&format!(
                "| `{name}` | {} | {} | {} |\n",
                key.ty, key.default, key.doc
            ));
        }
    }
    page
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;

    fn repo_file(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(path)
    }

    #[test]
    fn every_field_type_is_described() {
        let r = reference();
        assert!(
            r.unknown.is_empty(),
            "types the reference cannot describe: {:?}",
            r.unknown
        );
        let keys: BTreeSet<&str> = r.keys().map(|k| k.path.as_str()).collect();
        for key in [
            "chain.rpc_url",
            "chain.stake_top_up_limit",
            "node.ready_max_lag",
            "keys.keystore",
            "jury.archetype_weights",
            "jury.jurors[].kind",
            "jury.jurors[].threads",
            "jury.jurors[].base_url",
            "jury.jurors[].vote",
            "jury.committee.stopping.epsilon",
            "evidence.planner.max_queries",
            "evidence.collectors.tavily.api_key_env",
            "evidence.bundle.rrf_k",
            "routing.min_kappa",
            "planner_model.model",
        ] {
            assert!(keys.contains(key), "{key} missing from {keys:?}");
        }
        let by_path: BTreeMap<&str, &Key> = r.keys().map(|k| (k.path.as_str(), k)).collect();
        assert_eq!(by_path["node.ready_max_lag"].default, "`64`");
        assert_eq!(by_path["chain.poll_interval"].default, "`\"2s\"`");
        assert_eq!(by_path["chain.oracle"].default, "unset");
        assert_eq!(by_path["jury.jurors[].kind"].default, "`\"local\"`");
        assert!(by_path["node.resolver"].ty.contains("`\"replay\"`"));
        assert!(
            by_path["chain.confirmations"].doc.contains("confirmations"),
            "{:?}",
            by_path["chain.confirmations"]
        );
    }

    /// The committed page is what the code generates. To update it after changing a
    /// configuration type: `veritas config --reference > book/src/config-reference.md`, or run
    /// this test with `VERITAS_BLESS=1`.
    #[test]
    fn the_book_page_is_generated() {
        let path = repo_file("book/src/config-reference.md");
        let want = markdown();
        if std::env::var("VERITAS_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} differs from the configuration types: run `veritas config --reference > \
             book/src/config-reference.md` (or this test with VERITAS_BLESS=1)",
            path.display()
        );
    }

    /// `veritas.example.toml` with every commented key and table header uncommented.
    fn uncommented(example: &str) -> String {
        example
            .lines()
            .map(|line| {
                let Some(rest) = line.strip_prefix('#') else {
                    return line.to_owned();
                };
                let rest = rest.strip_prefix(' ').unwrap_or(rest);
                let is_header = rest.starts_with('[')
                    && rest
                        .split('#')
                        .next()
                        .is_some_and(|h| h.trim_end().ends_with(']'));
                // `key = value`: a bare key (prose before an `=` has spaces or punctuation).
                let is_key = rest.split_once('=').is_some_and(|(k, _)| {
                    let k = k.trim();
                    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                if is_header || is_key {
                    rest.to_owned()
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every key of the example, commented ones included, is a key the node accepts (the whole
    /// file loads with them uncommented), and every key of the reference is in the example.
    #[test]
    fn the_example_config_holds_every_key_and_loads_uncommented() {
        let example = std::fs::read_to_string(repo_file("veritas.example.toml")).unwrap();
        let text = uncommented(&example);
        assert_ne!(text, example, "no commented key found");
        let loaded = Config::from_toml_str(&text);
        assert!(
            loaded.is_ok(),
            "veritas.example.toml with every key uncommented does not load: {}\n{text}",
            loaded
                .as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default()
        );
        // Weights name archetypes by their `name` (the node refuses an unknown one at start).
        let shipped: Vec<String> = crate::jury::archetype::Archetype::shipped()
            .into_iter()
            .map(|a| a.name)
            .collect();
        if let Ok(config) = &loaded {
            for name in config.jury.archetype_weights.keys() {
                assert!(
                    shipped.contains(name),
                    "veritas.example.toml weighs archetype {name:?}, not one of {shipped:?}"
                );
            }
        }
        let value: toml::Value = toml::from_str(&text).unwrap();
        let mut present = BTreeMap::new();
        flatten_toml("", &value, &mut present);
        let missing: Vec<String> = reference()
            .keys()
            .map(|k| k.path.clone())
            .filter(|path| {
                !present
                    .keys()
                    .any(|p| p == path || p.starts_with(&format!("{path}.")))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "keys of the configuration missing from veritas.example.toml (commented or not): {missing:?}"
        );
    }

    #[test]
    fn uncommenting_takes_keys_and_headers_not_prose() {
        let text = "# Prose: a = b\n# key = 1\n# [table]\n# [[array]]   # note\n#   VERITAS_PRIVATE_KEY  text\n# T: x\n";
        assert_eq!(
            uncommented(text),
            "# Prose: a = b\nkey = 1\n[table]\n[[array]]   # note\n#   VERITAS_PRIVATE_KEY  text\n# T: x"
        );
    }
}
