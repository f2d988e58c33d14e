//! Start-up checks (chain id, operator key): retried through an RPC's hiccups, never through a
//! definite answer.

use std::time::Duration;

use alloy::primitives::Address;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::{DaemonError, jobs::RetryPolicy};
use crate::chain::ViewCall;
use crate::{chain::ChainProvider, contract::IVeritasOracle};

/// Waits between two tries of a start-up check: 200 ms, doubling, at most 10 s.
const START_BACKOFF: RetryPolicy = RetryPolicy {
    max_attempts: u32::MAX,
    base: Duration::from_millis(200),
    max: Duration::from_secs(10),
};
/// How long start-up checks keep retrying before the node exits with the RPC's error: long
/// enough to ride out a provider's hiccup, short enough that a wrong or dead `rpc_url` is
/// reported instead of hanging (a supervisor restarts the node if the outage was longer).
const START_PATIENCE: Duration = Duration::from_secs(30);

/// Run a start-up check, retrying transient RPC failures with backoff: a provider's 500 or a
/// dropped connection at the wrong moment must not kill a node that would work a second
/// later. Definite answers (wrong chain, not an operator, a revert) still stop the start, and
/// so does an RPC that keeps failing for [`START_PATIENCE`].
pub(super) async fn at_start<T, F, Fut>(
    check: &'static str,
    cancel: &CancellationToken,
    mut f: F,
) -> Result<T, DaemonError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, DaemonError>>,
{
    let deadline = tokio::time::Instant::now() + START_PATIENCE;
    let mut attempt = 0u32;
    loop {
        attempt = attempt.saturating_add(1);
        let delay = START_BACKOFF.delay(attempt);
        match f().await {
            Err(DaemonError::Chain(e))
                if e.is_retryable() && tokio::time::Instant::now() + delay <= deadline =>
            {
                warn!(target: "veritas::node", check, error = %e, retry_in = ?delay, "start-up check failed; retrying");
                tokio::select! {
                    () = cancel.cancelled() => return Err(DaemonError::Chain(e)),
                    () = tokio::time::sleep(delay) => {}
                }
            }
            other => return other,
        }
    }
}

pub(super) async fn check_operator(
    provider: &ChainProvider,
    oracle: Address,
    operator: Address,
) -> Result<(), DaemonError> {
    let contract = IVeritasOracle::new(oracle, provider);
    let allowed = contract.isOperator(operator).view("isOperator").await?;
    if !allowed {
        return Err(DaemonError::NotOperator { operator, oracle });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use alloy::primitives::U256;

    use super::*;
    use crate::chain::ChainError;

    /// A transient RPC failure (retryable) and a definite answer (not).
    fn transient() -> DaemonError {
        DaemonError::Chain(ChainError::UnknownQuestion(U256::from(1)))
    }

    fn definite() -> DaemonError {
        DaemonError::Chain(ChainError::WrongChain {
            expected: 1,
            actual: 2,
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_transient_failure_is_retried_with_backoff_until_the_check_answers() {
        let calls = AtomicU32::new(0);
        let started = tokio::time::Instant::now();
        let got = at_start("test", &CancellationToken::new(), || async {
            match calls.fetch_add(1, Ordering::SeqCst) {
                0..=2 => Err(transient()),
                _ => Ok(7u32),
            }
        })
        .await;
        assert_eq!(got.ok(), Some(7));
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        // 200 ms, 400 ms, 800 ms between the four tries (paused time: exact).
        assert_eq!(started.elapsed(), Duration::from_millis(1400));
    }

    #[tokio::test(start_paused = true)]
    async fn a_definite_answer_stops_the_start_at_once() {
        let calls = AtomicU32::new(0);
        let got: Result<(), _> = at_start("test", &CancellationToken::new(), || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(definite())
        })
        .await;
        assert!(matches!(
            got,
            Err(DaemonError::Chain(ChainError::WrongChain { .. }))
        ));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn an_rpc_that_keeps_failing_is_reported_after_the_patience() {
        let started = tokio::time::Instant::now();
        let got: Result<(), _> = at_start("test", &CancellationToken::new(), || async {
            Err(transient())
        })
        .await;
        assert!(matches!(
            got,
            Err(DaemonError::Chain(ChainError::UnknownQuestion(_)))
        ));
        let waited = started.elapsed();
        assert!(waited <= START_PATIENCE, "waited {waited:?}");
        // The last wait that still fit is at most START_BACKOFF's cap short of the patience.
        assert!(
            waited + START_BACKOFF.max >= START_PATIENCE,
            "gave up after {waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn cancellation_ends_the_wait_with_the_last_error() {
        let cancel = CancellationToken::new();
        let canceller = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            canceller.cancel();
        });
        let started = tokio::time::Instant::now();
        let got: Result<(), _> = at_start("test", &cancel, || async { Err(transient()) }).await;
        assert!(matches!(
            got,
            Err(DaemonError::Chain(ChainError::UnknownQuestion(_)))
        ));
        assert_eq!(started.elapsed(), Duration::from_millis(300));
    }
}
