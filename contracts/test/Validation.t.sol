// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Every input check of `askQuestion`, `submitReport`, `finalize`, `setParameters` and of
/// the disputer's claimed triple, with fuzzed accepted and rejected counts, triples and kappas.
contract ValidationTest is BaseTest {
    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_QuestionEmpty() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasEmptyQuestion.selector));
        oracle.askQuestion("", 0, _rules());
    }

    function test_RevertIf_QuestionTooLong() public {
        uint256 max = oracle.MAX_QUESTION_LENGTH();
        string memory text = string(new bytes(max + 1));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuestionTooLong.selector, max + 1, max));
        oracle.askQuestion(text, 0, _rules());
    }

    function test_QuestionOfMaximumLengthIsAccepted() public {
        assertEq(oracle.MAX_QUESTION_LENGTH(), 2048);
        bytes memory text = new bytes(2048);
        for (uint256 i = 0; i < text.length; i++) {
            text[i] = "a";
        }
        uint256 id = oracle.askQuestion(string(text), 0, _rules());
        assertEq(oracle.getQuestion(id).questionHash, sha256(text));
    }

    function testFuzz_QuestionLength(uint256 length) public {
        length = bound(length, 0, 3000);
        string memory text = string(new bytes(length));
        if (length == 0) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasEmptyQuestion.selector));
        } else if (length > 2048) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasQuestionTooLong.selector, length, 2048));
        }
        oracle.askQuestion(text, 0, _rules());
    }

    function test_RevertIf_GetQuestionUnknown() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 1));
        oracle.getQuestion(1);
    }

    function test_RevertIf_AskFeeUnpaid() public {
        _setParams(_params(1, 0));
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientPayment.selector, ASK_FEE - 1, ASK_FEE)
        );
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE - 1}(QUESTION, 0, _rules());
    }

    /*//////////////////////////////////////////////////////////////
                           REPORT: STATE CHECKS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_ReportUnknownQuestion() public {
        _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 0));
        oracle.submitReport(0, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 2));
        oracle.submitReport(2, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        vm.stopPrank();
    }

    function test_RevertIf_ReportAfterVerdict() public {
        uint256 id = _askAndPost(false);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotOpen.selector, id, IVeritasOracle.VerdictStatus.Resolved)
        );
        _report(operator2, id, 1, 0, 0, false);
    }

    function test_RevertIf_ReportAfterEscalatedVerdict() public {
        uint256 id = _askAndPost(true);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotOpen.selector, id, IVeritasOracle.VerdictStatus.Escalated)
        );
        _post(id, false);
    }

    function test_RevertIf_SameOperatorReportsTwice() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _post(id, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadyReported.selector, id, operator));
        _post(id, false);
    }

    function test_RevertIf_TooEarly() public {
        uint64 resolveAfter = START_TIME + 1 hours;
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, resolveAfter, _rules());
        vm.warp(resolveAfter - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTooEarly.selector, id, resolveAfter, resolveAfter - 1)
        );
        _post(id, false);
    }

    function test_RevertIf_ReportWindowClosed() public {
        uint256 id = _ask();
        uint256 deadline = START_TIME + REPORT_WINDOW;
        vm.warp(deadline);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasReportWindowClosed.selector, id, deadline, deadline)
        );
        _post(id, false);
    }

    function test_RevertIf_FinalizeUnknownOrClosed() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 7));
        oracle.finalize(7);
        uint256 id = _askAndPost(false);
        vm.warp(START_TIME + REPORT_WINDOW);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotOpen.selector, id, IVeritasOracle.VerdictStatus.Resolved)
        );
        oracle.finalize(id);
    }

    function test_RevertIf_FinalizeInsideTheWindow() public {
        uint256 id = _ask();
        vm.warp(START_TIME + REPORT_WINDOW - 1);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasReportWindowOpen.selector,
                id,
                START_TIME + REPORT_WINDOW,
                START_TIME + REPORT_WINDOW - 1
            )
        );
        oracle.finalize(id);
    }

    function test_RevertIf_GetVerdictNotFound() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictNotFound.selector, 1));
        oracle.getVerdict(1);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictNotFound.selector, id));
        oracle.getVerdict(id);
    }

    function test_RevertIf_QuestionParametersUnknown() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 3));
        oracle.questionParameters(3);
    }

    /*//////////////////////////////////////////////////////////////
                          REPORT: VALUE CHECKS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_TooManyBallots() public {
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyBallots.selector, 31, 30));
        _report(operator, id, 10, 11, 10, false);
    }

    /// @dev Issue #26: a report with no valid ballot is refused (v3 pooled it as the uniform
    /// prior, counted it toward the quorum and paid it).
    function test_BallotCapAcceptedEmptyReportRefused() public {
        uint256 a = _ask();
        uint256 b = _ask();
        _report(operator, a, 10, 11, 9, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoValidBallot.selector, b));
        _report(operator, b, 0, 0, 0, true);
    }

    function testFuzz_BallotCap(uint16 y, uint16 n, uint16 u) public {
        uint256 id = _ask();
        uint256 total = uint256(y) + n + u;
        if (total == 0) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoValidBallot.selector, id));
        } else if (total > 30) {
            vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyBallots.selector, total, 30));
        }
        _report(operator, id, y, n, u, false);
    }

    function test_RevertIf_KappaOutOfRange() public {
        uint256 id = _ask();
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, 1e18 + 1));
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, 1e18 + 1, false, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, -1e18 - 1));
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, -1e18 - 1, false, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, type(int256).min));
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, type(int256).min, false, false);
        vm.stopPrank();
    }

    function testFuzz_RevertIf_KappaOutOfRange(int256 kappa) public {
        vm.assume(kappa < -1e18 || kappa > 1e18);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, kappa));
        vm.prank(operator);
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, kappa, false, false);
    }

    function testFuzz_RevertIf_KappaJustOutOfRange(int256 kappa, bool negative) public {
        kappa = negative ? bound(kappa, -2e18, -1e18 - 1) : bound(kappa, 1e18 + 1, 2e18);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasKappaOutOfRange.selector, kappa));
        vm.prank(operator);
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, kappa, false, false);
    }

    /// @dev A Resolved verdict in its challenge window, before the fixture's court.
    function _disputable() internal returns (uint256 id) {
        if (oracle.parameters().challengeWindow == 0) _setParams(_params(1, CHALLENGE_WINDOW));
        id = _askAndPost(false);
    }

    /*//////////////////////////////////////////////////////////////
                           DISPUTER'S TRIPLE
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_ZeroProbability() public {
        uint256 id = _disputable();
        vm.startPrank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, 0));
        oracle.dispute{value: COURT_COST + BOND}(id, 0, 0.5e18, 0.5e18, bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, 1));
        oracle.dispute{value: COURT_COST + BOND}(id, 0.5e18, 0, 0.5e18, bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, 2));
        oracle.dispute{value: COURT_COST + BOND}(id, 0.5e18, 0.5e18, 0, address(this));
        vm.stopPrank();
    }

    function test_RevertIf_ProbabilitySumOffByOne() public {
        uint256 id = _disputable();
        vm.startPrank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD - 1));
        oracle.dispute{value: COURT_COST + BOND}(id, P_YES, P_NO, P_NULL - 1, bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD + 1));
        oracle.dispute{value: COURT_COST + BOND}(id, P_YES, P_NO, P_NULL + 1, bob);
        vm.stopPrank();
    }

    function test_RevertIf_ProbabilitySumOverflows() public {
        uint256 id = _disputable();
        vm.startPrank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, type(uint256).max));
        oracle.dispute{value: COURT_COST + BOND}(id, type(uint256).max, 1, 1, bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, type(uint256).max));
        oracle.dispute{value: COURT_COST + BOND}(id, 1, 1, type(uint256).max, bob);
        vm.stopPrank();
    }

    function testFuzz_AcceptsEveryValidTriple(uint256 a, uint256 b) public {
        (uint256 pYes, uint256 pNo, uint256 pNull) = _validTriple(a, b);
        vm.assume(pYes != P_YES || pNo != P_NO);
        uint256 id = _disputable();
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, pYes, pNo, pNull, bob);
        _rule(id, 6);
        (,, uint256 rYes, uint256 rNo, uint256 rNull,,) = oracle.getVerdict(id);
        assertEq(rYes, pYes);
        assertEq(rNo, pNo);
        assertEq(rNull, pNull);
    }

    function testFuzz_RevertIf_SumIsNotWad(uint256 pYes, uint256 pNo, uint256 pNull) public {
        pYes = bound(pYes, 1, 3 * WAD);
        pNo = bound(pNo, 1, 3 * WAD);
        pNull = bound(pNull, 1, 3 * WAD);
        uint256 sum = pYes + pNo + pNull;
        vm.assume(sum != WAD);
        uint256 id = _disputable();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, sum));
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, pYes, pNo, pNull, bob);
    }

    function testFuzz_RevertIf_AnyProbabilityIsZero(uint256 a, uint256 b, uint8 which) public {
        which = uint8(bound(which, 0, 2));
        a = bound(a, 1, WAD);
        b = WAD - a;
        uint256[3] memory p;
        p[which] = 0;
        p[(which + 1) % 3] = a;
        p[(which + 2) % 3] = b;
        uint256 id = _disputable();
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, _firstZero(p[0], p[1], p[2]))
        );
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, p[0], p[1], p[2], bob);
    }

    /*//////////////////////////////////////////////////////////////
                              PARAMETERS
    //////////////////////////////////////////////////////////////*/

    function test_RevertIf_InvalidQuorum() public {
        IVeritasOracle.Parameters memory p = _params(0, 0);
        vm.startPrank(owner);
        for (uint256 i = 0; i < 4; i++) {
            oracle.addOperator(address(uint160(0x6000 + i)));
        }
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidQuorum.selector, 0));
        oracle.setParameters(p, "");
        p.quorum = uint8(oracle.MAX_QUORUM() + 1);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidQuorum.selector, p.quorum));
        oracle.setParameters(p, "");
        p.quorum = uint8(oracle.MAX_QUORUM());
        oracle.setParameters(p, "");
        vm.stopPrank();
    }

    function test_RevertIf_InvalidBallotCap() public {
        IVeritasOracle.Parameters memory p = _params(1, 0);
        p.maxBallotsPerReport = 0;
        vm.startPrank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidBallotCap.selector, 0));
        oracle.setParameters(p, "");
        p.maxBallotsPerReport = uint16(oracle.MAX_BALLOTS_PER_REPORT() + 1);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidBallotCap.selector, p.maxBallotsPerReport));
        oracle.setParameters(p, "");
        vm.stopPrank();
    }

    function test_RevertIf_WindowsTooShort() public {
        IVeritasOracle.Parameters memory p = _params(1, 0);
        p.reportWindow = 29;
        vm.startPrank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasWindowTooShort.selector, 0, 29, 30));
        oracle.setParameters(p, "");
        p.reportWindow = 30;
        p.challengeWindow = 59;
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasWindowTooShort.selector, 1, 59, 60));
        oracle.setParameters(p, "");
        p.challengeWindow = 60;
        p.arbitrationWindow = 1 hours - 1;
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasWindowTooShort.selector, 2, 1 hours - 1, 1 hours));
        oracle.setParameters(p, "");
        p.arbitrationWindow = 1 hours;
        oracle.setParameters(p, "");
        vm.stopPrank();
    }

    function test_RevertIf_ArbitratorWithoutCode() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = bob;
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidArbitrator.selector, bob));
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    function test_RevertIf_EvidenceFeeTooHigh() public {
        IVeritasOracle.Parameters memory p = _params(1, 0);
        p.evidenceFee = 1000 ether + 1;
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasFeeTooHigh.selector, uint8(2), 1000 ether + 1, 1000 ether)
        );
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    function test_RevertIf_ParametersExhausted() public {
        // Header slot 0, bits [55..40]: the parameter set in force. Jump it to the last id.
        bytes32 header = vm.load(address(oracle), bytes32(0));
        vm.store(address(oracle), bytes32(0), header | bytes32(uint256(type(uint16).max) << 40));
        IVeritasOracle.Parameters memory p = _params(1, 0);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasParametersExhausted.selector));
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    function test_MaximalQuorumAndCapsPool() public {
        // MAX_QUORUM reports of MAX_BALLOTS_PER_REPORT ballots each still fit the 16-bit counts.
        IVeritasOracle.Parameters memory p = _params(uint8(oracle.MAX_QUORUM()), 0);
        p.maxBallotsPerReport = uint16(oracle.MAX_BALLOTS_PER_REPORT());
        for (uint256 i = 0; i < p.quorum; i++) {
            vm.prank(owner);
            oracle.addOperator(address(uint160(0x5000 + i)));
        }
        _setParams(p);
        uint256 id = _ask();
        uint16 cap = p.maxBallotsPerReport;
        for (uint256 i = 0; i < p.quorum; i++) {
            _report(address(uint160(0x5000 + i)), id, i == 0 ? cap : 0, i == 0 ? 0 : cap, 0, false);
        }
        (uint256 reports, uint256 y, uint256 n,) = oracle.tally(id);
        assertEq(reports, p.quorum);
        assertEq(y, cap);
        assertEq(n, uint256(cap) * (p.quorum - 1));
        // Issue #26: one dissenting report out of seven does not escalate.
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    /// @dev The outcome index the contract reports: the first zero in (YES, NO, NULL) order.
    function _firstZero(uint256 pYes, uint256 pNo, uint256) private pure returns (uint8) {
        if (pYes == 0) return 0;
        if (pNo == 0) return 1;
        return 2;
    }
}
