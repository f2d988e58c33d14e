// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasOracle} from "../VeritasOracle.sol";

/// @notice Every state change emits its event, with every field the node and integrators read.
contract EventsTest is BaseTest {
    function test_EmitsQuestionAsked() public {
        uint64 resolveAfter = START_TIME + 1 days;
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionAsked(1, alice, sha256(bytes(QUESTION)), resolveAfter, QUESTION);
        vm.prank(alice);
        oracle.askQuestion(QUESTION, resolveAfter);
    }

    function test_QuestionAskedCarriesResolveAfterAsGiven() public {
        // Storage saturates to 40 bits; the event keeps what the asker sent.
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionAsked(1, alice, sha256(bytes(QUESTION)), type(uint64).max, QUESTION);
        vm.prank(alice);
        oracle.askQuestion(QUESTION, type(uint64).max);
    }

    function test_EmitsVerdictPosted() public {
        uint256 id = _ask();
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictPosted(id, ROOT, P_YES, P_NO, P_NULL, KAPPA, true, operator);
        _post(id, true);
    }

    function test_EmitsVerdictArbitrated() public {
        uint256 id = _askAndPost(true);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictArbitrated(id, 0.2e18, 0.7e18, 0.1e18, arbiter);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.2e18, 0.7e18, 0.1e18);
    }

    function test_EmitsOperatorAddedAndRemoved() public {
        vm.startPrank(owner);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OperatorAdded(bob);
        oracle.addOperator(bob);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OperatorRemoved(bob);
        oracle.removeOperator(bob);
        vm.stopPrank();
    }

    function test_EmitsArbiterChanged() public {
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ArbiterChanged(arbiter, bob);
        vm.prank(owner);
        oracle.setArbiter(bob);
    }

    function test_EmitsOwnershipEvents() public {
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OwnershipTransferStarted(owner, bob);
        vm.prank(owner);
        oracle.transferOwnership(bob);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OwnershipTransferred(owner, bob);
        vm.prank(bob);
        oracle.acceptOwnership();
    }

    function test_ConstructorEmitsOwnershipAndDefaultParameters() public {
        vm.expectEmit();
        emit IVeritasOracle.OwnershipTransferred(address(0), bob);
        vm.expectEmit();
        emit IVeritasOracle.ParametersChanged(
            0,
            IVeritasOracle.Parameters({
                quorum: 1,
                maxBallotsPerReport: 30,
                reportWindow: 1 days,
                challengeWindow: 0,
                askFee: 0,
                disputeBond: 0,
                evidenceFee: 0
            })
        );
        new VeritasOracle(bob);
    }

    function test_EmitsParametersChanged() public {
        IVeritasOracle.Parameters memory p = _params(3, CHALLENGE_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ParametersChanged(1, p);
        _setParams(p);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ParametersChanged(2, p);
        _setParams(p);
        assertEq(oracle.parameters().challengeWindow, CHALLENGE_WINDOW);
    }

    function test_EmitsReportSubmittedWithEveryField() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportSubmitted(id, operator2, ROOT, 3, 4, 5, KAPPA, true);
        _report(operator2, id, 3, 4, 5, true);
    }

    function test_AFinalisingReportLogsTheReportThenTheVerdict() public {
        uint256 id = _ask();
        vm.recordLogs();
        _post(id, false);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 2);
        assertEq(logs[0].topics[0], IVeritasOracle.ReportSubmitted.selector);
        assertEq(logs[1].topics[0], IVeritasOracle.VerdictPosted.selector);
        // Indexed: the id and the operator, what the node and dashboards filter on.
        assertEq(logs[1].topics[1], bytes32(id));
        assertEq(logs[1].topics[2], bytes32(uint256(uint160(operator))));
    }

    function test_EmitsExpiryAndCredit() public {
        _setParams(_params(1, 0));
        uint256 id = _ask();
        vm.warp(START_TIME + REPORT_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionExpired(id, ASK_FEE);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.Credited(alice, id, ASK_FEE);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionSettled(id);
        oracle.finalize(id);
    }
}
