// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IArbitrator (ERC-792)
/// @notice An arbitrator that rules on disputes of `IArbitrable` contracts. Written from the
/// EIP-792 text (https://github.com/ethereum/EIPs/issues/792).
/// @dev Arbitrable contracts are typed `address` (their ABI type), so this file needs no import;
/// selectors and event topics are the standard's.
interface IArbitrator {
    /// @notice Waiting: no ruling yet. Appealable: a ruling that can be appealed. Solved: final.
    enum DisputeStatus {
        Waiting,
        Appealable,
        Solved
    }

    /// @notice Dispute `_disputeID` was created by `_arbitrable`.
    event DisputeCreation(uint256 indexed _disputeID, address indexed _arbitrable);

    /// @notice The ruling of `_disputeID` can be appealed.
    event AppealPossible(uint256 indexed _disputeID, address indexed _arbitrable);

    /// @notice `_disputeID` was appealed.
    event AppealDecision(uint256 indexed _disputeID, address indexed _arbitrable);

    /// @notice Create a dispute with `_choices` options (ruling 0 is "refused"), paying at least
    /// `arbitrationCost(_extraData)`.
    function createDispute(uint256 _choices, bytes calldata _extraData) external payable returns (uint256 disputeID);

    /// @notice Cost of a new dispute.
    function arbitrationCost(bytes calldata _extraData) external view returns (uint256 cost);

    /// @notice Appeal the ruling of `_disputeID`, paying at least `appealCost`.
    function appeal(uint256 _disputeID, bytes calldata _extraData) external payable;

    /// @notice Cost of appealing `_disputeID`.
    function appealCost(uint256 _disputeID, bytes calldata _extraData) external view returns (uint256 cost);

    /// @notice The appeal period of `_disputeID`, (0, 0) when none.
    function appealPeriod(uint256 _disputeID) external view returns (uint256 start, uint256 end);

    /// @notice Status of `_disputeID`.
    function disputeStatus(uint256 _disputeID) external view returns (DisputeStatus status);

    /// @notice Current ruling of `_disputeID`.
    function currentRuling(uint256 _disputeID) external view returns (uint256 ruling);
}
