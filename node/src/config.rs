//! The configuration tree ([`veritas_core::config`], re-exported whole) and the one part of it
//! that needs the chain's signer: loading the operator's key.

use alloy::signers::local::PrivateKeySigner;

pub use veritas_core::config::*;

/// Load the operator's signing key: [`ENV_PRIVATE_KEY`] first, else the configured keystore
/// with its password from [`ENV_KEYSTORE_PASSWORD`] or `keys.keystore_password_file`.
///
/// # Errors
/// [`ConfigError::Secret`] when no key is configured or it cannot be decoded; the message
/// never contains the key or the password.
pub fn load_signer(keys: &KeysConfig) -> Result<PrivateKeySigner, ConfigError> {
    if let Some(key) = Secret::from_env(ENV_PRIVATE_KEY) {
        return key.expose().parse::<PrivateKeySigner>().map_err(|_| {
            ConfigError::Secret(format!("{ENV_PRIVATE_KEY} is not a 32-byte hex key"))
        });
    }
    let Some(keystore) = &keys.keystore else {
        return Err(ConfigError::Secret(format!(
            "set {ENV_PRIVATE_KEY}, or keys.keystore with {ENV_KEYSTORE_PASSWORD} or keys.keystore_password_file"
        )));
    };
    let password = match Secret::from_env(ENV_KEYSTORE_PASSWORD) {
        Some(p) => p,
        None => {
            let file = keys.keystore_password_file.as_ref().ok_or_else(|| {
                ConfigError::Secret(format!(
                    "keystore {} needs {ENV_KEYSTORE_PASSWORD} or keys.keystore_password_file",
                    keystore.display()
                ))
            })?;
            let text = std::fs::read_to_string(file).map_err(|e| {
                ConfigError::Secret(format!("password file {}: {e}", file.display()))
            })?;
            // A trailing newline from `echo pw > file` is not part of the password.
            Secret::new(text.trim_end_matches(['\n', '\r']))
        }
    };
    PrivateKeySigner::decrypt_keystore(keystore, password.expose()).map_err(|e| {
        // The keystore error names no secret material (wrong MAC, bad JSON, missing file).
        ConfigError::Secret(format!("keystore {}: {e}", keystore.display()))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn keystore_round_trip_with_password_file() {
        let dir = tempfile::tempdir().unwrap();
        // k256's OsRng implements the rand_core the keystore API (rand 0.8) expects.
        let mut rng = alloy::signers::k256::elliptic_curve::rand_core::OsRng;
        let (signer, name) =
            PrivateKeySigner::new_keystore(dir.path(), &mut rng, "hunter2", None).unwrap();
        std::fs::write(dir.path().join("pw"), "hunter2\n").unwrap();
        let keys = KeysConfig {
            keystore: Some(dir.path().join(name)),
            keystore_password_file: Some(dir.path().join("pw")),
        };
        // The process env may hold VERITAS_PRIVATE_KEY in CI; this test needs it unset.
        if std::env::var(ENV_PRIVATE_KEY).is_ok() {
            return;
        }
        let loaded = load_signer(&keys).unwrap();
        assert_eq!(loaded.address(), signer.address());
        std::fs::write(dir.path().join("pw"), "wrong").unwrap();
        let err = load_signer(&keys).unwrap_err().to_string();
        assert!(!err.contains("wrong") && !err.contains("hunter2"), "{err}");
    }
}
