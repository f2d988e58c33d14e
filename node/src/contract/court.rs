//! Our reference ERC-792 arbitrator, `contracts/court/VeritasCourt.sol`, as far as the node and
//! its tools drive it: a judge gives a ruling, a party appeals (through the oracle's `appeal`),
//! anyone executes the ruling once its appeal period is over (the court then calls the oracle's
//! `rule`), and a judge withdraws the fees of the rounds it ruled. The oracle's side of a case
//! (dispute, escalation, appeal, default) is in [`super::IVeritasOracle`].
//!
//! The court's custom errors are declared here with their NatSpec, so that
//! [`super::explain::court_abi`] turns a court revert into the court's own sentence.

alloy::sol! {
    /// The judge-facing part of `VeritasCourt`.
    #[sol(rpc, abi)]
    #[derive(Debug, PartialEq, Eq)]
    interface IVeritasCourt {
        /// ERC-792's dispute status.
        enum DisputeStatus {
            /// The judge of the current round has not ruled.
            Waiting,
            /// Ruled; appealable until the end of its appeal period.
            Appealable,
            /// The ruling was executed (sent to the oracle).
            Solved
        }

        /// The list of judges is empty, has a zero address or holds more than 255.
        error CourtInvalidJudges();
        /// `paid` wei where exactly `required` are needed.
        error CourtWrongPayment(uint256 paid, uint256 required);
        /// Disputes need 1..255 choices.
        error CourtInvalidChoices(uint256 choices);
        /// No dispute with this id.
        error CourtUnknownDispute(uint256 disputeId);
        /// The dispute is in `status`, not the one the call needs.
        error CourtWrongStatus(uint256 disputeId, DisputeStatus status);
        /// `caller` is not the judge of the dispute's current round.
        error CourtNotJudge(uint256 disputeId, address caller);
        /// `judge` is a party to the dispute (who sent it, its beneficiary, or a reporter of the question).
        error CourtJudgeIsParty(uint256 disputeId, address judge);
        /// `ruling` is above the dispute's `choices`.
        error CourtInvalidRuling(uint256 ruling, uint256 choices);
        /// The appeal period ends at `end`.
        error CourtAppealPeriod(uint256 disputeId, uint256 end, uint256 nowTimestamp);
        /// No judge is left for another appeal.
        error CourtNoMoreAppeals(uint256 disputeId);
        /// Only the dispute's arbitrable (`arbitrable`) may appeal it: it moves its own court
        /// deadline with the appeal.
        error CourtNotArbitrable(uint256 disputeId, address caller);
        /// Nothing to withdraw, or the transfer failed.
        error CourtWithdrawFailed(address judge);

        /// `judge` ruled `ruling` on `disputeId` in round `round`.
        event RulingGiven(uint256 indexed disputeId, address indexed judge, uint256 round, uint256 ruling);

        /// The ruling of dispute `disputeId` by the judge of its current round.
        function giveRuling(uint256 disputeId, uint256 ruling) external;
        /// Pass the ruling of `disputeId` to the oracle once its appeal period is over.
        function executeRuling(uint256 disputeId) external;
        /// What a new case costs.
        function arbitrationCost(bytes calldata extraData) external view returns (uint256 cost);
        /// What an appeal of `disputeId` costs (`type(uint256).max`: no judge left).
        function appealCost(uint256 disputeId, bytes calldata extraData) external view returns (uint256 cost);
        /// The appeal period of `disputeId` (zeros unless its ruling is appealable).
        function appealPeriod(uint256 disputeId) external view returns (uint256 start, uint256 end);
        /// Where `disputeId` stands.
        function disputeStatus(uint256 disputeId) external view returns (DisputeStatus status);
        /// The ruling given so far.
        function currentRuling(uint256 disputeId) external view returns (uint256 ruling);
        /// The judge of the dispute's current round: the first judge from the round's place in the
        /// list who is not a party to the case (the zero address when none is left).
        function judgeOf(uint256 disputeId) external view returns (address);
        /// The round of the dispute (0 before any appeal).
        function roundOf(uint256 disputeId) external view returns (uint256);
        /// Wei each judge may withdraw.
        function fees(address judge) external view returns (uint256);
        /// A judge withdraws the fees of the rounds it ruled.
        function withdraw() external returns (uint256 amount);
    }
}

/// The court's custom errors, decoded from revert data.
pub type CourtError = IVeritasCourt::IVeritasCourtErrors;
