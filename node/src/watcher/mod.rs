//! The oracle watcher: `eth_getLogs` in bounded ranges behind a confirmation depth.
//!
//! One scan reads the questions (`QuestionAsked`, which become jobs) and what happens to them
//! after the reports (`ReportSubmitted`, `VerdictPosted`, `VerdictDisputed`,
//! `VerdictArbitrated`, `QuestionExpired`, `QuestionSettled`, stored as the question's
//! lifecycle for the follower in [`crate::daemon::follow`]), so one cursor covers both.
//!
//! Polling `eth_getLogs` (instead of a subscription) works on every HTTP endpoint and makes
//! recovery simple: the only state is the next block to scan, persisted in the store in the
//! same SQLite transaction as the jobs found below it. After a restart the watcher re-reads
//! `restart_overlap` blocks below that cursor; the jobs table is unique by question id, so the
//! overlap inserts nothing twice. A log is read only once its block has `confirmations`
//! confirmations, so a shallow reorg never reaches the store (a deeper one is caught by the
//! poster, which checks the question's hash on-chain before it posts).
//!
//! A provider can also answer a range with fewer logs than it holds (a load-balanced backend
//! that has not indexed the block yet answers `[]`), and advancing the cursor past such a page
//! would lose its questions for good. Question ids are sequential, so every scan is checked
//! against the contract: the range `[from, to]` must hold `questionCount()@to -
//! questionCount()@(from - 1)` logs. A short page is an error for this poll (the cursor stays,
//! the range is read again), counted in [`WatchState::incomplete_pages`].
//!
//! The same `eth_getLogs` call also reads the oracle's `EvidenceSubmitted` logs, stored with
//! the questions of the range (same transaction, same cursor). Submissions have no global
//! counter, but the contract keeps a hash chain over all of them, and each log carries the head
//! after it, so a page is complete exactly when its logs, in (block, log index) order, link
//! from the head before the range to `evidenceHead()@to` (one `eth_call` per scan). The head
//! before the range is the previous scan's `evidenceHead()@to`; on the first scan (or after a
//! short page) it is `evidenceHead()@(from - 1)` — the watcher reads whole blocks, so no
//! submission of block `from` can precede the range — or `head_0` when the oracle did not
//! exist yet at `from - 1`. Each stored item keeps its link (`prev_head`, `evidence_head`). A
//! page whose chain breaks is an error for this poll, like a short question page, and counted
//! in [`WatchState::broken_evidence_pages`].
//!
//! Providers cap `eth_getLogs` ranges differently; the watcher starts at `max_log_range`,
//! halves the range whenever the RPC refuses one, keeps to the size that worked, and probes
//! larger ranges again after a run of successes (`range`, pure and unit-tested).

mod range;

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};
use std::time::Duration;

use alloy::{
    primitives::{Address, B256},
    providers::Provider,
    rpc::types::{Filter, Log},
    sol_types::SolEvent,
};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

pub mod events;

use crate::chain::{ChainError, ChainProvider};
use crate::contract::{IVeritasOracle, evidence_chain};
use crate::retry::Backoff;
use crate::store::{Store, StoredClarification, StoredSubmission, now_ms};
use events::NewQuestion;
use range::LogRange;

/// The store's row of a submission that links from `prev_head`.
fn stored_submission(item: evidence_chain::SubmittedLog, prev_head: B256) -> StoredSubmission {
    StoredSubmission {
        question_id: item.question_id,
        index: item.index,
        submitter: item.submitter,
        url: item.url,
        title: item.title,
        snippet: item.snippet,
        prev_head,
        evidence_head: item.evidence_head,
        block_number: item.block_number,
        block_hash: item.block_hash,
        log_index: item.log_index,
        tx_hash: item.tx_hash,
    }
}

/// One page of logs split by kind: each kind is decoded and stored its own way.
struct Page {
    /// `QuestionAsked`.
    asked: Vec<Log>,
    /// `EvidenceSubmitted`.
    evidence: Vec<Log>,
    /// `QuestionClarified`.
    clarified: Vec<Log>,
    /// Everything else: the lifecycle events.
    later: Vec<Log>,
}

