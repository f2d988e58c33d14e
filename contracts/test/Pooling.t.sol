// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {Shipped} from "../../script/Shipped.sol";

/// @dev `harness/PoolingHarness.sol`: the oracle (via-IR) with its pooled rule exposed.
interface IPoolingHarness {
    function wadTriple(uint256 nYes, uint256 nNo, uint256 nNull) external pure returns (uint256, uint256, uint256);
}

/// @notice The on-chain pooled triple against an independent reference of the README's rule
/// (`BaseTest._referenceTriple`), and against known values the node's `stats::to_wad` also checks.
contract PoolingTest is BaseTest {
    IPoolingHarness internal harness;

    function setUp() public override {
        super.setUp();
        (address court, address admin) = Shipped.modules();
        harness = IPoolingHarness(Shipped.deploy("PoolingHarness.sol:PoolingHarness", abi.encode(court, admin)));
    }

    function _assertMatches(uint256 y, uint256 n, uint256 u) internal view {
        (uint256 pYes, uint256 pNo, uint256 pNull) = harness.wadTriple(y, n, u);
        uint256[3] memory p = _referenceTriple(y, n, u);
        assertEq(pYes, p[0], "pYes");
        assertEq(pNo, p[1], "pNo");
        assertEq(pNull, p[2], "pNull");
        assertEq(pYes + pNo + pNull, WAD);
        assertGt(pYes, 0);
        assertGt(pNo, 0);
        assertGt(pNull, 0);
    }

    function test_KnownValues() public view {
        (uint256 a, uint256 b, uint256 c) = harness.wadTriple(0, 0, 0);
        assertEq(a, 333_333_333_333_333_334);
        assertEq(b, 333_333_333_333_333_333);
        assertEq(c, 333_333_333_333_333_333);
        // n = (4, 4, 1): alpha = (5, 5, 2) / 12; remainders 8, 8, 8; two units to YES and NO.
        (a, b, c) = harness.wadTriple(4, 4, 1);
        assertEq(a, 416_666_666_666_666_667);
        assertEq(b, 416_666_666_666_666_667);
        assertEq(c, 166_666_666_666_666_666);
        (a, b, c) = harness.wadTriple(5, 2, 0);
        assertEq(a, P_YES);
        assertEq(b, P_NO);
        assertEq(c, P_NULL);
    }

    function test_EdgesMatchTheReference() public view {
        uint256 cap = oracle.MAX_BALLOTS_PER_REPORT() * oracle.MAX_QUORUM();
        _assertMatches(0, 0, 0);
        _assertMatches(30, 0, 0);
        _assertMatches(0, 30, 0);
        _assertMatches(0, 0, 30);
        _assertMatches(10, 10, 10);
        _assertMatches(cap, 0, 0);
        _assertMatches(0, 0, cap);
        _assertMatches(type(uint16).max, type(uint16).max, type(uint16).max);
    }

    function testFuzz_SmallCountsMatchTheReference(uint256 y, uint256 n, uint256 u) public view {
        _assertMatches(bound(y, 0, 90), bound(n, 0, 90), bound(u, 0, 90));
    }

    function testFuzz_AnyCountsMatchTheReference(uint16 y, uint16 n, uint16 u) public view {
        _assertMatches(y, n, u);
    }

    function testFuzz_PooledReportsMatchTheReference(uint256 seed) public {
        // Three reports of random counts within the cap (0 and 30 included, never all three 0) pooled.
        _setParams(_params(3, 0));
        uint256 id = _ask();
        address[3] memory ops = [operator, operator2, operator3];
        uint256[3] memory sum;
        for (uint256 i = 0; i < 3; i++) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint16 y = uint16(bound(r, 0, 30));
            uint16 n = uint16(bound(r >> 64, 0, 30 - y));
            uint16 u = uint16(bound(r >> 128, y + n == 0 ? 1 : 0, 30 - y - n)); // one valid ballot at least
            sum[0] += y;
            sum[1] += n;
            sum[2] += u;
            _report(ops[i], id, y, n, u, false);
        }
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(id);
        uint256[3] memory p = _referenceTriple(sum[0], sum[1], sum[2]);
        assertEq(pYes, p[0]);
        assertEq(pNo, p[1]);
        assertEq(pNull, p[2]);
    }
}
