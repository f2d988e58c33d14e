// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {BaseTest} from "./Base.t.sol";
import {TestConsumer} from "./Callback.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Issue #43: the asker prepays its callback's gas, and whoever delivers the final status
/// is paid it. On v3 the quorum-th reporter paid up to 500,000 gas of the asker's consumer with
/// nothing to reimburse it: an asker could make reporting a loss.
contract CallbackGasTest is BaseTest {
    uint32 internal constant GAS = 500_000;
    uint256 internal constant PRICE = 2 gwei;
    // What the ask must prepay at PRICE: the consumer's limit and the oracle's part.
    uint256 internal constant DEPOSIT = (uint256(GAS) + 25_000) * PRICE;

    TestConsumer internal consumer;
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        consumer = new TestConsumer{value: 10 ether}(IVeritasOracle(address(oracle)));
        _setParams(_params(1, 0));
        vm.deal(carol, 10 ether);
    }

    /// @dev Alice asks at PRICE with `surplus` over the fee, naming the consumer.
    function _askPaying(uint256 surplus) internal returns (uint256 id) {
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), GAS);
        vm.txGasPrice(PRICE);
        vm.prank(alice);
        id = oracle.askQuestion{value: ASK_FEE + surplus}(QUESTION, 0, rules);
        vm.txGasPrice(0);
    }

    /// @dev How many `CallbackGasPaid` logs the recorded logs hold.
    function _payments() internal returns (uint256 count) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].topics[0] == IVeritasOracle.CallbackGasPaid.selector) count++;
        }
    }

    function test_RevertIf_TheAskDoesNotPrepayTheCallbackGas() public {
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), GAS);
        vm.txGasPrice(PRICE);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasInsufficientPayment.selector, ASK_FEE + DEPOSIT - 1, ASK_FEE + DEPOSIT
            )
        );
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE + DEPOSIT - 1}(QUESTION, 0, rules);
        // A deposit that does not fit its 64 bits is refused, not truncated.
        uint256 huge = uint256(type(uint64).max) + 1;
        vm.deal(alice, huge + 1 ether);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCallbackDepositTooLarge.selector, huge));
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE + huge}(QUESTION, 0, rules);
    }

    function test_TheWholeSurplusIsTheDepositNotAFee() public {
        uint256 id = _askPaying(DEPOSIT + 1 ether);
        assertEq(oracle.getQuestion(id).callbackDeposit, DEPOSIT + 1 ether);
        assertEq(oracle.pendingFee(id), ASK_FEE, "the fee is the ask fee only");
        // Without a consumer a surplus stays the operators' fee, as before.
        vm.prank(alice);
        uint256 plain = oracle.askQuestion{value: ASK_FEE + 1 ether}(QUESTION, 0, _rules());
        assertEq(oracle.getQuestion(plain).callbackDeposit, 0);
        assertEq(oracle.pendingFee(plain), ASK_FEE + 1 ether);
    }

    /// @dev The attack on v3, priced: a consumer that burns its whole limit. The reporter that
    /// posts the final-at-once verdict pays for it, and is paid the deposit into its stake, which
    /// covers what the callback added to its transaction at the ask's gas price.
    function test_TheReporterThatDeliversIsPaidIntoItsStake() public {
        consumer.setMode(TestConsumer.Mode.BurnAll);
        uint256 plain = _ask();
        uint256 id = _askPaying(DEPOSIT);
        uint256 before = _staked(operator);

        uint256 gasBefore = gasleft();
        _post(plain, false);
        uint256 plainGas = gasBefore - gasleft();
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CallbackGasPaid(id, operator, DEPOSIT);
        gasBefore = gasleft();
        _post(id, false);
        uint256 callbackGas = gasBefore - gasleft();

        assertTrue(oracle.callbackOwed(id), "the consumer burned its gas and failed");
        assertEq(_staked(operator), before + DEPOSIT, "paid into the stake");
        assertGt(callbackGas - plainGas, GAS, "the consumer's whole limit was spent");
        assertLe((callbackGas - plainGas) * PRICE, DEPOSIT, "the deposit covers the callback's gas");
        // Free stake: withdrawn at once.
        vm.prank(operator);
        oracle.withdrawStake(DEPOSIT);
        assertEq(oracle.credits(operator), DEPOSIT);
        // Settling later pays nothing more.
        vm.recordLogs();
        oracle.settle(id);
        assertEq(_payments(), 0);
    }

    function test_TheSettlerTheJudgeAndTheFinalizerArePaidAsCredits() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 settled = _askPaying(DEPOSIT);
        _post(settled, false);
        assertEq(_staked(operator), STAKE, "a verdict not yet final pays nothing");
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        vm.prank(carol, carol);
        oracle.settle(settled);
        assertEq(oracle.credits(carol), DEPOSIT, "the settler delivered the final status");

        // The Disputed notice is the disputer's own choice: not paid. The ruling is.
        uint256 disputed = _askPaying(DEPOSIT);
        _post(disputed, false);
        vm.deal(bob, 10 ether);
        vm.recordLogs();
        vm.prank(bob, bob);
        oracle.dispute{value: COURT_COST + BOND}(disputed, C_YES, C_NO, C_NULL, bob);
        assertEq(_payments(), 0, "the Disputed notice is not paid");
        uint256 disputeId = _giveRuling(disputed, 6);
        vm.prank(judge2, judge2);
        court.executeRuling(disputeId);
        assertEq(oracle.credits(judge2), DEPOSIT, "whoever paid the ruling's gas, not the court");
        assertEq(oracle.credits(address(court)), 0);

        uint256 expired = _askPaying(DEPOSIT);
        vm.warp(block.timestamp + REPORT_WINDOW);
        vm.prank(carol, carol);
        oracle.finalize(expired);
        assertEq(oracle.credits(carol), 2 * DEPOSIT, "the finalizer delivered Expired");

        uint256 defaulted = _askPaying(DEPOSIT);
        _post(defaulted, true);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        vm.prank(carol, carol);
        oracle.resolveByDefault(defaulted);
        assertEq(oracle.credits(carol), 3 * DEPOSIT, "the defaulter delivered Defaulted");
    }

    /// @dev The dearest delivery: a settler with no credit yet (a new slot) and a consumer that
    /// burns its whole limit. What the callback adds to the settle is covered at the ask's price.
    function test_TheDepositCoversAFreshSettlersCallback() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        consumer.setMode(TestConsumer.Mode.BurnAll);
        uint256 plain = _ask();
        uint256 id = _askPaying(DEPOSIT);
        _post(plain, false);
        _post(id, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        address first = makeAddr("first settler");
        address second = makeAddr("second settler");
        vm.prank(first, first);
        uint256 gasBefore = gasleft();
        oracle.settle(plain);
        uint256 plainGas = gasBefore - gasleft();
        vm.prank(second, second);
        gasBefore = gasleft();
        oracle.settle(id);
        uint256 callbackGas = gasBefore - gasleft();
        assertEq(oracle.credits(second), DEPOSIT);
        assertGt(callbackGas - plainGas, GAS, "the consumer's whole limit was spent");
        assertLe((callbackGas - plainGas) * PRICE, DEPOSIT, "the deposit covers the callback's gas");
    }

    function test_ARetryIsNotPaid() public {
        consumer.setMode(TestConsumer.Mode.Revert);
        uint256 id = _askPaying(DEPOSIT);
        _post(id, false);
        assertEq(_staked(operator), STAKE + DEPOSIT, "the failed delivery still cost the reporter its gas");
        consumer.setMode(TestConsumer.Mode.Record);
        vm.recordLogs();
        vm.prank(carol, carol);
        oracle.retryCallback(id);
        assertEq(consumer.calls(), 1);
        assertEq(_payments(), 0);
        assertEq(oracle.credits(carol), 0);
    }

    /// @dev Issue #43, point 5: a retry delivers the status whose delivery failed. Every status
    /// change after a failure is itself delivered (and a delivery clears the debt), so the owed
    /// status is the one in force: Disputed here, then Arbitrated.
    function test_ARetryDeliversTheStatusThatFailed() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askPaying(DEPOSIT);
        _post(id, false);
        consumer.setMode(TestConsumer.Mode.Revert);
        vm.deal(bob, 10 ether);
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, bob);
        assertTrue(oracle.callbackOwed(id), "the Disputed delivery failed");
        consumer.setMode(TestConsumer.Mode.Record);
        oracle.retryCallback(id);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertFalse(oracle.callbackOwed(id));

        consumer.setMode(TestConsumer.Mode.Revert);
        _rule(id, 6);
        assertTrue(oracle.callbackOwed(id), "the Arbitrated delivery failed");
        consumer.setMode(TestConsumer.Mode.Record);
        oracle.retryCallback(id);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
        assertEq(consumer.lastYes(), C_YES, "the ruling's triple");
        assertEq(consumer.calls(), 2, "each status once");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoCallbackOwed.selector, id));
        oracle.retryCallback(id);
    }

    /// @dev A commit-reveal set final at once: the reveal that posts the verdict delivers it.
    function test_TheRevealThatPostsIsPaidIntoItsStake() public {
        IVeritasOracle.Parameters memory p = _params(2, 0);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _askPaying(DEPOSIT);
        bytes32 salt = keccak256("salt");
        address[2] memory ops = [operator, operator2];
        for (uint256 i = 0; i < 2; i++) {
            bytes32 c =
                oracle.reportCommitment(id, ops[i], _rootOf(ops[i]), N_YES, N_NO, N_NULL, KAPPA, false, false, salt);
            vm.prank(ops[i]);
            oracle.commitReport(id, c);
        }
        vm.prank(operator);
        oracle.revealReport(id, _rootOf(operator), N_YES, N_NO, N_NULL, KAPPA, false, false, salt);
        assertEq(_staked(operator), STAKE, "not final yet");
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CallbackGasPaid(id, operator2, DEPOSIT);
        vm.prank(operator2);
        oracle.revealReport(id, _rootOf(operator2), N_YES, N_NO, N_NULL, KAPPA, false, false, salt);
        assertEq(_staked(operator2), STAKE + DEPOSIT);
        assertEq(consumer.calls(), 1);
    }
}
