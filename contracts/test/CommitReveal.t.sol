// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Commit-reveal reporting (issue #26, point 2): with a reveal window and a quorum above 1,
/// operators commit to a hash of their report bound to their address, and reveal after the commit
/// phase; nobody copies a report or picks one after a look at the tally, and a commit not revealed
/// loses its bond.
contract CommitRevealTest is BaseTest {
    uint32 internal constant REVEAL_WINDOW = 1 hours;

    bytes32 internal constant SALT1 = keccak256("salt 1");
    bytes32 internal constant SALT2 = keccak256("salt 2");
    bytes32 internal constant SALT3 = keccak256("salt 3");

    address internal constant BURN = address(0xdEaD);

    function _crParams(uint8 quorum) internal view returns (IVeritasOracle.Parameters memory p) {
        p = _params(quorum, CHALLENGE_WINDOW);
        p.revealWindow = REVEAL_WINDOW;
    }

    function _askCR(uint8 quorum) internal returns (uint256 id) {
        _setParams(_crParams(quorum));
        id = _ask();
    }

    function _commitmentOf(address who, uint256 id, uint16 y, uint16 n, uint16 z, bytes32 salt)
        internal
        view
        returns (bytes32)
    {
        return oracle.reportCommitment(id, who, _rootOf(who), y, n, z, KAPPA, false, false, salt);
    }

    function _commit(address who, uint256 id, uint16 y, uint16 n, uint16 z, bytes32 salt) internal {
        bytes32 c = _commitmentOf(who, id, y, n, z, salt);
        vm.prank(who);
        oracle.commitReport(id, c);
    }

    function _reveal(address who, uint256 id, uint16 y, uint16 n, uint16 z, bytes32 salt) internal {
        bytes32 root = _rootOf(who);
        vm.prank(who);
        oracle.revealReport(id, root, y, n, z, KAPPA, false, false, salt);
    }

    /// @dev After `finalize` reopened the commit phase of `id` for withheld slots and no spare
    /// operator commits: waits out the phase and its reveal window, and finalizes again.
    function _runOutReopenedPhase(uint256 id) internal {
        (uint8 phase, uint256 deadline, uint256 commits) = oracle.commitPhase(id);
        assertEq(phase, 1, "the commit phase reopened");
        (uint256 reports,,,) = oracle.tally(id);
        assertEq(commits, reports, "the revealed reports keep their slots");
        vm.warp(deadline + REVEAL_WINDOW);
        oracle.finalize(id);
    }

    function _locked(address who) internal view returns (uint256 locked) {
        (, locked,) = oracle.operatorStake(who);
    }

    function test_HappyPathQuorum3() public {
        uint256 id = _askCR(3);
        (uint8 phase,, uint256 commits) = oracle.commitPhase(id);
        assertEq(phase, 1);
        assertEq(commits, 0);
        _commit(operator, id, 5, 2, 0, SALT1);
        assertEq(_locked(operator), BOND);
        assertEq(oracle.commitmentOf(id, operator), _commitmentOf(operator, id, 5, 2, 0, SALT1));
        assertFalse(oracle.canReport(id, operator));
        _commit(operator2, id, 4, 3, 0, SALT2);
        (phase,, commits) = oracle.commitPhase(id);
        assertEq(phase, 1);
        assertEq(commits, 2);
        // The quorum-th commit opens the reveal phase at once.
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportCommitted(id, operator3, _commitmentOf(operator3, id, 6, 0, 1, SALT3));
        _commit(operator3, id, 6, 0, 1, SALT3);
        uint256 deadline;
        (phase, deadline, commits) = oracle.commitPhase(id);
        assertEq(phase, 2);
        assertEq(deadline, block.timestamp + REVEAL_WINDOW);
        assertEq(commits, 3);
        (uint256 reports,,,) = oracle.tally(id);
        assertEq(reports, 0, "nothing pooled before the reveals");

        _reveal(operator, id, 5, 2, 0, SALT1);
        _reveal(operator2, id, 4, 3, 0, SALT2);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportSubmitted(id, operator3, _rootOf(operator3), 6, 0, 1, KAPPA, false);
        _reveal(operator3, id, 6, 0, 1, SALT3);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        uint256 nYes;
        uint256 nNo;
        uint256 nNull;
        (reports, nYes, nNo, nNull) = oracle.tally(id);
        assertEq(reports, 3);
        assertEq(nYes, 15);
        assertEq(nNo, 5);
        assertEq(nNull, 1);
        assertEq(oracle.commitmentOf(id, operator), bytes32(0));
        (phase,,) = oracle.commitPhase(id);
        assertEq(phase, 0);
        // The bonds stay locked until settlement, then are released; the fee is paid.
        assertEq(_locked(operator3), BOND);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(_locked(operator), 0);
        assertEq(_locked(operator3), 0);
        assertGt(oracle.credits(operator), 0);
    }

    function test_SubmitReportRefusedOnCommitRevealQuestion() public {
        uint256 id = _askCR(3);
        bytes32 root = _rootOf(operator);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitRevealQuestion.selector, id));
        oracle.submitReport(id, root, 5, 2, 0, KAPPA, false, false);
        IVeritasOracle.Report[] memory batch = new IVeritasOracle.Report[](1);
        batch[0] = IVeritasOracle.Report(id, root, 5, 2, 0, KAPPA, false, false);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitRevealQuestion.selector, id));
        oracle.submitReports(batch);
    }

    function test_CopiedCommitmentCannotBeRevealed() public {
        uint256 id = _askCR(3);
        bytes32 c = _commitmentOf(operator, id, 5, 2, 0, SALT1);
        vm.prank(operator);
        oracle.commitReport(id, c);
        // operator2 copies operator's commitment from the mempool or the event.
        vm.prank(operator2);
        oracle.commitReport(id, c);
        _commit(operator3, id, 5, 2, 0, SALT3);
        _reveal(operator, id, 5, 2, 0, SALT1);
        // Even knowing operator's revealed report and salt, operator2 cannot open the copy: the
        // reporter's address is in the hash.
        bytes32 root = _rootOf(operator);
        vm.prank(operator2);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitmentMismatch.selector, id, operator2));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT1);
        // The copier's bond burns at finalize.
        _reveal(operator3, id, 5, 2, 0, SALT3);
        vm.warp(block.timestamp + REVEAL_WINDOW);
        uint256 stakeBefore = _staked(operator2);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CommitSlashed(id, operator2, BOND);
        oracle.finalize(id);
        assertEq(_staked(operator2), stakeBefore - BOND);
        assertEq(_locked(operator2), 0);
    }

    function test_CommitmentBindsTheReporter() public view {
        assertNotEq(
            _commitmentOf(operator, 1, 5, 2, 0, SALT1),
            oracle.reportCommitment(1, operator2, _rootOf(operator), 5, 2, 0, KAPPA, false, false, SALT1)
        );
    }

    function test_RevealWithWrongSaltOrFieldsFails() public {
        uint256 id = _askCR(2);
        _commit(operator, id, 5, 2, 0, SALT1);
        _commit(operator2, id, 5, 2, 0, SALT2);
        bytes32 root = _rootOf(operator);
        bytes4 mismatch = IVeritasOracle.VeritasCommitmentMismatch.selector;
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(mismatch, id, operator));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT2);
        vm.expectRevert(abi.encodeWithSelector(mismatch, id, operator));
        oracle.revealReport(id, root, 2, 5, 0, KAPPA, false, false, SALT1);
        vm.expectRevert(abi.encodeWithSelector(mismatch, id, operator));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, true, false, SALT1);
        vm.expectRevert(abi.encodeWithSelector(mismatch, id, operator));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA + 1, false, false, SALT1);
        vm.expectRevert(abi.encodeWithSelector(mismatch, id, operator));
        oracle.revealReport(id, bytes32(uint256(root) ^ 1), 5, 2, 0, KAPPA, false, false, SALT1);
        // The right one passes; a second reveal finds no commitment.
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT1);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoCommitment.selector, id, operator));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT1);
        vm.stopPrank();
    }

    function test_RevealStillChecksTheReport() public {
        uint256 id = _askCR(2);
        bytes32 empty = oracle.reportCommitment(id, operator, ROOT, 0, 0, 0, KAPPA, false, false, SALT1);
        vm.prank(operator);
        oracle.commitReport(id, empty);
        bytes32 tooMany = oracle.reportCommitment(id, operator2, ROOT, 31, 0, 0, KAPPA, false, false, SALT2);
        vm.prank(operator2);
        oracle.commitReport(id, tooMany);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoValidBallot.selector, id));
        oracle.revealReport(id, ROOT, 0, 0, 0, KAPPA, false, false, SALT1);
        vm.prank(operator2);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyBallots.selector, 31, 30));
        oracle.revealReport(id, ROOT, 31, 0, 0, KAPPA, false, false, SALT2);
    }

    function test_RevealBeforeThePhaseFails() public {
        uint256 id = _askCR(3);
        _commit(operator, id, 5, 2, 0, SALT1);
        uint256 opens = block.timestamp + REPORT_WINDOW;
        bytes32 root = _rootOf(operator);
        vm.prank(operator);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotRevealPhase.selector, id, opens, opens + REVEAL_WINDOW, block.timestamp
            )
        );
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT1);
        // A non-committer cannot reveal; a committer cannot commit twice.
        vm.prank(operator2);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoCommitment.selector, id, operator2));
        oracle.revealReport(id, root, 5, 2, 0, KAPPA, false, false, SALT1);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadyCommitted.selector, id, operator));
        oracle.commitReport(id, bytes32(uint256(1)));
        // After the report window, the single commit reveals; the verdict posts escalated (quorum
        // not met), and nobody can commit any more.
        vm.warp(opens);
        vm.prank(operator2);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitPhaseClosed.selector, id));
        oracle.commitReport(id, bytes32(uint256(1)));
        (uint8 phase, uint256 deadline,) = oracle.commitPhase(id);
        assertEq(phase, 2);
        assertEq(deadline, opens + REVEAL_WINDOW);
        _reveal(operator, id, 5, 2, 0, SALT1);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_CommitChecks() public {
        uint256 id = _askCR(3);
        vm.prank(operator);
        vm.expectRevert(IVeritasOracle.VeritasZeroCommitment.selector);
        oracle.commitReport(id, bytes32(0));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, alice));
        oracle.commitReport(id, bytes32(uint256(1)));
        // Not enough free stake for the bond.
        vm.prank(operator);
        oracle.withdrawStake(STAKE);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientStake.selector, operator, 0, BOND));
        oracle.commitReport(id, bytes32(uint256(1)));
        // A plain question takes no commit.
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 plain = _ask();
        vm.prank(operator2);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotCommitReveal.selector, plain));
        oracle.commitReport(plain, bytes32(uint256(1)));
    }

    function test_UnrevealedCommitBurnedAtFinalize() public {
        uint256 id = _askCR(3);
        _commit(operator, id, 5, 2, 0, SALT1);
        _commit(operator2, id, 5, 1, 0, SALT2);
        _commit(operator3, id, 0, 7, 0, SALT3);
        _reveal(operator, id, 5, 2, 0, SALT1);
        _reveal(operator2, id, 5, 1, 0, SALT2);
        // operator3 sees two YES reveals and withholds its NO report.
        (, uint256 deadline,) = oracle.commitPhase(id);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasReportWindowOpen.selector, id, deadline, block.timestamp)
        );
        oracle.finalize(id);
        vm.warp(deadline);
        bytes32 root = _rootOf(operator3);
        vm.prank(operator3);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotRevealPhase.selector, id, 0, deadline, deadline)
        );
        oracle.revealReport(id, root, 0, 7, 0, KAPPA, false, false, SALT3);
        (uint8 phase,,) = oracle.commitPhase(id);
        assertEq(phase, 3);

        uint256 balance = address(oracle).balance;
        uint256 stake3 = _staked(operator3);
        uint256 burnBefore = oracle.credits(BURN);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CommitSlashed(id, operator3, BOND);
        oracle.finalize(id);
        assertEq(_staked(operator3), stake3 - BOND);
        assertEq(_locked(operator3), 0);
        assertEq(oracle.credits(BURN) - burnBefore, BOND);
        assertEq(address(oracle).balance, balance, "no ether moves, it changes hands");
        assertEq(oracle.commitmentOf(id, operator3), bytes32(0));
        // The withheld slot reopens for a spare operator; with none, the phase runs out.
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
        _runOutReopenedPhase(id);
        // The two revealed reports are pooled, escalated as a quorum-not-met verdict.
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (uint256 reports, uint256 nYes, uint256 nNo,) = oracle.tally(id);
        assertEq(reports, 2);
        assertEq(nYes, 10);
        assertEq(nNo, 3);
        assertEq(_locked(operator), BOND, "revealed bonds stay locked until settlement");
    }

    function test_NothingRevealedExpiresAndBurnsEveryBond() public {
        uint256 id = _askCR(2);
        _commit(operator, id, 5, 2, 0, SALT1);
        _commit(operator2, id, 5, 2, 0, SALT2);
        vm.warp(block.timestamp + REVEAL_WINDOW);
        uint256 aliceBefore = oracle.credits(alice);
        oracle.finalize(id);
        assertEq(oracle.credits(BURN), 2 * BOND, "both withholders slashed at once");
        _runOutReopenedPhase(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Expired));
        assertEq(oracle.credits(alice) - aliceBefore, ASK_FEE);
        assertEq(oracle.credits(BURN), 2 * BOND);
        assertEq(_staked(operator), STAKE - BOND);
        assertEq(_staked(operator2), STAKE - BOND);
    }

    /// @dev The last revealer has seen the others' reports but is bound to its commitment: a
    /// different report (to land the pooled verdict elsewhere) does not open it.
    function test_LastRevealerCannotChangeItsReport() public {
        uint256 id = _askCR(3);
        _commit(operator, id, 5, 2, 0, SALT1);
        _commit(operator2, id, 2, 5, 0, SALT2);
        _commit(operator3, id, 4, 3, 0, SALT3);
        _reveal(operator, id, 5, 2, 0, SALT1);
        _reveal(operator2, id, 2, 5, 0, SALT2);
        // operator3 now knows the tally (7 YES, 7 NO) and would like a NO verdict.
        bytes32 root = _rootOf(operator3);
        vm.prank(operator3);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitmentMismatch.selector, id, operator3));
        oracle.revealReport(id, root, 0, 7, 0, KAPPA, false, false, SALT3);
        vm.prank(operator3);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitmentMismatch.selector, id, operator3));
        oracle.revealReport(id, root, 4, 3, 0, KAPPA, true, false, SALT3);
        // Its only choices: reveal what it committed, or lose its bond.
        _reveal(operator3, id, 4, 3, 0, SALT3);
        (, uint256 nYes, uint256 nNo,) = oracle.tally(id);
        assertEq(nYes, 11);
        assertEq(nNo, 10);
    }

    function test_RevealWindowZeroKeepsTheOldFlow() public {
        IVeritasOracle.Parameters memory p = _params(3, CHALLENGE_WINDOW);
        assertEq(p.revealWindow, 0);
        _setParams(p);
        uint256 id = _ask();
        (uint8 phase,,) = oracle.commitPhase(id);
        assertEq(phase, 0);
        _report(operator, id, 5, 2, 0, false);
        _report(operator2, id, 5, 2, 0, false);
        _report(operator3, id, 5, 2, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        // Quorum 1 with a reveal window: nobody to copy, so reports stay in the clear.
        p = _params(1, CHALLENGE_WINDOW);
        p.revealWindow = REVEAL_WINDOW;
        _setParams(p);
        id = _ask();
        (phase,,) = oracle.commitPhase(id);
        assertEq(phase, 0);
        _report(operator, id, 5, 2, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    function test_RevealWindowValidated() public {
        IVeritasOracle.Parameters memory p = _crParams(2);
        p.revealWindow = 29;
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidRevealWindow.selector, 29, 30, 7 days));
        oracle.setParameters(p, "");
        p.revealWindow = 7 days + 1;
        vm.prank(owner);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInvalidRevealWindow.selector, 7 days + 1, 30, 7 days)
        );
        oracle.setParameters(p, "");
        p.revealWindow = 7 days;
        _setParams(p);
        assertEq(oracle.parameters().revealWindow, 7 days);
        // The header's commit-reveal bit does not leak into the bond a plain report locks.
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 5, 2, 0, false);
        assertEq(_locked(operator), BOND);
    }

    function testFuzz_CommitmentEncoding(
        uint256 id,
        address reporter,
        bytes32 root,
        uint16 y,
        uint16 n,
        uint16 z,
        int256 kappa,
        bool escalated,
        bool notYet,
        bytes32 salt
    ) public view {
        bytes32 c = oracle.reportCommitment(id, reporter, root, y, n, z, kappa, escalated, notYet, salt);
        assertEq(c, keccak256(abi.encode(id, reporter, root, y, n, z, kappa, escalated, notYet, salt)));
        // Any other reporter gets another commitment, and so does the other "not yet".
        address other = address(uint160(reporter) ^ 1);
        assertNotEq(c, oracle.reportCommitment(id, other, root, y, n, z, kappa, escalated, notYet, salt));
        assertNotEq(c, oracle.reportCommitment(id, reporter, root, y, n, z, kappa, escalated, !notYet, salt));
    }
}
