//! What one report sends: the operator's report as the contract takes it, from a saved
//! intent.

use alloy::{
    primitives::{Bytes, I256, U256},
    sol_types::SolCall,
};

use crate::commitment::root::Root;
use crate::store::PostIntent;
use crate::{chain::ChainError, contract::IVeritasOracle};

/// The operator's report as the contract (v2, `submitReport`) takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Question id.
    pub id: U256,
    /// Evidence Merkle root.
    pub merkle_root: Root,
    /// Valid ballots (n_YES, n_NO, n_NULL): the contract pools them and computes the triple.
    pub counts: [u16; 3],
    /// 1e18-scaled Fleiss' kappa.
    pub kappa: I256,
    /// Routing escalated it.
    pub escalated: bool,
    /// The question's deadline is still ahead: the report asks for a deferral.
    pub not_yet: bool,
}

impl Verdict {
    /// The verdict a saved intent holds: its typed values, and the ballot counts the contract
    /// pools (the intent's, or for an intent saved before they were stored, its report's).
    ///
    /// # Errors
    /// [`ChainError::Contract`] when the counts cannot be read or exceed the contract's 16 bits.
    pub fn from_intent(intent: &PostIntent) -> Result<Self, ChainError> {
        let counts = match intent.counts {
            Some(counts) => {
                let narrow = |n: u64| {
                    u16::try_from(n).map_err(|_| ChainError::Contract {
                        op: "intent",
                        reason: format!("count {n} of question {} above 65535", intent.question_id),
                    })
                };
                [narrow(counts[0])?, narrow(counts[1])?, narrow(counts[2])?]
            }
            None => report_counts(&intent.report_path)?,
        };
        Ok(Self {
            id: intent.question_id,
            merkle_root: intent.merkle_root,
            counts,
            kappa: intent.kappa,
            escalated: intent.escalated,
            not_yet: intent.not_yet,
        })
    }

    pub(super) fn calldata(&self) -> Bytes {
        IVeritasOracle::submitReportCall {
            id: self.id,
            merkleRoot: self.merkle_root.into(),
            nYes: self.counts[0],
            nNo: self.counts[1],
            nNull: self.counts[2],
            fleissKappa: self.kappa,
            escalated: self.escalated,
            notYet: self.not_yet,
        }
        .abi_encode()
        .into()
    }
}

/// The valid-ballot counts (`stats.counts`) of the report file at `path`: what the contract
/// pools (the intent stores only the triple they give).
fn report_counts(path: &str) -> Result<[u16; 3], ChainError> {
    let bad = |reason: String| ChainError::Contract {
        op: "report counts",
        reason: format!("{path}: {reason}"),
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let count = |outcome: &str| {
        report
            .pointer(&format!("/stats/counts/{outcome}"))
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| bad(format!("no stats.counts.{outcome} below 65536")))
    };
    Ok([count("YES")?, count("NO")?, count("NULL")?])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn intent(counts: Option<[u64; 3]>, report_path: &str) -> PostIntent {
        PostIntent {
            not_yet: false,
            round: 0,
            question_id: U256::from(7),
            merkle_root: Root::from([0xab; 32]),
            kappa: I256::try_from(250_000_000_000_000_000i128).unwrap(),
            counts,
            escalated: true,
            report_path: report_path.into(),
        }
    }

    #[test]
    fn an_intent_gives_the_report_it_stored() {
        let v = Verdict::from_intent(&intent(Some([3, 1, 0]), "/nonexistent")).unwrap();
        assert_eq!(v.id, U256::from(7));
        assert_eq!(v.merkle_root, Root::from([0xab; 32]));
        assert_eq!(v.counts, [3, 1, 0]);
        assert!(v.escalated);
        // The calldata is the contract's submitReport with those values.
        let call = IVeritasOracle::submitReportCall::abi_decode(&v.calldata()).unwrap();
        assert_eq!((call.nYes, call.nNo, call.nNull), (3, 1, 0));
        assert_eq!(call.fleissKappa, v.kappa);
    }

    #[test]
    fn counts_above_sixteen_bits_are_refused() {
        let e = Verdict::from_intent(&intent(Some([70_000, 0, 0]), "/nonexistent")).unwrap_err();
        assert!(e.to_string().contains("above 65535"), "{e}");
    }

    #[test]
    fn an_old_intent_reads_its_counts_from_the_report_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, r#"{"stats":{"counts":{"YES":3,"NO":1,"NULL":0}}}"#).unwrap();
        let v = Verdict::from_intent(&intent(None, path.to_str().unwrap())).unwrap();
        assert_eq!(v.counts, [3, 1, 0]);
        std::fs::write(&path, r#"{"stats":{"counts":{"YES":"3"}}}"#).unwrap();
        let e = Verdict::from_intent(&intent(None, path.to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains("stats.counts.YES"), "{e}");
    }
}
