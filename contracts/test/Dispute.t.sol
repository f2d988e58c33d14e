// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @dev An account whose `receive` always fails.
contract Rejecter {
    function ask(IVeritasOracle oracle, string calldata question, IVeritasOracle.AskRules calldata rules)
        external
        payable
        returns (uint256)
    {
        return oracle.askQuestion{value: msg.value}(question, 0, rules);
    }

    function withdraw(IVeritasOracle oracle) external {
        oracle.withdraw();
    }
}

/// @notice Challenge window, bonds, the court's rulings, fees and pull payments: who is paid what,
/// when, exactly once.
contract DisputeTest is BaseTest {
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.deal(carol, 100 ether);
    }

    function test_DisputeWithinTheWindow() public {
        uint256 id = _askAndPost(false);
        vm.warp(START_TIME + CHALLENGE_WINDOW - 1);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictDisputed(id, carol, BOND, C_YES, C_NO, C_NULL, address(court), 0, carol);
        uint256 disputeId = _dispute(carol, id);
        assertEq(disputeId, 0);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertFalse(oracle.isFinal(id));
        assertEq(oracle.finalAt(id), 0);
        IVeritasOracle.Case memory c = oracle.getCase(id);
        assertEq(c.arbitrator, address(court));
        assertEq(c.disputer, carol);
        assertEq(c.requester, carol);
        assertEq(c.bond, BOND);
        assertEq(c.deadline, block.timestamp + ARBITRATION_WINDOW);
        assertEq(oracle.courtDeadline(id), c.deadline);
        assertEq(c.pYes, C_YES);
        assertEq(c.pNo, C_NO);
        assertEq(c.pNull, C_NULL);
        (uint256 caseId, address disputer) = oracle.caseOf(address(court), 0);
        assertEq(caseId, id);
        assertEq(disputer, carol);
        assertEq(address(court).balance, COURT_COST, "the court was paid exactly its cost");
        assertEq(address(oracle).balance, ASK_FEE + BOND + 3 * STAKE, "fee, bond and the three stakes");
        // The disputed verdict is still readable, and the integrator sees it is not final.
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, P_YES);
    }

    function test_LargerPaymentBondsTheRest() public {
        uint256 id = _askAndPost(false);
        vm.prank(carol);
        oracle.dispute{value: COURT_COST + 3 * BOND}(id, C_YES, C_NO, C_NULL, carol);
        assertEq(oracle.getCase(id).bond, 3 * BOND);
    }

    function test_RevertIf_DisputeAfterTheWindow() public {
        uint256 id = _askAndPost(false);
        uint256 end = START_TIME + CHALLENGE_WINDOW;
        vm.warp(end);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasChallengeWindowClosed.selector, id, end, end));
        _dispute(carol, id);
    }

    function test_RevertIf_DisputeTwice() public {
        uint256 id = _askAndPost(false);
        _dispute(carol, id);
        // Time alone never makes a disputed verdict final, and nobody can settle it.
        assertFalse(oracle.isFinal(id));
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotFinal.selector, id, IVeritasOracle.VerdictStatus.Disputed)
        );
        oracle.settle(id);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, id, IVeritasOracle.VerdictStatus.Disputed
            )
        );
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, bob);
    }

    function test_RevertIf_DisputeNotResolved() public {
        uint256 asked = _ask();
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, asked, IVeritasOracle.VerdictStatus.Asked
            )
        );
        _dispute(carol, asked);
        uint256 escalated = _askAndPost(true);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotDisputable.selector, escalated, IVeritasOracle.VerdictStatus.Escalated
            )
        );
        _dispute(carol, escalated);
    }

    function test_RevertIf_BondShort() public {
        uint256 id = _askAndPost(false);
        uint256 required = COURT_COST + BOND;
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientPayment.selector, required - 1, required)
        );
        vm.prank(carol);
        oracle.dispute{value: required - 1}(id, C_YES, C_NO, C_NULL, carol);
    }

    function test_RevertIf_BondAbove96Bits() public {
        uint256 id = _askAndPost(false);
        uint256 value = COURT_COST + uint256(type(uint96).max) + 1;
        vm.deal(carol, value);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasAmountTooLarge.selector, uint256(type(uint96).max) + 1)
        );
        vm.prank(carol);
        oracle.dispute{value: value}(id, C_YES, C_NO, C_NULL, carol);
    }

    function test_RevertIf_ClaimedTripleInvalidOrSame() public {
        uint256 id = _askAndPost(false);
        vm.startPrank(carol);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasSameTriple.selector, id));
        oracle.dispute{value: COURT_COST + BOND}(id, P_YES, P_NO, P_NULL, carol);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, uint8(2)));
        oracle.dispute{value: COURT_COST + BOND}(id, 0.5e18, 0.5e18, 0, carol);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD + 1));
        oracle.dispute{value: COURT_COST + BOND}(id, 0.5e18, 0.4e18, 0.1e18 + 1, address(this));
        vm.stopPrank();
    }

    function test_ZeroChallengeWindowCannotBeDisputed() public {
        _setParams(_params(1, 0));
        uint256 id = _askAndPost(false);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasChallengeWindowClosed.selector, id, block.timestamp, block.timestamp
            )
        );
        _dispute(carol, id);
    }

    /// @dev Every ruling of a dispute, with who is credited what.
    function _ruleDispute(uint256 ruling) internal returns (uint256 id) {
        id = _askAndPost(false);
        _dispute(carol, id);
        _rule(id, ruling);
    }

    function test_DisputerWinsOnYesNoUnresolvableAndItsTriple() public {
        uint256[4] memory rulings = [uint256(2), 3, 4, 6];
        uint256[3][4] memory triples = [
            [WAD - 2, uint256(1), uint256(1)],
            [uint256(1), WAD - 2, uint256(1)],
            [uint256(1), uint256(1), WAD - 2],
            [C_YES, C_NO, C_NULL]
        ];
        for (uint256 k = 0; k < 4; k++) {
            uint256 before = oracle.credits(carol);
            uint256 id = _ruleDispute(rulings[k]);
            assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
            assertTrue(oracle.isFinal(id));
            (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
            assertEq(pYes, triples[k][0]);
            assertEq(pNo, triples[k][1]);
            assertEq(pNull, triples[k][2]);
            assertEq(oracle.getCase(id).ruling, rulings[k]);
            // Issue #26: NO, NULL and the disputer's (NO-leading) triple also slash the YES
            // reporter's bond, half of it to the disputer.
            uint256 slashedHalf = rulings[k] == 2 ? 0 : BOND / 2;
            assertEq(oracle.credits(carol) - before, BOND + ASK_FEE + slashedHalf, "bond back plus the fee");
        }
        assertEq(oracle.credits(operator), 0, "the corrected reporter earns nothing");
    }

    function test_ReportersWinWhenTheVerdictStands() public {
        uint256 id = _ruleDispute(1);
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, P_YES);
        // Issue #26: half of the losing disputer's bond is burned, the rest goes with the fee to
        // the reporters who agree with the verdict.
        assertEq(oracle.credits(operator), BOND - BOND / 2 + ASK_FEE);
        assertEq(oracle.credits(address(0xdEaD)), BOND / 2);
        assertEq(oracle.credits(carol), 0);
    }

    function test_RefusedRulingDefaults() public {
        uint256 id = _askAndPost(false);
        _dispute(carol, id);
        uint256 disputeId = _giveRuling(id, 0);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictDefaulted(id, 0);
        court.executeRuling(disputeId);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
        assertEq(pYes, 1);
        assertEq(pNo, 1);
        assertEq(pNull, WAD - 2);
        assertEq(oracle.credits(carol), 0, "a default burns the dispute bond (#43)");
        // Issue #26: no reporter is paid for a verdict the court never confirmed.
        assertEq(oracle.credits(operator), 0, "no fee to the reporter");
        assertEq(oracle.credits(alice), ASK_FEE, "the fee back to the asker");
    }

    function test_EscalationGoesToCourtOnRequest() public {
        uint256 id = _askAndPost(true);
        assertEq(oracle.courtDeadline(id), block.timestamp + ARBITRATION_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ArbitrationRequested(id, bob, address(court), 0);
        _request(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Disputed));
        assertEq(oracle.getCase(id).disputer, address(0));
        assertEq(oracle.getCase(id).requester, bob);
        _rule(id, 3);
        (,, uint256 pYes, uint256 pNo,,,) = oracle.getVerdict(id);
        assertEq(pYes, 1);
        assertEq(pNo, WAD - 2);
        // Issue #26: the fee goes to the reporters who agree with the ruling (here none: the
        // reporter led YES), else back to the asker.
        assertEq(oracle.credits(operator), 0, "the reporter disagreed with the ruling");
        assertEq(oracle.credits(alice), ASK_FEE, "the fee back to the asker");
    }

    function test_RevertIf_RequestWrongPaymentOrLate() public {
        uint256 id = _askAndPost(true);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasWrongPayment.selector, 1, COURT_COST));
        vm.prank(bob);
        oracle.requestArbitration{value: 1}(id);
        uint256 deadline = block.timestamp + ARBITRATION_WINDOW;
        vm.warp(deadline);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasCourtDeadlinePassed.selector, id, deadline, deadline)
        );
        vm.prank(bob);
        oracle.requestArbitration{value: COURT_COST}(id);
    }

    function test_RevertIf_EscalationRuledDisputerTriple() public {
        uint256 id = _askAndPost(true);
        uint256 disputeId = _request(id);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtInvalidRuling.selector, 6, 5));
        vm.prank(arbiter);
        court.giveRuling(disputeId, 6);
    }

    function test_AppealMovesTheCaseToTheNextJudge() public {
        uint256 id = _askAndPost(false);
        uint256 disputeId = _dispute(carol, id);
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1);
        assertEq(oracle.courtCost(id), APPEAL_COST);
        vm.warp(block.timestamp + 10);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.AppealFunded(id, carol, APPEAL_COST, uint64(block.timestamp + ARBITRATION_WINDOW));
        vm.prank(carol);
        oracle.appeal{value: APPEAL_COST}(id);
        assertEq(oracle.courtDeadline(id), block.timestamp + ARBITRATION_WINDOW);
        assertEq(court.judgeOf(disputeId), judge2);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtNotJudge.selector, disputeId, arbiter));
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1);
        vm.prank(judge2);
        court.giveRuling(disputeId, 6);
        assertEq(oracle.courtCost(id), type(uint256).max, "no judge left");
        vm.warp(block.timestamp + APPEAL_PERIOD);
        court.executeRuling(disputeId);
        // Issue #43: carol's appeal won, so the slashed report bond refunds it (up to
        // APPEAL_COST) before any burn.
        assertEq(oracle.credits(carol), BOND + ASK_FEE + BOND, "the slashed report bond, unburned, as the refund");
        assertEq(court.fees(arbiter), COURT_COST);
        assertEq(court.fees(judge2), APPEAL_COST);
        vm.prank(judge2);
        assertEq(court.withdraw(), APPEAL_COST);
    }

    function test_SilentCourtDefaults() public {
        uint256 id = _askAndPost(false);
        _dispute(carol, id);
        uint256 deadline = block.timestamp + ARBITRATION_WINDOW;
        vm.warp(deadline - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasCourtDeadlineNotReached.selector, id, deadline, deadline - 1)
        );
        oracle.resolveByDefault(id);
        vm.warp(deadline);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictDefaulted(id, 1);
        vm.prank(bob);
        oracle.resolveByDefault(id);
        assertTrue(oracle.isFinal(id));
        assertEq(oracle.credits(carol), 0, "a default burns the dispute bond (#43)");
        // Issue #26: a default pays no reporter; the fee goes back to the asker.
        assertEq(oracle.credits(operator), 0);
        assertEq(oracle.credits(alice), ASK_FEE);
        // A ruling that comes after the default changes nothing and does not revert.
        uint256 disputeId = oracle.getCase(id).disputeId;
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1);
        vm.warp(block.timestamp + APPEAL_PERIOD);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.LateRulingIgnored(id, address(court), disputeId, 1);
        court.executeRuling(disputeId);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertEq(oracle.credits(operator), 0);
    }

    function test_RulingAfterTheDeadlineDefaults() public {
        uint256 id = _askAndPost(false);
        uint256 disputeId = _dispute(carol, id);
        vm.prank(arbiter);
        court.giveRuling(disputeId, 6);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        court.executeRuling(disputeId);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertEq(oracle.credits(carol), 0, "a default burns the dispute bond (#43)");
    }

    function test_UntakenEscalationDefaults() public {
        uint256 id = _askAndPost(true);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictDefaulted(id, 2);
        oracle.resolveByDefault(id);
        assertEq(oracle.credits(operator), 0);
        assertEq(oracle.credits(alice), ASK_FEE);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotInCourt.selector, id, IVeritasOracle.VerdictStatus.Defaulted
            )
        );
        oracle.resolveByDefault(id);
    }

    function test_RevertIf_RuleFromAStranger() public {
        uint256 id = _askAndPost(false);
        _dispute(carol, id);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownDispute.selector, arbiter, 0));
        vm.prank(arbiter);
        oracle.rule(0, 5);
    }

    function test_SettlePaysTheReportersOnceFinal() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        IVeritasOracle.AskRules memory rules = _rules();
        vm.prank(alice);
        uint256 id = oracle.askQuestion{value: ASK_FEE + 2}(QUESTION, 0, rules); // a surplus of 2 wei
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
        _request(escalated);
        _rule(escalated, 1);
        assertEq(oracle.credits(operator), ASK_FEE, "a ruling pays at once");
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
        uint256 id = rejecter.ask{value: ASK_FEE}(oracle, QUESTION, _rules());
        vm.warp(START_TIME + REPORT_WINDOW);
        oracle.finalize(id);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTransferFailed.selector, address(rejecter), ASK_FEE)
        );
        rejecter.withdraw(oracle);
        assertEq(oracle.credits(address(rejecter)), ASK_FEE, "the credit stays");
    }
}
