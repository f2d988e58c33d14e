//! Commit-reveal reporting (a parameter set with a `revealWindow` and a quorum above 1), with
//! real `veritas run` processes on a real anvil:
//!
//! - the node's commitment is the contract's `reportCommitment`, computed locally;
//! - 3 nodes, quorum 2: each question gets two commits (`ReportCommitted`), then their reveals
//!   (`ReportSubmitted`) post the verdict; every report audits, nothing is slashed, the salts in
//!   the stores are the ones revealed and never appear in a log;
//! - a node SIGKILLed between its commit and the reveal phase reveals once restarted;
//! - a node back after the reveal deadline fails the question (bond lost), and `finalize`
//!   burns its bond;
//! - a griefer who commits first and withholds holds no slot: `finalize` burns its bond and
//!   reopens the slot, and the spare node whose commit came too late fills it (issue #43);
//! - reorgs (`anvil_reorg`): a commit reorged out is sent again with the saved commitment (at
//!   the nonce the reorg freed); a reveal reorged out, across a restart or while the node runs,
//!   is revealed again with the saved salt. One verdict, one commit and one reveal per
//!   operator on the final chain, one `commitments` row, nothing slashed.
//!
//! `cargo test -p veritas-node --test it commit_reveal:: -- --nocapture`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{collections::BTreeSet, time::Duration};

use alloy::primitives::{Address, B256, I256, U256};
use veritas::{
    commitment::root::Root,
    contract::{IVeritasOracle, IVeritasOracle::VerdictStatus as S},
    devnet::AnvilOptions,
    poster::report_commitment,
    poster::verdict::Verdict,
    store::{Stage, TxStatus},
};

use crate::support::{
    self, Chain, Node, address,
    commit_reveal::{assert_pooled_audits, commits, saved, slashed},
    wait,
};

const YES_MAJORITY: &str = r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#;
/// A generous bound, not a speed claim: idle, the slowest test here (a withheld slot filled by
/// the spare node, which looks every 10 s) takes 12 s.
const WAIT: Duration = Duration::from_secs(60);
/// The contract's smallest reveal window.
const REVEAL_WINDOW: u32 = 30;

