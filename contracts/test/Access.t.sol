// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {Shipped} from "../../script/Shipped.sol";

/// @notice Who may call what: operators report, the owner administers, the arbiter arbitrates.
contract AccessTest is BaseTest {
    function test_RevertIf_NonOperatorPosts() public {
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, alice));
        vm.prank(alice);
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
    }

    function test_RevertIf_OwnerPostsWithoutOperatorRole() public {
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, owner));
        vm.prank(owner);
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
    }

    function test_RevertIf_RemovedOperatorPosts() public {
        uint256 id = _ask();
        vm.prank(owner);
        oracle.removeOperator(operator);
        assertFalse(oracle.isOperator(operator));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, operator));
        _post(id, false);
    }

    function test_OperatorCheckComesBeforeQuestionCheck() public {
        // A stranger learns nothing about ids: the role check fires first.
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, bob));
        vm.prank(bob);
        oracle.submitReport(42, ROOT, 0, 0, 0, 0, false, false);
    }

    function testFuzz_RevertIf_StrangerPosts(address caller) public {
        vm.assume(caller != operator && caller != operator2 && caller != operator3);
        uint256 id = _ask();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, caller));
        vm.prank(caller);
        oracle.submitReport(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
    }

    function test_SeveralOperatorsCanPost() public {
        vm.prank(owner);
        oracle.addOperator(bob);
        assertTrue(oracle.isOperator(bob));
        uint256 a = _ask();
        uint256 b = _ask();
        _post(a, false);
        vm.prank(bob);
        oracle.submitReport(b, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        assertEq(oracle.verdictCount(), 2);
    }

    function test_AnyoneCanAsk() public {
        vm.prank(bob);
        uint256 id = oracle.askQuestion(QUESTION, 0, _rules());
        assertEq(oracle.getQuestion(id).asker, bob);
    }

    function test_AddAndRemoveOperatorAreIdempotent() public {
        vm.startPrank(owner);
        vm.recordLogs();
        oracle.addOperator(operator); // already one: no event
        oracle.removeOperator(bob); // never one: no event
        assertEq(vm.getRecordedLogs().length, 0);
        assertTrue(oracle.isOperator(operator));
        assertFalse(oracle.isOperator(bob));
        vm.stopPrank();
    }

    function test_RevertIf_NonOwnerAddsOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, operator));
        vm.prank(operator);
        oracle.addOperator(bob);
    }

    function test_RevertIf_NonOwnerRemovesOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, alice));
        vm.prank(alice);
        oracle.removeOperator(operator);
    }

    function test_RevertIf_NonOwnerChangesOperators() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, arbiter));
        vm.prank(arbiter);
        oracle.addOperator(bob);
    }

    function test_RevertIf_ZeroAddressOperator() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroAddress.selector));
        vm.prank(owner);
        oracle.addOperator(address(0));
    }

    function test_RevertIf_ZeroAddressInitialOwner() public {
        bytes memory initcode = Shipped.oracleInitcode(address(0));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroAddress.selector));
        Shipped.create(initcode);
    }

    function test_EveryOperatorChangeStartsAnEpoch() public {
        assertEq(oracle.operatorEpoch(), 3);
        assertEq(oracle.activeOperatorCount(), 3);
        vm.startPrank(owner);
        oracle.addOperator(bob);
        oracle.addOperator(bob); // idempotent: no new epoch
        assertEq(oracle.operatorEpoch(), 4);
        oracle.removeOperator(bob);
        oracle.removeOperator(bob);
        vm.stopPrank();
        assertEq(oracle.operatorEpoch(), 5);
        assertEq(oracle.activeOperatorCount(), 3);
    }

    function test_RevertIf_NonOperatorBatches() public {
        uint256 id = _ask();
        IVeritasOracle.Report[] memory reports = new IVeritasOracle.Report[](1);
        reports[0] = IVeritasOracle.Report(id, ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOperator.selector, bob));
        vm.prank(bob);
        oracle.submitReports(reports);
    }

    function test_RevertIf_NonOwnerSetsParameters() public {
        IVeritasOracle.Parameters memory p = _params(2, 0);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, operator));
        vm.prank(operator);
        oracle.setParameters(p, "");
    }

    function test_ReAddedOperatorKeepsItsIndex() public {
        // operator2 reports under quorum 2, is removed and added again: its report is still its
        // own, and it may not report again (nor on anything asked before its re-addition).
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _report(operator2, id, 1, 0, 0, false);
        vm.startPrank(owner);
        oracle.removeOperator(operator2);
        oracle.addOperator(operator2);
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotQuestionOperator.selector, id, operator2));
        _report(operator2, id, 1, 0, 0, false);
        assertTrue(oracle.hasReported(id, operator2));
        assertFalse(oracle.canReport(id, operator2));
    }

    function test_RevertIf_TooManyOperators() public {
        IVeritasOracle fresh = Shipped.oracle(owner);
        vm.startPrank(owner);
        for (uint256 i = 1; i <= fresh.MAX_OPERATORS(); i++) {
            fresh.addOperator(address(uint160(0x1000 + i)));
        }
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasTooManyOperators.selector, fresh.MAX_OPERATORS()));
        fresh.addOperator(address(0xdead));
        vm.stopPrank();
    }

    function test_NewOracleHasNoOperatorsNorArbitrator() public {
        IVeritasOracle fresh = Shipped.oracle(owner);
        assertEq(fresh.owner(), owner);
        assertEq(fresh.parameters().arbitrator, address(0));
        assertEq(fresh.operatorEpoch(), 0);
        assertFalse(fresh.isOperator(owner));
        assertEq(fresh.questionCount(), 0);
        assertEq(fresh.verdictCount(), 0);
    }
}
