//! Our reference ERC-792 arbitrator, `contracts/court/VeritasCourt.sol`, as far as the node and
//! its tools drive it: a judge gives a ruling, and anyone executes it once its appeal period is
//! over (the court then calls the oracle's `rule`). The oracle's side of a case (dispute,
//! escalation, appeal, default) is in [`super::IVeritasOracle`].

alloy::sol! {
    /// The judge-facing part of `VeritasCourt`.
    #[sol(rpc)]
    #[derive(Debug, PartialEq, Eq)]
    interface IVeritasCourt {
        /// The ruling of dispute `disputeId` by the judge of its current round.
        function giveRuling(uint256 disputeId, uint256 ruling) external;
        /// Pass the ruling of `disputeId` to the oracle once its appeal period is over.
        function executeRuling(uint256 disputeId) external;
        /// What a new case costs.
        function arbitrationCost(bytes calldata extraData) external view returns (uint256 cost);
    }
}
