// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../interfaces/IVeritasConsumer.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @dev An operator whose key is a contract: it asks a "gun" question that names itself as the
/// consumer, and re-enters the oracle from the callback with whatever `load` armed it with.
contract Gun is IVeritasConsumer {
    IVeritasOracle internal immutable oracle;
    bytes internal shot;
    /// @dev Whether the re-entrant call went through, and what it returned or reverted with.
    bool public hit;
    bytes public answer;

    constructor(IVeritasOracle oracle_) {
        oracle = oracle_;
    }

    receive() external payable {}

    /// @dev What the callback will send to the oracle.
    function load(bytes calldata call) external {
        shot = call;
    }

    /// @dev Any call as the operator (stake, ask, report, withdraw...).
    function fire(bytes calldata call, uint256 value) external returns (bytes memory) {
        (bool ok, bytes memory ret) = address(oracle).call{value: value}(call);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }

    function onVeritasVerdict(uint256, IVeritasOracle.VerdictStatus, uint256, uint256, uint256) external {
        if (shot.length == 0) return;
        bytes memory call = shot;
        delete shot;
        (hit, answer) = address(oracle).call(call);
    }
}

/// @dev A consumer that refuses to hear of a dispute and counts what it is told.
contract DisputeAverseConsumer is IVeritasConsumer {
    uint256 public deliveries;

    function onVeritasVerdict(uint256, IVeritasOracle.VerdictStatus status, uint256, uint256, uint256) external {
        require(status != IVeritasOracle.VerdictStatus.Disputed, "not listening to disputes");
        deliveries++;
    }
}

