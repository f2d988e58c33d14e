// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {Shipped} from "../../script/Shipped.sol";

/// @dev `harness/ClockedOracle.sol` (compiled via-IR like the oracle it extends), seen through
/// the oracle's interface plus its clock.
interface IClockedOracle is IVeritasOracle {
    function setClock(uint256 t) external;
}

/// @notice Ask, report, pool, finalise, read: the happy paths and the status machine.
contract LifecycleTest is BaseTest {
    function test_AskAssignsSequentialIdsFromOne() public {
        assertEq(oracle.questionCount(), 0);
        assertEq(_ask(), 1);
        assertEq(_ask(), 2);
        assertEq(_ask(), 3);
        assertEq(oracle.questionCount(), 3);
    }

    function test_AskStoresQuestionRecord() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, START_TIME + 1 days, _rules());
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        assertEq(q.questionHash, sha256(bytes(QUESTION)));
        assertEq(q.asker, alice);
        assertEq(q.askedAt, START_TIME);
        assertEq(q.resolveAfter, START_TIME + 1 days);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
    }

    function test_QuestionHashIsSha256OfUtf8Text() public {
        string memory text = unicode"Le pont d'Avignon sera-t-il rouvert en 2027 ? ✓";
        vm.prank(alice);
        uint256 id = oracle.askQuestion(text, 0, _rules());
        assertEq(oracle.getQuestion(id).questionHash, sha256(bytes(text)));
    }

    /// @dev Issue #26: a `resolveAfter` beyond the horizon (one year by default) is refused; v3
    /// saturated 2^64 - 1 to 2^40 - 1 and kept evidence open (and fees locked) for millennia.
    function test_RevertIf_ResolveAfterBeyondTheHorizon() public {
        IVeritasOracle.AskRules memory rules = _rules();
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasTooFarAhead.selector, type(uint64).max, block.timestamp + 365 days
            )
        );
        oracle.askQuestion(QUESTION, type(uint64).max, rules);
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, uint64(block.timestamp + 365 days), rules);
        assertEq(oracle.getQuestion(id).resolveAfter, block.timestamp + 365 days);
    }

    function test_PostVerdictStoresEverything() public {
        uint256 id = _ask();
        vm.warp(START_TIME + 100);
        _post(id, false);

        (
            bytes32 questionHash,
            bytes32 merkleRoot,
            uint256 pYes,
            uint256 pNo,
            uint256 pNull,
            int256 fleissKappa,
            uint256 timestamp
        ) = oracle.getVerdict(id);
        assertEq(questionHash, sha256(bytes(QUESTION)));
        assertEq(merkleRoot, ROOT);
        assertEq(pYes, P_YES);
        assertEq(pNo, P_NO);
        assertEq(pNull, P_NULL);
        assertEq(fleissKappa, KAPPA);
        assertEq(timestamp, START_TIME + 100);
        assertEq(oracle.verdictCount(), 1);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_GetVerdictReturnsTheSeedsSevenWords() public {
        uint256 id = _askAndPost(false);
        // Integrators of the seed decode exactly seven static words from this selector.
        assertEq(IVeritasOracle.getVerdict.selector, bytes4(keccak256("getVerdict(uint256)")));
        (bool ok, bytes memory ret) = address(oracle).staticcall(abi.encodeWithSignature("getVerdict(uint256)", id));
        assertTrue(ok);
        assertEq(ret.length, 7 * 32);
        (bytes32 questionHash,,,,, int256 fleissKappa,) =
            abi.decode(ret, (bytes32, bytes32, uint256, uint256, uint256, int256, uint256));
        assertEq(questionHash, sha256(bytes(QUESTION)));
        assertEq(fleissKappa, KAPPA);
    }

    function test_EscalatedVerdictIsReadable() public {
        uint256 id = _askAndPost(true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (,, uint256 pYes,,,,) = oracle.getVerdict(id);
        assertEq(pYes, P_YES);
    }

    function test_PostAtExactlyResolveAfter() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, START_TIME + 1 hours, _rules());
        vm.warp(START_TIME + 1 hours);
        _post(id, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_KappaBoundsAreAccepted() public {
        uint256 a = _ask();
        uint256 b = _ask();
        vm.startPrank(operator);
        oracle.submitReport(a, ROOT, N_YES, N_NO, N_NULL, 1e18, false, false);
        oracle.submitReport(b, ROOT, N_YES, N_NO, N_NULL, -1e18, false, false);
        vm.stopPrank();
        (,,,,, int256 ka,) = oracle.getVerdict(a);
        (,,,,, int256 kb,) = oracle.getVerdict(b);
        assertEq(ka, 1e18);
        assertEq(kb, -1e18);
    }

    function test_VerdictsAreIndependentPerQuestion() public {
        uint256 a = _ask();
        uint256 b = _ask();
        vm.prank(operator);
        oracle.submitReport(b, bytes32(uint256(7)), 0, 1, 2, 0, true, false);
        assertEq(uint8(_status(a)), uint8(IVeritasOracle.VerdictStatus.Asked));
        assertEq(uint8(_status(b)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (, bytes32 root, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(b);
        assertEq(root, bytes32(uint256(7)));
        // alpha = (1, 2, 3) / 6
        assertEq(pYes, 166_666_666_666_666_667);
        assertEq(pNo, 333_333_333_333_333_333);
        assertEq(pNull, 0.5e18);
        assertEq(oracle.verdictCount(), 1);
        assertEq(oracle.questionCount(), 2);
    }

    function test_VerdictStatusOfUnknownIdsIsNone() public {
        _ask();
        assertEq(uint8(_status(0)), uint8(IVeritasOracle.VerdictStatus.None));
        assertEq(uint8(_status(2)), uint8(IVeritasOracle.VerdictStatus.None));
        assertEq(uint8(_status(type(uint256).max)), uint8(IVeritasOracle.VerdictStatus.None));
    }

    function testFuzz_VerdictStatusNeverReverts(uint256 id) public {
        _askAndPost(false);
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(id);
        if (id == 1) assertEq(uint8(status), uint8(IVeritasOracle.VerdictStatus.Resolved));
        else assertEq(uint8(status), uint8(IVeritasOracle.VerdictStatus.None));
    }

    function testFuzz_PostedTripleReadsBackExactly(uint16 y, uint16 n, uint16 u, int256 kappa) public {
        y = uint16(bound(y, 0, 30));
        n = uint16(bound(n, 0, 30 - y));
        u = uint16(bound(u, y + n == 0 ? 1 : 0, 30 - y - n)); // a report needs a valid ballot
        kappa = bound(kappa, -1e18, 1e18);
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, ROOT, y, n, u, kappa, false, false);
        (,, uint256 rYes, uint256 rNo, uint256 rNull, int256 rKappa,) = oracle.getVerdict(id);
        uint256[3] memory p = _referenceTriple(y, n, u);
        assertEq(rYes, p[0]);
        assertEq(rNo, p[1]);
        assertEq(rNull, p[2]);
        assertEq(rKappa, kappa);
        assertEq(rYes + rNo + rNull, WAD);
    }

    function test_TimeComesFromVirtualNow() public {
        (address court, address admin) = Shipped.modules();
        IClockedOracle clocked =
            IClockedOracle(Shipped.deploy("ClockedOracle.sol:ClockedOracle", abi.encode(owner, court, admin)));
        vm.prank(owner);
        IVeritasOracle(address(clocked)).addOperator(operator);
        clocked.setClock(500);
        vm.prank(alice);
        uint256 id = clocked.askQuestion(QUESTION, 1000, _rulesOf(address(clocked)));
        assertEq(IVeritasOracle(address(clocked)).getQuestion(id).askedAt, 500);

        // block.timestamp is far past resolveAfter, but the oracle's own clock is not.
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooEarly.selector, id, uint64(1000), 500));
        vm.prank(operator);
        clocked.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);

        clocked.setClock(1000);
        vm.prank(operator);
        clocked.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        (,,,,,, uint256 timestamp) = clocked.getVerdict(id);
        assertEq(timestamp, 1000);
    }

    /*//////////////////////////////////////////////////////////////
                          QUORUM AND POOLING
    //////////////////////////////////////////////////////////////*/

    function test_QuorumThreePoolsCountsKappaAndRoots() public {
        _setParams(_params(3, 0));
        uint256 id = _ask();
        bytes32 r1 = keccak256("r1");
        bytes32 r2 = keccak256("r2");
        bytes32 r3 = keccak256("r3");
        vm.prank(operator);
        oracle.submitReport(id, r1, 9, 1, 0, 0.5e18, false, false);
        vm.prank(operator2);
        oracle.submitReport(id, r2, 8, 2, 0, 0.2e18, false, false);
        (uint256 reports, uint256 y, uint256 n, uint256 u) = oracle.tally(id);
        assertEq(reports, 2);
        assertEq(y, 17);
        assertEq(n, 3);
        assertEq(u, 0);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
        assertEq(oracle.verdictCount(), 0);

        vm.prank(operator3);
        oracle.submitReport(id, r3, 10, 0, 0, 0.9e18, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        // A block of its own: the legacy code generator (tests compile without via-IR) runs out of
        // stack with these locals alive for the whole test.
        {
            (, bytes32 root, uint256 pYes, uint256 pNo, uint256 pNull, int256 kappa,) = oracle.getVerdict(id);
            // d1 = r1, d2 = sha256(d1 || r2), d3 = sha256(d2 || r3)
            assertEq(root, sha256(abi.encodePacked(sha256(abi.encodePacked(r1, r2)), r3)));
            uint256[3] memory p = _referenceTriple(27, 3, 0);
            assertEq(pYes, p[0]);
            assertEq(pNo, p[1]);
            assertEq(pNull, p[2]);
            assertEq(kappa, 0.2e18, "kappa is the minimum");
        }
        assertEq(oracle.verdictCount(), 1);
        assertTrue(oracle.hasReported(id, operator));
        assertTrue(oracle.hasReported(id, operator3));
        assertFalse(oracle.hasReported(id, alice));
    }

    function test_EscalatedWhenAnyReportEscalates() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _report(operator, id, 9, 1, 0, false);
        _report(operator2, id, 9, 1, 0, true);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_EscalatedWhenLeadingOutcomesDiffer() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _report(operator, id, 9, 1, 0, false);
        _report(operator2, id, 1, 2, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_TiesLeadInYesNoNullOrder() public {
        // (3, 3, 0) leads YES by the tie rule, as does (4, 1, 0): same leader, resolved.
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _report(operator, id, 3, 3, 0, false);
        _report(operator2, id, 4, 1, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_ParametersAreFixedAtAskTime() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _setParams(_params(1, 0));
        assertEq(oracle.questionParameters(id).quorum, 2);
        assertEq(oracle.parameters().quorum, 1);
        _report(operator, id, 1, 0, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked), "still waits for its quorum 2");
        uint256 later = _ask();
        _report(operator, later, 1, 0, 0, false);
        assertEq(uint8(_status(later)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    /*//////////////////////////////////////////////////////////////
                       REPORT WINDOW AND FINALIZE
    //////////////////////////////////////////////////////////////*/

    function test_FinalizeWithReportsPostsEscalated() public {
        _setParams(_params(3, 0));
        uint256 id = _ask();
        _report(operator, id, 9, 1, 0, false);
        vm.warp(START_TIME + REPORT_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictPosted(
            id, ROOT, 0.769230769230769231e18, 0.153846153846153846e18, 0.076923076923076923e18, KAPPA, true, 4, bob
        );
        vm.prank(bob);
        oracle.finalize(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        assertEq(oracle.verdictCount(), 1);
    }

    function test_FinalizeWithoutReportsExpiresAndRefunds() public {
        _setParams(_params(1, 0));
        uint256 id = _ask();
        vm.warp(START_TIME + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Expired));
        assertTrue(oracle.isFinal(id));
        assertEq(oracle.finalAt(id), START_TIME + REPORT_WINDOW);
        assertEq(oracle.credits(alice), ASK_FEE);
        assertEq(oracle.pendingFee(id), 0);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasVerdictNotFound.selector, id));
        oracle.getVerdict(id);
        uint256 before = alice.balance;
        vm.prank(alice);
        assertEq(oracle.withdraw(), ASK_FEE);
        assertEq(alice.balance, before + ASK_FEE);
    }

    function test_ReportWindowStartsAtResolveAfter() public {
        vm.prank(alice);
        uint256 id = oracle.askQuestion(QUESTION, START_TIME + 1 days, _rules());
        vm.warp(START_TIME + 1 days + REPORT_WINDOW - 1);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasReportWindowOpen.selector,
                id,
                START_TIME + 1 days + REPORT_WINDOW,
                START_TIME + 1 days + REPORT_WINDOW - 1
            )
        );
        oracle.finalize(id);
        _post(id, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    /*//////////////////////////////////////////////////////////////
                               FINALITY
    //////////////////////////////////////////////////////////////*/

    function test_ResolvedIsFinalAfterTheChallengeWindow() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAndPost(false);
        assertFalse(oracle.isFinal(id));
        assertEq(oracle.finalAt(id), START_TIME + CHALLENGE_WINDOW);
        vm.warp(START_TIME + CHALLENGE_WINDOW - 1);
        assertFalse(oracle.isFinal(id));
        vm.warp(START_TIME + CHALLENGE_WINDOW);
        assertTrue(oracle.isFinal(id));
    }

    function test_ZeroChallengeWindowIsFinalAtOnce() public {
        uint256 id = _askAndPost(false);
        assertTrue(oracle.isFinal(id));
        assertEq(oracle.finalAt(id), START_TIME);
    }

    function test_NothingElseIsFinal() public {
        uint256 asked = _ask();
        uint256 escalated = _askAndPost(true);
        assertFalse(oracle.isFinal(asked));
        assertFalse(oracle.isFinal(escalated));
        assertFalse(oracle.isFinal(99));
        assertEq(oracle.finalAt(asked), 0);
        assertEq(oracle.finalAt(escalated), 0);
        vm.warp(START_TIME + ARBITRATION_WINDOW);
        oracle.resolveByDefault(escalated);
        assertTrue(oracle.isFinal(escalated));
        assertEq(oracle.finalAt(escalated), START_TIME + ARBITRATION_WINDOW);
    }
}
