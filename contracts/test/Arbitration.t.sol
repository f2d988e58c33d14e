// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasCourt} from "../court/VeritasCourt.sol";

/// @notice The court's ruling on an escalated verdict: what it replaces, what it keeps, who may give it.
contract ArbitrationTest is BaseTest {
    function setUp() public override {
        super.setUp();
        _setParams(_params(1, CHALLENGE_WINDOW));
    }

    function test_RulingReplacesTripleKeepsRootAndKappa() public {
        uint256 id = _askAndPost(true);
        _request(id);
        vm.warp(START_TIME + 100);
        uint256 disputeId = oracle.getCase(id).disputeId;
        vm.prank(arbiter);
        court.giveRuling(disputeId, 2);
        vm.warp(START_TIME + 100 + APPEAL_PERIOD);
        vm.expectEmit(address(oracle));
        emit IVeritasOracle.VerdictArbitrated(id, WAD - 2, 1, 1, 2, false, address(court));
        court.executeRuling(disputeId);
        (bytes32 qh, bytes32 root, uint256 pYes, uint256 pNo, uint256 pNull, int256 kappa, uint256 ts) =
            oracle.getVerdict(id);
        assertEq(qh, sha256(bytes(QUESTION)));
        assertEq(root, ROOT);
        assertEq(pYes, WAD - 2);
        assertEq(pNo, 1);
        assertEq(pNull, 1);
        assertEq(kappa, KAPPA);
        assertEq(ts, START_TIME + 100 + APPEAL_PERIOD);
        assertEq(oracle.finalAt(id), ts);
        assertTrue(oracle.isFinal(id));
    }

    function test_RevertIf_RuledTwice() public {
        uint256 id = _askAndPost(true);
        _request(id);
        _rule(id, 2);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotInCourt.selector, id, IVeritasOracle.VerdictStatus.Arbitrated
            )
        );
        vm.prank(address(court));
        oracle.rule(0, 3);
    }

    function test_RevertIf_RuleOnAnUnknownCase() public {
        _askAndPost(true);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasUnknownDispute.selector, address(court), 7));
        vm.prank(address(court));
        oracle.rule(7, 1);
    }

    function test_RevertIf_NonJudgeRules() public {
        uint256 id = _askAndPost(true);
        uint256 disputeId = _request(id);
        vm.expectRevert(abi.encodeWithSelector(VeritasCourt.CourtNotJudge.selector, disputeId, owner));
        vm.prank(owner);
        court.giveRuling(disputeId, 1);
    }

    function test_RevertIf_NoArbitrator() public {
        // The constructor's defaults: no court, no challenge window.
        IVeritasOracle.Parameters memory p = _params(1, 0);
        p.arbitrator = address(0);
        _setParams(p);
        uint256 id = _askAndPost(true);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNoArbitrator.selector, id));
        vm.prank(bob);
        oracle.requestArbitration(id);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
    }

    function testFuzz_EveryEscalationRulingIsFinal(uint256 ruling) public {
        ruling = bound(ruling, 0, 4);
        uint256 id = _askAndPost(true);
        _request(id);
        _rule(id, ruling);
        assertTrue(oracle.isFinal(id));
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
        assertEq(pYes + pNo + pNull, WAD);
        // Issue #26: the fee goes to the reporter when the ruling agrees with its YES (verdict
        // stands, YES), else back to the asker (NO, unresolvable, or a refusal: a default).
        uint256 earned = ruling == 1 || ruling == 2 ? ASK_FEE : 0;
        assertEq(oracle.credits(operator), earned);
        assertEq(oracle.credits(alice), ASK_FEE - earned);
    }
}
