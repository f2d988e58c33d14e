// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Two-step ownership transfer.
contract OwnershipTest is BaseTest {
    function test_TwoStepTransfer() public {
        vm.prank(owner);
        oracle.transferOwnership(bob);
        assertEq(oracle.owner(), owner);
        assertEq(oracle.pendingOwner(), bob);

        vm.prank(bob);
        oracle.acceptOwnership();
        assertEq(oracle.owner(), bob);
        assertEq(oracle.pendingOwner(), address(0));
    }

    function test_FormerOwnerLosesRights() public {
        vm.prank(owner);
        oracle.transferOwnership(bob);
        vm.prank(bob);
        oracle.acceptOwnership();
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, owner));
        vm.prank(owner);
        oracle.addOperator(alice);
        vm.prank(bob);
        oracle.addOperator(alice);
        assertTrue(oracle.isOperator(alice));
    }

    function test_TransferKeepsCounters() public {
        // Owner and counters share a slot: changing one must not touch the others.
        _askAndPost(false);
        _ask();
        vm.prank(owner);
        oracle.transferOwnership(bob);
        vm.prank(bob);
        oracle.acceptOwnership();
        assertEq(oracle.questionCount(), 2);
        assertEq(oracle.verdictCount(), 1);
        assertEq(_ask(), 3);
        assertEq(oracle.owner(), bob);
    }

    function test_RevertIf_NonPendingOwnerAccepts() public {
        vm.prank(owner);
        oracle.transferOwnership(bob);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotPendingOwner.selector, alice));
        vm.prank(alice);
        oracle.acceptOwnership();
    }

    function test_RevertIf_AcceptWithoutTransfer() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotPendingOwner.selector, owner));
        vm.prank(owner);
        oracle.acceptOwnership();
    }

    function test_RevertIf_NonOwnerTransfers() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotOwner.selector, bob));
        vm.prank(bob);
        oracle.transferOwnership(bob);
    }

    function test_RevertIf_TransferToZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasZeroAddress.selector));
        vm.prank(owner);
        oracle.transferOwnership(address(0));
    }

    function test_NewProposalReplacesPending() public {
        vm.startPrank(owner);
        oracle.transferOwnership(bob);
        oracle.transferOwnership(alice);
        vm.stopPrank();
        assertEq(oracle.pendingOwner(), alice);
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasNotPendingOwner.selector, bob));
        vm.prank(bob);
        oracle.acceptOwnership();
    }

    function test_ProposingSelfCancelsPendingTransfer() public {
        vm.startPrank(owner);
        oracle.transferOwnership(bob);
        oracle.transferOwnership(owner);
        oracle.acceptOwnership();
        vm.stopPrank();
        assertEq(oracle.owner(), owner);
        assertEq(oracle.pendingOwner(), address(0));
    }

    function testFuzz_TransferToAnyAccount(address newOwner) public {
        vm.assume(newOwner != address(0));
        vm.prank(owner);
        oracle.transferOwnership(newOwner);
        vm.prank(newOwner);
        oracle.acceptOwnership();
        assertEq(oracle.owner(), newOwner);
    }
}
