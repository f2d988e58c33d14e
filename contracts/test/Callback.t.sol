// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../interfaces/IVeritasConsumer.sol";

/// @dev A consumer with a chosen behaviour.
contract TestConsumer is IVeritasConsumer {
    enum Mode {
        Record,
        Revert,
        BurnAll,
        HugeReturn,
        ReenterSettle,
        ReenterRetry,
        ReenterDispute,
        ReenterWithdraw
    }

    IVeritasOracle internal immutable oracle;
    Mode public mode;
    uint256 public calls;
    uint256 public lastId;
    IVeritasOracle.VerdictStatus public lastStatus;
    uint256 public lastYes;
    uint256 public lastNo;
    uint256 public lastNull;
    bool public reentryReverted;
    uint256 public gasSeen;

    constructor(IVeritasOracle oracle_) payable {
        oracle = oracle_;
    }

    function setMode(Mode mode_) external {
        mode = mode_;
    }

    function onVeritasVerdict(uint256 id, IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        external
    {
        gasSeen = gasleft();
        require(msg.sender == address(oracle), "not the oracle");
        Mode m = mode;
        if (m == Mode.Revert) revert("no");
        if (m == Mode.BurnAll) {
            while (true) {}
        }
        calls++;
        lastId = id;
        lastStatus = status;
        lastYes = pYes;
        lastNo = pNo;
        lastNull = pNull;
        if (m == Mode.HugeReturn) {
            assembly {
                return(0, 200000)
            }
        }
        if (m == Mode.ReenterSettle) {
            try oracle.settle(id) {}
            catch {
                reentryReverted = true;
            }
        } else if (m == Mode.ReenterRetry) {
            try oracle.retryCallback(id) {}
            catch {
                reentryReverted = true;
            }
        } else if (m == Mode.ReenterDispute) {
            try oracle.dispute{value: 1 ether}(id, 0.2e18, 0.7e18, 0.1e18, address(this)) {}
            catch {
                reentryReverted = true;
            }
        } else if (m == Mode.ReenterWithdraw) {
            try oracle.withdraw() {}
            catch {
                reentryReverted = true;
            }
        }
    }

    receive() external payable {}
}

/// @notice Callbacks: pinned at the ask, called with exactly their gas, never able to block
/// settlement, retried by anyone.
contract CallbackTest is BaseTest {
    uint32 internal constant GAS = 200_000;
    TestConsumer internal consumer;

    function setUp() public override {
        super.setUp();
        consumer = new TestConsumer{value: 10 ether}(IVeritasOracle(address(oracle)));
        _setParams(_params(1, 0));
    }

    function _askWith(uint32 gasLimit) internal returns (uint256 id) {
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), gasLimit);
        uint256 fee = oracle.parameters().askFee;
        vm.prank(alice);
        id = oracle.askQuestion{value: fee}(QUESTION, 0, rules);
    }

    function test_CallbackPinnedAtTheAsk() public {
        uint256 id = _askWith(GAS);
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        assertEq(q.consumer, address(consumer));
        assertEq(q.callbackGasLimit, GAS);
    }

    function test_RevertIf_InvalidCallback() public {
        uint256 max = oracle.MAX_CALLBACK_GAS();
        IVeritasOracle.AskRules memory rules = _rules(alice, GAS); // no code
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidCallback.selector, alice, GAS, max));
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        rules = _rules(address(consumer), uint32(max + 1));
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInvalidCallback.selector, address(consumer), max + 1, max)
        );
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        rules = _rules(address(consumer), 0);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInvalidCallback.selector, address(consumer), 0, max)
        );
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        rules = _rules(address(0), 1);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidCallback.selector, address(0), 1, max));
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    function test_FinalAtOnceReportCallsBack() public {
        uint256 id = _askWith(GAS);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CallbackDelivered(id, address(consumer), IVeritasOracle.VerdictStatus.Resolved);
        _post(id, false);
        assertEq(consumer.calls(), 1);
        assertEq(consumer.lastId(), id);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Resolved));
        assertEq(consumer.lastYes(), P_YES);
        assertEq(consumer.lastNo(), P_NO);
        assertEq(consumer.lastNull(), P_NULL);
        // Settling the money later does not call back again.
        oracle.settle(id);
        assertEq(consumer.calls(), 1);
    }

    function test_EscalatedReportDoesNotCallBack() public {
        uint256 id = _askWith(GAS);
        _post(id, true);
        assertEq(consumer.calls(), 0);
    }

    function test_SettleDisputeRuleExpireAndDefaultCallBack() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 settled = _askWith(GAS);
        _post(settled, false);
        assertEq(consumer.calls(), 0, "not final yet");
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(settled);
        assertEq(consumer.calls(), 1);

        uint256 disputed = _askWith(GAS);
        _post(disputed, false);
        vm.deal(bob, 10 ether);
        _dispute(bob, disputed);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Disputed));
        _rule(disputed, 6);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
        assertEq(consumer.lastYes(), C_YES);

        uint256 expired = _askWith(GAS);
        vm.warp(block.timestamp + REPORT_WINDOW);
        oracle.finalize(expired);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Expired));
        assertEq(consumer.lastYes(), 0);

        uint256 defaulted = _askWith(GAS);
        _post(defaulted, true);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(defaulted);
        assertEq(uint8(consumer.lastStatus()), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertEq(consumer.lastNull(), WAD - 2);
        assertEq(consumer.calls(), 5);
    }

    function _failing(TestConsumer.Mode mode) internal returns (uint256 id) {
        consumer.setMode(mode);
        id = _askWith(GAS);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CallbackFailed(id, address(consumer), IVeritasOracle.VerdictStatus.Resolved);
        _post(id, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved), "the verdict stands");
        assertTrue(oracle.isFinal(id));
        assertTrue(oracle.callbackOwed(id));
        // Settlement is not blocked.
        oracle.settle(id);
        assertEq(oracle.credits(operator), ASK_FEE);
    }

    function test_RevertingConsumerCannotBlock() public {
        uint256 id = _failing(TestConsumer.Mode.Revert);
        consumer.setMode(TestConsumer.Mode.Record);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CallbackDelivered(id, address(consumer), IVeritasOracle.VerdictStatus.Resolved);
        vm.prank(bob);
        oracle.retryCallback(id);
        assertFalse(oracle.callbackOwed(id));
        assertEq(consumer.lastYes(), P_YES);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoCallbackOwed.selector, id));
        oracle.retryCallback(id);
    }

    function test_GasBurningConsumerCannotBlock() public {
        uint256 id = _failing(TestConsumer.Mode.BurnAll);
        // A retry that fails again leaves it owed.
        oracle.retryCallback(id);
        assertTrue(oracle.callbackOwed(id));
    }

    function test_HugeReturndataIsNotCopied() public {
        uint256 plain = _askWith(GAS);
        uint256 before = gasleft();
        _post(plain, false);
        uint256 usedPlain = before - gasleft();
        consumer.setMode(TestConsumer.Mode.HugeReturn);
        uint256 id = _askWith(GAS);
        before = gasleft();
        _post(id, false);
        uint256 used = before - gasleft();
        assertEq(consumer.calls(), 2);
        assertFalse(oracle.callbackOwed(id));
        // The consumer pays ~95k to return 200 kB; copying them into the oracle's memory would
        // cost the oracle as much again (expansion) plus ~19k (copy).
        assertLt(used, usedPlain + 110_000);
    }

    function test_ConsumerGetsExactlyItsGas() public {
        uint256 id = _askWith(GAS);
        _post(id, false);
        // gasleft() at the callee's first instruction is the limit minus a few opcodes.
        assertGt(consumer.gasSeen(), GAS - 500);
        assertLe(consumer.gasSeen(), GAS);
    }

    function test_RevertIf_TransactionCannotGiveTheCallbackItsGas() public {
        uint256 id = _askWith(400_000);
        vm.prank(operator);
        vm.expectRevert(); // VeritasCallbackGas: the operator must send more gas
        oracle.submitReport{gas: 300_000}(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked), "nothing happened");
        vm.prank(operator);
        oracle.submitReport{gas: 600_000}(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        assertEq(consumer.calls(), 1);
    }

    function test_ReentrantSettleRetryDisputeWithdraw() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        // settle from within the settle callback: already settled.
        consumer.setMode(TestConsumer.Mode.ReenterSettle);
        uint256 a = _askWith(GAS);
        _post(a, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(a);
        assertTrue(consumer.reentryReverted());
        assertEq(oracle.credits(operator), ASK_FEE, "paid once");

        // retry from within a delivered callback: nothing owed.
        consumer = new TestConsumer{value: 10 ether}(IVeritasOracle(address(oracle)));
        consumer.setMode(TestConsumer.Mode.ReenterRetry);
        uint256 b = _askWith(GAS);
        _post(b, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(b);
        assertTrue(consumer.reentryReverted());
        assertFalse(oracle.callbackOwed(b));

        // dispute from within the Disputed callback: already disputed.
        consumer = new TestConsumer{value: 10 ether}(IVeritasOracle(address(oracle)));
        consumer.setMode(TestConsumer.Mode.ReenterDispute);
        uint256 c = _askWith(GAS);
        _post(c, false);
        vm.deal(bob, 10 ether);
        _dispute(bob, c);
        assertTrue(consumer.reentryReverted());
        assertEq(oracle.getCase(c).disputer, bob);

        // withdraw from within a callback: the consumer has no credit; state is consistent.
        consumer = new TestConsumer{value: 10 ether}(IVeritasOracle(address(oracle)));
        consumer.setMode(TestConsumer.Mode.ReenterWithdraw);
        uint256 d = _askWith(GAS);
        _post(d, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(d);
        assertTrue(consumer.reentryReverted());
        assertEq(address(oracle).balance, oracle.credits(operator) + BOND + oracle.pendingFee(c) + 3 * STAKE);
    }
}
