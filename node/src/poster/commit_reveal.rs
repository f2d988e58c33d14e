//! Commit-reveal reporting (a question whose parameter set has a `revealWindow` and a quorum
//! above 1): `commitReport(id, commitment)` in the commit phase, then `revealReport` with the
//! report and its salt once the reveal phase is open, each sent once across crashes, restarts
//! and reorgs.
//!
//! - The salt (32 bytes from the OS random number generator), the exact report and the
//!   commitment are saved in the store *before* the commit transaction is signed; the first one
//!   saved wins, so a restart never draws a second salt and reveals what it committed to.
//! - Every look starts from the chain, read at one block ([`Facts`]), and from the
//!   transactions the store records: a recorded transaction still pending is settled first
//!   (its receipt, a rebroadcast of the same bytes, or a fee-bumped replacement at its
//!   nonce), then [`next_step`] says what to do: commit, wait for the reveal phase, reveal, or
//!   nothing more.
//! - A transaction recorded mined whose receipt is gone (a reorg took its block) is recorded
//!   pending again before anything new is sent, and settled like one: the same bytes sent
//!   again, or a replacement at its nonce (the nonce the reorg freed, which no later
//!   transaction fills).
//! - A commitment on-chain waiting for the reveal phase defers the job
//!   ([`ChainError::CommitRevealWait`]); a reveal deadline missed fails it
//!   ([`ChainError::RevealMissed`]: the bond is burned at `finalize`).
//!
//! The salt is a secret until the reveal is mined: it is never logged. The transactions
//! themselves (sending, resuming, reading receipts) are in `cr_txs`.

use std::time::Duration;

use alloy::{
    primitives::{Address, B256, U256, keccak256},
    signers::k256::elliptic_curve::rand_core::{OsRng, RngCore},
    sol_types::{SolCall, SolValue},
};
use tracing::{debug, info, warn};

use super::cr_txs::{Logged, mined, reveal_calldata};
use super::facts::Facts;
use super::{Posted, Poster, Verdict};
use crate::chain::ViewCall;
use crate::{
    chain::ChainError,
    contract::{IVeritasOracle, OracleError},
};
use crate::{store::SavedCommit, watcher::events::NewQuestion};

/// How long a commitment waiting for the reveal phase (the other operators' commits, or the
/// end of the report window) waits between looks.
pub const REVEAL_POLL: Duration = Duration::from_secs(2);
/// How often a spare operator whose commit came too late looks for a reopened slot: slower than
/// [`REVEAL_POLL`], since a slot reopens only after a whole reveal window.
pub(super) const REOPEN_POLL: Duration = Duration::from_secs(10);
/// Looks at the chain in one call before giving the job back to the scheduler.
const MAX_ROUNDS: usize = 8;

/// The commitment `reporter` sends for this report on `id`: the contract's
/// `reportCommitment`, keccak256(abi.encode(id, reporter, merkleRoot, nYes, nNo, nNull,
/// fleissKappa, escalated, notYet, salt)).
pub fn report_commitment(id: U256, reporter: Address, verdict: &Verdict, salt: B256) -> B256 {
    keccak256(
        (
            id,
            reporter,
            B256::from(verdict.merkle_root),
            verdict.counts[0],
            verdict.counts[1],
            verdict.counts[2],
            verdict.kappa,
            verdict.escalated,
            verdict.not_yet,
            salt,
        )
            .abi_encode_params(),
    )
}

/// What to do next on a commit-reveal question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Send `commitReport`.
    Commit,
    /// Our commitment is on-chain; the reveal phase is not open yet.
    WaitReveal,
    /// Send `revealReport`.
    Reveal,
    /// Our report is pooled: done.
    Revealed,
    /// No commit phase to join (phase 0): nothing to send.
    Done,
    /// The commit phase closed without a commitment of ours while the question is open: a
    /// commit withheld past its reveal deadline reopens its slot to spare operators at
    /// `finalize` (issue #43), so look again until the question closes.
    WaitReopen,
    /// The question takes no more reports: done, unless we committed and never revealed.
    Closed,
    /// Our commitment's reveal phase is over.
    Missed,
    /// A commitment of ours is on-chain that is not the one saved.
    Foreign,
    /// `canReport` says no in the commit phase (stake short, or not an operator of the epoch).
    CannotCommit,
}

