// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @dev An account whose `receive` always fails.
contract Rejecter {
    function ask(IVeritasOracle oracle, string calldata question) external payable returns (uint256) {
        return oracle.askQuestion{value: msg.value}(question, 0);
    }

    function withdraw(IVeritasOracle oracle) external {
        oracle.withdraw();
    }
}

/// @notice Challenge window, bonds, fees and pull payments: who is paid what, when, exactly once.
contract DisputeTest is BaseTest {
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.deal(carol, 100 ether);
    }

    function _dispute(uint256 id) internal {
        vm.prank(carol);
        oracle.dispute{value: BOND}(id);
    }

    function test_DisputeWithinTheWindow() public {
        uint256 id = _askAndPost(false);
        vm.warp(START_TIME + CHALLENGE_WINDOW - 1);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictDisputed(id, carol, BOND);
        _dispute(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertFalse(oracle.isFinal(id));
        assertEq(oracle.finalAt(id), 0);
        (address disputer, uint256 bond) = oracle.getDispute(id);
        assertEq(disputer, carol);
        assertEq(bond, BOND);
        // The disputed verdict is still readable, and the integrator sees it is not final.
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, P_YES);
    }

    function test_RevertIf_DisputeAfterTheWindow() public {
        uint256 id = _askAndPost(false);
        uint256 end = START_TIME + CHALLENGE_WINDOW;
        vm.warp(end);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasChallengeWindowClosed.selector, id, end, end));
        _dispute(id);
    }

    function test_RevertIf_DisputeTwice() public {
        uint256 id = _askAndPost(false);
        _dispute(id);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, id, IVeritasOracle.VerdictStatus.Disputed
            )
        );
        vm.prank(bob);
        oracle.dispute{value: BOND}(id);
    }

    function test_RevertIf_DisputeNotResolved() public {
        uint256 asked = _ask();
        uint256 escalated = _askAndPost(true);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, asked, IVeritasOracle.VerdictStatus.Asked
            )
        );
        _dispute(asked);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, escalated, IVeritasOracle.VerdictStatus.Escalated
            )
        );
        _dispute(escalated);
    }

    function test_RevertIf_BondShort() public {
        uint256 id = _askAndPost(false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientPayment.selector, BOND - 1, BOND));
        vm.prank(carol);
        oracle.dispute{value: BOND - 1}(id);
    }

    function test_RevertIf_BondAbove96Bits() public {
        uint256 id = _askAndPost(false);
        uint256 huge = uint256(type(uint96).max) + 1;
        vm.deal(carol, huge);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAmountTooLarge.selector, huge));
        vm.prank(carol);
        oracle.dispute{value: huge}(id);
    }

    function test_ZeroChallengeWindowCannotBeDisputed() public {
        _setParams(_params(1, 0));
        uint256 id = _askAndPost(false);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasChallengeWindowClosed.selector, id, START_TIME, START_TIME)
        );
        _dispute(id);
    }

    function test_DisputerWinsWhenTheArbiterOverturns() public {
        uint256 id = _askAndPost(false); // leads YES
        _dispute(id);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.1e18, 0.8e18, 0.1e18); // leads NO
        assertEq(oracle.credits(carol), BOND + ASK_FEE);
        assertEq(oracle.credits(operator), 0);
        assertEq(oracle.pendingFee(id), 0);
        assertTrue(oracle.isFinal(id));
        assertEq(address(oracle).balance, BOND + ASK_FEE);
        vm.prank(carol);
        assertEq(oracle.withdraw(), BOND + ASK_FEE);
        assertEq(address(oracle).balance, 0);
    }

    function test_ReportersWinWhenTheArbiterUpholds() public {
        uint256 id = _askAndPost(false);
        _dispute(id);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.5e18, 0.3e18, 0.2e18); // still leads YES
        assertEq(oracle.credits(carol), 0);
        assertEq(oracle.credits(operator), BOND + ASK_FEE);
    }

    function test_OnlyTheArbiterChangesADisputedVerdict() public {
        uint256 id = _askAndPost(false);
        _dispute(id);
        vm.warp(START_TIME + 30 days);
        // Time alone never makes a disputed verdict final, and nobody can settle it.
        assertFalse(oracle.isFinal(id));
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotFinal.selector, id, IVeritasOracle.VerdictStatus.Disputed)
        );
        oracle.settle(id);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotArbiter.selector, operator));
        vm.prank(operator);
        oracle.arbitrate(id, 0.1e18, 0.8e18, 0.1e18);
    }

    function test_SettlePaysTheReportersOnceFinal() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        vm.prank(alice);
        uint256 id = oracle.askQuestion{value: ASK_FEE + 2}(QUESTION, 0); // a surplus of 2 wei
        _report(operator, id, 5, 0, 0, false);
        _report(operator2, id, 5, 1, 0, false);
        _report(operator3, id, 4, 0, 1, false);
        uint256 fee = ASK_FEE + 2;
        assertEq(oracle.pendingFee(id), fee);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotFinal.selector, id, IVeritasOracle.VerdictStatus.Resolved)
        );
        oracle.settle(id);

        vm.warp(START_TIME + CHALLENGE_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.Credited(operator, id, fee / 3 + fee % 3);
        oracle.settle(id);
        assertEq(oracle.credits(operator), fee / 3 + fee % 3, "the first reporter takes the rest");
        assertEq(oracle.credits(operator2), fee / 3);
        assertEq(oracle.credits(operator3), fee / 3);
        assertEq(oracle.pendingFee(id), 0);

        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadySettled.selector, id));
        oracle.settle(id);
    }

    function test_RevertIf_SettleArbitratedOrExpired() public {
        uint256 escalated = _askAndPost(true);
        vm.prank(arbiter);
        oracle.arbitrate(escalated, P_YES, P_NO, P_NULL);
        assertEq(oracle.credits(operator), ASK_FEE, "arbitration pays at once");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadySettled.selector, escalated));
        oracle.settle(escalated);

        uint256 expired = _ask();
        vm.warp(block.timestamp + REPORT_WINDOW);
        oracle.finalize(expired);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadySettled.selector, expired));
        oracle.settle(expired);
    }

    function test_RevertIf_NothingToWithdraw() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNothingToWithdraw.selector, bob));
        vm.prank(bob);
        oracle.withdraw();
    }

    function test_WithdrawPaysOnce() public {
        uint256 id = _askAndPost(false);
        vm.warp(START_TIME + CHALLENGE_WINDOW);
        oracle.settle(id);
        uint256 before = operator.balance;
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.Withdrawn(operator, ASK_FEE);
        vm.prank(operator);
        assertEq(oracle.withdraw(), ASK_FEE);
        assertEq(operator.balance, before + ASK_FEE);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNothingToWithdraw.selector, operator));
        vm.prank(operator);
        oracle.withdraw();
    }

    function test_RevertIf_TransferFails() public {
        Rejecter rejecter = new Rejecter();
        vm.deal(address(rejecter), 1 ether);
        uint256 id = rejecter.ask{value: ASK_FEE}(oracle, QUESTION);
        vm.warp(START_TIME + REPORT_WINDOW);
        oracle.finalize(id);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTransferFailed.selector, address(rejecter), ASK_FEE)
        );
        rejecter.withdraw(oracle);
        assertEq(oracle.credits(address(rejecter)), ASK_FEE, "the credit stays");
    }
}
