// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Issue #26's attacks (stage A: everything but commit-reveal), each written as the
/// attacker would try it. Every one succeeded on the contract before #26 (main at 1d488c7); the
/// comment of each says how. The truth of every question here is YES.
/// @dev The helpers `_staked`, `_disputeAs` and `_burned` are the only places that use #26's API,
/// so the same attacks can be replayed against the older contract.
contract AttacksV3Test is BaseTest {
    address internal carol = makeAddr("carol");
    address internal mallory = makeAddr("mallory");
    address internal constant BURN = address(0xdEaD);

    // The truth (YES) claimed by an honest disputer.
    uint256 internal constant T_YES = 0.9e18;
    uint256 internal constant T_NO = 0.05e18;
    uint256 internal constant T_NULL = 0.05e18;

    function setUp() public override {
        super.setUp();
        vm.deal(carol, 100 ether);
        vm.deal(mallory, 100 ether);
    }

    function _burned() internal view returns (uint256) {
        return oracle.credits(BURN);
    }

    function _disputeAs(address who, uint256 id, uint256 y, uint256 n, uint256 u) internal {
        vm.prank(who);
        oracle.dispute{value: COURT_COST + BOND}(id, y, n, u, who);
    }

    /// @dev A quorum-1 question with a challenge window on which `operator` reports NO (a lie).
    function _lie() internal returns (uint256 id) {
        _setParams(_params(1, CHALLENGE_WINDOW));
        id = _ask();
        _report(operator, id, 1, 20, 0, false);
    }

    /// Before: reporters bonded nothing; a lie overturned by the court cost the liar only the fee
    /// it did not earn. Now the court's ruling slashes the liar's report bond.
    function test_LyingReporterLosesItsBond() public {
        uint256 id = _lie();
        uint256 before = _staked(operator);
        _disputeAs(carol, id, T_YES, T_NO, T_NULL);
        _rule(id, 2); // YES
        assertEq(_staked(operator), before - BOND, "the liar's bond was not slashed");
        assertEq(oracle.credits(operator), 0, "the liar earned something");
        assertEq(_burned(), BOND / 2, "half the slashed bond is burned");
    }

    /// Before: catching a lie paid the disputer its bond back and the fee (0.01 ETH here, whatever
    /// the market), less than the court cost: watching was a loss. Now it also earns half the
    /// liar's slashed bond.
    function test_CatchingALiePaysTheWatcher() public {
        uint256 id = _lie();
        _disputeAs(carol, id, T_YES, T_NO, T_NULL);
        _rule(id, 2);
        uint256 paid = COURT_COST + BOND;
        uint256 got = oracle.credits(carol);
        assertEq(got, BOND + ASK_FEE + BOND / 2);
        assertGt(got, paid, "catching a lie does not pay");
    }

    /// Before: a colluding account front-ran the honest dispute, took the single dispute slot and
    /// recovered bond + fee, so the liar and its friend lost nothing beyond the court's cost. Now
    /// the pair loses half of the liar's bond on top of it.
    function test_FrontRunningColluderStillCostsThePair() public {
        uint256 id = _lie();
        uint256 stakeBefore = _staked(operator);
        // mallory (the liar's friend) disputes first, claiming the truth to recover the bond.
        _disputeAs(mallory, id, T_YES, T_NO, T_NULL);
        // The honest watcher comes second: the slot is taken.
        vm.prank(carol);
        vm.expectRevert();
        oracle.dispute{value: COURT_COST + BOND}(id, T_YES, T_NO, T_NULL, carol);
        _rule(id, 2);
        int256 pair = int256(oracle.credits(mallory)) - int256(COURT_COST + BOND) + int256(oracle.credits(operator))
            - int256(stakeBefore - _staked(operator));
        // The pair would have earned ASK_FEE by reporting the truth; lying cost it half a bond
        // and the court.
        assertLe(pair, int256(uint256(ASK_FEE)) - int256(uint256(BOND / 2)) - int256(COURT_COST), "collusion is free");
    }

    /// Before: a sole reporter disputed its own (correct) verdict to freeze its integrators until
    /// the court acted; the court upheld it and the bond came back to it as a reporter, with the
    /// fee: the freeze cost only the court. Now half of the bond is burned.
    function test_SelfDisputeFreezeCostsHalfTheBond() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 20, 1, 0, false);
        vm.deal(operator, 1 ether);
        _disputeAs(operator, id, 0.3e18, 0.6e18, 0.1e18);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Disputed), "frozen");
        _rule(id, 1); // the verdict stands
        assertEq(oracle.credits(operator), ASK_FEE + BOND - BOND / 2, "the self-dispute was free");
        assertEq(_burned(), BOND / 2);
    }

    /// Before: a 0/0/0 report was accepted, counted toward the quorum and was paid.
    function test_RevertIf_ReportHasNoBallot() public {
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoValidBallot.selector, id));
        oracle.submitReport(id, ROOT, 0, 0, 0, KAPPA, false, false);
    }

    /// Before: 15 YES / 15 NO gave pYes = pNo + 1 wei (the odd wei of the largest remainder rule
    /// goes to YES), and integrators comparing pYes > pNo paid YES the whole pot.
    function test_TieForTheTopEscalates() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 15, 15, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated), "a tie settled");
    }

    /// Before: one dissenting (and always-escalating) operator sent every question to the court
    /// and was paid an equal share anyway. Now one report out of three cannot escalate alone, and
    /// the fee goes to the reporters who agree with the verdict.
    function test_OneDissenterCannotEscalateAndIsNotPaid() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, keccak256("a"), 20, 1, 0, KAPPA, false, false);
        vm.prank(operator2);
        oracle.submitReport(id, keccak256("b"), 19, 2, 0, KAPPA, false, false);
        vm.prank(operator3);
        oracle.submitReport(id, keccak256("c"), 0, 21, 0, KAPPA, true, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved), "one dissenter escalated");
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(oracle.credits(operator3), 0, "the dissenter was paid");
        assertEq(oracle.credits(operator) + oracle.credits(operator2), ASK_FEE);
    }

    /// Before: 64 junk submissions (0.064 ETH at this fee) from one account locked out all later
    /// evidence. Now one account submits at most 8 items and the price doubles every 8 items:
    /// filling a question costs 2,040 x the fee, from at least 8 accounts.
    function test_EvidenceSpamIsLimitedAndPriced() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        vm.deal(mallory, 100 ether);
        for (uint256 i = 0; i < 8; i++) {
            uint256 fee = oracle.nextEvidenceFee(id);
            vm.prank(mallory);
            oracle.submitEvidence{value: fee}(id, "https://junk", "junk", "junk");
        }
        uint256 next = oracle.nextEvidenceFee(id);
        vm.prank(mallory);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasEvidenceLimit.selector, id, mallory, 8));
        oracle.submitEvidence{value: next}(id, "https://junk", "junk", "junk");
        // Sock puppets fill the rest, at a rising price.
        uint256 spent = 8 * EVIDENCE_FEE;
        for (uint256 i = 8; i < 64; i++) {
            address sock = address(uint160(0x5000 + i / 8));
            uint256 fee = oracle.nextEvidenceFee(id);
            vm.deal(sock, fee);
            vm.prank(sock);
            oracle.submitEvidence{value: fee}(id, "https://junk", "junk", "junk");
            spent += fee;
        }
        assertEq(spent, 2040 * EVIDENCE_FEE, "filling the question was cheap");
    }

    /// Before: evidence fees were added to the question's fee, so a reporting operator that
    /// spammed evidence got its fees back with the verdict.
    function test_EvidenceFeesNeverReachTheReporter() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        vm.deal(operator, 1 ether);
        for (uint256 i = 0; i < 4; i++) {
            vm.prank(operator);
            oracle.submitEvidence{value: EVIDENCE_FEE}(id, "https://mine", "mine", "mine");
        }
        vm.warp(START_TIME + 1 days);
        _report(operator, id, 20, 1, 0, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(oracle.credits(operator), ASK_FEE, "the reporter got evidence fees back");
        assertEq(_burned(), 4 * EVIDENCE_FEE);
    }

    /// Before: on expiry the evidence fees went to the asker (who could spam evidence for free,
    /// or pocket third parties' fees).
    function test_ExpiredEvidenceIsRefundedToItsSubmittersNotTheAsker() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        for (uint256 i = 0; i < 2; i++) {
            vm.prank(bob);
            oracle.submitEvidence{value: EVIDENCE_FEE}(id, "https://bob", "bob", "bob");
        }
        vm.warp(START_TIME + 1 days + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(oracle.credits(alice), ASK_FEE, "the asker took the evidence fees");
        vm.prank(bob);
        oracle.refundEvidence(id);
        assertEq(oracle.credits(bob), 2 * EVIDENCE_FEE);
    }

    /// Before: a far-future `resolveAfter` kept evidence open and fees locked for centuries.
    function test_RevertIf_ResolveAfterBeyondTheHorizon() public {
        uint64 far = uint64(block.timestamp + 100 * 365 days);
        IVeritasOracle.AskRules memory rules = _rules();
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasTooFarAhead.selector, far, block.timestamp + 365 days)
        );
        oracle.askQuestion(QUESTION, far, rules);
    }

    /// Before: the operator index was a lifetime budget (255 additions ever, removed keys kept
    /// theirs): after 255 key rotations nobody could be added, or report again.
    function test_KeyRotationsNeverRunOutOfIndices() public {
        address current = operator3;
        for (uint256 i = 0; i < 300; i++) {
            address next = address(uint160(0x7000 + i));
            vm.startPrank(owner);
            oracle.addOperator(next);
            oracle.removeOperator(current);
            vm.stopPrank();
            current = next;
        }
        uint256 id = _ask();
        _report(current, id, 20, 1, 0, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }
}