impl Page {
    /// Split `logs` by event, each part in page order.
    fn split(logs: Vec<Log>) -> Self {
        let is = |l: &Log, topic: B256| l.topic0() == Some(&topic);
        let (asked, later): (Vec<Log>, Vec<Log>) = logs
            .into_iter()
            .partition(|l| is(l, IVeritasOracle::QuestionAsked::SIGNATURE_HASH));
        let (evidence, later): (Vec<Log>, Vec<Log>) = later
            .into_iter()
            .partition(|l| is(l, IVeritasOracle::EvidenceSubmitted::SIGNATURE_HASH));
        let (clarified, later): (Vec<Log>, Vec<Log>) = later
            .into_iter()
            .partition(|l| is(l, IVeritasOracle::QuestionClarified::SIGNATURE_HASH));
        Self {
            asked,
            evidence,
            clarified,
            later,
        }
    }

    /// The page's new questions and clarifications; any it cannot decode rejects the page.
    fn decode(&self) -> Result<(Vec<NewQuestion>, Vec<StoredClarification>), events::PageDefect> {
        Ok((
            events::decode_questions(&self.asked)?,
            events::decode_clarifications(&self.clarified)?,
        ))
    }
}

/// The lifecycle events a scan reads besides `QuestionAsked`.
const LIFECYCLE_EVENTS: [alloy::primitives::B256; 9] = [
    IVeritasOracle::ReportSubmitted::SIGNATURE_HASH,
    IVeritasOracle::VerdictPosted::SIGNATURE_HASH,
    IVeritasOracle::VerdictDisputed::SIGNATURE_HASH,
    IVeritasOracle::VerdictArbitrated::SIGNATURE_HASH,
    IVeritasOracle::ArbitrationRequested::SIGNATURE_HASH,
    IVeritasOracle::VerdictDefaulted::SIGNATURE_HASH,
    IVeritasOracle::QuestionExpired::SIGNATURE_HASH,
    IVeritasOracle::QuestionSettled::SIGNATURE_HASH,
    IVeritasOracle::QuestionDeferred::SIGNATURE_HASH,
];

/// Watcher settings (from `[chain]`).
#[derive(Debug, Clone)]
pub struct WatcherConfig {
    /// The oracle contract.
    pub oracle: Address,
    /// Confirmations before a log is acted on (1 = the head block).
    pub confirmations: u64,
    /// Delay between polls when caught up.
    pub poll_interval: Duration,
    /// Largest block range per `eth_getLogs`.
    pub max_log_range: u64,
    /// First block when the store has no cursor.
    pub start_block: u64,
    /// Blocks re-read below the cursor on start.
    pub restart_overlap: u64,
}

/// What the watcher last saw, shared with `/readyz` and `/metrics`.
#[derive(Debug, Default)]
pub struct WatchState {
    /// Latest head block seen.
    pub head: AtomicU64,
    /// That block's timestamp (unix seconds): the chain's clock, which opens report rounds.
    pub head_time: AtomicU64,
    /// Next block to scan.
    pub cursor: AtomicU64,
    /// Questions stored (new ones only).
    pub questions_seen: AtomicU64,
    /// RPC failures while polling.
    pub rpc_errors: AtomicU64,
    /// Unix ms of the last successful poll (0 = never).
    pub last_ok_ms: AtomicU64,
    /// Current `eth_getLogs` range.
    pub range: AtomicU64,
    /// Logs that could not be decoded (e.g. invalid UTF-8 text); they are logged and skipped.
    pub undecodable_logs: AtomicU64,
    /// `eth_getLogs` pages with fewer logs than the contract's question counter says; each
    /// was read again instead of being trusted.
    pub incomplete_pages: AtomicU64,
    /// On-chain evidence submissions stored (new ones only).
    pub submissions_seen: AtomicU64,
    /// `eth_getLogs` pages whose `EvidenceSubmitted` logs did not link to `evidenceHead()`;
    /// each was read again.
    pub broken_evidence_pages: AtomicU64,
    /// `eth_getLogs` pages refused as no honest provider's answer (see [`events::check_page`]);
    /// each was read again.
    pub rejected_pages: AtomicU64,
    /// Questions stored as failed at once: honestly asked, but never resolvable
    /// ([`events::QuestionDefect`]).
    pub questions_rejected: AtomicU64,
}

