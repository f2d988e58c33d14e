// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../../interfaces/IVeritasConsumer.sol";

/// @dev The invariant campaign's contract actor (issue #43): an operator whose key is a contract,
/// and the consumer of the questions that name it. Every callback it receives tries every
/// state-changing entry point of the oracle on the question; each must refuse with
/// `VeritasReentrantCall`. The first one that does not (it went through, or refused for another
/// reason, which means its guard is not the first check) is kept in `unguarded`.
contract ReentrantOperator is IVeritasConsumer {
    IVeritasOracle internal immutable oracle;
    /// @dev Re-entrant calls tried, and callbacks that tried them all.
    uint256 public attempts;
    uint256 public callbacks;
    bytes4 public unguarded;

    constructor(IVeritasOracle oracle_) {
        oracle = oracle_;
    }

    /// @dev Withdrawals of stake and credits land here.
    receive() external payable {}

    function onVeritasVerdict(uint256 id, IVeritasOracle.VerdictStatus, uint256, uint256, uint256) external {
        if (msg.sender != address(oracle)) return;
        bytes[] memory calls = _entryPoints(id);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = address(oracle).call(calls[i]);
            attempts++;
            bool refused = !ok && ret.length >= 4 && bytes4(ret) == IVeritasOracle.VeritasReentrantCall.selector;
            if (!refused && unguarded == bytes4(0)) unguarded = bytes4(calls[i]);
        }
        callbacks++;
    }

    /// @dev Every state-changing function of `IVeritasOracle`, with arguments that would pass its
    /// other checks as often as possible (this operator, question `id`).
    function _entryPoints(uint256 id) internal view returns (bytes[] memory calls) {
        IVeritasOracle.AskRules memory rules;
        IVeritasOracle.Report[] memory reports = new IVeritasOracle.Report[](1);
        reports[0] = IVeritasOracle.Report(id, bytes32(id), 1, 0, 0, 0, false, false);
        IVeritasOracle.Parameters memory p;
        calls = new bytes[](25);
        calls[0] = abi.encodeCall(IVeritasOracle.askQuestion, ("Will it rain?", 0, rules));
        calls[1] = abi.encodeCall(IVeritasOracle.submitEvidence, (id, "https://x", "t", "s"));
        calls[2] = abi.encodeCall(IVeritasOracle.submitReport, (id, bytes32(id), 1, 0, 0, 0, false, false));
        calls[3] = abi.encodeCall(IVeritasOracle.submitReports, (reports));
        calls[4] = abi.encodeCall(IVeritasOracle.finalize, (id));
        calls[5] = abi.encodeCall(IVeritasOracle.commitReport, (id, bytes32(id)));
        calls[6] = abi.encodeCall(IVeritasOracle.revealReport, (id, bytes32(id), 1, 0, 0, 0, false, false, bytes32(0)));
        calls[7] = abi.encodeCall(IVeritasOracle.dispute, (id, 0.5e18, 0.25e18, 0.25e18, address(this)));
        calls[8] = abi.encodeCall(IVeritasOracle.settle, (id));
        calls[9] = abi.encodeCall(IVeritasOracle.withdraw, ());
        calls[10] = abi.encodeCall(IVeritasOracle.requestArbitration, (id));
        calls[11] = abi.encodeCall(IVeritasOracle.appeal, (id));
        calls[12] = abi.encodeCall(IVeritasOracle.resolveByDefault, (id));
        calls[13] = abi.encodeCall(IVeritasOracle.rule, (oracle.getCase(id).disputeId, 1));
        calls[14] = abi.encodeCall(IVeritasOracle.retryCallback, (id));
        calls[15] = abi.encodeCall(IVeritasOracle.refundEvidence, (id));
        calls[16] = abi.encodeCall(IVeritasOracle.setMaxHorizon, (1 days));
        calls[17] = abi.encodeCall(IVeritasOracle.setParameters, (p, ""));
        calls[18] = abi.encodeCall(IVeritasOracle.transferOwnership, (address(this)));
        calls[19] = abi.encodeCall(IVeritasOracle.acceptOwnership, ());
        calls[20] = abi.encodeCall(IVeritasOracle.addOperator, (address(this)));
        calls[21] = abi.encodeCall(IVeritasOracle.removeOperator, (address(this)));
        calls[22] = abi.encodeCall(IVeritasOracle.releaseIndex, (address(this)));
        calls[23] = abi.encodeCall(IVeritasOracle.stake, (address(this)));
        (uint256 staked,,) = oracle.operatorStake(address(this));
        calls[24] = abi.encodeCall(IVeritasOracle.withdrawStake, (staked));
    }
}
