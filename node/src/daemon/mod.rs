//! `veritas run`: the watcher, the scheduler, the poster and the HTTP API under one shutdown.
//!
//! Its long-lived tasks share a [`CancellationToken`]:
//!
//! - the **watcher** stores confirmed questions and wakes the scheduler;
//! - the **HTTP API** serves health, metrics and reports;
//! - the **scheduler** (this function's own loop) runs due jobs through the [`JobRunner`],
//!   at most `node.max_in_flight` at a time (of which at most `node.concurrency` run their
//!   committee), each in its own task so one failing question never stops the others;
//! - the **lifecycle follower** ([`follow`]) moves posted questions on;
//! - the **provisional runner** ([`provisional`]) re-runs the committee on
//!   open questions that received on-chain evidence (never posted); it is not critical: it
//!   is stopped with the rest, and its failures are only logged.
//!
//! SIGINT/SIGTERM (or the caller's token) stop the scheduler from taking new work; in-flight
//! jobs get `node.drain_timeout` to finish, then are aborted. Aborting is safe at any point:
//! the store holds each job's stage, intent and signed transaction, and the next start picks
//! them up. The watcher, the follower and the API are critical tasks ([`crate::tasks`]): if
//! one ends or panics, the node shuts down naming it instead of running on half-blind. The
//! provisional runner is restarted after a panic. A job that panics fails its question with
//! the panic as the reason; it is never dispatched again.

pub mod follow;
pub mod gate;
pub mod jobs;
pub mod provisional;
mod scheduler;
mod startup;

use std::{sync::Arc, time::Duration};

use alloy::{primitives::Address, signers::local::PrivateKeySigner};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use self::{
    follow::{FollowConfig, Follower},
    gate::EvidenceGate,
    jobs::{JobRunner, RetryPolicy},
    provisional::ProvisionalRunner,
    scheduler::{Jobs, Scheduler},
    startup::{at_start, check_operator},
};
use crate::{
    api::{self, ApiState},
    chain::{self, ChainError},
    config::{Config, ConfigError},
    live::LiveEvents,
    metrics::Metrics,
    overview,
    pipeline::Resolver,
    poster::{Poster, PosterConfig},
    store::{Store, StoreError},
    tasks::{Exit, Outcome, Supervisor},
    watcher::{WatchState, Watcher, WatcherConfig},
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
    /// A critical task ended before shutdown (see [`crate::tasks`]).
    #[error("critical task {task} {how}")]
    TaskDied {
        /// The task's name.
        task: &'static str,
        /// How it ended ("panicked: <message>", "ended").
        how: String,
    },
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
    let daemon = Daemon::build(&config, signer, resolver, live, &cancel).await?;
    daemon.run(cancel, on_start).await
}

/// The chain's provider, id and oracle, once the chain is the configured one and `operator` is
/// one of its oracle's operators (transient RPC failures retried, `startup::START_PATIENCE`).
async fn connect_checked(
    config: &Config,
    operator: Address,
    cancel: &CancellationToken,
) -> Result<(chain::ChainProvider, u64, Address), DaemonError> {
    let provider = chain::connect(&config.chain.rpc_url, config.chain.rpc_timeout)?;
    let chain_id = at_start("chain id", cancel, || async {
        Ok(chain::check_chain_id(&provider, config.chain.chain_id).await?)
    })
    .await?;
    let oracle = config.oracle_address(chain_id)?;
    at_start("operator", cancel, || {
        check_operator(&provider, oracle, operator)
    })
    .await?;
    Ok((provider, chain_id, oracle))
}

/// The follower's settings: what it finalises and settles, and how often it looks.
fn follow_config(config: &Config, tick: Duration) -> FollowConfig {
    FollowConfig {
        finalize_expired: config.node.finalize_expired,
        settle_final: config.node.settle_final,
        tick,
    }
}

/// The watcher's settings from the configuration.
fn watcher_config(config: &Config, oracle: Address, chain_id: u64) -> WatcherConfig {
    WatcherConfig {
        oracle,
        confirmations: config.chain.confirmations,
        poll_interval: config.chain.poll_interval,
        max_log_range: config.chain.max_log_range,
        start_block: crate::config::start_block(config, chain_id),
        restart_overlap: config.chain.restart_overlap,
    }
}