/// The next step from the chain's facts and our saved commitment `ours`.
pub(super) fn next_step(f: &Facts, ours: B256) -> Step {
    if f.reported {
        return Step::Revealed;
    }
    if !f.open {
        return Step::Closed;
    }
    if f.on_chain == ours {
        return match f.phase {
            1 => Step::WaitReveal,
            2 => Step::Reveal,
            _ => Step::Missed,
        };
    }
    if f.on_chain != B256::ZERO {
        return Step::Foreign;
    }
    match f.phase {
        1 if f.can_report => Step::Commit,
        1 => Step::CannotCommit,
        2 | 3 => Step::WaitReopen,
        _ => Step::Done,
    }
}

impl Poster {
    /// Whether `id` is a commit-reveal question (a `revealWindow` and a quorum above 1).
    ///
    /// # Errors
    /// [`ChainError`] from the call ([`ChainError::UnknownQuestion`] for an id never asked).
    pub async fn is_commit_reveal(&self, id: U256) -> Result<bool, ChainError> {
        let p = self
            .contract()
            .questionParameters(id)
            .view("questionParameters")
            .await?;
        Ok(p.revealWindow > 0 && p.quorum > 1)
    }

    /// Commit, then reveal, `verdict` for `question` (see the module docs).
    pub(super) async fn post_commit_reveal(
        &self,
        question: &NewQuestion,
        verdict: &Verdict,
    ) -> Result<Posted, ChainError> {
        let id = verdict.id;
        self.check_question(question, id).await?;
        let saved = self.saved_commit(verdict)?;
        for round in 0..MAX_ROUNDS {
            let facts = self.facts(id).await?;
            if let Some(tx) = self.pending_tx(id)? {
                self.resume(id, &tx, &facts, &saved).await?;
                continue;
            }
            let step = next_step(&facts, saved.commitment);
            debug!(target: "veritas::post", question = %id, ?step, phase = facts.phase, "commit-reveal");
            // About to send: a transaction of ours recorded mined but reorged out goes again
            // first, at its nonce (nothing else fills it), with the same commitment.
            if matches!(step, Step::Commit | Step::Reveal) && self.reorged_out(id).await? {
                continue;
            }
            let at = StepAt {
                question,
                id,
                step,
                facts: &facts,
                saved: &saved,
                first_round: round == 0,
            };
            if let Some(posted) = self.take_step(at).await? {
                return Ok(posted);
            }
        }
        Err(ChainError::CommitRevealWait {
            id,
            what: "the chain kept changing",
            retry_in: REVEAL_POLL,
        })
    }

    /// Act on the step the chain calls for: send what is ours to send, or end the post with
    /// its outcome; `None` reads the chain again.
    async fn take_step(&self, at: StepAt<'_>) -> Result<Option<Posted>, ChainError> {
        let StepAt {
            question,
            id,
            step,
            facts,
            saved,
            first_round,
        } = at;
        match step {
            // Our commitment is gone while the question is open: `finalize` burned it,
            // withheld past its reveal deadline, and reopened its slot to spare operators.
            Step::WaitReopen | Step::CannotCommit
                if self.committed(id, question.block_number).await? =>
            {
                warn!(target: "veritas::post", question = %id, "reveal deadline missed: our commitment was burned at finalize; the report bond is lost");
                Err(ChainError::RevealMissed {
                    id,
                    deadline: facts.deadline,
                })
            }
            Step::Commit => self.send_commit(id, saved).await.map(|()| None),
            Step::Reveal => self.send_reveal(id, saved).await,
            Step::Revealed => {
                self.reconcile_after_post(id).await?;
                self.revealed(id, question.block_number).await.map(Some)
            }
            Step::Done => {
                info!(target: "veritas::post", question = %id, phase = facts.phase, "commit phase over without a commitment of ours; nothing to send");
                self.reconcile_after_post(id).await?;
                Ok(Some(Posted::AlreadyOnChain))
            }
            Step::Closed => {
                self.reconcile_after_post(id).await?;
                if self.committed(id, question.block_number).await? {
                    warn!(target: "veritas::post", question = %id, "reveal deadline missed: the question closed with our commitment unrevealed; the report bond is lost");
                    return Err(ChainError::RevealMissed {
                        id,
                        deadline: U256::ZERO,
                    });
                }
                Ok(Some(Posted::AlreadyOnChain))
            }
            Step::WaitReopen | Step::WaitReveal | Step::Missed | Step::Foreign => {
                Err(not_now(id, step, facts, saved))
            }
            Step::CannotCommit => match self.why_not(id, first_round).await? {
                super::stake::CannotReport::AskAgain => Ok(None),
                super::stake::CannotReport::NotOperator => Err(ChainError::NotQuestionOperator {
                    id,
                    operator: self.from,
                }),
            },
        }
    }

