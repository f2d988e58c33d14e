// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {ExampleConsumer} from "../examples/ExampleConsumer.sol";

/// @notice The example consumer records every final status (Resolved, Arbitrated, Expired,
/// Defaulted), only notes a dispute, ignores questions asked under other rules, trusts only the
/// oracle, and recovers a failed callback through its pull path.
contract ExampleConsumerTest is BaseTest {
    uint32 internal constant GAS = 200_000;

    ExampleConsumer internal consumer;

    function setUp() public override {
        super.setUp();
        _setParams(_params(1, CHALLENGE_WINDOW));
        consumer = new ExampleConsumer(oracle, oracle.parametersId(), address(court));
    }

    /// @dev Alice asks QUESTION naming the consumer with `gas`.
    function _askConsumed(uint32 gas) internal returns (uint256 id) {
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), gas);
        vm.prank(alice);
        id = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    function _outcome(uint256 id) internal view returns (ExampleConsumer.Outcome outcome, bool disputed) {
        (outcome,, disputed,,,) = consumer.records(id);
    }

    function test_resolved_after_its_window_records_the_leading_outcome() public {
        uint256 id = _askConsumed(GAS);
        _post(id, false);
        (ExampleConsumer.Outcome before,) = _outcome(id);
        assertEq(uint8(before), uint8(ExampleConsumer.Outcome.Unknown), "not final yet");
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        (ExampleConsumer.Outcome outcome, bool disputed) = _outcome(id);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.Yes));
        assertFalse(disputed);
        (,,, uint256 pYes, uint256 pNo, uint256 pNull) = consumer.records(id);
        assertEq(pYes, P_YES);
        assertEq(pNo, P_NO);
        assertEq(pNull, P_NULL);
    }

    function test_a_dispute_is_only_noted_and_the_ruling_is_recorded() public {
        uint256 id = _askConsumed(GAS);
        _post(id, false);
        _dispute(bob, id);
        (ExampleConsumer.Outcome outcome, bool disputed) = _outcome(id);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.Unknown), "Disputed is not final");
        assertTrue(disputed);
        _rule(id, 3); // RULING_NO
        (outcome, disputed) = _outcome(id);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.No));
        assertTrue(disputed);
    }

    function test_expired_and_defaulted_are_outcomes_of_their_own() public {
        uint256 expired = _askConsumed(GAS);
        uint256 defaulted = _askConsumed(GAS);
        _post(defaulted, false);
        _dispute(bob, defaulted);
        vm.warp(block.timestamp + REPORT_WINDOW + ARBITRATION_WINDOW);
        oracle.finalize(expired);
        oracle.resolveByDefault(defaulted);
        (ExampleConsumer.Outcome outcome,) = _outcome(expired);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.Expired));
        (outcome,) = _outcome(defaulted);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.Defaulted));
    }

    function test_a_question_under_other_rules_is_ignored() public {
        ExampleConsumer strict = new ExampleConsumer(oracle, oracle.parametersId() + 1, address(court));
        IVeritasOracle.AskRules memory rules = _rules(address(strict), GAS);
        vm.prank(alice);
        uint256 id = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        _post(id, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        (ExampleConsumer.Outcome outcome,,,,,) = strict.records(id);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.WrongRules));
        assertFalse(strict.rulesOk(id));
    }

    function test_only_the_oracle_calls_back() public {
        uint256 id = _askConsumed(GAS);
        vm.expectRevert(abi.encodeWithSelector(ExampleConsumer.ConsumerNotOracle.selector, address(this)));
        consumer.onVeritasVerdict(id, IVeritasOracle.VerdictStatus.Resolved, WAD - 2, 1, 1);
    }

    function test_a_failed_callback_is_recovered_by_sync_or_retry() public {
        // Too little gas for the consumer's rule check: the callback fails, nothing else does.
        uint256 id = _askConsumed(5_000);
        _post(id, false);
        vm.expectRevert(
            abi.encodeWithSelector(ExampleConsumer.ConsumerNotFinal.selector, id, IVeritasOracle.VerdictStatus.Resolved)
        );
        consumer.sync(id);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertTrue(oracle.callbackOwed(id));
        assertEq(uint8(consumer.sync(id)), uint8(ExampleConsumer.Outcome.Yes));
        // A retry after that changes nothing (the outcome is known) and clears the debt.
        oracle.retryCallback(id);
        assertFalse(oracle.callbackOwed(id));
        (ExampleConsumer.Outcome outcome,) = _outcome(id);
        assertEq(uint8(outcome), uint8(ExampleConsumer.Outcome.Yes));
    }
}
