//! `veritas run`: the watcher, the scheduler, the poster and the HTTP API under one shutdown.
//!
//! Three long-lived tasks share a [`CancellationToken`]:
//!
//! - the **watcher** stores confirmed questions and wakes the scheduler;
//! - the **HTTP API** serves health, metrics and reports;
//! - the **scheduler** (this function's own loop) runs due jobs through the [`Pipeline`],
//!   at most `node.max_in_flight` at a time (of which at most `node.concurrency` run their
//!   committee), each in its own task so one failing question never stops the others;
//! - the **provisional runner** ([`crate::pipeline::provisional`]) re-runs the committee on
//!   open questions that received on-chain evidence (never posted); it is not critical: it
//!   is stopped with the rest, and its failures are only logged.
//!
//! SIGINT/SIGTERM (or the caller's token) stop the scheduler from taking new work; in-flight
//! jobs get `node.drain_timeout` to finish, then are aborted. Aborting is safe at any point:
//! the store holds each job's stage, intent and signed transaction, and the next start picks
//! them up. If the watcher or the API dies, the node shuts down with that error instead of
//! running on half-blind.

use std::{
    collections::HashSet,
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use alloy::{
    primitives::{Address, U256},
    signers::local::PrivateKeySigner,
};
use tokio::{sync::Notify, task::JoinSet};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::{
    api::{self, ApiState},
    chain::{
        self, ChainError, ChainProvider, IVeritasOracle,
        poster::{Poster, PosterConfig},
        watcher::{WatchState, Watcher, WatcherConfig},
    },
    config::{Config, ConfigError},
    live::LiveEvents,
    metrics::Metrics,
    pipeline::{
        Pipeline, Resolver, RetryPolicy,
        lifecycle::{FollowConfig, Follower},
        provisional::ProvisionalRunner,
        submissions::EvidenceGate,
    },
    store::{Store, StoreError, now_ms},
    web,
};

/// Why the daemon stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The chain could not be reached or refused at start.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The operator key is not allowed to post.
    #[error(
        "{operator} is not an operator of the oracle at {oracle}: ask the owner to call addOperator"
    )]
    NotOperator {
        /// The node's address.
        operator: Address,
        /// The oracle.
        oracle: Address,
    },
    /// The HTTP API could not bind or died.
    #[error("HTTP API on {addr}: {error}")]
    Api {
        /// The configured address.
        addr: std::net::SocketAddr,
        /// The error.
        error: std::io::Error,
    },
    /// A critical task ended unexpectedly.
    #[error("{0} stopped unexpectedly")]
    TaskDied(&'static str),
    /// The configured resolver cannot be built.
    #[error("resolver: {0}")]
    Resolver(String),
}

/// Build the configured resolver.
///
/// # Errors
/// [`DaemonError::Resolver`] when the replay script cannot be read, or a collector or juror
/// of the committee cannot start.
pub fn build_resolver(
    config: &Config,
    live: &Arc<LiveEvents>,
) -> Result<Arc<dyn Resolver>, DaemonError> {
    use crate::{config::ResolverKind, pipeline::replay};
    match config.node.resolver {
        ResolverKind::Replay => {
            let script = match &config.node.replay_file {
                None => replay::ReplayScript::default(),
                Some(path) => {
                    let text = std::fs::read_to_string(path).map_err(|e| {
                        DaemonError::Resolver(format!("replay file {}: {e}", path.display()))
                    })?;
                    serde_json::from_str(&text).map_err(|e| {
                        DaemonError::Resolver(format!("replay file {}: {e}", path.display()))
                    })?
                }
            };
            warn!(target: "veritas::node", "replay resolver selected: scripted votes, for tests only");
            Ok(Arc::new(replay::ReplayResolver::new(script)))
        }
        ResolverKind::Committee => {
            let resolver = crate::pipeline::CommitteeResolver::from_config(config)
                .map_err(|e| DaemonError::Resolver(e.reason))?
                .with_live(Arc::clone(live));
            Ok(Arc::new(resolver))
        }
    }
}

/// Resolve when SIGINT or SIGTERM arrives.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            error!(target: "veritas::node", error = %e, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                error!(target: "veritas::node", error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => info!(target: "veritas::node", "SIGINT received; shutting down"),
        () = term => info!(target: "veritas::node", "SIGTERM received; shutting down"),
    }
}

/// The running pieces, for tests and the demo that want to look inside.
#[derive(Debug, Clone)]
pub struct Started {
    /// Chain id the node serves.
    pub chain_id: u64,
    /// Oracle address.
    pub oracle: Address,
    /// The operator.
    pub operator: Address,
    /// The HTTP API's bound address.
    pub http_addr: std::net::SocketAddr,
}

