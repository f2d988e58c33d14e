// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";
import {IEvidence} from "../interfaces/IEvidence.sol";
import {SimpleCentralizedArbitrator} from "@kleros/erc-792/examples/SimpleCentralizedArbitrator.sol";
import {CentralizedArbitratorWithAppeal} from "@kleros/erc-792/examples/CentralizedArbitratorWithAppeal.sol";

/// @notice ERC-792 compatibility, proven against Kleros's own example arbitrators from the npm
/// package (kleros erc-792 8.0.0): the oracle is disputed through them, appealed through our
/// `appeal(id)`, and every ruling is exercised.
contract KlerosTest is BaseTest {
    address internal carol = makeAddr("carol");
    address internal klerosOwner = makeAddr("klerosOwner");
    SimpleCentralizedArbitrator internal simple;
    CentralizedArbitratorWithAppeal internal appealable;

    function setUp() public override {
        super.setUp();
        vm.deal(carol, 100 ether);
        vm.deal(klerosOwner, 1 ether);
        vm.startPrank(klerosOwner);
        simple = new SimpleCentralizedArbitrator();
        appealable = new CentralizedArbitratorWithAppeal();
        vm.stopPrank();
    }

    function _useCourt(address arbitrator) internal {
        IVeritasOracle.Parameters memory p = _params(1, CHALLENGE_WINDOW);
        p.arbitrator = arbitrator;
        _setParams(p);
    }

    /// @dev Carol disputes a fresh verdict, claiming (C_YES, C_NO, C_NULL).
    function _disputed(uint256 expectedDisputeId) internal returns (uint256 id, uint256 disputeId) {
        id = _askAndPost(false);
        uint256 cost = oracle.courtCost(id);
        address arbitrator = oracle.questionParameters(id).arbitrator;
        uint256 parametersId = oracle.parametersId();
        vm.expectEmit(address(oracle));
        emit IEvidence.Dispute(arbitrator, expectedDisputeId, parametersId, id);
        vm.prank(carol);
        disputeId = oracle.dispute{value: cost + BOND}(id, C_YES, C_NO, C_NULL, carol);
    }

    function test_SimpleCentralizedArbitratorEveryRuling() public {
        _useCourt(address(simple));
        // Every ruling but 5, too early, which defers instead of ending (Deferral.t.sol); the
        // court numbers its disputes from 0.
        for (uint256 k = 0; k < 6; k++) {
            uint256 ruling = k == 5 ? 6 : k;
            (uint256 id, uint256 disputeId) = _disputed(k);
            assertEq(address(simple).balance, 0.1 ether, "the oracle paid Kleros's arbitrationCost");
            vm.expectEmit(address(oracle));
            emit IArbitrable.Ruling(address(simple), disputeId, ruling);
            vm.prank(klerosOwner);
            simple.rule(disputeId, ruling);
            IVeritasOracle.VerdictStatus expected =
                ruling == 0 ? IVeritasOracle.VerdictStatus.Defaulted : IVeritasOracle.VerdictStatus.Arbitrated;
            assertEq(uint8(_status(id)), uint8(expected));
            assertTrue(oracle.isFinal(id));
            // Issue #26: a ruling other than YES (the reporter's leading outcome) also slashes
            // the reporter's bond, half of which goes to the disputer. Issue #43: a refusal (0)
            // defaults, and a default burns the dispute bond.
            uint256 carolGain =
                ruling == 0 ? 0 : ruling == 1 ? 0 : ruling == 2 ? BOND + ASK_FEE : BOND + ASK_FEE + BOND / 2;
            assertEq(oracle.credits(carol), carolGain, "disputer's credit");
            vm.prank(carol);
            if (carolGain > 0) oracle.withdraw();
        }
    }

    function test_SimpleCentralizedArbitratorOnAnEscalation() public {
        _useCourt(address(simple));
        uint256 id = _askAndPost(true);
        uint256 cost = oracle.courtCost(id);
        vm.prank(bob);
        uint256 disputeId = oracle.requestArbitration{value: cost}(id);
        vm.prank(klerosOwner);
        vm.expectRevert(abi.encodeWithSelector(SimpleCentralizedArbitrator.InvalidRuling.selector, 6, 5));
        simple.rule(disputeId, 6);
        vm.prank(klerosOwner);
        simple.rule(disputeId, 4);
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
        assertEq(pYes, 1);
        assertEq(pNo, 1);
        assertEq(pNull, WAD - 2);
    }

    function test_CentralizedArbitratorWithAppealEveryRuling() public {
        _useCourt(address(appealable));
        // Every ruling but 5, too early, which defers instead of ending (Deferral.t.sol); the
        // court numbers its disputes from 0.
        for (uint256 k = 0; k < 6; k++) {
            uint256 ruling = k == 5 ? 6 : k;
            (uint256 id, uint256 disputeId) = _disputed(k);
            vm.prank(klerosOwner);
            appealable.giveRuling(disputeId, ruling == 1 ? 2 : 1);
            // The losing side appeals through the oracle; Kleros's example charges 2^appeals x fee.
            uint256 cost = oracle.courtCost(id) * 2;
            vm.prank(carol);
            oracle.appeal{value: cost}(id);
            assertEq(uint8(appealable.disputeStatus(disputeId)), 0, "back to Waiting");
            vm.prank(klerosOwner);
            appealable.giveRuling(disputeId, ruling);
            (, uint256 end) = appealable.appealPeriod(disputeId);
            vm.warp(end + 1);
            appealable.executeRuling(disputeId);
            assertTrue(oracle.isFinal(id));
            assertEq(oracle.getCase(id).ruling, ruling);
            // Issue #26: a ruling other than YES (the reporter's leading outcome) also slashes
            // the reporter's bond, half of which goes to the disputer. Issue #43: a refusal (0)
            // defaults, and a default burns the dispute bond.
            // Since the appeal refund: carol's appeal won whenever the final ruling took the other
            // side than the one she appealed (every ruling but the refusal), and the losing side's
            // forfeit refunds it before the burn: her own bond for ruling 1, the slashed report
            // bond for 3 to 5 (nothing is slashed for 2, which agrees with the reporter).
            uint256 carolGain = ruling == 0
                ? 0
                : ruling == 1 ? cost : ruling == 2 ? BOND + ASK_FEE : BOND + ASK_FEE + BOND / 2 + cost / 2;
            assertEq(oracle.credits(carol), carolGain, "disputer's credit");
            vm.prank(carol);
            if (carolGain > 0) oracle.withdraw();
        }
    }

    function test_RevertIf_KlerosAppealAfterItsPeriod() public {
        _useCourt(address(appealable));
        (uint256 id, uint256 disputeId) = _disputed(0);
        vm.prank(klerosOwner);
        appealable.giveRuling(disputeId, 1);
        (, uint256 end) = appealable.appealPeriod(disputeId);
        vm.warp(end + 1);
        uint256 cost = oracle.courtCost(id) * 2;
        vm.expectRevert(
            abi.encodeWithSelector(CentralizedArbitratorWithAppeal.AfterAppealPeriodEnd.selector, end + 1, end)
        );
        vm.prank(carol);
        oracle.appeal{value: cost}(id);
    }

    function test_SilentKlerosCourtDefaults() public {
        _useCourt(address(appealable));
        (uint256 id,) = _disputed(0);
        vm.warp(block.timestamp + ARBITRATION_WINDOW);
        oracle.resolveByDefault(id);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Defaulted));
        assertEq(oracle.credits(carol), 0, "a default burns the dispute bond (#43)");
    }
}
