//! Routing: resolve a question automatically or escalate it to the human arbiter.