impl WatchState {
    /// Blocks between the confirmed head and the cursor (0 when caught up).
    pub fn lag(&self, confirmations: u64) -> u64 {
        let safe_next = (self.head.load(Ordering::Relaxed) + 1).saturating_sub(confirmations - 1);
        safe_next.saturating_sub(self.cursor.load(Ordering::Relaxed))
    }
}

/// The outcome of one poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Poll {
    /// The chain head.
    pub head: u64,
    /// Next block to scan after this poll.
    pub cursor: u64,
    /// New questions stored.
    pub new_questions: usize,
    /// Whether blocks remain to scan (poll again at once).
    pub behind: bool,
}

/// Polls the chain for `QuestionAsked` and stores jobs.
#[derive(Debug)]
pub struct Watcher {
    provider: ChainProvider,
    store: Arc<Store>,
    config: WatcherConfig,
    state: Arc<WatchState>,
    /// Woken when new jobs are stored, so the scheduler need not wait for its own tick.
    new_jobs: Arc<Notify>,
    next_block: u64,
    /// How many blocks the next `eth_getLogs` asks for.
    range: LogRange,
    /// `questionCount()` as of block `next_block - 1`, once known (the previous scan's count
    /// at its last block), so each scan costs one extra `eth_call`.
    count_below: Option<u64>,
    /// `evidenceHead()` as of block `next_block - 1`, once known (see the module docs).
    head_below: Option<B256>,
    /// Woken when new submissions are stored (the provisional runner), once attached.
    new_submissions: Option<Arc<Notify>>,
}

/// Ceiling on how long the watcher sleeps after repeated RPC failures.
const MAX_ERROR_BACKOFF: Duration = Duration::from_secs(30);

impl Watcher {
    /// Create a watcher resuming from the store's cursor minus the restart overlap.
    ///
    /// # Errors
    /// [`ChainError::Store`] when the cursor cannot be read.
    pub fn new(
        provider: ChainProvider,
        store: Arc<Store>,
        config: WatcherConfig,
        state: Arc<WatchState>,
        new_jobs: Arc<Notify>,
    ) -> Result<Self, ChainError> {
        let next_block = match store.cursor()? {
            Some(cursor) => cursor
                .saturating_sub(config.restart_overlap)
                .max(config.start_block),
            None => config.start_block,
        };
        state.cursor.store(next_block, Ordering::Relaxed);
        state.range.store(config.max_log_range, Ordering::Relaxed);
        let range = LogRange::new(config.max_log_range);
        Ok(Self {
            provider,
            store,
            config,
            state,
            new_jobs,
            next_block,
            range,
            count_below: None,
            head_below: None,
            new_submissions: None,
        })
    }

    /// Wake `notify` whenever a scan stores new evidence submissions.
    pub fn with_submission_notify(mut self, notify: Arc<Notify>) -> Self {
        self.new_submissions = Some(notify);
        self
    }

    /// The shared status.
    pub fn state(&self) -> Arc<WatchState> {
        Arc::clone(&self.state)
    }