    /// Sends our commitment and records its receipt. A revert saying the commit is no longer
    /// possible (phase closed, already committed, question not open) is not an error: the next
    /// round reads the chain again.
    async fn send_commit(&self, id: U256, saved: &SavedCommit) -> Result<(), ChainError> {
        let call = IVeritasOracle::commitReportCall {
            id,
            commitment: saved.commitment,
        };
        match self
            .send(id, "commitReport", call.abi_encode().into())
            .await
        {
            Ok(sent) => {
                info!(target: "veritas::post", question = %id, tx = %sent.tx_hash, commitment = %saved.commitment, "commit sent");
                let receipt = self.receipt(id, sent.tx_hash).await?;
                self.record_receipt(id, &sent, &receipt)?;
                Ok(())
            }
            Err(ChainError::Revert { error, .. })
                if matches!(
                    *error,
                    OracleError::VeritasCommitPhaseClosed(_)
                        | OracleError::VeritasAlreadyCommitted(_)
                        | OracleError::VeritasNotOpen(_)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Sends our reveal; `Some` when its receipt holds our report. A revert saying the reveal
    /// is not possible now is not an error: the next round reads the chain again.
    async fn send_reveal(
        &self,
        id: U256,
        saved: &SavedCommit,
    ) -> Result<Option<Posted>, ChainError> {
        match self.send(id, "revealReport", reveal_calldata(saved)).await {
            Ok(sent) => {
                crate::crashpoint::hit("reveal.sent");
                let receipt = self.receipt(id, sent.tx_hash).await?;
                if self.record_receipt(id, &sent, &receipt)? == Some(Logged::Report) {
                    info!(target: "veritas::post", question = %id, tx = %sent.tx_hash, block = ?receipt.block_number, "report revealed");
                    return Ok(Some(mined(&receipt)));
                }
                Ok(None)
            }
            Err(ChainError::Revert { error, .. })
                if matches!(
                    *error,
                    OracleError::VeritasNotRevealPhase(_)
                        | OracleError::VeritasNoCommitment(_)
                        | OracleError::VeritasNotOpen(_)
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The saved commitment of the question, or a new one (fresh salt) saved before anything
    /// is signed. A saved commitment for another report (it cannot happen: the intent, saved
    /// first, never changes) fails rather than reveal what was not committed to.
    fn saved_commit(&self, verdict: &Verdict) -> Result<SavedCommit, ChainError> {
        let id = verdict.id;
        let saved = match self.store.commit(id)? {
            Some(saved) => saved,
            None => {
                let mut salt = B256::ZERO;
                OsRng
                    .try_fill_bytes(salt.as_mut_slice())
                    .map_err(|e| ChainError::Salt(e.to_string()))?;
                let commit = SavedCommit {
                    question_id: id,
                    operator: self.from,
                    merkle_root: verdict.merkle_root,
                    counts: verdict.counts,
                    kappa: verdict.kappa,
                    escalated: verdict.escalated,
                    not_yet: verdict.not_yet,
                    salt,
                    commitment: report_commitment(id, self.from, verdict, salt),
                };
                let saved = self.store.save_commit(&commit)?;
                crate::crashpoint::hit("commit.saved");
                info!(target: "veritas::post", question = %id, commitment = %saved.commitment, "commitment saved");
                saved
            }
        };
        let same = Verdict {
            id,
            merkle_root: saved.merkle_root,
            counts: saved.counts,
            kappa: saved.kappa,
            escalated: saved.escalated,
            not_yet: saved.not_yet,
        } == *verdict;
        if !same
            || saved.operator != self.from
            || report_commitment(id, saved.operator, verdict, saved.salt) != saved.commitment
        {
            return Err(ChainError::Contract {
                op: "commitment",
                reason: format!(
                    "the saved commitment of question {id} is not this operator's report's"
                ),
            });
        }
        Ok(saved)
    }
}

/// One round of the commit-reveal loop: the question, the step the chain calls for and
/// what it was decided on.
struct StepAt<'a> {
    question: &'a NewQuestion,
    id: U256,
    step: Step,
    facts: &'a Facts,
    saved: &'a SavedCommit,
    /// Whether this is the loop's first round: only then may the stake be topped up.
    first_round: bool,
}

/// The error of a step that cannot send now: wait (for a reopened slot, for the reveal phase)
/// or give up (the reveal deadline missed, a commitment of ours the store does not hold).
/// The commit phase of `id` closed without us: look again in case a withheld slot reopens.
pub(super) fn wait_for_reopen(id: U256) -> ChainError {
    ChainError::CommitRevealWait {
        id,
        what: "the commit phase closed without us; waiting in case a withheld slot reopens",
        retry_in: REOPEN_POLL,
    }
}

fn not_now(id: U256, step: Step, facts: &Facts, saved: &SavedCommit) -> ChainError {
    match step {
        Step::WaitReopen => wait_for_reopen(id),
        Step::Missed => {
            warn!(target: "veritas::post", question = %id, deadline = %facts.deadline, "reveal deadline missed: the report bond is lost");
            ChainError::RevealMissed {
                id,
                deadline: facts.deadline,
            }
        }
        Step::Foreign => {
            warn!(target: "veritas::post", question = %id, on_chain = %facts.on_chain, saved = %saved.commitment, "a commitment of ours not in the store: it cannot be revealed");
            ChainError::ForeignCommitment {
                id,
                on_chain: facts.on_chain,
                saved: saved.commitment,
            }
        }
        // Step::WaitReveal, the only other step the caller passes.
        _ => ChainError::CommitRevealWait {
            id,
            what: "committed; the reveal phase is not open yet",
            retry_in: REVEAL_POLL,
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::commitment::root::Root;
    use alloy::{eips::BlockId, primitives::I256};

    fn facts(phase: u8, on_chain: B256) -> Facts {
        Facts {
            block: BlockId::latest(),
            open: true,
            reported: false,
            can_report: on_chain == B256::ZERO,
            on_chain,
            phase,
            deadline: U256::from(100),
        }
    }

    #[test]
    fn the_steps_follow_the_chain() {
        let ours = B256::repeat_byte(1);
        assert_eq!(next_step(&facts(1, B256::ZERO), ours), Step::Commit);
        assert_eq!(next_step(&facts(1, ours), ours), Step::WaitReveal);
        assert_eq!(next_step(&facts(2, ours), ours), Step::Reveal);
        assert_eq!(next_step(&facts(3, ours), ours), Step::Missed);
        // The commit phase closed (the quorum committed) without us: nothing to send.
        assert_eq!(next_step(&facts(2, B256::ZERO), ours), Step::WaitReopen);
        assert_eq!(next_step(&facts(3, B256::ZERO), ours), Step::WaitReopen);
        assert_eq!(next_step(&facts(0, B256::ZERO), ours), Step::Done);
        assert_eq!(
            next_step(&facts(2, B256::repeat_byte(2)), ours),
            Step::Foreign
        );
        let mut f = facts(1, B256::ZERO);
        f.can_report = false;
        assert_eq!(next_step(&f, ours), Step::CannotCommit);
        // Revealed (commitment cleared, report pooled), whatever the phase says.
        let mut f = facts(0, B256::ZERO);
        f.reported = true;
        f.open = false;
        assert_eq!(next_step(&f, ours), Step::Revealed);
        let mut f = facts(0, ours);
        f.open = false;
        assert_eq!(next_step(&f, ours), Step::Closed);
    }

    #[test]
    fn the_commitment_binds_every_field_and_the_salt() {
        let v = Verdict {
            not_yet: false,
            id: U256::from(3),
            merkle_root: Root::from([0xab; 32]),
            counts: [3, 1, 0],
            kappa: I256::try_from(-250_000_000_000_000_000i128).unwrap(),
            escalated: false,
        };
        let me = Address::with_last_byte(9);
        let salt = B256::repeat_byte(7);
        let c = report_commitment(v.id, me, &v, salt);
        assert_ne!(c, report_commitment(v.id, me, &v, B256::repeat_byte(8)));
        assert_ne!(c, report_commitment(v.id, Address::ZERO, &v, salt));
        let mut other = v;
        other.counts = [3, 0, 1];
        assert_ne!(c, report_commitment(v.id, me, &other, salt));
        let mut other = v;
        other.escalated = true;
        assert_ne!(c, report_commitment(v.id, me, &other, salt));
        let words = (
            v.id,
            me,
            B256::from(v.merkle_root),
            3u16,
            1u16,
            0u16,
            v.kappa,
            false,
            false,
            salt,
        )
            .abi_encode_params();
        // abi.encode of ten static values (`escalated` then `notYet`): ten 32-byte words.
        assert_eq!(words.len(), 10 * 32);
        assert_eq!(c, keccak256(&words));
    }
}
