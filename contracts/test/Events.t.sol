// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {Shipped} from "../../script/Shipped.sol";
import {IEvidence} from "../interfaces/IEvidence.sol";

/// @notice Every state change emits its event, with every field the node and integrators read.
contract EventsTest is BaseTest {
    function test_EmitsQuestionAsked() public {
        uint64 resolveAfter = START_TIME + 1 days;
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionAsked(
            1, alice, sha256(bytes(QUESTION)), resolveAfter, START_TIME, 0, 3, 0, address(0), 0, QUESTION
        );
        vm.prank(alice);
        oracle.askQuestion(QUESTION, resolveAfter, _rules());
    }

    function test_QuestionAskedCarriesResolveAfterAsGiven() public {
        // The farthest `resolveAfter` the horizon allows (issue #26: one year by default).
        uint64 latest = uint64(START_TIME + 365 days);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionAsked(
            1, alice, sha256(bytes(QUESTION)), latest, START_TIME, 0, 3, 0, address(0), 0, QUESTION
        );
        vm.prank(alice);
        oracle.askQuestion(QUESTION, latest, _rules());
    }

    function test_QuestionAskedCarriesPaymentRulesAndCallback() public {
        _setParams(_params(1, 0));
        address consumer = address(court); // any contract
        IVeritasOracle.AskRules memory rules = _rules(consumer, 50_000);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.QuestionAsked(
            1, alice, sha256(bytes(QUESTION)), 0, START_TIME, 1, 3, ASK_FEE + 5, consumer, 50_000, QUESTION
        );
        vm.prank(alice);
        oracle.askQuestion{value: ASK_FEE + 5}(QUESTION, 0, rules);
    }

    function test_EmitsVerdictPosted() public {
        uint256 id = _ask();
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictPosted(id, ROOT, P_YES, P_NO, P_NULL, KAPPA, true, 1, operator);
        _post(id, true);
    }

    function test_VerdictPostedSaysWhyItEscalated() public {
        _setParams(_params(2, 0));
        uint256 id = _ask();
        _report(operator, id, 3, 0, 0, false);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictPosted(
            id, sha256(abi.encodePacked(ROOT, _rootOf(operator2))), 0.4e18, 0.5e18, 0.1e18, KAPPA, true, 2, operator2
        );
        _report(operator2, id, 0, 4, 0, false); // YES then NO: leading outcomes differ
        uint256 late = _ask();
        _report(operator, late, 5, 0, 0, true);
        vm.warp(block.timestamp + REPORT_WINDOW);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictPosted(late, ROOT, 0.75e18, 0.125e18, 0.125e18, KAPPA, true, 5, bob);
        vm.prank(bob);
        oracle.finalize(late);
    }

    function test_EmitsVerdictArbitrated() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        uint256 id = _askAndPost(true);
        _request(id);
        uint256 disputeId = _giveRuling(id, 3);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictArbitrated(id, 1, WAD - 2, 1, 3, false, address(court));
        court.executeRuling(disputeId);
    }

    function test_EmitsErc1497Events() public {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        vm.expectEmit(address(oracle));
        emit IEvidence.MetaEvidence(1, "ipfs://meta");
        _setParams(p);
        uint256 id = _askAt(START_TIME + 1 days);
        vm.expectEmit(address(oracle));
        emit IEvidence.Evidence(address(court), id, bob, "https://x");
        vm.prank(bob);
        oracle.submitEvidence{value: EVIDENCE_FEE}(id, "https://x", "t", "s");
        vm.warp(START_TIME + 1 days);
        _post(id, false);
        vm.expectEmit(address(oracle));
        emit IEvidence.Dispute(address(court), 0, 1, id);
        _dispute(bob, id);
    }

    function test_EmitsOperatorAddedAndRemoved() public {
        vm.startPrank(owner);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OperatorAdded(bob, 4);
        oracle.addOperator(bob);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.OperatorRemoved(bob, 5);
        oracle.removeOperator(bob);
        vm.stopPrank();
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
                arbitrationWindow: 1 days,
                askFee: 0,
                disputeBond: 0,
                evidenceFee: 0,
                arbitrator: address(0),
                arbitratorExtraData: "",
                revealWindow: 0
            })
        );
        vm.expectEmit();
        emit IEvidence.MetaEvidence(0, "");
        Shipped.oracle(bob);
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
        emit IVeritasOracle.ReportSubmitted(id, operator2, _rootOf(operator2), 3, 4, 5, KAPPA, true);
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