/// Connect, check and run until `cancel` fires or a critical task fails. `on_start` is called
/// once everything is up (the demo and tests use it to learn the API's port).
///
/// # Errors
/// [`DaemonError`] when start-up checks fail or a critical task dies.
pub async fn run(
    config: Config,
    signer: PrivateKeySigner,
    resolver: Arc<dyn Resolver>,
    live: Arc<LiveEvents>,
    cancel: CancellationToken,
    on_start: impl FnOnce(Started) + Send,
) -> Result<(), DaemonError> {
    let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
    let chain_id = at_start("chain id", &cancel, || async {
        Ok(chain::check_chain_id(&provider, config.chain.chain_id).await?)
    })
    .await?;
    let oracle = config.oracle_address(chain_id)?;
    let operator = signer.address();
    at_start("operator", &cancel, || {
        check_operator(&provider, oracle, operator)
    })
    .await?;
    let store = Arc::new(Store::open_in(&config.node.data_dir)?);
    store.attach_live(Arc::clone(&live));
    crate::crashpoint::announce();
    info!(target: "veritas::node", chain_id, %oracle, %operator, data_dir = %config.node.data_dir.display(), "starting");

    let new_jobs = Arc::new(Notify::new());
    let new_submissions = Arc::new(Notify::new());
    let watch_state = Arc::new(WatchState::default());
    let watcher = Watcher::new(
        provider.clone(),
        Arc::clone(&store),
        WatcherConfig {
            oracle,
            confirmations: config.chain.confirmations,
            poll_interval: config.chain.poll_interval,
            max_log_range: config.chain.max_log_range,
            start_block: crate::config::start_block(&config, chain_id),
            restart_overlap: config.chain.restart_overlap,
        },
        Arc::clone(&watch_state),
        Arc::clone(&new_jobs),
    )?
    .with_submission_notify(Arc::clone(&new_submissions));
    let poster = Arc::new(Poster::new(
        provider.clone(),
        signer,
        Arc::clone(&store),
        PosterConfig {
            oracle,
            chain_id,
            receipt_timeout: config.chain.receipt_timeout,
            receipt_poll: (config.chain.poll_interval / 4)
                .clamp(Duration::from_millis(50), Duration::from_secs(2)),
            batch_window: config.chain.batch_window,
            max_batch: config.chain.max_batch.max(1),
        },
    ));
    let metrics = Arc::new(Metrics::default());
    let pipeline = Pipeline::new(
        Arc::clone(&store),
        Arc::clone(&poster),
        Arc::clone(&resolver),
        Arc::clone(&metrics),
        config.node.data_dir.join("reports"),
        chain_id,
        oracle,
        RetryPolicy {
            max_attempts: config.node.max_attempts,
            base: config.node.retry_backoff,
            max: config.node.max_retry_backoff,
        },
        config.node.concurrency,
    )
    .with_evidence_gate(EvidenceGate::new(
        provider.clone(),
        oracle,
        config.node.evidence_settle,
        config.chain.poll_interval.min(Duration::from_secs(1)),
    ));
    let pipeline = Arc::new(pipeline);
    let provisional = (!config.node.provisional_interval.is_zero()).then(|| {
        ProvisionalRunner::new(
            Arc::clone(&pipeline),
            provider.clone(),
            Arc::clone(&live),
            config.node.provisional_interval,
            new_submissions,
        )
    });

    let listener = tokio::net::TcpListener::bind(config.node.http_addr)
        .await
        .map_err(|error| DaemonError::Api {
            addr: config.node.http_addr,
            error,
        })?;
    let http_addr = listener.local_addr().map_err(|error| DaemonError::Api {
        addr: config.node.http_addr,
        error,
    })?;
    let api_state = ApiState {
        store: Arc::clone(&store),
        metrics,
        watch: watch_state,
        provider: provider.clone(),
        poster: Arc::clone(&poster),
        confirmations: config.chain.confirmations,
        ready_max_lag: config.node.ready_max_lag,
        live: Arc::clone(&live),
        oracle,
    };
    let follower = Follower::new(
        Arc::clone(&store),
        Arc::clone(&poster),
        Arc::clone(&pipeline),
        provider.clone(),
        oracle,
        FollowConfig {
            finalize_expired: config.node.finalize_expired,
            settle_final: config.node.settle_final,
            tick: config.chain.poll_interval.min(Duration::from_secs(1)),
        },
    );
    let follower_task = tokio::spawn(follower.run(cancel.child_token()));
    let mut watcher_task = tokio::spawn(watcher.run(cancel.child_token()));
    let provisional_task = provisional.map(|runner| tokio::spawn(runner.run(cancel.child_token())));
    let api_cancel = cancel.child_token();
    let mut api_task = tokio::spawn(async move {
        info!(target: "veritas::api", addr = %http_addr, "HTTP API listening");
        let web_state = web::WebState {
            live,
            heartbeat: web::DEFAULT_HEARTBEAT,
            cancel: api_cancel.clone(),
        };
        axum::serve(
            listener,
            api::router(api_state).merge(web::router(web_state)),
        )
        .with_graceful_shutdown(api_cancel.cancelled_owned())
        .await
    });
    on_start(Started {
        chain_id,
        oracle,
        operator,
        http_addr,
    });

    let scheduler = Scheduler {
        store,
        pipeline,
        new_jobs,
        max_in_flight: config.node.max_in_flight,
        tick: config.chain.poll_interval.min(Duration::from_secs(1)),
    };
    let mut failure: Option<DaemonError> = None;
    let mut tasks = JoinSet::new();
    let mut in_flight = HashSet::new();
    let (mut watcher_done, mut api_done) = (false, false);
    tokio::select! {
        () = scheduler.run(&cancel, &mut tasks, &mut in_flight) => {}
        res = &mut watcher_task => {
            watcher_done = true;
            if !cancel.is_cancelled() {
                failure = Some(match res {
                    Ok(Err(e)) => DaemonError::Chain(e),
                    _ => DaemonError::TaskDied("chain watcher"),
                });
            }
        }
        res = &mut api_task => {
            api_done = true;
            if !cancel.is_cancelled() {
                failure = Some(match res {
                    Ok(Err(error)) => DaemonError::Api { addr: http_addr, error },
                    _ => DaemonError::TaskDied("HTTP API"),
                });
            }
        }
    }
    if let Some(e) = &failure {
        error!(target: "veritas::node", error = %e, "critical task failed; shutting down");
    }
    cancel.cancel();
    if let Some(task) = provisional_task {
        // A provisional run is never posted and leaves nothing half-written: stop it at once.
        task.abort();
    }
    drain(&mut tasks, in_flight.len(), config.node.drain_timeout).await;
    // Both stop promptly on cancellation; their results no longer matter.
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        if !watcher_done {
            let _ = (&mut watcher_task).await;
        }
        if !api_done {
            let _ = (&mut api_task).await;
        }
        let _ = follower_task.await;
    })
    .await;
    info!(target: "veritas::node", "stopped");
    failure.map_or(Ok(()), Err)
}

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
async fn at_start<T, F, Fut>(
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

async fn check_operator(
    provider: &ChainProvider,
    oracle: Address,
    operator: Address,
) -> Result<(), DaemonError> {
    let contract = IVeritasOracle::new(oracle, provider);
    let allowed = contract
        .isOperator(operator)
        .call()
        .await
        .map_err(|e| ChainError::contract("isOperator", e))?;
    if !allowed {
        return Err(DaemonError::NotOperator { operator, oracle });
    }
    Ok(())
}

async fn drain(tasks: &mut JoinSet<U256>, in_flight: usize, timeout: Duration) {
    if tasks.is_empty() {
        return;
    }
    info!(target: "veritas::node", in_flight, ?timeout, "draining in-flight questions");
    let drained = tokio::time::timeout(timeout, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        warn!(target: "veritas::node", remaining = tasks.len(), "drain timeout; aborting (jobs resume on restart)");
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
    }
}

struct Scheduler {
    store: Arc<Store>,
    pipeline: Arc<Pipeline>,
    new_jobs: Arc<Notify>,
    /// Jobs in flight at once (`node.max_in_flight`).
    max_in_flight: usize,
    tick: Duration,
}

fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Scheduler {
    /// Dispatch due jobs until cancelled. Finished tasks return their question id.
    async fn run(
        &self,
        cancel: &CancellationToken,
        tasks: &mut JoinSet<U256>,
        in_flight: &mut HashSet<U256>,
    ) {
        loop {
            if cancel.is_cancelled() {
                return;
            }
            let free = self.max_in_flight.saturating_sub(in_flight.len());
            if free > 0 {
                match self
                    .store
                    .due_jobs(now_ms(), unix_secs(), free + in_flight.len())
                {
                    Ok(due) => {
                        let mut started = 0;
                        for job in due {
                            if started == free || in_flight.contains(&job.question.question_id) {
                                continue;
                            }
                            started += 1;
                            let id = job.question.question_id;
                            in_flight.insert(id);
                            let pipeline = Arc::clone(&self.pipeline);
                            tasks.spawn(async move {
                                pipeline.run_job(job).await;
                                id
                            });
                        }
                    }
                    Err(e) => warn!(target: "veritas::node", error = %e, "could not read due jobs"),
                }
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.new_jobs.notified() => {}
                () = tokio::time::sleep(self.tick) => {}
                Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                    match done {
                        Ok(id) => { in_flight.remove(&id); }
                        Err(e) => {
                            // A panicking job must not stop the node; its id is unknown here,
                            // so rebuild the in-flight set from the tasks still running.
                            error!(target: "veritas::node", error = %e, "job task panicked");
                            in_flight.clear();
                            if !tasks.is_empty() {
                                // Wait for the rest before dispatching again, so no job runs twice.
                                while let Some(Ok(_)) = tasks.join_next().await {}
                            }
                        }
                    }
                }
            }
        }
    }
}
