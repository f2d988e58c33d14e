//! The one secret type: private keys, API keys and passwords are held in [`Secret`], whose
//! `Debug` and `Display` redact, so a secret never reaches a log line, an error or a report
//! by accident. Only [`Secret::expose`] gives the value, at the one place it is used.

use std::fmt;

/// A secret string (private key, API key, password) whose `Debug` and `Display` redact.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wrap a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// Read a secret from the environment; `None` when unset or empty.
    pub fn from_env(name: &str) -> Option<Self> {
        std::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| Self(v.trim().to_owned()))
    }

    /// The secret itself: call only where it is used, never to log or format it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl Secret {
    /// `text` with every occurrence of this secret masked as `mask` (server answers or error
    /// pages that echo a request's `Authorization` header must not carry the key onwards).
    pub fn scrub(&self, text: &str, mask: &str) -> String {
        if self.0.is_empty() {
            text.to_owned()
        } else {
            text.replace(self.0.as_str(), mask)
        }
    }
}
