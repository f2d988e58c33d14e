//! The node's TOML configuration file (`Config::from_toml_str`, the file layer of
//! `Config::load`): any text gives either a configuration that passes its own range checks
//! and survives being written back out, or a `ConfigError` with a message; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use veritas_core::config::{Config, ConfigError};

/// What `validate` promises of every loaded configuration.
fn check_ranges(c: &Config) {
    assert!(c.chain.confirmations >= 1);
    assert!(c.chain.max_log_range >= 1);
    assert!(!c.chain.poll_interval.is_zero());
    assert!(c.node.concurrency >= 1);
    assert!(c.node.max_attempts >= 1);
    assert!(c.jury.committee.iterations >= 1 && c.jury.committee.ballots_per_iteration >= 1);
    let epsilon = c.jury.committee.stopping.epsilon;
    assert!(epsilon > 0.0 && epsilon.is_finite());
}

/// A loaded configuration as TOML (NaN-safe comparison, unlike `PartialEq`).
fn written(c: &Config) -> String {
    toml::to_string(c).unwrap_or_else(|e| panic!("a loaded configuration cannot be written: {e}"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::from_toml_str(text) {
        Ok(config) => {
            check_ranges(&config);
            let out = written(&config);
            match Config::from_toml_str(text) {
                Ok(again) => assert_eq!(written(&again), out, "not deterministic"),
                Err(e) => panic!("loads once, then fails: {e}"),
            }
            // Written back out, it loads to the same configuration.
            match Config::from_toml_str(&out) {
                Ok(reread) => assert_eq!(written(&reread), out, "changed on a round trip"),
                Err(e) => panic!("written configuration does not load: {e}\n{out}"),
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(!message.trim().is_empty(), "error without a message: {e:?}");
            if let ConfigError::Invalid { key, reason } = &e {
                assert!(!key.is_empty() && !reason.is_empty());
            }
        }
    }
});
