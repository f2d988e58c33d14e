// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @notice Issue #24's attacks, each written as the attacker would try it. Every one of them
/// succeeded on v2 (global, mutable arbiter and parameters; no deadline; leading-outcome rulings);
/// the comment of each says how.
contract AttacksTest is BaseTest {
    address internal carol = makeAddr("carol");
    address internal puppet1 = makeAddr("puppet1");
    address internal puppet2 = makeAddr("puppet2");
    VeritasCourt internal ownersCourt;

    function setUp() public override {
        super.setUp();
        _setParams(_params(2, CHALLENGE_WINDOW));
        vm.deal(carol, 100 ether);
        vm.deal(owner, 100 ether);
        address[] memory judges = new address[](1);
        judges[0] = owner;
        ownersCourt = new VeritasCourt(judges, 0, 0, 1);
    }

    /// v2: `setArbiter(owner)` took effect at once on every open question; the owner then
    /// `arbitrate`d its own dispute and collected bond + fee.
    function test_OwnerCannotSwapTheArbitratorMidDispute() public {
        uint256 id = _ask();
        _report(operator, id, N_YES, N_NO, N_NULL, false);
        _report(operator2, id, N_YES, N_NO, N_NULL, false);
        uint256 disputeId = _dispute(owner, id);
        // The owner installs its own court for "later questions"...
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.arbitrator = address(ownersCourt);
        _setParams(p);
        // ...which changes nothing for the open question: its court is still the honest one.
        assertEq(oracle.questionParameters(id).arbitrator, address(court));
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtUnknownDispute.selector, disputeId));
        ownersCourt.giveRuling(disputeId, 6);
        vm.prank(address(ownersCourt));
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasUnknownDispute.selector, address(ownersCourt), disputeId)
        );
        oracle.rule(disputeId, 6);
        _rule(id, 1);
        assertEq(oracle.credits(owner), 0, "the owner lost its bond");
    }

    /// v2: the arbiter could `dispute` any verdict in its window and `arbitrate` it itself.
    function test_RevertIf_ArbitratorDisputes() public {
        uint256 id = _ask();
        _report(operator, id, N_YES, N_NO, N_NULL, false);
        _report(operator2, id, N_YES, N_NO, N_NULL, false);
        vm.deal(address(court), 10 ether);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasArbitratorCannotDispute.selector, id, address(court))
        );
        vm.prank(address(court));
        oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, address(court));
    }

    /// v2: a judge (the arbiter key) could dispute and then rule. Our court refuses a judge who is
    /// a party.
    function test_JudgeWhoDisputedCannotRule() public {
        uint256 id = _ask();
        _report(operator, id, N_YES, N_NO, N_NULL, false);
        _report(operator2, id, N_YES, N_NO, N_NULL, false);
        vm.deal(arbiter, 10 ether);
        uint256 disputeId = _dispute(arbiter, id);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtJudgeIsParty.selector, disputeId, arbiter));
        vm.prank(arbiter);
        court.giveRuling(disputeId, 6);
    }

    /// v2: a question bound to the parameters in force when the ask was *mined*: a front-run
    /// `setParameters` turned quorum 2 with a challenge window into quorum 1 without one.
    function test_RevertIf_SetParametersFrontRunsTheAsk() public {
        IVeritasOracle.AskRules memory rules = _rules(); // what alice saw
        _setParams(_params(1, 0)); // mined first
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasParametersMismatch.selector, rules.parametersId, rules.parametersId + 1
            )
        );
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    /// v2: operator changes applied to open questions: the owner added puppets and reached the
    /// quorum with them.
    function test_PuppetOperatorsCannotReportOnAnOpenQuestion() public {
        uint256 id = _ask();
        vm.startPrank(owner);
        oracle.addOperator(puppet1);
        oracle.addOperator(puppet2);
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotQuestionOperator.selector, id, puppet1));
        _report(puppet1, id, 0, 9, 0, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotQuestionOperator.selector, id, puppet2));
        _report(puppet2, id, 0, 9, 0, false);
        assertFalse(oracle.canReport(id, puppet1));
        assertTrue(oracle.canReport(id, operator));
        // A front-run `addOperator` changes the epoch, so an ask that pinned the old one reverts.
        IVeritasOracle.AskRules memory stale = _rules();
        vm.prank(owner);
        oracle.removeOperator(puppet2);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasEpochMismatch.selector, stale.operatorEpoch, stale.operatorEpoch + 1
            )
        );
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, stale);
    }

    /// v2: removing an honest operator before it reported left the question waiting on the arbiter
    /// key forever. Now it is finalised after its window and goes to its court, or defaults.
    function test_QuestionLeavesAfterAnHonestOperatorIsRemoved() public {
        uint256 id = _ask();
        _report(operator, id, N_YES, N_NO, N_NULL, false);
        vm.startPrank(owner);
        oracle.removeOperator(operator2);
        oracle.removeOperator(operator3);
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, operator2));
        _report(operator2, id, 0, 9, 0, false);
        vm.warp(block.timestamp + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(id);
        assertTrue(oracle.isFinal(id));
        // Issue #26: a default pays no reporter; the fee goes back to the asker.
        assertEq(oracle.credits(alice), ASK_FEE);
    }

    /// v2: `dispute` succeeded with no arbiter set, locking fee and bond for good.
    function test_RevertIf_ChallengeWindowWithoutArbitrator() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = address(0);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidArbitrator.selector, address(0)));
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    /// v2: a silent arbiter locked the question forever.
    function test_SilentArbitratorIsBypassed() public {
        uint256 id = _ask();
        _report(operator, id, N_YES, N_NO, N_NULL, false);
        _report(operator2, id, N_YES, N_NO, N_NULL, false);
        _dispute(carol, id);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        vm.prank(bob);
        oracle.resolveByDefault(id);
        assertTrue(oracle.isFinal(id));
        assertEq(oracle.credits(carol), 0, "a default burns the dispute bond (#43)");
        // Issue #26: a default pays no reporter; the fee goes back to the asker.
        assertEq(oracle.credits(operator) + oracle.credits(operator2), 0);
        assertEq(oracle.credits(alice), ASK_FEE);
    }

    /// v2 judged a dispute on the leading outcome only: correcting 0.94 YES to 0.60 YES (which
    /// flips a 0.9 threshold) kept YES leading, so the disputer lost its bond to the reporter.
    function test_DisputerCorrectingTheProbabilityWins() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 30, 0, 0, false); // 31/33 = 0.939...
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertGt(pYes, 0.93e18);
        uint256 cost = oracle.courtCost(id);
        vm.prank(carol);
        oracle.dispute{value: cost + BOND}(id, 0.6e18, 0.3e18, 0.1e18, carol);
        _rule(id, 6);
        (,, pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, 0.6e18);
        assertEq(oracle.credits(carol), BOND + ASK_FEE);
        assertEq(oracle.credits(operator), 0);
    }

    /// v2 accepted a challenge window with a zero bond: free disputes of every verdict.
    function test_RevertIf_ZeroBondChallengeWindow() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.disputeBond = 0;
        vm.expectRevert(IVeritasOracle.VeritasBondRequired.selector);
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    /// v2 accepted a quorum above the active operators: nothing could ever resolve.
    function test_RevertIf_QuorumAboveActiveOperators() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuorumUnreachable.selector, 4, 3));
        vm.prank(owner);
        oracle.setParameters(_params(4, CHALLENGE_WINDOW), "");
        // Removing operators below the quorum in force makes every ask revert instead.
        vm.startPrank(owner);
        oracle.removeOperator(operator2);
        oracle.removeOperator(operator3);
        vm.stopPrank();
        IVeritasOracle.AskRules memory rules = _rules();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuorumUnreachable.selector, 2, 1));
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
    }

    /// v2 had no cap on fees: an owner could price every ask or dispute out of reach.
    function test_RevertIf_UncappedFees() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.askFee = 1000 ether + 1;
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasFeeTooHigh.selector, uint8(0), 1000 ether + 1, 1000 ether)
        );
        vm.prank(owner);
        oracle.setParameters(p, "");
        p.askFee = ASK_FEE;
        p.disputeBond = 1000 ether + 1;
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasFeeTooHigh.selector, uint8(1), 1000 ether + 1, 1000 ether)
        );
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    /// v2's arbiter could also be an operator. The arbitrator in force cannot be added as one.
    function test_RevertIf_ArbitratorBecomesOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasOperatorIsArbitrator.selector, address(court)));
        vm.prank(owner);
        oracle.addOperator(address(court));
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = address(oracle); // has code, but let's make it an operator first
        vm.prank(owner);
        oracle.addOperator(address(this));
        p.arbitrator = address(this);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidArbitrator.selector, address(this)));
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    /// A reporter of the question may not judge it either.
    function test_ReporterCannotJudge() public {
        address[] memory judges = new address[](1);
        judges[0] = operator;
        VeritasCourt reportersCourt = new VeritasCourt(judges, 0, 0, 1);
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = address(reportersCourt);
        _setParams(p);
        uint256 id = _askAndPost(false);
        vm.prank(carol);
        uint256 disputeId = oracle.dispute{value: BOND}(id, C_YES, C_NO, C_NULL, carol);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtJudgeIsParty.selector, disputeId, operator));
        vm.prank(operator);
        reportersCourt.giveRuling(disputeId, 1);
    }
}
