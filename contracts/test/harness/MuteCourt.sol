// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbitrator} from "../../interfaces/IArbitrator.sol";

/// @dev A court that takes every case and every appeal, charges for them, and never rules: the
/// invariant campaign's silent court (issue #43). Its cases can only end by default.
contract MuteCourt is IArbitrator {
    uint256 public disputes;

    function createDispute(uint256, bytes calldata) external payable returns (uint256 disputeId) {
        disputeId = disputes++;
    }

    function arbitrationCost(bytes calldata) external pure returns (uint256) {
        return 0.03 ether;
    }

    function appeal(uint256, bytes calldata) external payable {}

    function appealCost(uint256, bytes calldata) external pure returns (uint256) {
        return 0.04 ether;
    }

    function appealPeriod(uint256) external pure returns (uint256, uint256) {
        return (0, 0);
    }

    function disputeStatus(uint256) external pure returns (DisputeStatus) {
        return DisputeStatus.Waiting;
    }

    function currentRuling(uint256) external pure returns (uint256) {
        return 0;
    }
}
