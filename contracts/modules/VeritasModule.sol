// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasStorage} from "../VeritasStorage.sol";

/// @title VeritasModule
/// @notice What the oracle's modules share: they run only by `delegatecall` from `VeritasOracle`,
/// on its storage.
abstract contract VeritasModule is VeritasStorage {
    /// @dev The module's own address. Run by the oracle's delegatecall, `address(this)` is the
    /// oracle's instead.
    address private immutable _SELF = address(this);

    /// @dev Refuses a direct call, on the payable functions: wei sent to the module itself would
    /// be recorded in the module's own, unused storage, out of every invariant's reach.
    modifier delegated() {
        if (address(this) == _SELF) revert IVeritasOracle.VeritasModuleCalledDirectly();
        _;
    }
}