    /// Poll until cancelled. RPC failures are logged and retried with backoff; the loop only
    /// ends on cancellation or a store failure (the node cannot work without its store).
    ///
    /// # Errors
    /// [`ChainError::Store`] when the store fails.
    pub async fn run(mut self, cancel: CancellationToken) -> Result<(), ChainError> {
        let mut failures: u32 = 0;
        loop {
            let delay = match self.poll_once().await {
                Ok(poll) => {
                    failures = 0;
                    if poll.behind {
                        Duration::ZERO
                    } else {
                        self.config.poll_interval
                    }
                }
                Err(ChainError::Store(e)) if !e.is_retryable() => return Err(ChainError::Store(e)),
                Err(e) => {
                    failures = failures.saturating_add(1);
                    self.state.rpc_errors.fetch_add(1, Ordering::Relaxed);
                    let backoff = Backoff::new(self.config.poll_interval, MAX_ERROR_BACKOFF)
                        .ceiling(failures.min(6));
                    warn!(target: "veritas::watcher", error = %e, failures, retry_in = ?backoff, "poll failed");
                    backoff
                }
            };
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// Scan the next confirmed range (at most one `eth_getLogs` that succeeds; refused ranges
    /// are shrunk and retried within the same call).
    ///
    /// # Errors
    /// [`ChainError`] from the RPC or the store; the cursor is unchanged then.
    pub async fn poll_once(&mut self) -> Result<Poll, ChainError> {
        let (head, head_time) = crate::chain::latest_block(&self.provider).await?;
        self.state.head.store(head, Ordering::Relaxed);
        self.state.head_time.store(head_time, Ordering::Relaxed);
        // A block has `head - b + 1` confirmations; we may read up to `safe`.
        let Some(safe) = (head + 1).checked_sub(self.config.confirmations) else {
            return Ok(self.idle(head));
        };
        if self.next_block > safe {
            return Ok(self.idle(head));
        }
        loop {
            let to = self.range.end(self.next_block, safe);
            let mut topics = vec![
                IVeritasOracle::QuestionAsked::SIGNATURE_HASH,
                IVeritasOracle::EvidenceSubmitted::SIGNATURE_HASH,
                IVeritasOracle::QuestionClarified::SIGNATURE_HASH,
            ];
            topics.extend(LIFECYCLE_EVENTS);
            let filter = Filter::new()
                .address(self.config.oracle)
                .event_signature(topics)
                .from_block(self.next_block)
                .to_block(to);
            match self.provider.get_logs(&filter).await {
                Ok(logs) => {
                    let new_questions = self.apply_page(logs, to).await?;
                    self.range.succeeded();
                    self.state.range.store(self.range.size(), Ordering::Relaxed);
                    return Ok(Poll {
                        head,
                        cursor: self.next_block,
                        new_questions,
                        behind: to < safe,
                    });
                }
                Err(e) => {
                    let err = ChainError::rpc("eth_getLogs", e);
                    if err.is_range_refusal() && self.range.refused() {
                        self.state.range.store(self.range.size(), Ordering::Relaxed);
                        warn!(target: "veritas::watcher", error = %err, range = self.range.size(), "log range refused; shrinking");
                        continue;
                    }
                    return Err(err);
                }
            }
        }
    }

    /// Applies one checked page of logs for `[next_block, to]`: stores its questions, evidence
    /// submissions and lifecycle events with the new cursor, then advances the cursor; returns
    /// how many questions were new.
    async fn apply_page(&mut self, logs: Vec<Log>, to: u64) -> Result<usize, ChainError> {
        // The whole page is checked once, before it is split by event.
        let checked = events::check_page(&logs, self.config.oracle, self.next_block, to);
        let page = Page::split(logs);
        let checked = checked.and_then(|()| page.decode());
        let (questions, clarifications) = checked.map_err(|defect| {
            self.state.rejected_pages.fetch_add(1, Ordering::Relaxed);
            ChainError::RejectedPage {
                from: self.next_block,
                to,
                reason: defect.to_string(),
            }
        })?;
        let Page {
            asked,
            evidence,
            later,
            ..
        } = page;
        self.check_complete(&asked, to).await?;
        // Jobs and submissions first (one transaction with the cursor): a question
        // asked and settled in one range has its row before its events are
        // applied. Both steps are idempotent, so a crash between them is repaired
        // by reading the range again. `check_complete` already moved `count_below`
        // to `to`: if the rest of the scan fails, the count must be read again.
        let scanned: Result<_, ChainError> = async {
            let (submissions, head_after) = self.chain_evidence(evidence, to).await?;
            let stored =
                self.store
                    .record_scan_with(&questions, &submissions, &clarifications, to + 1)?;
            self.record_lifecycle(&later)?;
            Ok((submissions, head_after, stored))
        }
        .await;
        let (submissions, head_after, stored) = match scanned {
            Ok(scanned) => scanned,
            Err(e) => {
                self.count_below = None;
                return Err(e);
            }
        };
        let new_questions = stored.questions;
        self.head_below = Some(head_after);
        debug!(target: "veritas::watcher", from = self.next_block, to, logs = asked.len(), submissions = submissions.len(), new_questions, "scanned");
        if stored.submissions > 0 {
            self.announce_submissions(stored.submissions, &submissions);
        }
        for c in &clarifications {
            info!(target: "veritas::watcher", question = %c.question_id, index = c.index, block = c.block_number, "question clarified");
        }
        self.advance_past(to);
        if new_questions > 0 {
            self.announce_questions(new_questions, &questions);
        }
        Ok(new_questions)
    }

    /// Decode and store the page's lifecycle events, counting the logs it cannot decode.
    fn record_lifecycle(&self, later: &[Log]) -> Result<(), crate::store::StoreError> {
        let mut undecodable = 0;
        let events = events::decode_lifecycle(later, &mut undecodable);
        self.state
            .undecodable_logs
            .fetch_add(undecodable, Ordering::Relaxed);
        self.store.record_lifecycle(&events)?;
        Ok(())
    }

    /// The range up to `to` is stored: scan on from the next block and tell the health
    /// check when the last page succeeded.
    fn advance_past(&mut self, to: u64) {
        self.next_block = to + 1;
        self.state.cursor.store(self.next_block, Ordering::Relaxed);
        self.state
            .last_ok_ms
            .store(u64::try_from(now_ms()).unwrap_or(0), Ordering::Relaxed);
    }

    /// Counts and logs newly stored evidence submissions and wakes their re-runs.
    fn announce_submissions(&self, stored: usize, submissions: &[StoredSubmission]) {
        self.state
            .submissions_seen
            .fetch_add(stored as u64, Ordering::Relaxed);
        for s in submissions {
            info!(target: "veritas::watcher", question = %s.question_id, index = s.index, submitter = %s.submitter, block = s.block_number, "evidence submitted");
        }
        if let Some(notify) = &self.new_submissions {
            notify.notify_one();
        }
    }

    /// Counts and logs newly stored questions (a never-resolvable one as rejected) and wakes the
    /// scheduler.
    fn announce_questions(&self, new_questions: usize, questions: &[NewQuestion]) {
        self.state
            .questions_seen
            .fetch_add(new_questions as u64, Ordering::Relaxed);
        for q in questions {
            match &q.defect {
                None => {
                    info!(target: "veritas::watcher", question = %q.question_id, block = q.block_number, "question confirmed")
                }
                Some(reason) => {
                    self.state
                        .questions_rejected
                        .fetch_add(1, Ordering::Relaxed);
                    warn!(target: "veritas::watcher", question = %q.question_id, block = q.block_number, reason, "question can never be resolved; stored as failed");
                }
            }
        }
        self.new_jobs.notify_one();
    }

    /// Check that `logs`, read for `[next_block, to]`, hold every question the contract
    /// counted in that range; remember the count at `to` for the next scan.
    ///
    /// When the RPC answers that it cannot tell (e.g. a pruned node asked about an old block
    /// on a first scan), the check is skipped for this range with a warning: refusing to move
    /// on would stop the watcher for good on such a provider.
    ///
    /// # Errors
    /// [`ChainError::IncompleteLogs`] for a short page; [`ChainError`] when the count cannot
    /// be read for a transient reason.
    async fn check_complete(&mut self, logs: &[Log], to: u64) -> Result<(), ChainError> {
        let from = self.next_block;
        let before = match self.count_below {
            Some(count) => Some(count),
            None => match from.checked_sub(1) {
                Some(block) => self.question_count_at(block).await?,
                None => Some(0),
            },
        };
        let after = self.question_count_at(to).await?;
        let (Some(before), Some(after)) = (before, after) else {
            warn!(target: "veritas::watcher", from, to, "questionCount unavailable; range not cross-checked");
            self.count_below = after;
            return Ok(());
        };
        let found = logs.iter().filter(|l| !l.removed).count() as u64;
        let expected = after.saturating_sub(before);
        if found < expected {
            // Read the counts again next time too: a reorg may have changed them.
            self.count_below = None;
            self.state.incomplete_pages.fetch_add(1, Ordering::Relaxed);
            return Err(ChainError::IncompleteLogs {
                from,
                to,
                found,
                expected,
            });
        }
        self.count_below = Some(after);
        Ok(())
    }

    /// Check that the `EvidenceSubmitted` logs of `[next_block, to]` form the contract's hash
    /// chain from the head before the range to `evidenceHead()@to`, and turn them into stored
    /// submissions with their links. Returns them and the head at `to`.
    ///
    /// # Errors
    /// [`ChainError::IncompleteEvidence`] when a link fails (a log is missing or altered: the
    /// range is read again); [`ChainError`] when a head cannot be read.
    async fn chain_evidence(
        &mut self,
        mut logs: Vec<Log>,
        to: u64,
    ) -> Result<(Vec<StoredSubmission>, B256), ChainError> {
        let from = self.next_block;
        let broken = |state: &WatchState, reason: String| {
            state.broken_evidence_pages.fetch_add(1, Ordering::Relaxed);
            ChainError::IncompleteEvidence { from, to, reason }
        };
        logs.retain(|l| !l.removed);
        logs.sort_by_key(|l| (l.block_number, l.log_index));
        let mut head = match self.head_below {
            Some(head) => head,
            None => self.evidence_head_at(from.checked_sub(1)).await?,
        };
        let mut out = Vec::with_capacity(logs.len());
        for log in &logs {
            let item = match evidence_chain::decode(log) {
                Ok(item) => item,
                Err(e) => {
                    // Its link is unknown, so the chain cannot be followed past it.
                    self.state.undecodable_logs.fetch_add(1, Ordering::Relaxed);
                    self.head_below = None;
                    return Err(broken(&self.state, e.to_string()));
                }
            };
            let next = item.link_from(head);
            if next != item.evidence_head {
                self.head_below = None;
                return Err(broken(
                    &self.state,
                    format!(
                        "question {} item {} (block {}) does not link from {head}",
                        item.question_id, item.index, item.block_number
                    ),
                ));
            }
            out.push(stored_submission(item, head));
            head = next;
        }
        let at_to = self.evidence_head_at(Some(to)).await?;
        if at_to != head {
            self.head_below = None;
            return Err(broken(
                &self.state,
                format!(
                    "{} logs end at head {head}, evidenceHead() is {at_to}",
                    out.len()
                ),
            ));
        }
        Ok((out, head))
    }

    /// `evidenceHead()` as of `block` (`None`: before genesis); `head_0` where the oracle
    /// did not exist yet.
    async fn evidence_head_at(&self, block: Option<u64>) -> Result<B256, ChainError> {
        let Some(block) = block else {
            return self.head0().await;
        };
        let contract = IVeritasOracle::new(self.config.oracle, &self.provider);
        match contract.evidenceHead().block(block.into()).call().await {
            Ok(head) => Ok(head),
            Err(alloy::contract::Error::ZeroData(..)) => self.head0().await,
            Err(e) => Err(ChainError::contract("evidenceHead", e)),
        }
    }

    async fn head0(&self) -> Result<B256, ChainError> {
        let chain_id = self
            .provider
            .get_chain_id()
            .await
            .map_err(|e| ChainError::rpc("eth_chainId", e))?;
        Ok(evidence_chain::head0(chain_id, self.config.oracle))
    }

    /// `questionCount()` as of `block`: 0 before the contract existed, `None` when the RPC
    /// answers that it cannot run the call there.
    async fn question_count_at(&self, block: u64) -> Result<Option<u64>, ChainError> {
        let contract = IVeritasOracle::new(self.config.oracle, &self.provider);
        match contract.questionCount().block(block.into()).call().await {
            Ok(count) => Ok(Some(u64::try_from(count).unwrap_or(u64::MAX))),
            Err(alloy::contract::Error::ZeroData(..)) => Ok(Some(0)),
            Err(alloy::contract::Error::TransportError(e)) if e.is_error_resp() => Ok(None),
            Err(e) => Err(ChainError::contract("questionCount", e)),
        }
    }

    fn idle(&self, head: u64) -> Poll {
        self.state
            .last_ok_ms
            .store(u64::try_from(now_ms()).unwrap_or(0), Ordering::Relaxed);
        Poll {
            head,
            cursor: self.next_block,
            new_questions: 0,
            behind: false,
        }
    }
}
