// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IEvidence (ERC-1497)
/// @notice The evidence standard's events, written from the EIP-1497 text
/// (https://github.com/ethereum/EIPs/issues/1497): what a court's interface reads to display a case.
/// @dev Arbitrators are typed `address` (their ABI type); topics are the standard's.
interface IEvidence {
    /// @notice The meta-evidence (JSON URI: the question's context, rulings' titles) of id
    /// `_metaEvidenceID`.
    event MetaEvidence(uint256 indexed _metaEvidenceID, string _evidence);

    /// @notice `_party` submitted evidence `_evidence` (a URI) to evidence group `_evidenceGroupID`,
    /// for disputes before `_arbitrator`.
    event Evidence(
        address indexed _arbitrator, uint256 indexed _evidenceGroupID, address indexed _party, string _evidence
    );

    /// @notice Dispute `_disputeID` of `_arbitrator` was created; its context is `_metaEvidenceID`
    /// and its evidence is group `_evidenceGroupID`.
    event Dispute(
        address indexed _arbitrator, uint256 indexed _disputeID, uint256 _metaEvidenceID, uint256 _evidenceGroupID
    );
}
