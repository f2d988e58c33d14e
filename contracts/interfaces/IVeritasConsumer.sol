// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./IVeritasOracle.sol";

/// @title IVeritasConsumer
/// @notice What a contract named as `consumer` in `askQuestion` implements to be told a question's
/// outcome instead of polling `isFinal`.
/// @dev The oracle calls it with exactly the gas the asker chose, ignores its return data and never
/// lets it block settlement: a revert or an out-of-gas is an event (`CallbackFailed`) and anyone
/// may `retryCallback(id)` later. Check `msg.sender` is the oracle; the call may come from any
/// transaction (a report, `settle`, the court's ruling, `finalize`, `resolveByDefault`, a retry).
interface IVeritasConsumer {
    /// @notice Question `id` reached `status`: final (Resolved past its window, Arbitrated, Expired,
    /// Defaulted) or Disputed (the verdict may still change). The triple is zero for Expired.
    function onVeritasVerdict(uint256 id, IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        external;
}
