// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {VeritasOracle} from "../VeritasOracle.sol";

/// @notice Shared fixture: a deployed oracle with one operator and an arbiter, and helpers to ask
/// and post. Every concern's test contract inherits it.
abstract contract BaseTest is Test {
    uint256 internal constant WAD = 1e18;
    uint64 internal constant START_TIME = 1_750_000_000;

    // The posterior of 5 YES, 2 NO, 0 NULL ballots under Dir(1,1,1): (6, 3, 1) / 10.
    uint256 internal constant P_YES = 0.6e18;
    uint256 internal constant P_NO = 0.3e18;
    uint256 internal constant P_NULL = 0.1e18;
    int256 internal constant KAPPA = -0.25e18;
    bytes32 internal constant ROOT = keccak256("evidence root");
    string internal constant QUESTION = "Will the Eiffel Tower be open to visitors on 2026-12-01?";

    VeritasOracle internal oracle;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal arbiter = makeAddr("arbiter");
    address internal alice = makeAddr("alice");
    address internal bob = makeAddr("bob");

    function setUp() public virtual {
        vm.warp(START_TIME);
        oracle = new VeritasOracle(owner);
        vm.startPrank(owner);
        oracle.addOperator(operator);
        oracle.setArbiter(arbiter);
        vm.stopPrank();
    }

    /// @dev Alice asks `QUESTION`, resolvable at once.
    function _ask() internal returns (uint256 id) {
        vm.prank(alice);
        id = oracle.askQuestion(QUESTION, 0);
    }

    /// @dev The operator posts the default verdict for `id`.
    function _post(uint256 id, bool escalated) internal {
        vm.prank(operator);
        oracle.postVerdict(id, ROOT, P_YES, P_NO, P_NULL, KAPPA, escalated);
    }

    /// @dev Alice asks, the operator posts; returns the id.
    function _askAndPost(bool escalated) internal returns (uint256 id) {
        id = _ask();
        _post(id, escalated);
    }

    /// @dev Reshapes two fuzzed values into a valid triple: each >= 1, summing to exactly WAD.
    function _validTriple(uint256 a, uint256 b) internal pure returns (uint256 pYes, uint256 pNo, uint256 pNull) {
        pYes = bound(a, 1, WAD - 2);
        pNo = bound(b, 1, WAD - 1 - pYes);
        pNull = WAD - pYes - pNo;
    }

    /// @dev Shorthand for the status of `id`.
    function _status(uint256 id) internal view returns (IVeritasOracle.VerdictStatus) {
        return oracle.verdictStatus(id);
    }
}
