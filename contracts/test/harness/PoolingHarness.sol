// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {VeritasOracle} from "../../VeritasOracle.sol";

/// @dev Exposes the pooled rule itself, so it can be fuzzed over the whole 16-bit count range.
contract PoolingHarness is VeritasOracle {
    constructor(address courtModule, address adminModule) VeritasOracle(msg.sender, courtModule, adminModule) {}

    function wadTriple(uint256 nYes, uint256 nNo, uint256 nNull) external pure returns (uint256, uint256, uint256) {
        return _wadTriple(nYes, nNo, nNull);
    }
}
