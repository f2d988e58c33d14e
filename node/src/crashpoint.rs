//! Test-only crash points: the node SIGKILLs itself at a named point of the pipeline.
//!
//! `VERITAS_TEST_CRASH_AT=<point>:<n>` kills the process with SIGKILL (no destructor, no
//! flush, exactly like `kill -9`) the `n`-th time execution reaches [`hit`]`(<point>)`. The
//! crash-anywhere test (`tests/it/crash_anywhere.rs`) uses it to land kills inside the windows the
//! exactly-once argument has to survive, instead of hoping a timer hits them.
//!
//! `<point>:<n>:panic` panics there instead, once: the supervision tests
//! (`tests/it/adversaries/supervision.rs`) use it to check that a panicking job fails its
//! question only and a panicking critical task stops the node naming it.
//!
//! It cannot fire by accident in production: it is compiled into debug builds only
//! (`cfg(debug_assertions)`; a release binary ignores the variable and says so at start), the
//! variable name says what it is, and an armed point is logged as a warning at start.
//!
//! The points, in pipeline order, are [`POINTS`].

/// The environment variable that arms a crash point.
pub const ENV: &str = "VERITAS_TEST_CRASH_AT";

/// Every crash point, in pipeline order.
pub const POINTS: [&str; 11] = [
    // The watcher committed newly confirmed questions (jobs queued, cursor moved).
    "scan.recorded",
    // A job was marked `resolving`; the committee has not answered yet.
    "job.resolving",
    // The report file is on disk; the post intent is not saved yet.
    "report.written",
    // The post intent is saved (job `posting`); nothing is signed yet.
    "intent.saved",
    // Commit-reveal questions only: the salt, report and commitment are saved; nothing signed.
    "commit.saved",
    // The signed transaction is recorded in the store; it is not broadcast yet.
    "tx.recorded",
    // The receipt says mined; the store does not know yet.
    "tx.mined",
    // Commit-reveal questions only: the commit's receipt is recorded; the reveal is not sent.
    "commit.mined",
    // Commit-reveal questions only: the reveal is broadcast; its receipt is not seen yet.
    "reveal.sent",
    // The report holds its tx key; the job is not marked `posted` yet.
    "report.tx_added",
    // Deferred questions only: inside the watcher's transaction that starts the next report
    // round (nothing of it committed).
    "deferral.applying",
];

/// The points only a commit-reveal question reaches.
pub const COMMIT_REVEAL_POINTS: [&str; 3] = ["commit.saved", "commit.mined", "reveal.sent"];

/// The points only a deferred question reaches (`tests/it/not_yet.rs` kills one there).
pub const DEFERRAL_POINTS: [&str; 1] = ["deferral.applying"];

/// Mark that execution reached `point`; dies here if this is the armed point's `n`-th hit.
#[cfg(all(debug_assertions, unix))]
pub fn hit(point: &'static str) {
    use std::sync::atomic::Ordering;
    let Some(armed) = armed::get() else { return };
    if armed.point != point {
        return;
    }
    let hits = armed.hits.fetch_add(1, Ordering::SeqCst) + 1;
    if hits == armed.n && armed.panic {
        tracing::warn!(target: "veritas::crashpoint", point, n = armed.n, "test crash point reached: panic");
        #[allow(clippy::panic)]
        {
            panic!("test crash point {point}");
        }
    }
    if hits == armed.n {
        tracing::warn!(target: "veritas::crashpoint", point, n = armed.n, "test crash point reached: SIGKILL");
        // SAFETY: `raise` only sends a signal to the calling process; SIGKILL cannot be caught.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
    }
}

/// Release builds: crash points are compiled out.
#[cfg(not(all(debug_assertions, unix)))]
pub fn hit(_point: &'static str) {}

/// Log at start whether a crash point is armed (or ignored, in a release build).
pub fn announce() {
    let Ok(value) = std::env::var(ENV) else {
        return;
    };
    #[cfg(all(debug_assertions, unix))]
    match armed::get() {
        Some(a) => {
            tracing::warn!(target: "veritas::crashpoint", point = a.point, n = a.n, panic = a.panic, "TEST crash point armed: this node will SIGKILL itself (or panic)");
        }
        None => {
            tracing::warn!(target: "veritas::crashpoint", value, known = ?POINTS, "{ENV} not understood; no crash point armed");
        }
    }
    #[cfg(not(all(debug_assertions, unix)))]
    tracing::warn!(target: "veritas::crashpoint", value, "{ENV} is ignored: crash points exist in debug builds only");
}

#[cfg(all(debug_assertions, unix))]
mod armed {
    use std::sync::{OnceLock, atomic::AtomicU64};

    pub(super) struct Armed {
        pub(super) point: &'static str,
        pub(super) n: u64,
        pub(super) hits: AtomicU64,
        /// Panic instead of SIGKILL.
        pub(super) panic: bool,
    }

    static ARMED: OnceLock<Option<Armed>> = OnceLock::new();

    /// The armed point, parsed once from the environment (`<point>` alone means `<point>:1`).
    pub(super) fn get() -> Option<&'static Armed> {
        ARMED
            .get_or_init(|| {
                let env = std::env::var(super::ENV).ok()?;
                let (value, panic) = match env.strip_suffix(":panic") {
                    Some(value) => (value.to_owned(), true),
                    None => (env, false),
                };
                let (name, n) = match value.rsplit_once(':') {
                    Some((name, n)) => (name, n.parse().ok().filter(|n| *n > 0)?),
                    None => (value.as_str(), 1),
                };
                let point = super::POINTS.into_iter().find(|p| *p == name)?;
                Some(Armed {
                    point,
                    n,
                    hits: AtomicU64::new(0),
                    panic,
                })
            })
            .as_ref()
    }
}
