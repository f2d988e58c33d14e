// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {ExampleMarket} from "../examples/ExampleMarket.sol";

/// @dev A staker whose `receive` always fails.
contract RejectingStaker {
    function stake(ExampleMarket market, bool onYes) external payable {
        market.stake{value: msg.value}(onYes);
    }

    function claim(ExampleMarket market) external {
        market.claim();
    }
}

/// @notice The example market settles only on final verdicts and pays out as documented.
contract ExampleMarketTest is BaseTest {
    ExampleMarket internal market;
    uint256 internal id;
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        id = _ask();
        market = new ExampleMarket(oracle, id);
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
        vm.deal(carol, 100 ether);
    }

    function _stake(address who, bool onYes, uint256 amount) internal {
        vm.prank(who);
        market.stake{value: amount}(onYes);
    }

    /// @dev The operator reports (nYes, nNo, nNull) for the market's question.
    function _reportCounts(uint16 y, uint16 n, uint16 u, bool escalated) internal {
        _report(operator, id, y, n, u, escalated);
    }

    /// @dev Reports the counts whose pooled posterior is exactly the triple: (alpha = n + 1) / 10.
    function _postTriple(uint256 pYes, uint256 pNo, uint256 pNull, bool escalated) internal {
        if (pYes == 0.6e18 && pNo == 0.3e18 && pNull == 0.1e18) _reportCounts(5, 2, 0, escalated);
        else if (pYes == 0.2e18 && pNo == 0.7e18 && pNull == 0.1e18) _reportCounts(1, 6, 0, escalated);
        else if (pYes == 0.2e18 && pNo == 0.3e18 && pNull == 0.5e18) _reportCounts(1, 2, 4, escalated);
        else if (pYes == 0.5e18 && pNo == 0.4e18 && pNull == 0.1e18) _reportCounts(4, 3, 0, escalated);
        else revert("no counts for this triple");
    }

    function test_RevertIf_UnknownQuestion() public {
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketUnknownQuestion.selector, 2));
        new ExampleMarket(oracle, 2);
    }

    function test_StakeRecordsBothSides() public {
        _stake(alice, true, 1 ether);
        _stake(alice, true, 2 ether);
        _stake(bob, false, 4 ether);
        assertEq(market.stakeYes(alice), 3 ether);
        assertEq(market.stakeNo(bob), 4 ether);
        assertEq(market.totalYes(), 3 ether);
        assertEq(market.totalNo(), 4 ether);
        assertEq(address(market).balance, 7 ether);
    }

    function test_RevertIf_ZeroStake() public {
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketZeroStake.selector));
        _stake(alice, true, 0);
    }

    function test_RevertIf_StakeAfterVerdict() public {
        _postTriple(P_YES, P_NO, P_NULL, false);
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketStakingClosed.selector, IVeritasOracle.VerdictStatus.Resolved)
        );
        _stake(alice, true, 1 ether);
    }

    function test_RevertIf_SettleWithoutVerdict() public {
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Asked)
        );
        market.settle();
    }

    function test_RevertIf_SettleOnEscalated() public {
        _postTriple(P_YES, P_NO, P_NULL, true);
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Escalated)
        );
        market.settle();
    }

    function test_YesWinsAndSharesThePot() public {
        _stake(alice, true, 1 ether);
        _stake(carol, true, 3 ether);
        _stake(bob, false, 4 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Yes));

        uint256 before = alice.balance;
        vm.prank(alice);
        assertEq(market.claim(), 2 ether);
        assertEq(alice.balance, before + 2 ether);
        vm.prank(carol);
        assertEq(market.claim(), 6 ether);
        assertEq(address(market).balance, 0);

        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketNothingToClaim.selector, bob));
        vm.prank(bob);
        market.claim();
    }

    function test_NoWins() public {
        _stake(alice, true, 1 ether);
        _stake(bob, false, 1 ether);
        _postTriple(0.2e18, 0.7e18, 0.1e18, false);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.No));
        vm.prank(bob);
        assertEq(market.claim(), 2 ether);
    }

    function test_NullWinsRefundsEveryone() public {
        _stake(alice, true, 1 ether);
        _stake(alice, false, 0.5 ether);
        _stake(bob, false, 2 ether);
        _postTriple(0.2e18, 0.3e18, 0.5e18, false);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Refund));
        vm.prank(alice);
        assertEq(market.claim(), 1.5 ether);
        vm.prank(bob);
        assertEq(market.claim(), 2 ether);
    }

    function test_TieForTheTopRefunds() public {
        _stake(alice, true, 1 ether);
        // Pooled counts never tie exactly (the odd unit goes to YES), so the tie is the arbiter's.
        _reportCounts(2, 2, 0, true);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.45e18, 0.45e18, 0.1e18);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Refund));
    }

    function test_EmptyWinningSideRefunds() public {
        _stake(bob, false, 1 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Refund));
        vm.prank(bob);
        assertEq(market.claim(), 1 ether);
    }

    function test_SettlesOnArbitratedVerdict() public {
        _stake(alice, true, 1 ether);
        _stake(bob, false, 1 ether);
        // The committee leaned YES but escalated; the arbiter says NO.
        _postTriple(0.5e18, 0.4e18, 0.1e18, true);
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.05e18, 0.9e18, 0.05e18);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.No));
    }

    function test_RevertIf_SettledTwice() public {
        _postTriple(P_YES, P_NO, P_NULL, false);
        market.settle();
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketAlreadySettled.selector));
        market.settle();
    }

    function test_RevertIf_ClaimBeforeSettle() public {
        _stake(alice, true, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketNotSettled.selector));
        vm.prank(alice);
        market.claim();
    }

    function test_RevertIf_ClaimedTwice() public {
        _stake(alice, true, 1 ether);
        _postTriple(P_YES, P_NO, P_NULL, false);
        market.settle();
        vm.startPrank(alice);
        market.claim();
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketNothingToClaim.selector, alice));
        market.claim();
        vm.stopPrank();
    }

    function test_RevertIf_TransferFails() public {
        RejectingStaker staker = new RejectingStaker();
        staker.stake{value: 1 ether}(market, true);
        _postTriple(P_YES, P_NO, P_NULL, false);
        market.settle();
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketTransferFailed.selector, address(staker), 1 ether));
        staker.claim(market);
    }

    function testFuzz_PayoutsNeverExceedThePot(uint96 a, uint96 c, uint96 b, uint16 x, uint16 y, uint16 z) public {
        vm.assume(a > 0 && b > 0 && c > 0);
        vm.deal(alice, a);
        vm.deal(carol, c);
        vm.deal(bob, b);
        _stake(alice, true, a);
        _stake(carol, true, c);
        _stake(bob, false, b);
        x = uint16(bound(x, 0, 30));
        y = uint16(bound(y, 0, 30 - x));
        z = uint16(bound(z, 0, 30 - x - y));
        _reportCounts(x, y, z, false);
        ExampleMarket.Outcome outcome = market.settle();

        uint256 paid;
        address[3] memory stakers = [alice, carol, bob];
        for (uint256 i = 0; i < 3; i++) {
            vm.prank(stakers[i]);
            try market.claim() returns (uint256 amount) {
                paid += amount;
            } catch {}
        }
        uint256 pot = uint256(a) + c + b;
        assertLe(paid, pot);
        // Rounding down loses at most one wei per winner.
        assertGe(paid + 2, pot);
        if (outcome == ExampleMarket.Outcome.No) assertEq(paid, pot);
    }

    /*//////////////////////////////////////////////////////////////
                       FINALITY, DISPUTES, EXPIRY
    //////////////////////////////////////////////////////////////*/

    function _marketWithWindow() internal {
        _setParams(_params(1, CHALLENGE_WINDOW));
        id = _ask();
        market = new ExampleMarket(oracle, id);
    }

    function test_RevertIf_SettleInsideTheChallengeWindow() public {
        _marketWithWindow();
        _postTriple(P_YES, P_NO, P_NULL, false);
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Resolved)
        );
        market.settle();
        vm.warp(START_TIME + CHALLENGE_WINDOW);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Refund)); // nobody staked YES
    }

    function test_DisputeThenArbitrationSettlesOnTheRuling() public {
        _marketWithWindow();
        _stake(alice, true, 1 ether);
        _stake(bob, false, 3 ether);
        _postTriple(P_YES, P_NO, P_NULL, false); // the committee says YES
        vm.prank(bob);
        oracle.dispute{value: BOND}(id);
        vm.warp(START_TIME + 10 days);
        // Disputed: not final however long it waits.
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Disputed)
        );
        market.settle();
        vm.prank(arbiter);
        oracle.arbitrate(id, 0.1e18, 0.85e18, 0.05e18); // the arbiter says NO
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.No));
        vm.prank(bob);
        assertEq(market.claim(), 4 ether);
        assertEq(oracle.credits(bob), BOND + ASK_FEE, "the disputer won its bond back and the fee");
    }

    function test_DisputeUpheldSettlesOnTheCommittee() public {
        _marketWithWindow();
        _stake(alice, true, 1 ether);
        _stake(bob, false, 1 ether);
        _postTriple(P_YES, P_NO, P_NULL, false);
        vm.prank(bob);
        oracle.dispute{value: BOND}(id);
        vm.prank(arbiter);
        oracle.arbitrate(id, P_YES, P_NO, P_NULL);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Yes));
        assertEq(oracle.credits(operator), BOND + ASK_FEE, "the bond went to the reporter");
    }

    function test_ExpiredQuestionRefunds() public {
        _stake(alice, true, 1 ether);
        _stake(bob, false, 2 ether);
        vm.warp(START_TIME + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Refund));
        vm.prank(alice);
        assertEq(market.claim(), 1 ether);
        vm.prank(bob);
        assertEq(market.claim(), 2 ether);
    }
}
