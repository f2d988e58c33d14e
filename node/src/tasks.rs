//! Supervision of the node's long-running tasks: none of them ends silently.
//!
//! Each task is named and spawned one of two ways, after reth's `spawn_critical`:
//!
//! - **critical** ([`Supervisor::spawn_critical`]): the node cannot work without it (the
//!   watcher, the follower, the HTTP API). Its end before shutdown, by error, by return or by
//!   panic, is reported by [`Supervisor::next_exit`] with the task's name, and the daemon shuts
//!   the node down loudly with it.
//! - **restarting** ([`Supervisor::spawn_restarting`]): the node works on without it for a
//!   moment (the provisional runner, whose runs are never posted). A panic is logged with the
//!   task's name and counted, and a fresh instance starts after [`RESTART_DELAY`].
//!
//! A panic's message is recovered from the task's `JoinError` ([`panic_message`]) so that
//! logs and failed jobs carry it.

use std::{
    future::Future,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::task::{JoinError, JoinSet};
use tokio_util::sync::CancellationToken;
use tracing::error;

/// Pause before a restarting task is started again after a panic, so a task that panics at
/// once does not spin a core.
pub const RESTART_DELAY: Duration = Duration::from_secs(1);

/// How a supervised task ended.
#[derive(Debug)]
pub enum Outcome<E> {
    /// It returned `Ok` (before shutdown, that is unexpected for a critical task too).
    Returned,
    /// It returned an error.
    Failed(E),
    /// It panicked, with this message.
    Panicked(String),
    /// It was aborted (only at shutdown).
    Aborted,
}

/// A supervised task's end: its name and how.
#[derive(Debug)]
pub struct Exit<E> {
    /// The name it was spawned with.
    pub task: &'static str,
    /// How it ended.
    pub outcome: Outcome<E>,
}

/// The named long-running tasks of one node.
#[derive(Debug)]
pub struct Supervisor<E> {
    set: JoinSet<(&'static str, Result<(), E>)>,
    names: std::collections::HashMap<tokio::task::Id, &'static str>,
    /// Panics of restarting tasks, for `/metrics`.
    restarts: Arc<AtomicU64>,
}

impl<E: Send + 'static> Default for Supervisor<E> {
    fn default() -> Self {
        Self {
            set: JoinSet::new(),
            names: std::collections::HashMap::new(),
            restarts: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl<E: Send + 'static> Supervisor<E> {
    /// Restarts of restarting tasks after a panic so far.
    pub fn restarts(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.restarts)
    }

    /// Spawn a task the node cannot work without: its end is reported by [`Self::next_exit`].
    pub fn spawn_critical<F>(&mut self, task: &'static str, fut: F)
    where
        F: Future<Output = Result<(), E>> + Send + 'static,
    {
        let handle = self.set.spawn(async move { (task, fut.await) });
        self.names.insert(handle.id(), task);
    }

    /// Spawn a task that is started again, from `make`, [`RESTART_DELAY`] after each panic;
    /// it ends when `cancel` fires or when an instance returns.
    pub fn spawn_restarting<M, F>(&mut self, task: &'static str, cancel: CancellationToken, make: M)
    where
        M: Fn() -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        self.spawn_restarting_after(task, RESTART_DELAY, cancel, make);
    }

    fn spawn_restarting_after<M, F>(
        &mut self,
        task: &'static str,
        delay: Duration,
        cancel: CancellationToken,
        make: M,
    ) where
        M: Fn() -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let restarts = Arc::clone(&self.restarts);
        self.spawn_critical(task, async move {
            loop {
                let mut instance = tokio::spawn(make());
                let ended = tokio::select! {
                    ended = &mut instance => ended,
                    () = cancel.cancelled() => {
                        instance.abort();
                        return Ok(());
                    }
                };
                match ended {
                    Err(e) if e.is_panic() => {
                        restarts.fetch_add(1, Ordering::Relaxed);
                        error!(target: "veritas::node", task, panic = %panic_message(e), restart_in = ?delay, "task panicked; restarting it");
                        tokio::select! {
                            () = tokio::time::sleep(delay) => {}
                            () = cancel.cancelled() => return Ok(()),
                        }
                    }
                    _ => return Ok(()),
                }
            }
        });
    }

    /// The next task to end, with its name; `None` when none is left.
    pub async fn next_exit(&mut self) -> Option<Exit<E>> {
        let joined = self.set.join_next_with_id().await?;
        Some(match joined {
            Ok((_, (task, Ok(())))) => Exit {
                task,
                outcome: Outcome::Returned,
            },
            Ok((_, (task, Err(e)))) => Exit {
                task,
                outcome: Outcome::Failed(e),
            },
            Err(e) => {
                let task = self.names.get(&e.id()).copied().unwrap_or("unnamed task");
                let outcome = if e.is_panic() {
                    Outcome::Panicked(panic_message(e))
                } else {
                    Outcome::Aborted
                };
                Exit { task, outcome }
            }
        })
    }

    /// Wait at most `timeout` for every task to end (after cancellation), then abort the rest.
    pub async fn shutdown(mut self, timeout: Duration) {
        let ended = tokio::time::timeout(timeout, async {
            while self.set.join_next().await.is_some() {}
        })
        .await;
        if ended.is_err() {
            self.set.abort_all();
            while self.set.join_next().await.is_some() {}
        }
    }
}

/// The message a task panicked with (`panic!` with a literal or a formatted string), or a
/// placeholder for other payloads and for cancelled tasks.
pub fn panic_message(e: JoinError) -> String {
    if !e.is_panic() {
        return "task was cancelled".to_owned();
    }
    let payload = e.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::sync::atomic::AtomicU32;

    use super::*;

    #[tokio::test]
    async fn a_panicking_critical_task_is_reported_by_name_with_its_message() {
        let mut tasks: Supervisor<String> = Supervisor::default();
        tasks.spawn_critical("steady", std::future::pending());
        tasks.spawn_critical("fragile", async { panic!("hostile input {}", 7) });
        let exit = tasks.next_exit().await.unwrap();
        assert_eq!(exit.task, "fragile");
        assert!(
            matches!(&exit.outcome, Outcome::Panicked(m) if m == "hostile input 7"),
            "{exit:?}"
        );
    }

    #[tokio::test]
    async fn an_erroring_or_returning_critical_task_is_reported_too() {
        let mut tasks: Supervisor<String> = Supervisor::default();
        tasks.spawn_critical("erring", async { Err("store gone".to_owned()) });
        let exit = tasks.next_exit().await.unwrap();
        assert!(matches!(&exit.outcome, Outcome::Failed(e) if e == "store gone"));
        tasks.spawn_critical("quitter", async { Ok(()) });
        let exit = tasks.next_exit().await.unwrap();
        assert_eq!(exit.task, "quitter");
        assert!(matches!(exit.outcome, Outcome::Returned));
    }

    #[tokio::test]
    async fn a_restarting_task_comes_back_after_each_panic_until_cancelled() {
        let mut tasks: Supervisor<String> = Supervisor::default();
        let starts = Arc::new(AtomicU32::new(0));
        let cancel = CancellationToken::new();
        let counted = Arc::clone(&starts);
        let delay = Duration::from_millis(1);
        tasks.spawn_restarting_after("flaky", delay, cancel.clone(), move || {
            let n = counted.fetch_add(1, Ordering::SeqCst);
            async move {
                if n < 3 {
                    panic!("round {n}");
                }
                std::future::pending::<()>().await;
            }
        });
        while starts.load(Ordering::SeqCst) < 4 {
            tokio::time::sleep(delay).await;
        }
        assert_eq!(tasks.restarts().load(Ordering::Relaxed), 3);
        cancel.cancel();
        let exit = tasks.next_exit().await.unwrap();
        assert_eq!(exit.task, "flaky");
        assert!(matches!(exit.outcome, Outcome::Returned));
    }
}
