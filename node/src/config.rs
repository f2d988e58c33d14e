//! One typed configuration tree: built-in defaults < TOML file < `VERITAS__*` env < CLI flags.
