// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice `submitReports`: many questions in one transaction; stale reports are skipped with an
/// event, never reverting the batch; invalid ones revert it.
contract BatchTest is BaseTest {
    function _batch(uint256[] memory ids) internal pure returns (IVeritasOracle.Report[] memory reports) {
        reports = new IVeritasOracle.Report[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            reports[i] = IVeritasOracle.Report(ids[i], ROOT, N_YES, N_NO, N_NULL, KAPPA, false, false);
        }
    }

    function test_BatchPostsEveryQuestion() public {
        uint256[] memory ids = new uint256[](5);
        for (uint256 i = 0; i < ids.length; i++) {
            ids[i] = _ask();
        }
        vm.prank(operator);
        assertEq(oracle.submitReports(_batch(ids)), 5);
        assertEq(oracle.verdictCount(), 5);
        for (uint256 i = 0; i < ids.length; i++) {
            assertEq(uint8(_status(ids[i])), uint8(IVeritasOracle.VerdictStatus.Resolved));
        }
    }

    function test_StaleReportsAreSkippedWithAnEvent() public {
        _setParams(_params(2, 0));
        uint256 reported = _ask(); // the operator already reported (quorum 2: still open)
        uint256 resolved = _ask(); // already has its verdict
        uint256 fresh = _ask();
        _post(reported, false);
        _report(operator2, resolved, 1, 0, 0, false);
        _report(operator3, resolved, 1, 0, 0, false);
        uint256[] memory ids = new uint256[](3);
        ids[0] = reported;
        ids[1] = resolved;
        ids[2] = fresh;

        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportSkipped(reported, operator, IVeritasOracle.VeritasAlreadyReported.selector);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.ReportSkipped(resolved, operator, IVeritasOracle.VeritasNotOpen.selector);
        vm.prank(operator);
        assertEq(oracle.submitReports(_batch(ids)), 1);
        (uint256 reports,,,) = oracle.tally(fresh);
        assertEq(reports, 1);
    }

    function test_ClosedWindowIsSkipped() public {
        uint256 late = _ask();
        vm.warp(START_TIME + REPORT_WINDOW);
        uint256[] memory ids = new uint256[](1);
        ids[0] = late;
        vm.recordLogs();
        vm.prank(operator);
        assertEq(oracle.submitReports(_batch(ids)), 0);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1);
        assertEq(logs[0].topics[0], IVeritasOracle.ReportSkipped.selector);
        assertEq(abi.decode(logs[0].data, (bytes4)), IVeritasOracle.VeritasReportWindowClosed.selector);
    }

    function test_RevertIf_BatchHoldsAnInvalidReport() public {
        uint256 a = _ask();
        uint256[] memory ids = new uint256[](2);
        ids[0] = a;
        ids[1] = 77;
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownQuestion.selector, 77));
        vm.prank(operator);
        oracle.submitReports(_batch(ids));
        assertEq(uint8(_status(a)), uint8(IVeritasOracle.VerdictStatus.Asked), "nothing of the batch stayed");
    }

    function test_DuplicateInOneBatchIsSkipped() public {
        _setParams(_params(2, 0));
        uint256 a = _ask();
        uint256[] memory ids = new uint256[](2);
        ids[0] = a;
        ids[1] = a;
        vm.prank(operator);
        assertEq(oracle.submitReports(_batch(ids)), 1);
    }
}
