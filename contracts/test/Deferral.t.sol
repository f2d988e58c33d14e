// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Issue #42: "not yet" defers a question instead of settling it (by a majority of the
/// quorum's reports, or by the court's `RULING_TOO_EARLY`), a bounded number of times and never
/// past the horizon; and the asker's clarifications, open only before the first report or commit.
contract DeferralTest is BaseTest {
    uint256 internal constant TOO_EARLY = 5;
    uint256 internal constant DISPUTER_TRIPLE = 6;

    /// @dev `who` reports (nYes, nNo, nNull) on `id`, saying "not yet" when `notYet`.
    function _reportNotYet(address who, uint256 id, uint16 nYes, uint16 nNo, uint16 nNull, bool notYet) internal {
        bytes32 root = _rootOf(who);
        vm.prank(who);
        oracle.submitReport(id, root, nYes, nNo, nNull, KAPPA, false, notYet);
    }

    function _locked(address who) internal view returns (uint256 locked, uint256 open) {
        (, locked, open) = oracle.operatorStake(who);
    }

    function _deferrals(uint256 id) internal view returns (uint256 count, uint256 opensAt) {
        return oracle.deferral(id);
    }

    /*//////////////////////////////////////////////////////////////
                          DEFERRAL BY THE REPORTS
    //////////////////////////////////////////////////////////////*/

    function test_ANotYetReportDefersThenTheNextRoundResolves() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        uint256 pending = oracle.pendingFee(id);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportNotYet(id, operator);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionDeferred(id, block.timestamp + 1 hours, 1);
        _reportNotYet(operator, id, 0, 3, 4, true);

        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked), "still open");
        (uint256 count, uint256 opensAt) = _deferrals(id);
        assertEq(count, 1);
        assertEq(opensAt, block.timestamp + 1 hours);
        (uint256 reports,,,) = oracle.tally(id);
        assertEq(reports, 0, "the tally is empty again");
        (uint256 locked, uint256 open) = _locked(operator);
        assertEq(locked, 0, "the round's bond is released");
        assertEq(open, 0);
        assertEq(oracle.pendingFee(id), pending, "the fee stays with the question");
        assertFalse(oracle.hasReported(id, operator), "the operator reports again next round");

        // Not before the next round opens.
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTooEarly.selector, id, uint64(opensAt), block.timestamp)
        );
        _reportNotYet(operator, id, 3, 0, 0, false);

        vm.warp(opensAt);
        _reportNotYet(operator, id, 6, 1, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(oracle.credits(operator), ASK_FEE, "the fee is paid at the end as usual");
    }

    function test_EvidenceStaysOpenAcrossADeferral() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _reportNotYet(operator, id, 0, 0, 5, true);
        uint256 fee = oracle.nextEvidenceFee(id);
        vm.prank(bob);
        oracle.submitEvidence{value: fee}(id, "https://example.org/ferry", "Ferry resumes", "Service resumed today.");
        assertEq(oracle.evidenceCount(id), 1);
    }

    function test_AMajorityOfNotYetDefersAndReleasesEveryBond() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _reportNotYet(operator, id, 4, 0, 0, false);
        _reportNotYet(operator2, id, 0, 2, 3, true);
        (uint256 locked,) = _locked(operator);
        assertEq(locked, BOND, "locked while the round is open");
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionDeferred(id, block.timestamp + 1 hours, 1);
        _reportNotYet(operator3, id, 0, 4, 1, true);
        address[3] memory ops = [operator, operator2, operator3];
        for (uint256 i = 0; i < 3; i++) {
            (uint256 l, uint256 open) = _locked(ops[i]);
            assertEq(l + open, 0, "every bond of the round is released");
            assertEq(_staked(ops[i]), STAKE, "nobody is slashed by a deferral");
        }
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
    }

    function test_ANotYetMinorityIsADissenterNotADeferral() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _reportNotYet(operator, id, 5, 0, 0, false);
        _reportNotYet(operator2, id, 0, 1, 4, true);
        _reportNotYet(operator3, id, 6, 1, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved), "two of three answered");
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(oracle.credits(operator2), 0, "a not-yet report never leads with the verdict's outcome");
        assertEq(oracle.credits(operator) + oracle.credits(operator3), ASK_FEE);
    }

    function test_HalfNotYetIsNoMajority() public {
        // Quorum 2: one "not yet" and one YES neither defer nor settle quietly: the dissent
        // escalates.
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _reportNotYet(operator, id, 5, 0, 0, false);
        _reportNotYet(operator2, id, 0, 0, 5, true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (uint256 count,) = _deferrals(id);
        assertEq(count, 0);
    }

    function test_TheBackoffGrowsAndTheLoopEndsInEscalationAtTheBound() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        uint256 maxDeferrals = oracle.MAX_DEFERRALS();
        assertEq(maxDeferrals, 7);
        uint256[7] memory delays = [uint256(1 hours), 6 hours, 1 days, 3 days, 7 days, 14 days, 30 days];
        for (uint256 k = 0; k < maxDeferrals; k++) {
            assertEq(oracle.deferralDelay(k), delays[k]);
            _reportNotYet(operator, id, 0, 0, 3, true);
            (uint256 count, uint256 opensAt) = _deferrals(id);
            assertEq(count, k + 1);
            assertEq(opensAt, block.timestamp + delays[k], "the backoff of this deferral");
            vm.warp(opensAt);
        }
        assertEq(oracle.deferralDelay(maxDeferrals), 0);
        // The eighth "not yet" escalates, with the deferral bound as its reason (bit 4).
        vm.recordLogs();
        _reportNotYet(operator, id, 0, 0, 3, true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        // Bit 4: the deferrals ran out (and bit 1: the only report does not lead with the pooled
        // outcome, as every "not yet" report).
        assertEq(_reasonsPosted(), 16 | 2, "escalated because the deferrals ran out");
        (uint256 countAfter,) = _deferrals(id);
        assertEq(countAfter, maxDeferrals);
    }

    function test_ADeferralNeverReachesPastTheHorizon() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.prank(owner);
        oracle.setMaxHorizon(1 days);
        uint256 askedAt = block.timestamp;
        uint256 id = _askAt(uint64(askedAt + 20 hours));
        vm.warp(askedAt + 20 hours);
        _reportNotYet(operator, id, 0, 0, 3, true); // + 1 h: 21 h after the ask
        (, uint256 opensAt) = _deferrals(id);
        assertEq(opensAt, askedAt + 21 hours);
        vm.warp(opensAt);
        _reportNotYet(operator, id, 0, 0, 3, true); // + 6 h, clamped to the horizon
        (, opensAt) = _deferrals(id);
        assertEq(opensAt, askedAt + 1 days, "clamped to the ask plus the horizon");
        vm.warp(opensAt);
        // The horizon has come: no later round can open, so "not yet" escalates.
        vm.recordLogs();
        _reportNotYet(operator, id, 0, 0, 3, true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        assertEq(_reasonsPosted(), 16 | 2);
    }

    function test_ABatchReportCanDefer() public {
        uint256 id = _ask();
        IVeritasOracle.Report[] memory reports = new IVeritasOracle.Report[](1);
        reports[0] = IVeritasOracle.Report(id, ROOT, 0, 1, 2, KAPPA, false, true);
        vm.prank(operator);
        assertEq(oracle.submitReports(reports), 1);
        (uint256 count,) = _deferrals(id);
        assertEq(count, 1);
        (uint256 locked, uint256 open) = _locked(operator);
        assertEq(locked + open, 0);
    }

    function test_ACommitRevealRoundDefersAndStartsAfresh() public {
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _ask();
        bytes32 salt1 = keccak256("salt1");
        bytes32 salt2 = keccak256("salt2");
        _commitNotYet(operator, id, salt1);
        _commitNotYet(operator2, id, salt2);
        vm.prank(operator);
        oracle.revealReport(id, _rootOf(operator), 0, 1, 4, KAPPA, false, true, salt1);
        vm.prank(operator2);
        oracle.revealReport(id, _rootOf(operator2), 0, 2, 3, KAPPA, false, true, salt2);
        (uint256 count, uint256 opensAt) = _deferrals(id);
        assertEq(count, 1);
        (, uint256 deadline, uint256 commits) = oracle.commitPhase(id);
        assertEq(commits, 0, "the commit round is cleared");
        assertEq(deadline, opensAt + REPORT_WINDOW);
        for (uint256 i = 0; i < 2; i++) {
            (uint256 locked, uint256 open) = _locked([operator, operator2][i]);
            assertEq(locked + open, 0);
        }
        // The same operators commit again in the next round.
        vm.warp(opensAt);
        _commitNotYet(operator, id, keccak256("salt3"));
        assertTrue(oracle.commitmentOf(id, operator) != 0);
    }

    function _commitNotYet(address who, uint256 id, bytes32 salt) internal {
        uint16 no = who == operator ? 1 : 2;
        bytes32 c = oracle.reportCommitment(id, who, _rootOf(who), 0, no, 5 - no, KAPPA, false, true, salt);
        vm.prank(who);
        oracle.commitReport(id, c);
    }

    /// @dev The escalation reasons of the `VerdictPosted` among the recorded logs.
    function _reasonsPosted() internal returns (uint8 reasons) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bytes32 topic = IVeritasOracle.VerdictPosted.selector;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].topics[0] != topic) continue;
            (,,,,, bool escalated, uint8 r) =
                abi.decode(logs[i].data, (bytes32, uint256, uint256, uint256, int256, bool, uint8));
            assertTrue(escalated);
            return r;
        }
        revert("no VerdictPosted");
    }

    /*//////////////////////////////////////////////////////////////
                        DEFERRAL BY THE COURT
    //////////////////////////////////////////////////////////////*/

    function test_TheCourtRulesADisputeTooEarly() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _reportNotYet(operator, id, 0, 6, 1, false); // NO, before its time
        uint256 caseId = _dispute(bob, id);
        uint256 bobBefore = oracle.credits(bob);
        _giveRuling(id, TOO_EARLY);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionDeferred(id, block.timestamp + 1 hours, 1);
        court.executeRuling(caseId);

        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked), "deferred, not ended");
        assertFalse(oracle.isFinal(id));
        // The reporter that settled too early is slashed; the disputer gets its bond back and the
        // unburned half of the slash; the fee waits for the question's end.
        assertEq(_staked(operator), STAKE - BOND);
        assertEq(oracle.credits(bob) - bobBefore, BOND + BOND / 2);
        assertEq(oracle.pendingFee(id), ASK_FEE);
        assertEq(oracle.getCase(id).requester, address(0), "the case is closed");
        (uint256 caseQuestion,) = oracle.caseOf(address(court), caseId);
        assertEq(caseQuestion, 0, "its dispute id no longer maps to the question");

        // The next round can be disputed again, as a new case.
        (, uint256 opensAt) = _deferrals(id);
        vm.warp(opensAt);
        _reportNotYet(operator2, id, 0, 6, 1, false);
        uint256 second = _dispute(bob, id);
        assertTrue(second != caseId);
        _rule(id, 3); // NO, now
        assertTrue(oracle.isFinal(id));
    }

    function test_TheCourtRulesAnEscalationTooEarly() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        // Quorum 1, the report asks for the court.
        uint256 id2 = _ask();
        _report(operator2, id2, 0, 0, 7, true);
        _request(id2);
        uint256 bobBefore = oracle.credits(bob);
        _rule(id2, TOO_EARLY);
        assertEq(uint8(_status(id2)), uint8(IVeritasOracle.VerdictStatus.Asked));
        assertEq(_staked(operator2), STAKE - BOND, "escalating is no slash-free path");
        assertEq(oracle.credits(bob) - bobBefore, BOND / 2, "who paid the court gets the unburned half");
    }

    function test_TooEarlyAtTheBoundEndsUnresolvable() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        for (uint256 k = 0; k < 7; k++) {
            _reportNotYet(operator, id, 0, 0, 3, true);
            (, uint256 opensAt) = _deferrals(id);
            vm.warp(opensAt);
        }
        _reportNotYet(operator, id, 0, 6, 1, false);
        _dispute(bob, id);
        _rule(id, TOO_EARLY);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
        assertEq(oracle.getCase(id).ruling, 4, "counted as unresolvable");
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
        assertEq(pYes + pNo, 2);
        assertEq(pNull, WAD - 2);
    }

    function test_RulingNumbers() public view {
        assertEq(oracle.RULING_TOO_EARLY(), TOO_EARLY);
        assertEq(oracle.RULING_DISPUTER_TRIPLE(), DISPUTER_TRIPLE);
        assertEq(oracle.DISPUTE_CHOICES(), 6);
        assertEq(oracle.ESCALATION_CHOICES(), 5);
    }

    /*//////////////////////////////////////////////////////////////
                             CLARIFICATIONS
    //////////////////////////////////////////////////////////////*/

    function test_TheAskerClarifiesBeforeTheFirstReport() public {
        uint256 id = _ask();
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionClarified(id, 1, "Open means the summit is open.");
        vm.prank(alice);
        oracle.clarify(id, "Open means the summit is open.");
        vm.prank(alice);
        oracle.clarify(id, "Times are Paris time.");
        assertEq(oracle.clarificationCount(id), 2);
    }

    function test_RevertIf_SomeoneElseClarifies() public {
        uint256 id = _ask();
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotAsker.selector, id, bob));
        oracle.clarify(id, "I meant NO.");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 99));
        oracle.clarify(99, "x");
    }

    function test_RevertIf_ClarifiedAfterTheFirstReport() public {
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 1, 0, 0, false);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationClosed.selector, id));
        oracle.clarify(id, "Too late.");
    }

    function test_RevertIf_ClarifiedAfterTheFirstCommit() public {
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _ask();
        _commitNotYet(operator, id, keccak256("s"));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationClosed.selector, id));
        oracle.clarify(id, "Too late.");
    }

    function test_RevertIf_ClarifiedAfterADeferralOrAVerdict() public {
        uint256 id = _ask();
        _reportNotYet(operator, id, 0, 0, 3, true);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationClosed.selector, id));
        oracle.clarify(id, "The jurors of the first round never saw this.");
        uint256 id2 = _askAndPost(false);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationClosed.selector, id2));
        oracle.clarify(id2, "x");
    }

    function test_RevertIf_AClarificationIsEmptyOrTooLong() public {
        uint256 id = _ask();
        uint256 max = oracle.MAX_CLARIFICATION_LENGTH();
        assertEq(max, 1024);
        vm.startPrank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationLength.selector, 0, max));
        oracle.clarify(id, "");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasClarificationLength.selector, 10_240, max));
        oracle.clarify(id, string(new bytes(10_240)));
        oracle.clarify(id, string(new bytes(max)));
        vm.stopPrank();
    }

    function test_RevertIf_TooManyClarifications() public {
        uint256 id = _ask();
        uint256 max = oracle.MAX_CLARIFICATIONS();
        vm.startPrank(alice);
        for (uint256 i = 0; i < max; i++) {
            oracle.clarify(id, "again");
        }
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyClarifications.selector, id, max));
        oracle.clarify(id, "once more");
        vm.stopPrank();
    }

    function testFuzz_AClarificationOfAnyLengthUpToTheCapIsKept(uint256 length) public {
        length = bound(length, 1, 1024);
        uint256 id = _ask();
        vm.prank(alice);
        oracle.clarify(id, string(new bytes(length)));
        assertEq(oracle.clarificationCount(id), 1);
    }
}
