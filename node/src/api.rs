//! The node's read-only HTTP API: health, readiness, metrics, questions and bundles.