/// @notice Issue #43: the holes an independent review found in v3, each written as the attacker
/// would try it. The comment of each says what the attack did on v3 (main at 459956a) and what
/// the fixed contract does instead. The truth of every question here is YES.
contract AttacksV3ReviewTest is BaseTest {
    address internal carol = makeAddr("carol");
    Gun internal gun;

    function setUp() public override {
        super.setUp();
        vm.deal(carol, 100 ether);
        gun = new Gun(oracle);
        vm.prank(owner);
        oracle.addOperator(address(gun));
        _stake(address(gun), STAKE);
    }

    function _stakeOf(address op) internal view returns (uint256 staked, uint256 locked, uint256 open) {
        (staked, locked, open) = oracle.operatorStake(op);
    }

    /// @dev While the constructor's final-at-once set 0 is in force, the gun asks a question that
    /// calls it back; then the owner puts a set with a challenge window (and a bond) in force and
    /// alice asks the target. Returns (gun question, target).
    function _armed() internal returns (uint256 gunId, uint256 target) {
        IVeritasOracle.AskRules memory rules = _rules(address(gun), 400_000);
        gunId = abi.decode(gun.fire(abi.encodeCall(IVeritasOracle.askQuestion, ("gun", 0, rules)), 0), (uint256));
        _setParams(_params(1, CHALLENGE_WINDOW));
        target = _ask();
    }

    /// @dev The gun's report on its own question: quorum 1, final at once, so it calls the gun back.
    function _pull(uint256 gunId) internal {
        gun.fire(abi.encodeCall(IVeritasOracle.submitReport, (gunId, ROOT, 5, 0, 0, 0, false, false)), 0);
    }

    /// 1(a). v3: the callback's nested report on the target locked the bond, then the outer report
    /// wrote its stale stake record back over it: the lie stood with nothing locked, the gun
    /// withdrew its whole stake, and every money path of the target underflowed for ever. Now the
    /// nested call is refused (`VeritasReentrantCall`), and nothing was erased.
    function test_CallbackCannotReenterAReport() public {
        (uint256 gunId, uint256 target) = _armed();
        gun.load(abi.encodeCall(IVeritasOracle.submitReport, (target, ROOT, 0, 20, 0, 0, false, false)));
        _pull(gunId);
        assertFalse(gun.hit(), "the callback re-entered submitReport");
        assertFalse(oracle.hasReported(target, address(gun)), "the nested report counted");
        assertEq(bytes4(gun.answer()), IVeritasOracle.VeritasReentrantCall.selector, "refused as re-entrant");
        // Reported the normal way, the lie locks its bond and the court can slash it.
        gun.fire(abi.encodeCall(IVeritasOracle.submitReport, (target, ROOT, 0, 20, 0, 0, false, false)), 0);
        (uint256 staked, uint256 locked, uint256 open) = _stakeOf(address(gun));
        assertEq(locked, BOND, "the target's lock");
        assertEq(open, 2, "two open reports");
        vm.expectRevert();
        gun.fire(abi.encodeCall(IVeritasOracle.withdrawStake, (staked)), 0);
        vm.prank(carol);
        oracle.dispute{value: COURT_COST + BOND}(target, 0.9e18, 0.05e18, 0.05e18, carol);
        _rule(target, 2); // YES: the lie is slashed
        (uint256 after_,,) = _stakeOf(address(gun));
        assertEq(after_, staked - BOND, "the liar's bond was slashed");
    }

    /// 1(b). v3: in a batch [target, gun question], the callback withdrew the stake the batch had
    /// just locked in memory; the court's slashing ruling then reverted and only a default was
    /// left. Now the withdrawal is refused inside the callback.
    function test_CallbackCannotWithdrawTheBatchsLock() public {
        (uint256 gunId, uint256 target) = _armed();
        gun.load(abi.encodeCall(IVeritasOracle.withdrawStake, (STAKE)));
        IVeritasOracle.Report[] memory batch = new IVeritasOracle.Report[](2);
        batch[0] = IVeritasOracle.Report(target, ROOT, 0, 20, 0, 0, false, false);
        batch[1] = IVeritasOracle.Report(gunId, ROOT, 5, 0, 0, 0, false, false);
        gun.fire(abi.encodeCall(IVeritasOracle.submitReports, (batch)), 0);
        assertFalse(gun.hit(), "the callback withdrew the stake");
        (uint256 staked, uint256 locked,) = _stakeOf(address(gun));
        assertEq(staked, STAKE, "the stake is whole");
        assertEq(locked, BOND, "the target's bond is locked");
        vm.prank(carol);
        oracle.dispute{value: COURT_COST + BOND}(target, 0.9e18, 0.05e18, 0.05e18, carol);
        _rule(target, 2);
        assertEq(uint8(_status(target)), uint8(IVeritasOracle.VerdictStatus.Arbitrated), "ruled, not defaulted");
        (uint256 after_,,) = _stakeOf(address(gun));
        assertEq(after_, STAKE - BOND, "slashed");
    }

    /// 1(c). v3: the undercounted open reports let the gun's operator index be released while its
    /// lie was open; the next operator added got the index and the ruling slashed that innocent
    /// operator. Now the index is held while the lie is open.
    function test_IndexIsHeldWhileALieIsOpen() public {
        (uint256 gunId, uint256 target) = _armed();
        gun.load(abi.encodeCall(IVeritasOracle.submitReport, (target, ROOT, 0, 20, 0, 0, false, false)));
        _pull(gunId);
        gun.fire(abi.encodeCall(IVeritasOracle.submitReport, (target, ROOT, 0, 20, 0, 0, false, false)), 0);
        vm.prank(owner);
        oracle.removeOperator(address(gun));
        vm.expectRevert();
        oracle.releaseIndex(address(gun));
    }

    /*//////////////////////////////////////////////////////////////
                         2. A COURT MADE MUTE
    //////////////////////////////////////////////////////////////*/

    /// @dev A quorum-1 question with a challenge window; the operator reports the truth (YES).
    function _truth() internal returns (uint256 id) {
        _setParams(_params(1, CHALLENGE_WINDOW));
        id = _ask();
        _report(operator, id, 20, 1, 0, false);
    }

    /// v3: the losing side disputed naming the round-0 judge as beneficiary; the court refused that
    /// judge as a party, nobody could rule or appeal, and the correct verdict defaulted with the
    /// bond back to the judge. Now the round goes to the next judge who is not a party.
    function test_NamingTheJudgeCannotMuteTheCourt() public {
        uint256 id = _truth();
        vm.prank(carol);
        uint256 disputeId = oracle.dispute{value: COURT_COST + BOND}(id, 0.05e18, 0.9e18, 0.05e18, arbiter);
        assertEq(court.judgeOf(disputeId), judge2, "the next judge who is not a party");
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtJudgeIsParty.selector, disputeId, arbiter));
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1);
        vm.prank(judge2);
        court.giveRuling(disputeId, 1); // the verdict stands
        vm.warp(block.timestamp + APPEAL_PERIOD);
        court.executeRuling(disputeId);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Arbitrated), "ruled");
        assertEq(oracle.credits(carol), 0, "the disputer lost its bond");
        assertEq(oracle.credits(arbiter), 0, "the named judge got nothing");
    }

    /// v3: with a court whose every judge is a party, the dispute defaulted and its bond went back
    /// to the beneficiary: the losing side voided a correct verdict for the court's cost. Now a
    /// default never profits whoever disputed: the bond is burned.
    function test_DefaultNeverProfitsTheDisputer() public {
        address[] memory judges = new address[](1);
        judges[0] = arbiter;
        VeritasCourt lone = new VeritasCourt(judges, COURT_COST, 0, APPEAL_PERIOD);
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = address(lone);
        _setParams(p);
        uint256 id = _ask();
        _report(operator, id, 20, 1, 0, false);
        uint256 burned = oracle.credits(address(0xdEaD));
        vm.prank(carol);
        uint256 disputeId = oracle.dispute{value: COURT_COST + BOND}(id, 0.05e18, 0.9e18, 0.05e18, arbiter);
        assertEq(lone.judgeOf(disputeId), address(0), "no judge who is not a party");
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertEq(oracle.credits(arbiter) + oracle.credits(carol), 0, "nobody got the bond back");
        assertEq(oracle.credits(address(0xdEaD)) - burned, BOND, "the bond is burned");
    }

    /// v3: `VeritasCourt.appeal` could be called directly; the oracle's court deadline did not
    /// move, so the next ruling came after it and a correct verdict defaulted. Now appeals come
    /// through the oracle only.
    function test_AppealOnlyThroughTheOracle() public {
        uint256 id = _truth();
        vm.prank(carol);
        uint256 disputeId = oracle.dispute{value: COURT_COST + BOND}(id, 0.05e18, 0.9e18, 0.05e18, carol);
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtNotArbitrable.selector, disputeId, carol));
        vm.prank(carol);
        court.appeal{value: APPEAL_COST}(disputeId, "");
    }

    /// v3: appeal fees were never refunded, so an honest disputer facing a wrong first ruling lost
    /// less by accepting it than by appealing and winning (here -0.15 against -0.19 ether). Now
    /// the winning appeal is refunded from the slashed bond before the burn, and appealing wins.
    function test_HonestDisputerGainsByAppealingAWrongRuling() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 1, 20, 0, false); // NO: a lie
        uint256 paid = COURT_COST + BOND;
        vm.prank(carol);
        uint256 disputeId = oracle.dispute{value: paid}(id, 0.9e18, 0.05e18, 0.05e18, carol); // claims YES
        vm.prank(arbiter);
        court.giveRuling(disputeId, 1); // wrongly: the lie stands
        // Accepting would cost carol her bond and the court: -(COURT_COST + BOND).
        vm.prank(carol);
        oracle.appeal{value: APPEAL_COST}(id);
        paid += APPEAL_COST;
        vm.prank(judge2);
        court.giveRuling(disputeId, 6); // the disputer's triple
        vm.warp(block.timestamp + APPEAL_PERIOD);
        court.executeRuling(disputeId);
        uint256 got = oracle.credits(carol);
        assertEq(got, BOND + ASK_FEE + BOND, "bond, fee, and the slashed bond unburned as the appeal's refund");
        assertGt(int256(got) - int256(paid), -int256(COURT_COST + BOND), "appealing and winning beats accepting");
    }

    /// v3 (and until this fix): when the court let a disputed verdict stand, a reporter that had
    /// dissented from it (too few to escalate) was released unslashed: a lie the court rejected
    /// cost nothing. Now every ruling slashes the reporters whose leading outcome it rejects; here
    /// the dissenter's bond is burned whole, so nobody gains from another's dissent.
    function test_DissenterIsSlashedWhenTheVerdictStands() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 20, 1, 0, false);
        _report(operator2, id, 20, 1, 0, false);
        _report(operator3, id, 1, 20, 0, false); // NO: a lie, one dissent of three
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        (uint256 before,,) = _stakeOf(operator3);
        uint256 burned = oracle.credits(address(0xdEaD));
        _dispute(carol, id); // claims NO with the liar
        _rule(id, 1); // the verdict stands
        (uint256 afterRuling, uint256 locked,) = _stakeOf(operator3);
        assertEq(afterRuling, before - BOND, "the dissenting liar loses its bond");
        assertEq(locked, 0);
        assertEq(oracle.credits(operator3), 0, "and earns nothing");
        assertEq(
            oracle.credits(address(0xdEaD)) - burned, BOND / 2 + BOND, "half the dispute bond, the whole report bond"
        );
    }

    /// The losing disputer's bond refunds whoever appealed the wrong ruling in its favour; an appeal
    /// that lost is not refunded.
    function test_WinningAppealIsRefundedByTheLosingDisputer() public {
        uint256 id = _truth();
        uint256 disputeId = _dispute(carol, id); // claims NO: a lie
        vm.prank(arbiter);
        court.giveRuling(disputeId, 6); // wrongly: for the disputer
        vm.prank(alice);
        oracle.appeal{value: APPEAL_COST}(id); // the asker defends the truth
        vm.prank(judge2);
        court.giveRuling(disputeId, 1); // the verdict stands: alice's appeal won
        vm.warp(block.timestamp + APPEAL_PERIOD);
        court.executeRuling(disputeId);
        assertEq(oracle.credits(alice), BOND, "the whole forfeited bond, up to the appeal fee");
        assertEq(oracle.credits(carol), 0);
        assertEq(oracle.credits(operator), ASK_FEE, "the reporter keeps the fee; the bond went to the appeal");
    }

    /*//////////////////////////////////////////////////////////////
                      3. SLASH-FREE ESCALATION
    //////////////////////////////////////////////////////////////*/

    /// v3: a liar escalated its own lie (quorum 1): the court ruled the truth and slashed nobody,
    /// and the requester who paid the court was never reimbursed. Now the ruling slashes every
    /// reporter whose leading outcome it rejected and pays the requester from it.
    function test_EscalatingLiarIsSlashedAndTheRequesterPaid() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 1, 20, 0, true); // NO, escalated
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (uint256 before,,) = _stakeOf(operator);
        uint256 burned = oracle.credits(address(0xdEaD));
        _request(id); // bob pays the court
        _rule(id, 2); // YES
        (uint256 after_,,) = _stakeOf(operator);
        assertEq(after_, before - BOND, "the liar's bond was slashed");
        assertEq(oracle.credits(bob), BOND - BOND / 2, "the requester is paid from the slash");
        assertGe(oracle.credits(bob), COURT_COST, "more than the court cost it paid");
        assertEq(oracle.credits(address(0xdEaD)) - burned, BOND / 2 + 0, "half the slash burned");
    }

    /// v3: a dissenting liar at quorum 2 escalated the question with nothing at risk.
    function test_DissentingLiarIsSlashedWhenTheCourtRules() public {
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _report(operator, id, 20, 1, 0, false); // YES, the truth
        _report(operator2, id, 1, 20, 0, false); // NO, the lie: half dissent escalates
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        (uint256 honest,,) = _stakeOf(operator);
        (uint256 liar,,) = _stakeOf(operator2);
        _request(id);
        _rule(id, 2); // YES
        (uint256 honestAfter,,) = _stakeOf(operator);
        (uint256 liarAfter,,) = _stakeOf(operator2);
        assertEq(honestAfter, honest, "the honest reporter keeps its stake");
        assertEq(liarAfter, liar - BOND, "the liar is slashed");
        assertEq(oracle.credits(operator), ASK_FEE, "the honest reporter earns the fee");
    }

    /*//////////////////////////////////////////////////////////////
                    4. COMMIT-REVEAL AND BONDS
    //////////////////////////////////////////////////////////////*/

    /// v3: a commit-reveal set without a challenge window bonded nothing, so a griefer's withheld
    /// commit cost nothing. Now such a set needs a bond, and the commit locks it.
    function test_CommitRevealSetNeedsABond() public {
        IVeritasOracle.Parameters memory p = _params(2, 0);
        p.revealWindow = 1 hours;
        p.disputeBond = 0;
        vm.expectRevert(IVeritasOracle.VeritasBondRequired.selector);
        vm.prank(owner);
        oracle.setParameters(p, "");
        p.disputeBond = BOND;
        _setParams(p);
        uint256 id = _ask();
        bytes32 commitment = oracle.reportCommitment(id, operator, ROOT, 5, 0, 0, KAPPA, false, false, "salt");
        vm.prank(operator);
        oracle.commitReport(id, commitment);
        (, uint256 locked,) = _stakeOf(operator);
        assertEq(locked, BOND, "the commit locks the bond");
    }

    /// v3 (finding 4): the commit phase closed at the quorum-th commit, so a griefer who committed
    /// first held a slot no spare operator could take, watched the reveals, withheld, and
    /// `finalize` posted the revealed report escalated (to the court, no bond at risk). Now the
    /// withheld slot reopens: the griefer's bond burns, the spare operator commits and reveals,
    /// and the question resolves at its quorum with no escalation.
    function test_WithheldCommitSlotGoesToASpareOperator() public {
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _ask();
        address griefer = operator;
        (uint256 grieferStake,,) = _stakeOf(griefer);
        _commitAs(griefer, id, 0, 5, 0, "g");
        _commitAs(operator2, id, 5, 0, 0, "s2");
        // The quorum committed: the spare operator is shut out of this phase.
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasCommitPhaseClosed.selector, id));
        vm.prank(operator3);
        oracle.commitReport(id, bytes32(uint256(1)));
        vm.prank(operator2);
        oracle.revealReport(id, ROOT, 5, 0, 0, KAPPA, false, false, "s2");
        // The griefer withholds; after the reveal window anyone finalizes. The reopening is an
        // event integrators and spare nodes can watch.
        vm.warp(block.timestamp + 1 hours);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CommitPhaseReopened(id, block.timestamp + 1 hours, 1);
        oracle.finalize(id);
        (uint256 grieferAfter, uint256 grieferLocked,) = _stakeOf(griefer);
        assertEq(grieferAfter, grieferStake - BOND, "the withholder's bond burns");
        assertEq(grieferLocked, 0);
        assertEq(
            uint8(oracle.verdictStatus(id)),
            uint8(IVeritasOracle.VerdictStatus.Asked),
            "no escalated verdict: the slot reopened"
        );
        (uint8 phase,, uint256 commits) = oracle.commitPhase(id);
        assertEq(phase, 1, "a new commit phase");
        assertEq(commits, 1, "the revealed report keeps its slot");
        // The griefer cannot take the slot again (and `canReport` tells its node so).
        assertFalse(oracle.canReport(id, griefer), "a slashed withholder cannot commit again");
        assertTrue(oracle.canReport(id, operator3), "the spare operator can");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasAlreadyCommitted.selector, id, griefer));
        vm.prank(griefer);
        oracle.commitReport(id, bytes32(uint256(1)));
        _commitAs(operator3, id, 5, 0, 0, "s3");
        vm.prank(operator3);
        oracle.revealReport(id, ROOT, 5, 0, 0, KAPPA, false, false, "s3");
        assertEq(
            uint8(oracle.verdictStatus(id)),
            uint8(IVeritasOracle.VerdictStatus.Resolved),
            "resolved from the spare operator's report, at quorum, not escalated"
        );
    }

    /// The reopening is bounded: with no spare operator left to fill the slot, the question
    /// ends after `_MAX_REOPENINGS` (2) empty phases with the revealed report escalated.
    function test_ReopenedCommitPhaseIsBounded() public {
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _ask();
        _commitAs(operator, id, 0, 5, 0, "g");
        _commitAs(operator2, id, 5, 0, 0, "s2");
        vm.prank(operator2);
        oracle.revealReport(id, ROOT, 5, 0, 0, KAPPA, false, false, "s2");
        vm.warp(block.timestamp + 1 hours);
        oracle.finalize(id); // reopening 1
        // operator3 commits and withholds too: its bond burns, reopening 2.
        _commitAs(operator3, id, 0, 5, 0, "g3");
        (, uint256 deadline,) = oracle.commitPhase(id); // the reveal phase's end
        vm.warp(deadline - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasReportWindowOpen.selector, id, deadline, deadline - 1)
        );
        oracle.finalize(id);
        vm.warp(deadline);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.CommitPhaseReopened(id, deadline + 1 hours, 2);
        oracle.finalize(id); // reopening 2
        (, uint256 locked3,) = _stakeOf(operator3);
        assertEq(locked3, 0, "the second withholder's bond burned");
        (, deadline,) = oracle.commitPhase(id);
        vm.warp(deadline + 1 hours);
        oracle.finalize(id);
        assertEq(
            uint8(oracle.verdictStatus(id)),
            uint8(IVeritasOracle.VerdictStatus.Escalated),
            "nobody filled the slot: the revealed report goes to the court"
        );
    }

    /// @dev `who` commits to the report (ROOT, yes, no, null, KAPPA, not escalated, salt) on `id`.
    function _commitAs(address who, uint256 id, uint16 yes, uint16 no, uint16 nil, bytes32 salt) internal {
        bytes32 commitment = oracle.reportCommitment(id, who, ROOT, yes, no, nil, KAPPA, false, false, salt);
        vm.prank(who);
        oracle.commitReport(id, commitment);
    }

    /// v3: a `disputeBond` below `BOND_UNIT` passed validation and locked nothing.
    function test_SubUnitBondRefused() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.disputeBond = uint96(oracle.BOND_UNIT() - 1);
        vm.expectRevert(IVeritasOracle.VeritasBondRequired.selector);
        vm.prank(owner);
        oracle.setParameters(p, "");
    }

    /// v3: a removed operator (the answer to a compromised key) could still reveal a commit made
    /// before its removal. Now reveals come from active operators only.
    function test_RemovedOperatorCannotReveal() public {
        IVeritasOracle.Parameters memory p = _params(2, CHALLENGE_WINDOW);
        p.revealWindow = 1 hours;
        _setParams(p);
        uint256 id = _ask();
        bytes32 c1 = oracle.reportCommitment(id, operator, ROOT, 5, 0, 0, KAPPA, false, false, "s1");
        bytes32 c2 = oracle.reportCommitment(id, operator2, ROOT, 5, 0, 0, KAPPA, false, false, "s2");
        vm.prank(operator);
        oracle.commitReport(id, c1);
        vm.prank(operator2);
        oracle.commitReport(id, c2);
        vm.prank(owner);
        oracle.removeOperator(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, operator));
        vm.prank(operator);
        oracle.revealReport(id, ROOT, 5, 0, 0, KAPPA, false, false, "s1");
    }

    /*//////////////////////////////////////////////////////////////
                               5. INDICES
    //////////////////////////////////////////////////////////////*/

    /// v3: one wei staked on a removed operator kept its index held, so a few wei could exhaust
    /// the 31 indices and block new operators. Now only a stake of at least one report bond of the
    /// set in force holds an index: holding all 31 costs 31 bonds, given to removed operators.
    function test_DustCannotHoldAnIndex() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.prank(owner);
        oracle.removeOperator(operator3);
        // The griefer's wei lands before the removed operator takes its stake out.
        vm.prank(carol);
        oracle.stake{value: 1}(operator3);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OperatorIndexReleased(operator3, 3);
        vm.prank(operator3);
        oracle.withdrawStake(STAKE);
    }

    /// A stake of one bond still holds the index (a removed operator's own stake waits for it).
    function test_ABondsWorthHoldsAnIndex() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.prank(owner);
        oracle.removeOperator(operator3);
        vm.prank(operator3);
        oracle.withdrawStake(STAKE - BOND);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasIndexInUse.selector, operator3));
        oracle.releaseIndex(operator3);
    }

    /// 5. v3: a failed Disputed callback stayed owed after the Arbitrated one was delivered, so
    /// `retryCallback` delivered Arbitrated a second time. Now a delivered status clears what a
    /// failed one owed.
    function test_RetryNeverDeliversTwice() public {
        DisputeAverseConsumer consumer = new DisputeAverseConsumer();
        _setParams(_params(1, CHALLENGE_WINDOW));
        IVeritasOracle.AskRules memory rules = _rules(address(consumer), 100_000);
        vm.prank(alice);
        uint256 id = oracle.askQuestion{value: ASK_FEE}(QUESTION, 0, rules);
        _report(operator, id, 20, 1, 0, false);
        vm.prank(carol);
        oracle.dispute{value: COURT_COST + BOND}(id, 0.05e18, 0.9e18, 0.05e18, carol);
        assertTrue(oracle.callbackOwed(id), "the Disputed callback failed");
        _rule(id, 1); // the verdict stands: Arbitrated is delivered
        assertEq(consumer.deliveries(), 1);
        assertFalse(oracle.callbackOwed(id), "nothing is owed after a later delivery");
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoCallbackOwed.selector, id));
        oracle.retryCallback(id);
    }
}
