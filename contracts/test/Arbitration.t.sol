// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice The human in the loop: the arbiter rules once on an escalated or disputed verdict.
contract ArbitrationTest is BaseTest {
    function test_ArbitrateReplacesTripleKeepsRootAndKappa() public {
        uint256 id = _askAndPost(true);
        vm.warp(START_TIME + 3 days);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.01e18, 0.98e18, 0.01e18);

        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Arbitrated));
        (
            bytes32 questionHash,
            bytes32 merkleRoot,
            uint256 pYes,
            uint256 pNo,
            uint256 pNull,
            int256 fleissKappa,
            uint256 timestamp
        ) = oracle.getVerdict(id);
        assertEq(questionHash, sha256(bytes(QUESTION)));
        assertEq(merkleRoot, ROOT);
        assertEq(pYes, 0.01e18);
        assertEq(pNo, 0.98e18);
        assertEq(pNull, 0.01e18);
        assertEq(fleissKappa, KAPPA);
        assertEq(timestamp, START_TIME + 3 days);
        // An arbitration is not a new verdict.
        assertEq(oracle.verdictCount(), 1);
    }

    function test_RevertIf_ArbitratedTwice() public {
        uint256 id = _askAndPost(true);
        vm.startPrank(arbiter);
        oracle.arbitrate(id, 0.01e18, 0.98e18, 0.01e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotArbitrable.selector, id, IVeritasOracle.VerdictStatus.Arbitrated
            )
        );
        oracle.arbitrate(id, 0.98e18, 0.01e18, 0.01e18);
        vm.stopPrank();
    }

    function test_RevertIf_ArbitrateResolvedVerdict() public {
        uint256 id = _askAndPost(false);
        vm.expectRevert(
            abi.encodeWithSelector(
                IVeritasOracle.VeritasNotArbitrable.selector, id, IVeritasOracle.VerdictStatus.Resolved
            )
        );
        vm.prank(arbiter);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
    }

    function test_RevertIf_ArbitrateWithoutVerdict() public {
        uint256 id = _ask();
        vm.startPrank(arbiter);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotArbitrable.selector, id, IVeritasOracle.VerdictStatus.Asked)
        );
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
        vm.expectRevert(
            abi.encodeWithSelector(IVeritasOracle.VeritasNotArbitrable.selector, 99, IVeritasOracle.VerdictStatus.None)
        );
        oracle.arbitrate(99, P_YES, P_NO, P_NULL);
        vm.stopPrank();
    }

    function test_RevertIf_NonArbiterArbitrates() public {
        uint256 id = _askAndPost(true);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotArbiter.selector, owner));
        vm.prank(owner);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotArbiter.selector, operator));
        vm.prank(operator);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
    }

    function test_RevertIf_ArbitrateWithBadTriple() public {
        uint256 id = _askAndPost(true);
        vm.startPrank(arbiter);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroProbability.selector, uint8(2)));
        oracle.arbitrate(id, 0.5e18, 0.5e18, 0);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasProbabilitySum.selector, WAD + 2));
        oracle.arbitrate(id, 0.5e18, 0.5e18, 2);
        vm.stopPrank();
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
    }

    function test_FormerArbiterLosesRole() public {
        uint256 id = _askAndPost(true);
        vm.prank(owner);
        oracle.setArbiter(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotArbiter.selector, arbiter));
        vm.prank(arbiter);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
        vm.prank(bob);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
    }

    function testFuzz_ArbitrateAcceptsValidTriples(uint256 a, uint256 b) public {
        (uint256 pYes, uint256 pNo, uint256 pNull) = _validTriple(a, b);
        uint256 id = _askAndPost(true);
        vm.prank(arbiter);
        oracle.arbitrate(id, pYes, pNo, pNull);
        (,, uint256 rYes, uint256 rNo, uint256 rNull,,) = oracle.getVerdict(id);
        assertEq(rYes, pYes);
        assertEq(rNo, pNo);
        assertEq(rNull, pNull);
    }
}
