// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IArbitrable (ERC-792)
/// @notice A contract whose disputes an ERC-792 arbitrator rules on. Written from the EIP-792 text
/// (https://github.com/ethereum/EIPs/issues/792); ABI-compatible with every ERC-792 arbitrator.
/// @dev The arbitrator is typed `address` here (the ABI type of `IArbitrator`), so this file needs
/// no import; the event's topic is `Ruling(address,uint256,uint256)` as the standard's.
interface IArbitrable {
    /// @notice Emitted when the arbitrator `_arbitrator` gave the final ruling `_ruling` on its
    /// dispute `_disputeID`.
    event Ruling(address indexed _arbitrator, uint256 indexed _disputeID, uint256 _ruling);

    /// @notice Called by the arbitrator to give its final ruling. 0 means "refused to arbitrate";
    /// 1.._choices are the options the dispute was created with.
    function rule(uint256 _disputeID, uint256 _ruling) external;
}
