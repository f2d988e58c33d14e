// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {VeritasOracle} from "../../VeritasOracle.sol";

/// @dev An oracle on a clock the test sets, to show `_now()` is the only source of time.
contract ClockedOracle is VeritasOracle {
    uint256 public clock;

    constructor(address initialOwner, address courtModule, address adminModule)
        VeritasOracle(initialOwner, courtModule, adminModule)
    {}

    function setClock(uint256 t) external {
        clock = t;
    }

    function _now() internal view override returns (uint256) {
        return clock;
    }
}