/// The poster's settings from the configuration: receipts polled at a quarter of the chain's
/// poll interval, between 50 ms and 2 s.
/// The job runner: resolves a question, writes its report and posts it through `poster`,
/// once submitted evidence has settled (its gate).
fn job_runner(
    config: &Config,
    (store, poster, metrics): (&Arc<Store>, &Arc<Poster>, &Arc<Metrics>),
    resolver: Arc<dyn Resolver>,
    provider: &chain::ChainProvider,
    (chain_id, oracle): (u64, Address),
    tick: Duration,
) -> JobRunner {
    JobRunner::new(
        Arc::clone(store),
        Arc::clone(poster),
        resolver,
        Arc::clone(metrics),
        config.node.data_dir.join("reports"),
        chain_id,
        oracle,
        retry_policy(config),
        config.node.concurrency,
    )
    .with_evidence_gate(EvidenceGate::new(
        provider.clone(),
        oracle,
        config.node.evidence_settle,
        tick,
    ))
}

fn poster_config(config: &Config, oracle: Address, chain_id: u64) -> PosterConfig {
    PosterConfig {
        oracle,
        chain_id,
        receipt_timeout: config.chain.receipt_timeout,
        receipt_poll: (config.chain.poll_interval / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(2)),
        batch_window: config.chain.batch_window,
        max_batch: config.chain.max_batch.max(1),
        stake_top_up_limit: config.chain.stake_top_up_limit,
    }
}

/// How a question's failed attempts are retried, from the configuration.
fn retry_policy(config: &Config) -> RetryPolicy {
    RetryPolicy {
        max_attempts: config.node.max_attempts,
        base: config.node.retry_backoff,
        max: config.node.max_retry_backoff,
    }
}

/// Submitted evidence re-runs questions provisionally, unless switched off (interval 0).
fn provisional_runner(
    config: &Config,
    pipeline: &Arc<JobRunner>,
    provider: &chain::ChainProvider,
    live: &Arc<LiveEvents>,
    new_submissions: Arc<Notify>,
) -> Option<ProvisionalRunner> {
    (!config.node.provisional_interval.is_zero()).then(|| {
        let (pipeline, live) = (Arc::clone(pipeline), Arc::clone(live));
        let every = config.node.provisional_interval;
        ProvisionalRunner::new(pipeline, provider.clone(), live, every, new_submissions)
    })
}

/// Why the node stops when critical task `exit` ended before shutdown.
fn task_failure(exit: Exit<DaemonError>) -> DaemonError {
    match exit.outcome {
        Outcome::Failed(e) => e,
        Outcome::Panicked(message) => DaemonError::TaskDied {
            task: exit.task,
            how: format!("panicked: {message}"),
        },
        Outcome::Returned | Outcome::Aborted => DaemonError::TaskDied {
            task: exit.task,
            how: "ended".into(),
        },
    }
}

/// The HTTP API and web view, bound at build time, served once the node runs.
struct ApiServer {
    listener: tokio::net::TcpListener,
    state: ApiState,
    live: Arc<LiveEvents>,
    addr: std::net::SocketAddr,
}

impl ApiServer {
    /// Bind the API's address now (port 0 picks one), so a node that cannot serve fails at
    /// build time.
    async fn bind(
        addr: std::net::SocketAddr,
        state: ApiState,
        live: Arc<LiveEvents>,
    ) -> Result<Self, DaemonError> {
        let api_error = |error| DaemonError::Api { addr, error };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(api_error)?;
        let addr = listener.local_addr().map_err(api_error)?;
        Ok(Self {
            listener,
            state,
            live,
            addr,
        })
    }

    /// Serve the API and the web view on one router until `cancel` fires.
    async fn serve(self, cancel: CancellationToken) -> Result<(), DaemonError> {
        let http_addr = self.addr;
        info!(target: "veritas::api", addr = %http_addr, "HTTP API listening");
        let web_state = web::WebState {
            live: self.live,
            heartbeat: web::DEFAULT_HEARTBEAT,
            cancel: cancel.clone(),
        };
        axum::serve(
            self.listener,
            api::router(self.state).merge(web::router(web_state)),
        )
        .with_graceful_shutdown(cancel.cancelled_owned())
        .await
        .map_err(|error| DaemonError::Api {
            addr: http_addr,
            error,
        })
    }
}

/// The node's parts, connected and checked, none started yet: building does every start-up
/// check and binds the API's address, so a node that cannot work fails here, before any task
/// runs.
pub struct Daemon {
    started: Started,
    store: Arc<Store>,
    watcher: Watcher,
    follower: Follower,
    provisional: Option<ProvisionalRunner>,
    pipeline: Arc<JobRunner>,
    new_jobs: Arc<Notify>,
    api: ApiServer,
    /// The watcher's view of the chain's clock, for the scheduler.
    chain_clock: Arc<WatchState>,
    max_in_flight: usize,
    tick: Duration,
    drain_timeout: Duration,
}

