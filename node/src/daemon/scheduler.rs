//! The scheduler: due jobs from the store into job tasks, at most `node.max_in_flight` at once,
//! never two of one question, each task's panic booked against its question.

use std::{
    collections::HashMap,
    future::Future,
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use alloy::primitives::U256;
use tokio::{sync::Notify, task::JoinSet};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::jobs::JobRunner;
use crate::{store::Store, watcher::WatchState};

pub(super) struct Scheduler {
    pub(super) store: Arc<Store>,
    pub(super) pipeline: Arc<JobRunner>,
    pub(super) new_jobs: Arc<Notify>,
    /// The chain's clock as the watcher last saw it.
    pub(super) chain_clock: Arc<WatchState>,
    /// Jobs in flight at once (`node.max_in_flight`).
    pub(super) max_in_flight: usize,
    pub(super) tick: Duration,
}

impl Scheduler {
    /// Dispatch due jobs until cancelled.
    pub(super) async fn run(&self, cancel: &CancellationToken, jobs: &mut Jobs) {
        loop {
            if cancel.is_cancelled() {
                return;
            }
            let free = self.max_in_flight.saturating_sub(jobs.len());
            if free > 0 {
                // A round opens by the chain's clock: when the chain runs ahead of ours (a
                // devnet moved forward), its time is the one that says a job is due.
                let chain_secs = self.chain_clock.head_time.load(Ordering::Relaxed);
                match self.store.due_jobs(
                    self.store.now_ms(),
                    self.store.clock().now_secs().max(chain_secs),
                    free + jobs.len(),
                ) {
                    Ok(due) => {
                        let due: Vec<_> = due
                            .into_iter()
                            .filter(|j| !jobs.contains(j.question.question_id))
                            .take(free)
                            .collect();
                        for job in due {
                            let pipeline = Arc::clone(&self.pipeline);
                            jobs.spawn(job.question.question_id, async move {
                                pipeline.run_job(job).await;
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
                Some(done) = jobs.join_next(), if !jobs.is_empty() => self.finished(done),
            }
        }
    }

    /// Book a finished job task. A panicking job is failed for good with the panic as its
    /// reason: its stage may be anywhere, and running it again would most likely panic again.
    pub(super) fn finished(&self, done: Finished) {
        if let Finished::Panicked {
            question_id,
            message,
        } = done
        {
            self.pipeline.fail_panicked(question_id, &message);
        }
    }
}

/// How a job task ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Finished {
    /// The pipeline ran (whatever the job's outcome, it is recorded in the store).
    Ran,
    /// The job's task panicked.
    Panicked {
        /// Its question.
        question_id: U256,
        /// The panic's message.
        message: String,
    },
    /// Aborted at the end of a drain (it resumes from the store on restart).
    Aborted,
}

/// The job tasks in flight, each known by its question until it ends, panics included: a
/// question is never dispatched while a task of it runs.
#[derive(Default)]
pub(super) struct Jobs {
    set: JoinSet<()>,
    by_task: HashMap<tokio::task::Id, U256>,
}

impl Jobs {
    fn len(&self) -> usize {
        self.by_task.len()
    }

    fn is_empty(&self) -> bool {
        self.by_task.is_empty()
    }

    fn contains(&self, question_id: U256) -> bool {
        self.by_task.values().any(|id| *id == question_id)
    }

    /// Run `job`, the job task of `question_id`.
    fn spawn(&mut self, question_id: U256, job: impl Future<Output = ()> + Send + 'static) {
        let handle = self.set.spawn(job);
        self.by_task.insert(handle.id(), question_id);
    }

    /// The next job task to end; `None` when none is in flight.
    async fn join_next(&mut self) -> Option<Finished> {
        let joined = self.set.join_next_with_id().await?;
        let (task, result) = match joined {
            Ok((task, ())) => (task, Ok(())),
            Err(e) => (e.id(), Err(e)),
        };
        let question_id = self.by_task.remove(&task);
        Some(match (result, question_id) {
            (Ok(()), _) => Finished::Ran,
            (Err(e), Some(question_id)) if e.is_panic() => Finished::Panicked {
                question_id,
                message: crate::tasks::panic_message(e),
            },
            (Err(_), _) => Finished::Aborted,
        })
    }

    /// Give in-flight jobs `timeout` to finish after cancellation, then abort them (they
    /// resume from the store on restart); panics on the way are still booked.
    pub(super) async fn drain(&mut self, timeout: Duration, mut finished: impl FnMut(Finished)) {
        if self.is_empty() {
            return;
        }
        info!(target: "veritas::node", in_flight = self.len(), ?timeout, "draining in-flight questions");
        let drained = tokio::time::timeout(timeout, async {
            while let Some(done) = self.join_next().await {
                finished(done);
            }
        })
        .await;
        if drained.is_err() {
            warn!(target: "veritas::node", remaining = self.len(), "drain timeout; aborting (jobs resume on restart)");
            self.set.abort_all();
            while let Some(done) = self.join_next().await {
                finished(done);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> U256 {
        U256::from(n)
    }

    #[tokio::test]
    async fn a_panicking_job_is_booked_against_its_question() {
        let mut jobs = Jobs::default();
        jobs.spawn(id(7), async { panic!("boom in 7") });
        assert!(jobs.contains(id(7)));
        let done = jobs.join_next().await;
        assert_eq!(
            done,
            Some(Finished::Panicked {
                question_id: id(7),
                message: "boom in 7".into()
            })
        );
        assert!(!jobs.contains(id(7)) && jobs.is_empty());
        assert_eq!(jobs.join_next().await, None);
    }

    #[tokio::test]
    async fn a_job_that_ran_frees_its_question() {
        let mut jobs = Jobs::default();
        jobs.spawn(id(1), async {});
        jobs.spawn(id(2), std::future::pending());
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs.join_next().await, Some(Finished::Ran));
        assert!(!jobs.contains(id(1)) && jobs.contains(id(2)));
    }

    #[tokio::test(start_paused = true)]
    async fn the_drain_waits_its_timeout_then_aborts_what_is_left() {
        let mut jobs = Jobs::default();
        jobs.spawn(id(1), tokio::time::sleep(Duration::from_secs(2)));
        jobs.spawn(id(2), tokio::time::sleep(Duration::from_secs(60)));
        jobs.spawn(id(3), async { panic!("late panic") });
        let started = tokio::time::Instant::now();
        let mut seen = Vec::new();
        jobs.drain(Duration::from_secs(5), |done| seen.push(done))
            .await;
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        assert!(jobs.is_empty());
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert!(seen.contains(&Finished::Ran));
        assert!(seen.contains(&Finished::Aborted));
        assert!(seen.contains(&Finished::Panicked {
            question_id: id(3),
            message: "late panic".into()
        }));
    }

    #[tokio::test(start_paused = true)]
    async fn a_drain_with_nothing_in_flight_returns_at_once() {
        let mut jobs = Jobs::default();
        let started = tokio::time::Instant::now();
        jobs.drain(Duration::from_secs(5), |_| panic!("nothing to book"))
            .await;
        assert_eq!(started.elapsed(), Duration::ZERO);
    }
}