async fn commit_reveal_chain(operators: &[usize]) -> Chain {
    support::commit_reveal::chain(operators, REVEAL_WINDOW).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_commitment_is_the_contracts() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let cases = [
        ([3u16, 1, 0], 250_000_000_000_000_000i128, false, 0x11u8),
        ([0, 0, 5], -1_000_000_000_000_000_000, true, 0xfe),
        ([65_535, 0, 1], 1_000_000_000_000_000_000, false, 0x00),
    ];
    for (i, (counts, kappa, escalated, salt)) in cases.into_iter().enumerate() {
        let v = Verdict {
            not_yet: false,
            id: U256::from(i + 1) << 200,
            merkle_root: Root::from([0xa0 + i as u8; 32]),
            counts,
            kappa: I256::try_from(kappa).unwrap(),
            escalated,
        };
        let reporter = address(i + 1);
        let salt = B256::repeat_byte(salt);
        let on_chain = oracle
            .reportCommitment(
                v.id,
                reporter,
                v.merkle_root.into(),
                counts[0],
                counts[1],
                counts[2],
                v.kappa,
                escalated,
                false,
                salt,
            )
            .call()
            .await
            .unwrap();
        assert_eq!(
            report_commitment(v.id, reporter, &v, salt),
            on_chain,
            "case {i}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_quorum_two_commit_then_reveal_one_verdict() {
    let chain = commit_reveal_chain(&[1, 3, 4]).await;
    let mut nodes: Vec<Node> = [1, 3, 4]
        .into_iter()
        .map(|key| Node::configure_as(&chain, key, YES_MAJORITY, ""))
        .collect();
    for node in &mut nodes {
        node.start();
    }
    let started = std::time::Instant::now();
    let ids = chain.ask(&["Committed first?", "Revealed second?"]).await;
    for &id in &ids {
        chain.wait_status(id, S::Resolved, WAIT).await;
    }
    println!(
        "commit-reveal: {} questions resolved by reveals in {:.1} s",
        ids.len(),
        started.elapsed().as_secs_f64()
    );
    for &id in &ids {
        assert_eq!(chain.verdict_events(id).await, 1, "{id}");
        let committed = commits(&chain, id).await;
        assert_eq!(
            committed.len(),
            2,
            "two commits (the quorum) on {id}: {committed:?}"
        );
        let committers: BTreeSet<Address> = committed.iter().map(|c| c.0).collect();
        assert_eq!(committers.len(), 2, "an operator committed twice on {id}");
        // Every commit revealed, and only commits were revealed.
        let reporters: BTreeSet<Address> = chain.reports(id).await.iter().map(|r| r.0).collect();
        assert_eq!(reporters, committers, "{id}");
        let mut reporting = Vec::new();
        for (node, key) in nodes.iter().zip([1, 3, 4]) {
            let Some((_, on_chain)) = committed.iter().find(|c| c.0 == address(key)) else {
                continue;
            };
            // The commitment the node saved before signing is the one on-chain.
            assert_eq!(saved(node).get(&id).map(|s| s.0), Some(*on_chain), "{id}");
            reporting.push(node);
        }
        assert_pooled_audits(&chain, id, &reporting).await;
    }
    assert_eq!(slashed(&chain).await, 0, "a commit was slashed");
    for node in &mut nodes {
        node.stop();
        // The salts were never logged.
        let log = node.log_text();
        for (_, salt) in saved(node).values() {
            assert!(
                !log.contains(&format!("{salt:x}")[2..]),
                "a salt in the log"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_between_commit_and_reveal_reveals_after_restart() {
    let chain = commit_reveal_chain(&[1, 3, 4]).await;
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut second = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    let mut third = Node::configure_as(&chain, 4, YES_MAJORITY, "");
    first.start();
    let id = chain.ask(&["Revealed after a restart?"]).await[0];
    // The first node commits alone: the reveal phase waits for the quorum's second commit.
    until("the first commit", &first, async || {
        !commits(&chain, id).await.is_empty()
    })
    .await;
    first.kill();
    let (commitment, salt) = saved(&first)[&id];
    second.start();
    until("the second commit", &second, async || {
        commits(&chain, id).await.len() >= 2
    })
    .await;
    // The reveal phase is open; the second node reveals, the verdict waits for the first.
    assert_eq!(chain.status(id).await, S::Asked);
    // A third operator arriving now finds the commit phase over: it runs no committee, sends
    // nothing, and looks again in case a slot reopens (none will: both reveal), until the
    // question closes.
    third.start();
    waiting_for_a_reopened_slot(&third, id).await;
    assert!(
        !third.report_path(id).exists(),
        "a committee ran too late to commit"
    );
    let sent = third.store().unwrap().all_txs().unwrap();
    assert!(
        sent.is_empty(),
        "the third node sent a transaction: {sent:?}"
    );
    assert_eq!(chain.status(id).await, S::Asked);
    first.start();
    chain.wait_status(id, S::Resolved, WAIT).await;
    assert_eq!(chain.verdict_events(id).await, 1);
    // Revealed with the salt saved before the crash, not a new one.
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert_pooled_audits(&chain, id, &[&first, &second]).await;
    assert_eq!(slashed(&chain).await, 0);
    // Done without sending anything; `final`, not the passing `reported` (see `wait_stage`).
    third.wait_stage(id, "final", WAIT).await;
    assert!(third.store().unwrap().all_txs().unwrap().is_empty());
    first.stop();
    second.stop();
    third.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_deadline_missed_fails_the_question_and_burns_the_bond() {
    // A challenge window, so reports lock a bond (without one the bond is 0: the economics
    // book's "what withholding costs").
    let bond = U256::from(10_000_000_000_000_000u64);
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| {
        p.quorum = 2;
        p.revealWindow = REVEAL_WINDOW;
        p.challengeWindow = 3600;
        p.disputeBond = alloy::primitives::aliases::U96::from(10_000_000_000_000_000u64);
    })
    .await;
    let mut late = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut prompt = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    // The late node dies right after its commit is mined, before any reveal.
    late.start_crashing_at("commit.mined", 1);
    let id = chain.ask(&["Revealed in time?"]).await[0];
    late.wait_crashed("commit.mined:1", WAIT);
    // The prompt node commits (the reveal phase opens) and reveals.
    prompt.start();
    until("the prompt node's reveal", &prompt, async || {
        chain.reports(id).await.iter().any(|r| r.0 == address(3))
    })
    .await;
    assert_eq!(commits(&chain, id).await.len(), 2);
    // The reveal window passes with the node down.
    chain.advance(u64::from(REVEAL_WINDOW) + 1).await;
    late.start();
    late.wait_stage(id, "failed", WAIT).await;
    let reason = late.last_error(id);
    assert!(reason.contains("reveal deadline"), "{reason}");
    // The prompt node finalizes it (its report was revealed): the late commit is burned and its
    // slot reopens to spare operators for a reveal window (issue #43). There is no spare, so
    // once that phase is over the prompt node finalizes again and the question escalates.
    until("the late commit's bond burned", &prompt, || async {
        slashed(&chain).await > 0
    })
    .await;
    assert_eq!(
        chain.status(id).await,
        S::Asked,
        "reopened, not escalated yet"
    );
    chain.advance(2 * u64::from(REVEAL_WINDOW) + 1).await;
    chain.wait_status(id, S::Escalated, WAIT).await;
    assert_eq!(slashed(&chain).await, 1);
    // `veritas operator balance` shows the burned bond, and why: the stake the contract holds
    // fell by exactly what it reports as slashed.
    let (url, oracle) = (chain.anvil.url.clone(), chain.oracle.to_string());
    let balance = |key: &str| -> serde_json::Value {
        let args = [
            "operator", "balance", "--json", "--rpc", &url, "--oracle", &oracle,
        ];
        let (code, out, err) = support::veritas_as(&args, late.dir.path(), Some(key));
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let (burned, kept) = (balance(late.key), balance(prompt.key));
    assert_eq!(burned["slashings"], 1, "{burned}");
    assert_eq!(burned["unrevealed_commits_slashed"], 1, "{burned}");
    assert_eq!(kept["slashings"], 0, "{kept}");
    let wei = |v: &serde_json::Value, key: &str| v[key].as_str().unwrap().parse::<U256>().unwrap();
    assert_eq!(wei(&burned, "slashed"), bond, "{burned}");
    assert_eq!(
        wei(&burned, "stake") + wei(&burned, "slashed"),
        wei(&kept, "stake"),
        "both operators staked the same"
    );
    late.stop();
    prompt.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withheld_commit_s_slot_goes_to_the_spare_node() {
    withheld_slot_goes_to_the_spare(false).await;
}

/// The spare node first sees the question with the commit phase already closed: it must wait
/// for a reopened slot, not call the question done (it did, and the slot stayed empty: a
/// race of the test above, which starts both nodes together, failed about once in 15 runs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spare_node_started_after_the_commit_phase_still_fills_a_withheld_slot() {
    withheld_slot_goes_to_the_spare(true).await;
}

/// `node`'s job of `id` deferred to look again (no attempt spent), not done: what a node does
/// when it first sees a question whose commit phase closed without it.
async fn waiting_for_a_reopened_slot(node: &Node, id: U256) {
    until("the node waiting for a reopened slot", node, || async {
        let job = node.store().and_then(|s| s.job(id).ok().flatten());
        job.is_some_and(|j| j.stage == Stage::Queued && j.next_attempt_at > j.updated_at)
    })
    .await;
}

async fn withheld_slot_goes_to_the_spare(spare_starts_late: bool) {
    // A long reveal window: the spare node looks for a reopened slot every 10 s, and the test
    // moves the chain's clock only past the first reveal phase.
    const WINDOW: u32 = 300;
    let chain = support::commit_reveal::chain(&[1, 3, 4], WINDOW).await;
    let id = chain.ask(&["Is a withheld slot filled?"]).await[0];
    // The griefer (operator 4) commits first, to a report it will never reveal.
    let griefer = IVeritasOracle::new(chain.oracle, chain.wallet(4));
    griefer
        .commitReport(id, B256::repeat_byte(0x6b))
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    // Two honest nodes: the first commit closes the commit phase (quorum 2), the other is spare.
    let mut nodes: Vec<Node> = [1, 3]
        .into_iter()
        .map(|key| Node::configure_as(&chain, key, YES_MAJORITY, ""))
        .collect();
    let started = if spare_starts_late { 1 } else { 2 };
    for node in &mut nodes[..started] {
        node.start();
    }
    until("a node's reveal", &nodes[0], || async {
        !chain.reports(id).await.is_empty()
    })
    .await;
    assert_eq!(
        commits(&chain, id).await.len(),
        2,
        "the griefer's and one node's"
    );
    if spare_starts_late {
        nodes[1].start();
        waiting_for_a_reopened_slot(&nodes[1], id).await;
    }
    // The reveal phase ends with the griefer's commit unrevealed: the revealing node finalizes,
    // the griefer's bond burns, the slot reopens, and the spare node commits and reveals.
    chain.advance(u64::from(WINDOW) + 1).await;
    chain.wait_status(id, S::Resolved, WAIT).await;
    let reporters: BTreeSet<Address> = chain.reports(id).await.iter().map(|r| r.0).collect();
    assert_eq!(reporters, BTreeSet::from([address(1), address(3)]));
    assert_eq!(commits(&chain, id).await.len(), 3);
    assert_eq!(slashed(&chain).await, 1, "the griefer's bond");
    assert_eq!(chain.verdict_events(id).await, 1);
    assert_pooled_audits(&chain, id, &[&nodes[0], &nodes[1]]).await;
    for node in &mut nodes {
        node.stop();
    }
}

/// The opening of the reveal-reorg tests: `first` dies right after its commit is mined
/// (`confirm`: one more block, its second confirmation), then `second` commits (the reveal
/// phase opens) and reveals, so the verdict waits for `first`'s reveal. Returns the question
/// and `first`'s saved (commitment, salt).
async fn first_commits_and_dies_then_second_reveals(
    chain: &Chain,
    first: &mut Node,
    second: &mut Node,
    second_operator: Address,
    question: &str,
    confirm: bool,
) -> (U256, (B256, B256)) {
    first.start_crashing_at("commit.mined", 1);
    let id = chain.ask(&[question]).await[0];
    if confirm {
        rpc(chain, "anvil_mine", serde_json::json!([1])).await;
    }
    first.wait_crashed("commit.mined:1", WAIT);
    let saved_commit = saved(first)[&id];
    second.start();
    until("the second reveal", second, || async {
        logged_block(chain, id, second_operator, false)
            .await
            .is_some()
    })
    .await;
    (id, saved_commit)
}

/// One JSON-RPC call straight to anvil.
async fn rpc(chain: &Chain, method: &str, params: serde_json::Value) -> serde_json::Value {
    use alloy::providers::Provider;
    chain
        .reader()
        .raw_request::<_, serde_json::Value>(method.to_owned().into(), params)
        .await
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// The block of `who`'s `ReportCommitted` (`commit`) or `ReportSubmitted` on `id`, if any.
async fn logged_block(chain: &Chain, id: U256, who: Address, commit: bool) -> Option<u64> {
    use alloy::{providers::Provider, rpc::types::Filter, sol_types::SolEvent};
    let signature = if commit {
        IVeritasOracle::ReportCommitted::SIGNATURE_HASH
    } else {
        IVeritasOracle::ReportSubmitted::SIGNATURE_HASH
    };
    let filter = Filter::new()
        .address(chain.oracle)
        .event_signature(signature)
        .topic1(id)
        .topic2(who.into_word())
        .from_block(0u64);
    let logs = chain.reader().get_logs(&filter).await.unwrap();
    assert!(logs.len() <= 1, "{who} logged twice on {id}: {logs:?}");
    logs.first().map(|l| l.block_number.unwrap())
}

/// Replace the blocks from `block` to the head by as many empty ones: what they held is gone
/// (anvil does not put reorged transactions back in its pool).
async fn reorg_from(chain: &Chain, block: u64) {
    use alloy::providers::Provider;
    let head = chain.reader().get_block_number().await.unwrap();
    assert!(block <= head);
    rpc(
        chain,
        "anvil_reorg",
        serde_json::json!([head - block + 1, []]),
    )
    .await;
}

/// Automine off until [`HoldMining::release`]: a running node's transactions wait in anvil's
/// pool, so the chain holds still while a test reads it (what a reorg left, before the node
/// acts on it).
#[must_use = "release it, or the chain mines nothing more"]
struct HoldMining<'a>(&'a Chain);

async fn hold_mining(chain: &Chain) -> HoldMining<'_> {
    rpc(chain, "evm_setAutomine", serde_json::json!([false])).await;
    HoldMining(chain)
}

impl HoldMining<'_> {
    /// Mine what waited in the pool, then automine again.
    async fn release(self) {
        rpc(self.0, "evm_mine", serde_json::json!([])).await;
        rpc(self.0, "evm_setAutomine", serde_json::json!([true])).await;
    }
}

async fn commitment_of(chain: &Chain, id: U256, who: Address) -> B256 {
    IVeritasOracle::new(chain.oracle, chain.reader())
        .commitmentOf(id, who)
        .call()
        .await
        .unwrap()
}

/// The commitments the node saved for `id`.
fn commitment_rows(node: &Node, id: U256) -> usize {
    let commits = node.store().unwrap().commits().unwrap();
    commits.iter().filter(|c| c.question_id == id).count()
}

/// On the final chain: one verdict, one commit and one reveal per operator in `keys`, each
/// commitment the one the node saved (its only row), nothing slashed, the reports pooled.
async fn assert_once_each(chain: &Chain, id: U256, nodes: &[(&Node, usize)]) {
    assert_eq!(chain.verdict_events(id).await, 1, "{id}");
    let committed = commits(chain, id).await;
    assert_eq!(committed.len(), nodes.len(), "{committed:?}");
    let reporters: Vec<Address> = chain.reports(id).await.iter().map(|r| r.0).collect();
    assert_eq!(reporters.len(), nodes.len(), "{reporters:?}");
    for (node, key) in nodes {
        let who = address(*key);
        let on_chain = committed.iter().find(|c| c.0 == who).unwrap().1;
        assert_eq!(saved(node).get(&id).map(|s| s.0), Some(on_chain), "{key}");
        assert_eq!(commitment_rows(node, id), 1, "one salt ever for {key}");
        assert!(reporters.contains(&who), "{key} revealed");
        // Revealed: the commitment is cleared.
        assert_eq!(commitment_of(chain, id, who).await, B256::ZERO);
    }
    assert_eq!(slashed(chain).await, 0, "a commit was slashed");
    let reporting: Vec<&Node> = nodes.iter().map(|n| n.0).collect();
    assert_pooled_audits(chain, id, &reporting).await;
}

/// Poll `check` every 50 ms until it holds; panics with `what` (and `log`) after [`WAIT`].
async fn until(what: &str, log: &Node, mut check: impl AsyncFnMut() -> bool) {
    wait::until(
        WAIT,
        || format!("timed out waiting for {what}\n{}", log.log_text()),
        async || check().await.then_some(()),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_reorged_out_is_sent_again_with_the_saved_salt() {
    let chain = commit_reveal_chain(&[1, 3]).await;
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut second = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    first.start();
    let id = chain.ask(&["Committed twice by a reorg?"]).await[0];
    let a = address(1);
    // The first node commits alone; the commit phase waits for the quorum's second commit.
    until("the first commit", &first, || async {
        logged_block(&chain, id, a, true).await.is_some()
    })
    .await;
    let block = logged_block(&chain, id, a, true).await.unwrap();
    let (commitment, salt) = saved(&first)[&id];
    assert_eq!(commitment_of(&chain, id, a).await, commitment);

    // The commit's block (and anything after it) is reorged out; the question stays. Nothing
    // is mined while that is read: the running node may send its commit again at once.
    let hold = hold_mining(&chain).await;
    reorg_from(&chain, block).await;
    assert!(commits(&chain, id).await.is_empty(), "the commit is gone");
    assert_eq!(commitment_of(&chain, id, a).await, B256::ZERO);
    assert_eq!(chain.status(id).await, S::Asked);
    hold.release().await;

    // The node notices and commits again: the same commitment (the saved salt), no new row.
    until("the commit sent again", &first, || async {
        logged_block(&chain, id, a, true).await.is_some()
    })
    .await;
    assert_eq!(commits(&chain, id).await, vec![(a, commitment)]);
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert_eq!(commitment_rows(&first, id), 1);

    // The second operator commits (the reveal phase opens); both reveal.
    second.start();
    chain.wait_status(id, S::Resolved, WAIT).await;
    assert_once_each(&chain, id, &[(&first, 1), (&second, 3)]).await;
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert_sent_once(&first, id);
    first.stop();
    second.stop();
}

/// The node's transactions about `id`: one commit and one reveal mined, at two nonces (a
/// reorged-out one sent again, or replaced at its nonce), none pending or reverted.
fn assert_sent_once(node: &Node, id: U256) {
    let txs: Vec<_> = node.store().unwrap().all_txs().unwrap();
    let txs: Vec<_> = txs.iter().filter(|t| t.question_id == id).collect();
    let mined = txs.iter().filter(|t| t.status == TxStatus::Mined).count();
    let nonces: std::collections::BTreeSet<u64> = txs.iter().map(|t| t.nonce).collect();
    let other = txs
        .iter()
        .filter(|t| {
            matches!(
                t.status,
                TxStatus::Pending | TxStatus::Reverted | TxStatus::Skipped
            )
        })
        .count();
    assert_eq!(
        (mined, nonces.len(), other),
        (2, 2, 0),
        "{}",
        node.log_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_reorged_out_after_a_crash_is_revealed_again_with_the_saved_salt() {
    let chain = commit_reveal_chain(&[1, 3]).await;
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut second = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    let (a, b) = (address(1), address(3));
    let (id, (commitment, salt)) = first_commits_and_dies_then_second_reveals(
        &chain,
        &mut first,
        &mut second,
        b,
        "Revealed twice by a reorg?",
        false,
    )
    .await;
    assert_eq!(chain.status(id).await, S::Asked);

    // The first reveals (its reveal posts the verdict) and dies right after the broadcast.
    first.start_crashing_at("reveal.sent", 1);
    first.wait_crashed("reveal.sent:1", WAIT);
    until("the first reveal mined", &first, || async {
        logged_block(&chain, id, a, false).await.is_some()
    })
    .await;
    chain.wait_status(id, S::Resolved, WAIT).await;
    let block = logged_block(&chain, id, a, false).await.unwrap();
    assert!(logged_block(&chain, id, b, false).await.unwrap() < block);

    // The reveal's block is reorged out: the verdict and our report are gone, the commit stays.
    reorg_from(&chain, block).await;
    assert_eq!(chain.status(id).await, S::Asked);
    assert_eq!(chain.verdict_events(id).await, 0);
    assert_eq!(logged_block(&chain, id, a, false).await, None);
    assert_eq!(commitment_of(&chain, id, a).await, commitment);

    // Restarted, the node reveals again, with the salt it saved before its commit.
    first.start();
    chain.wait_status(id, S::Resolved, WAIT).await;
    assert_once_each(&chain, id, &[(&first, 1), (&second, 3)]).await;
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert_sent_once(&first, id);
    first.stop();
    second.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_reorged_out_while_the_node_runs_is_revealed_again_with_the_saved_salt() {
    let chain = commit_reveal_chain(&[1, 3]).await;
    // Two confirmations: the verdict in the head block is not stored by the watcher before
    // the reorg takes it away (a reorg within the confirmation depth).
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    first.edit_config("confirmations = 1", "confirmations = 2");
    let mut second = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    let (a, b) = (address(1), address(3));
    let (id, (commitment, salt)) = first_commits_and_dies_then_second_reveals(
        &chain,
        &mut first,
        &mut second,
        b,
        "Revealed twice by a live reorg?",
        true,
    )
    .await;
    // The first node, running from now on, reveals: its reveal posts the verdict.
    first.start();
    first.wait_stage(id, "reported", WAIT).await;
    let block = logged_block(&chain, id, a, false).await.unwrap();
    assert_eq!(chain.status(id).await, S::Resolved);

    // The reveal's block is reorged out while the node runs. Nothing is mined while that is
    // read: the node may reveal again at once.
    let hold = hold_mining(&chain).await;
    reorg_from(&chain, block).await;
    assert_eq!(chain.status(id).await, S::Asked);
    assert_eq!(logged_block(&chain, id, a, false).await, None);
    assert_eq!(commitment_of(&chain, id, a).await, commitment);
    hold.release().await;

    // The node notices its commitment unrevealed and reveals again, with the saved salt.
    chain.wait_status(id, S::Resolved, WAIT).await;
    rpc(&chain, "anvil_mine", serde_json::json!([1])).await; // the verdict confirmed
    assert_once_each(&chain, id, &[(&first, 1), (&second, 3)]).await;
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert!(first.log_text().contains("(reorged out); revealing again"));
    first.stop();
    second.stop();
}