impl Daemon {
    /// Connect to the chain, check it and the key (retrying transient RPC failures until
    /// `cancel` or for 30 s, `startup::START_PATIENCE`), open the store and wire every part.
    ///
    /// # Errors
    /// [`DaemonError`]: wrong chain, not an operator, store or API address unusable.
    pub async fn build(
        config: &Config,
        signer: PrivateKeySigner,
        resolver: Arc<dyn Resolver>,
        live: Arc<LiveEvents>,
        cancel: &CancellationToken,
    ) -> Result<Self, DaemonError> {
        let operator = signer.address();
        let (provider, chain_id, oracle) = connect_checked(config, operator, cancel).await?;
        let store = Arc::new(Store::open_in(&config.node.data_dir)?);
        overview::announce_changes(&store, Arc::clone(&live));
        crate::crashpoint::announce();
        info!(target: "veritas::node", chain_id, %oracle, %operator, data_dir = %config.node.data_dir.display(), "starting");

        let tick = config.chain.poll_interval.min(Duration::from_secs(1));
        let new_jobs = Arc::new(Notify::new());
        let new_submissions = Arc::new(Notify::new());
        let watch_state = Arc::new(WatchState::default());
        let watcher = Watcher::new(
            provider.clone(),
            Arc::clone(&store),
            watcher_config(config, oracle, chain_id),
            Arc::clone(&watch_state),
            Arc::clone(&new_jobs),
        )?
        .with_submission_notify(Arc::clone(&new_submissions));
        let poster = Arc::new(Poster::new(
            provider.clone(),
            signer,
            Arc::clone(&store),
            poster_config(config, oracle, chain_id),
        ));
        let metrics = Arc::new(Metrics::default());
        let pipeline = Arc::new(job_runner(
            config,
            (&store, &poster, &metrics),
            resolver,
            &provider,
            (chain_id, oracle),
            tick,
        ));
        let provisional = provisional_runner(config, &pipeline, &provider, &live, new_submissions);
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
            reports: Arc::default(),
        };
        let chain_clock = Arc::clone(&api_state.watch);
        let api = ApiServer::bind(config.node.http_addr, api_state, live).await?;
        let follow = follow_config(config, tick);
        let follower = Follower::new(
            Arc::clone(&store),
            poster,
            Arc::clone(&pipeline),
            provider,
            oracle,
            follow,
        );
        Ok(Self {
            started: Started {
                chain_id,
                oracle,
                operator,
                http_addr: api.addr,
            },
            store,
            watcher,
            follower,
            provisional,
            pipeline,
            new_jobs,
            chain_clock,
            api,
            max_in_flight: config.node.max_in_flight,
            tick,
            drain_timeout: config.node.drain_timeout,
        })
    }

    /// Start the tasks, call `on_start`, and schedule jobs until `cancel` fires or a critical
    /// task fails; then drain the jobs in flight for `node.drain_timeout`.
    ///
    /// # Errors
    /// [`DaemonError::TaskDied`] (or the task's own error) when a critical task fails.
    pub async fn run(
        self,
        cancel: CancellationToken,
        on_start: impl FnOnce(Started) + Send,
    ) -> Result<(), DaemonError> {
        let mut supervised: Supervisor<DaemonError> = Supervisor::default();
        let token = cancel.child_token();
        supervised.spawn_critical("chain watcher", async move {
            self.watcher.run(token).await.map_err(DaemonError::Chain)
        });
        let token = cancel.child_token();
        supervised.spawn_critical("lifecycle follower", async move {
            self.follower.run(token).await;
            Ok(())
        });
        if let Some(runner) = self.provisional {
            // Its runs are never posted and leave nothing half-written: a panic restarts it.
            let token = cancel.child_token();
            supervised.spawn_restarting("provisional runner", token.clone(), move || {
                runner.clone().run(token.clone())
            });
        }
        let api = self.api.serve(cancel.child_token());
        supervised.spawn_critical("HTTP API", api);
        on_start(self.started);

        let scheduler = Scheduler {
            store: self.store,
            pipeline: self.pipeline,
            new_jobs: self.new_jobs,
            chain_clock: self.chain_clock,
            max_in_flight: self.max_in_flight,
            tick: self.tick,
        };
        let mut failure: Option<DaemonError> = None;
        let mut jobs = Jobs::default();
        tokio::select! {
            () = scheduler.run(&cancel, &mut jobs) => {}
            Some(exit) = supervised.next_exit() => {
                if !cancel.is_cancelled() {
                    failure = Some(task_failure(exit));
                }
            }
        }
        if let Some(e) = &failure {
            error!(target: "veritas::node", error = %e, "critical task failed; shutting down");
        }
        cancel.cancel();
        jobs.drain(self.drain_timeout, |done| scheduler.finished(done))
            .await;
        // They stop promptly on cancellation; their results no longer matter.
        supervised.shutdown(Duration::from_secs(5)).await;
        info!(target: "veritas::node", "stopped");
        failure.map_or(Ok(()), Err)
    }
}
