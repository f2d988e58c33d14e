// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IOracleModules, Shipped} from "../../script/Shipped.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @notice Issue #26 stage A, rule by rule: stakes and their locks, slashing, the dispute's
/// beneficiary, fee by agreement, ties and the weight of a dissent, evidence prices and refunds,
/// the ask horizon, reusable operator indices, and the modules behind the oracle's address.
contract StakeTest is BaseTest {
    address internal carol = makeAddr("carol");
    address internal constant BURN = address(0xdEaD);

    function setUp() public override {
        super.setUp();
        vm.deal(carol, 100 ether);
    }

    function _locked(address op) internal view returns (uint256 locked, uint256 open) {
        (, locked, open) = oracle.operatorStake(op);
    }

    /*//////////////////////////////////////////////////////////////
                                 STAKE
    //////////////////////////////////////////////////////////////*/

    function test_AnyoneFundsAStakeOnlyTheOperatorWithdraws() public {
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.Staked(operator, bob, 1 ether, STAKE + 1 ether);
        vm.prank(bob);
        oracle.stake{value: 1 ether}(operator);
        (uint256 staked,,) = oracle.operatorStake(operator);
        assertEq(staked, STAKE + 1 ether);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientStake.selector, bob, 0, 1));
        oracle.withdrawStake(1);
        vm.prank(operator);
        oracle.withdrawStake(1 ether);
        assertEq(oracle.credits(operator), 1 ether);
    }

    function test_RevertIf_StakeForZeroAddress() public {
        vm.prank(bob);
        vm.expectRevert(IVeritasOracle.VeritasZeroAddress.selector);
        oracle.stake{value: 1}(address(0));
    }

    function test_ReportLocksTheBondUntilSettled() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _post(id, false);
        (uint256 locked, uint256 open) = _locked(operator);
        assertEq(locked, BOND);
        assertEq(open, 1);
        uint256 free = STAKE - BOND;
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientStake.selector, operator, free, STAKE));
        oracle.withdrawStake(STAKE);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        (locked, open) = _locked(operator);
        assertEq(locked, 0);
        assertEq(open, 0);
        vm.prank(operator);
        oracle.withdrawStake(STAKE);
    }

    function test_NoLockWithoutAChallengeWindow() public {
        _setParams(_params(1, 0));
        uint256 id = _ask();
        _post(id, false);
        (uint256 locked, uint256 open) = _locked(operator);
        assertEq(locked, 0);
        assertEq(open, 1, "the report still holds the index until settled");
    }

    function test_RevertIf_FreeStakeBelowTheBond() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.withdrawStake(STAKE - BOND + 1);
        assertFalse(oracle.canReport(id, operator));
        vm.prank(operator);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientStake.selector, operator, BOND - 1, BOND)
        );
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
    }

    function test_OneStakeCannotBackMoreReportsThanItsBonds() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        vm.prank(operator);
        oracle.withdrawStake(STAKE - 2 * BOND);
        uint256 a = _ask();
        uint256 b = _ask();
        uint256 c = _ask();
        _post(a, false);
        _post(b, false);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInsufficientStake.selector, operator, 0, BOND));
        oracle.submitReport(c, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
    }

    /*//////////////////////////////////////////////////////////////
                          SLASHING AND DISPUTES
    //////////////////////////////////////////////////////////////*/

    function test_DisputePaysItsBeneficiaryNotItsSender() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _post(id, false); // YES-leading
        vm.prank(bob);
        oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, carol);
        IVeritasOracle.Case memory c = oracle.getCase(id);
        assertEq(c.disputer, carol);
        assertEq(c.requester, bob);
        _rule(id, 6); // the disputer's NO-leading triple
        assertEq(oracle.credits(bob), 0);
        assertEq(oracle.credits(carol), BOND + ASK_FEE + BOND / 2);
        assertEq(oracle.credits(BURN), BOND / 2);
    }

    function test_RevertIf_DisputeWithoutBeneficiary() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _post(id, false);
        vm.prank(bob);
        vm.expectRevert(IVeritasOracle.VeritasZeroAddress.selector);
        oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, address(0));
    }

    /// @dev A judge who sends a dispute naming someone else as its beneficiary is still a party.
    function test_JudgeWhoSentADisputeCannotRule() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _post(id, false);
        vm.deal(arbiter, 1 ether);
        vm.prank(arbiter);
        uint256 disputeId = oracle.dispute{value: COURT_COST + BOND}(id, C_YES, C_NO, C_NULL, carol);
        vm.prank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtJudgeIsParty.selector, disputeId, arbiter));
        court.giveRuling(disputeId, 6);
    }

    /// @dev Quorum 3: two say YES, one NO; the court rules NO. The two YES reporters are slashed,
    /// the NO reporter keeps its bond (and earns nothing: the disputer takes the fee).
    function test_OnlyTheLosingReportersAreSlashed() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, keccak256("a"), 20, 1, 0, KAPPA, false, false);
        vm.prank(operator2);
        oracle.submitReport(id, keccak256("b"), 20, 1, 0, KAPPA, false, false);
        vm.prank(operator3);
        oracle.submitReport(id, keccak256("c"), 1, 20, 0, KAPPA, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        _dispute(carol, id);
        _rule(id, 3); // NO
        (uint256 s1,,) = oracle.operatorStake(operator);
        (uint256 s2,,) = oracle.operatorStake(operator2);
        (uint256 s3, uint256 l3,) = oracle.operatorStake(operator3);
        assertEq(s1, STAKE - BOND);
        assertEq(s2, STAKE - BOND);
        assertEq(s3, STAKE);
        assertEq(l3, 0);
        assertEq(oracle.credits(carol), BOND + ASK_FEE + BOND);
        assertEq(oracle.credits(BURN), BOND);
    }

    /// @dev An escalation ruled by the court pays the reporters that agree with the ruling and,
    /// since issue #43, slashes those it rejected, paying the requester from it.
    function test_EscalationPaysTheAgreeingReportersOnly() public {
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, keccak256("a"), 20, 1, 0, KAPPA, false, false);
        vm.prank(operator2);
        oracle.submitReport(id, keccak256("b"), 1, 20, 0, KAPPA, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        _request(id);
        _rule(id, 3); // NO
        assertEq(oracle.credits(operator), 0);
        assertEq(oracle.credits(operator2), ASK_FEE);
        (uint256 s1, uint256 l1,) = oracle.operatorStake(operator);
        assertEq(s1, STAKE - BOND, "the rejected reporter is slashed");
        assertEq(l1, 0);
        assertEq(oracle.credits(bob), BOND - BOND / 2, "the requester is paid from the slash");
    }

    /// @dev A default pays no reporter: the fee goes back to the asker.
    function test_DefaultRefundsTheAsker() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _ask();
        _post(id, true);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(id);
        assertEq(oracle.credits(operator), 0);
        assertEq(oracle.credits(alice), ASK_FEE);
        (, uint256 locked,) = oracle.operatorStake(operator);
        assertEq(locked, 0);
    }

    /*//////////////////////////////////////////////////////////////
                          TIES AND DISSENT
    //////////////////////////////////////////////////////////////*/

    function test_PooledTieEscalatesWithReasonBit3() public {
        _setParams(_params(2, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, keccak256("a"), 10, 5, 0, KAPPA, false, false);
        vm.expectEmit(true, false, false, false, address(oracle));
        emit IVeritasOracle.VerdictPosted(id, bytes32(0), 0, 0, 0, 0, true, 8 | 2, operator2);
        vm.prank(operator2);
        oracle.submitReport(id, keccak256("b"), 5, 10, 0, KAPPA, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_NullTieWithYesEscalates() public {
        uint256 id = _ask();
        _report(operator, id, 4, 0, 4, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_ClearLeaderDoesNotEscalate() public {
        uint256 id = _ask();
        _report(operator, id, 4, 3, 3, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    /// @dev The minimum weight of an escalation request: half of the reports.
    function test_EscalationNeedsHalfTheReports() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 one = _ask();
        vm.prank(operator);
        oracle.submitReport(one, keccak256("a"), 20, 1, 0, KAPPA, true, false);
        vm.prank(operator2);
        oracle.submitReport(one, keccak256("b"), 20, 1, 0, KAPPA, false, false);
        vm.prank(operator3);
        oracle.submitReport(one, keccak256("c"), 20, 1, 0, KAPPA, false, false);
        assertEq(uint8(_status(one)), uint8(IVeritasOracle.VerdictStatus.Resolved));
        uint256 two = _ask();
        vm.prank(operator);
        oracle.submitReport(two, keccak256("a"), 20, 1, 0, KAPPA, true, false);
        vm.prank(operator2);
        oracle.submitReport(two, keccak256("b"), 20, 1, 0, KAPPA, true, false);
        vm.prank(operator3);
        oracle.submitReport(two, keccak256("c"), 20, 1, 0, KAPPA, false, false);
        assertEq(uint8(_status(two)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    /// @dev Two dissenters of three (a pooled minority of reports leading) escalate.
    function test_TwoDissentersOfThreeEscalate() public {
        _setParams(_params(3, CHALLENGE_WINDOW));
        uint256 id = _ask();
        vm.prank(operator);
        oracle.submitReport(id, keccak256("a"), 30, 0, 0, KAPPA, false, false);
        vm.prank(operator2);
        oracle.submitReport(id, keccak256("b"), 1, 2, 0, KAPPA, false, false);
        vm.prank(operator3);
        oracle.submitReport(id, keccak256("c"), 1, 2, 0, KAPPA, false, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    /*//////////////////////////////////////////////////////////////
                                EVIDENCE
    //////////////////////////////////////////////////////////////*/

    function test_EvidencePriceDoublesEveryEightItems() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        for (uint256 i = 0; i < 17; i++) {
            address who = address(uint160(0x9000 + i));
            uint256 fee = oracle.nextEvidenceFee(id);
            assertEq(fee, EVIDENCE_FEE << (i / 8));
            vm.deal(who, fee);
            vm.prank(who);
            oracle.submitEvidence{value: fee}(id, "u", "t", "s");
            (uint256 paid, uint256 items) = oracle.evidenceOf(id, who);
            assertEq(paid, fee);
            assertEq(items, 1);
        }
        assertEq(oracle.pendingFee(id), ASK_FEE + 8 * EVIDENCE_FEE + 8 * 2 * EVIDENCE_FEE + 4 * EVIDENCE_FEE);
    }

    function test_RevertIf_EvidencePaysTheOldPrice() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        for (uint256 i = 0; i < 8; i++) {
            vm.deal(address(uint160(0x9000 + i)), EVIDENCE_FEE);
            vm.prank(address(uint160(0x9000 + i)));
            oracle.submitEvidence{value: EVIDENCE_FEE}(id, "u", "t", "s");
        }
        vm.prank(bob);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasWrongPayment.selector, EVIDENCE_FEE, 2 * EVIDENCE_FEE)
        );
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, "u", "t", "s");
    }

    function test_RevertIf_RefundBeforeExpiryOrTwice() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAt(START_TIME + 1 days);
        vm.prank(bob);
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, "u", "t", "s");
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNothingToRefund.selector, id, bob));
        oracle.refundEvidence(id);
        vm.warp(START_TIME + 1 days + REPORT_WINDOW);
        oracle.finalize(id);
        vm.prank(bob);
        assertEq(oracle.refundEvidence(id), EVIDENCE_FEE);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNothingToRefund.selector, id, bob));
        oracle.refundEvidence(id);
    }

    /*//////////////////////////////////////////////////////////////
                          HORIZON AND INDICES
    //////////////////////////////////////////////////////////////*/

    function test_OwnerSetsTheHorizon() public {
        assertEq(oracle.maxHorizon(), 365 days);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, bob));
        oracle.setMaxHorizon(2 days);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasInvalidHorizon.selector, 1 hours));
        oracle.setMaxHorizon(1 hours);
        vm.prank(owner);
        oracle.setMaxHorizon(2 days);
        _askAt(uint64(block.timestamp + 2 days));
        IVeritasOracle.AskRules memory rules = _rules();
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasTooFarAhead.selector, block.timestamp + 2 days + 1, block.timestamp + 2 days
            )
        );
        oracle.askQuestion(QUESTION, uint64(block.timestamp + 2 days + 1), rules);
    }

    /// @dev A removed operator keeps its index while a question it reported on is unsettled,
    /// then gives it back; a new operator takes it and reports.
    function test_IndexIsReleasedOnceNothingRefersToIt() public {
        IVeritasOracle fresh = Shipped.oracle(owner);
        vm.startPrank(owner);
        for (uint256 i = 1; i <= 31; i++) {
            fresh.addOperator(address(uint160(0x1000 + i)));
        }
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyOperators.selector, 31));
        fresh.addOperator(address(0xbeef));
        vm.stopPrank();
        address first = address(uint160(0x1001));
        vm.prank(alice);
        uint256 id = fresh.askQuestion(QUESTION, 0, _rulesOf(address(fresh)));
        vm.prank(first);
        fresh.submitReport(id, ROOT, 3, 1, 0, 0, false, false); // final at once, not yet settled
        vm.prank(owner);
        fresh.removeOperator(first);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyOperators.selector, 31));
        fresh.addOperator(address(0xbeef));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasIndexInUse.selector, first));
        fresh.releaseIndex(first);
        fresh.settle(id);
        vm.expectEmit(address(fresh));
        emit IVeritasOracle.OperatorIndexReleased(first, 1);
        fresh.releaseIndex(first);
        assertFalse(fresh.hasReported(id, first));
        vm.prank(owner);
        fresh.addOperator(address(0xbeef));
        vm.prank(alice);
        uint256 next = fresh.askQuestion(QUESTION, 0, _rulesOf(address(fresh)));
        vm.prank(address(0xbeef));
        fresh.submitReport(next, ROOT, 3, 1, 0, 0, false, false);
        assertEq(uint8(fresh.verdictStatus(next)), uint8(IVeritasOracle.VerdictStatus.Resolved));
    }

    /*//////////////////////////////////////////////////////////////
                                MODULES
    //////////////////////////////////////////////////////////////*/

    /// @dev Each module's code on its own storage: no owner, no question, no case, nothing to
    /// steal; and no wei can be sent there (its payable functions refuse a direct call).
    function test_ModulesCalledDirectlyHoldNothing() public {
        _ask();
        IVeritasOracle admin = IVeritasOracle(IOracleModules(address(oracle)).ADMIN_MODULE());
        IVeritasOracle court = IVeritasOracle(IOracleModules(address(oracle)).COURT_MODULE());
        assertEq(admin.owner(), address(0));
        assertEq(admin.questionCount(), 0);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, owner));
        admin.addOperator(bob);
        assertEq(court.getCase(1).disputer, address(0));
        vm.deal(bob, 1 ether);
        vm.startPrank(bob);
        vm.expectRevert(IVeritasOracle.VeritasModuleCalledDirectly.selector);
        court.dispute{value: 1}(1, 0.5e18, 0.25e18, 0.25e18, bob);
        vm.expectRevert(IVeritasOracle.VeritasModuleCalledDirectly.selector);
        court.requestArbitration{value: 1}(1);
        vm.expectRevert(IVeritasOracle.VeritasModuleCalledDirectly.selector);
        court.appeal{value: 1}(1);
        vm.expectRevert(IVeritasOracle.VeritasModuleCalledDirectly.selector);
        admin.stake{value: 1}(bob);
        vm.stopPrank();
        assertEq(address(admin).balance + address(court).balance, 0);
    }

    /// @dev A selector no contract of the oracle declares reverts with it, money or not.
    function test_AnUndeclaredSelectorReverts() public {
        vm.deal(bob, 1 ether);
        vm.prank(bob);
        (bool ok, bytes memory ret) = address(oracle).call{value: 1}(abi.encodeWithSignature("mint(uint256)", 1));
        assertFalse(ok);
        assertEq(
            ret,
            abi.encodeWithSelector(IVeritasOracle.VeritasUnknownFunction.selector, bytes4(keccak256("mint(uint256)")))
        );
    }

    function test_RevertIf_PlainEtherSent() public {
        vm.prank(bob);
        (bool ok,) = address(oracle).call{value: 1}("");
        assertFalse(ok);
    }
}
