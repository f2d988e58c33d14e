// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../interfaces/IVeritasConsumer.sol";
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

/// @notice The example market checks the question and rules it was written for, closes staking at
/// a fixed time, settles on the oracle's callback (or the pull path) only on final verdicts, and
/// pays out as documented.
contract ExampleMarketTest is BaseTest {
    uint64 internal constant RESOLVE_AFTER = START_TIME + 1 days;
    uint64 internal constant CLOSES_AT = START_TIME + 1 days - 1 hours;

    ExampleMarket internal market;
    uint256 internal id;
    address internal carol = makeAddr("carol");

    function setUp() public override {
        super.setUp();
        _setParams(_params(1, 0));
        market = _market(0);
        id = market.open{value: ASK_FEE}(QUESTION);
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
        vm.deal(carol, 100 ether);
    }

    /// @dev A market for QUESTION under the parameter set in force, needing `challengeWindow`.
    function _market(uint32 challengeWindow) internal returns (ExampleMarket) {
        return new ExampleMarket(
            oracle,
            sha256(bytes(QUESTION)),
            RESOLVE_AFTER,
            CLOSES_AT,
            ExampleMarket.Rules(oracle.parametersId(), address(court), 1, challengeWindow)
        );
    }

    function _stake(address who, bool onYes, uint256 amount) internal {
        vm.prank(who);
        market.stake{value: amount}(onYes);
    }

    /// @dev At resolveAfter the operator reports the counts whose posterior is exactly the triple.
    function _postTriple(uint256 pYes, uint256 pNo, uint256 pNull, bool escalated) internal {
        vm.warp(RESOLVE_AFTER);
        if (pYes == 0.6e18 && pNo == 0.3e18 && pNull == 0.1e18) _report(operator, id, 5, 2, 0, escalated);
        else if (pYes == 0.2e18 && pNo == 0.7e18 && pNull == 0.1e18) _report(operator, id, 1, 6, 0, escalated);
        else if (pYes == 0.2e18 && pNo == 0.3e18 && pNull == 0.5e18) _report(operator, id, 1, 2, 4, escalated);
        else if (pYes == 0.4e18 && pNo == 0.4e18 && pNull == 0.2e18) _report(operator, id, 3, 3, 1, escalated);
        else revert("no counts for this triple");
    }

    function test_OpenChecksTheQuestionAndItsRules() public {
        assertEq(market.questionId(), id);
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        assertEq(q.consumer, address(market));
        assertEq(q.resolveAfter, RESOLVE_AFTER);
        vm.expectRevert(ExampleMarket.MarketAlreadyOpen.selector);
        market.open{value: ASK_FEE}(QUESTION);

        ExampleMarket other = _market(0);
        bytes32 wrong = sha256(bytes("Will it rain?"));
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketWrongQuestion.selector, sha256(bytes(QUESTION)), wrong)
        );
        other.open{value: ASK_FEE}("Will it rain?");

        // Written for a one-hour challenge window: the parameters in force have none.
        ExampleMarket strict = _market(1 hours);
        vm.expectRevert(ExampleMarket.MarketWrongRules.selector);
        strict.open{value: ASK_FEE}(QUESTION);

        // Written for parameter set 1: the owner created set 2 in between.
        ExampleMarket stale = _market(0);
        _setParams(_params(1, 0));
        vm.expectRevert(abi.encodeWithSelector(IVeritasOracle.VeritasParametersMismatch.selector, 1, 2));
        stale.open{value: ASK_FEE}(QUESTION);
    }

    function test_RevertIf_StakingClosesAfterResolveAfter() public {
        uint16 pid = oracle.parametersId();
        bytes32 questionHash = sha256(bytes(QUESTION)); // a precompile call: before expectRevert
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketBadSchedule.selector, RESOLVE_AFTER + 1, RESOLVE_AFTER)
        );
        new ExampleMarket(
            oracle, questionHash, RESOLVE_AFTER, RESOLVE_AFTER + 1, ExampleMarket.Rules(pid, address(court), 1, 0)
        );
    }

    function test_StakeRecordsBothSides() public {
        _stake(alice, true, 1 ether);
        _stake(alice, true, 2 ether);
        _stake(bob, false, 5 ether);
        assertEq(market.stakeYes(alice), 3 ether);
        assertEq(market.stakeNo(bob), 5 ether);
        assertEq(market.totalYes(), 3 ether);
        assertEq(market.totalNo(), 5 ether);
    }

    function test_RevertIf_ZeroStake() public {
        vm.expectRevert(ExampleMarket.MarketZeroStake.selector);
        _stake(alice, true, 0);
    }

    /// v2 closed staking on the oracle's status: between resolveAfter and the report, or while a
    /// verdict was escalated, a late staker could bet with the answer in hand. Now the clock decides.
    function test_RevertIf_StakeAfterTheFixedClose() public {
        vm.warp(CLOSES_AT);
        assertEq(uint8(oracle.verdictStatus(id)), uint8(IVeritasOracle.VerdictStatus.Asked));
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketStakingClosed.selector, CLOSES_AT));
        _stake(alice, true, 1 ether);
    }

    function test_RevertIf_SettleWithoutVerdict() public {
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Asked)
        );
        market.settle();
    }

    function test_EscalatedDoesNotSettle() public {
        _postTriple(0.6e18, 0.3e18, 0.1e18, true);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Open));
        vm.expectRevert(
            abi.encodeWithSelector(ExampleMarket.MarketVerdictNotFinal.selector, IVeritasOracle.VerdictStatus.Escalated)
        );
        market.settle();
    }

    function test_YesWinsOnTheCallbackAndSharesThePot() public {
        _stake(alice, true, 1 ether);
        _stake(carol, true, 3 ether);
        _stake(bob, false, 4 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Yes), "settled by the callback");
        vm.prank(alice);
        assertEq(market.claim(), 2 ether);
        vm.prank(carol);
        assertEq(market.claim(), 6 ether);
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketNothingToClaim.selector, bob));
        vm.prank(bob);
        market.claim();
    }

    function test_NoWins() public {
        _stake(alice, true, 1 ether);
        _stake(bob, false, 1 ether);
        _postTriple(0.2e18, 0.7e18, 0.1e18, false);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.No));
        vm.prank(bob);
        assertEq(market.claim(), 2 ether);
    }

    function test_NullOrTieRefundsEveryone() public {
        _stake(alice, true, 1 ether);
        _stake(bob, false, 2 ether);
        _postTriple(0.2e18, 0.3e18, 0.5e18, false);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Refund));
        vm.prank(bob);
        assertEq(market.claim(), 2 ether);
    }

    /// @dev Issue #26: 3 YES / 3 NO (pYes = pNo + 1 wei) no longer resolves: the tie escalates,
    /// and the market waits for the court instead of paying YES by the odd wei.
    function test_TieForTheTopEscalatesAndTheMarketWaits() public {
        _stake(alice, true, 1 ether);
        _postTriple(0.4e18, 0.4e18, 0.2e18, false);
        assertEq(uint8(_status(id)), uint8(IVeritasOracle.VerdictStatus.Escalated));
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Open));
    }

    function test_EmptyWinningSideRefunds() public {
        _stake(bob, false, 1 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Refund));
    }

    function test_PullPathWhenTheCallbackFailed() public {
        _stake(alice, true, 1 ether);
        vm.mockCallRevert(address(market), abi.encodeWithSelector(IVeritasConsumer.onVeritasVerdict.selector), "");
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertTrue(oracle.callbackOwed(id));
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Open));
        vm.clearMockedCalls();
        assertEq(uint8(market.settle()), uint8(ExampleMarket.Outcome.Yes));
        // A retry now finds the market settled and is accepted without effect.
        oracle.retryCallback(id);
        assertFalse(oracle.callbackOwed(id));
        vm.expectRevert(ExampleMarket.MarketAlreadySettled.selector);
        market.settle();
    }

    function test_RevertIf_CallbackFromAStranger() public {
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketNotOracle.selector, bob));
        vm.prank(bob);
        market.onVeritasVerdict(id, IVeritasOracle.VerdictStatus.Resolved, 0.98e18, 0.01e18, 0.01e18);
    }

    function test_RevertIf_ClaimBeforeSettle() public {
        _stake(alice, true, 1 ether);
        vm.expectRevert(ExampleMarket.MarketNotSettled.selector);
        vm.prank(alice);
        market.claim();
    }

    function test_RevertIf_TransferFails() public {
        RejectingStaker staker = new RejectingStaker();
        staker.stake{value: 1 ether}(market, true);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        vm.expectRevert(abi.encodeWithSelector(ExampleMarket.MarketTransferFailed.selector, address(staker), 1 ether));
        staker.claim(market);
    }

    function test_ExpiredQuestionRefunds() public {
        _stake(alice, true, 1 ether);
        vm.warp(RESOLVE_AFTER + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Refund));
        vm.prank(alice);
        assertEq(market.claim(), 1 ether);
    }

    /// @dev Issue #43: the market is its question's asker, so an expired question's ask fee is
    /// credited to the market. Without a way to withdraw it (and to receive the transfer) the
    /// refund stayed in the oracle for ever; now it goes to whoever opened the market, and the
    /// stakers' refunds are untouched.
    function test_OpenerReclaimsTheRefundedAskFee() public {
        address dave = makeAddr("dave");
        vm.deal(dave, 1 ether);
        market = _market(0);
        vm.prank(dave);
        id = market.open{value: ASK_FEE}(QUESTION);
        assertEq(market.opener(), dave);
        _stake(alice, true, 1 ether);
        vm.expectRevert(ExampleMarket.MarketNoRefund.selector);
        market.reclaimAskFee();

        vm.warp(RESOLVE_AFTER + REPORT_WINDOW);
        oracle.finalize(id);
        assertEq(oracle.credits(address(market)), ASK_FEE, "the oracle refunds the asker: the market");
        vm.prank(carol); // anyone may call; the fee goes to the opener
        assertEq(market.reclaimAskFee(), ASK_FEE);
        assertEq(dave.balance, 1 ether, "the opener has its ask fee back");
        assertEq(oracle.credits(address(market)), 0);
        assertEq(address(market).balance, 1 ether, "the stakes stay in the market");
        vm.prank(alice);
        assertEq(market.claim(), 1 ether);
        vm.expectRevert(ExampleMarket.MarketNoRefund.selector);
        market.reclaimAskFee();
    }

    function test_RevertIf_EtherFromAnyoneButTheOracle() public {
        vm.prank(alice);
        (bool ok, bytes memory err) = address(market).call{value: 1}("");
        assertFalse(ok);
        assertEq(err, abi.encodeWithSelector(ExampleMarket.MarketUnexpectedEther.selector, alice));
    }

    function test_DisputeThenRulingSettlesOnTheRuling() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        market = _market(CHALLENGE_WINDOW);
        id = market.open{value: ASK_FEE}(QUESTION);
        _stake(alice, true, 1 ether);
        _stake(bob, false, 1 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Open), "not final in its window");
        _dispute(carol, id); // claims (0.2, 0.7, 0.1)
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Open), "Disputed is ignored");
        _rule(id, 6);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.No));
    }

    function test_SettlesAfterTheChallengeWindowThroughOracleSettle() public {
        _setParams(_params(1, CHALLENGE_WINDOW));
        market = _market(CHALLENGE_WINDOW);
        id = market.open{value: ASK_FEE}(QUESTION);
        _stake(alice, true, 1 ether);
        _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        vm.warp(block.timestamp + CHALLENGE_WINDOW);
        oracle.settle(id);
        assertEq(uint8(market.outcome()), uint8(ExampleMarket.Outcome.Yes));
    }

    function testFuzz_PayoutsNeverExceedThePot(uint96 a, uint96 b, uint96 c, uint8 which) public {
        a = uint96(bound(a, 1, 10 ether));
        b = uint96(bound(b, 1, 10 ether));
        c = uint96(bound(c, 1, 10 ether));
        _stake(alice, true, a);
        _stake(carol, true, c);
        _stake(bob, false, b);
        if (which % 3 == 0) _postTriple(0.6e18, 0.3e18, 0.1e18, false);
        else if (which % 3 == 1) _postTriple(0.2e18, 0.7e18, 0.1e18, false);
        else _postTriple(0.2e18, 0.3e18, 0.5e18, false);
        uint256 paid;
        address[3] memory stakers = [alice, carol, bob];
        for (uint256 i = 0; i < 3; i++) {
            vm.prank(stakers[i]);
            try market.claim() returns (uint256 amount) {
                paid += amount;
            } catch {}
        }
        assertLe(paid, uint256(a) + b + c);
        assertGe(paid + 3, uint256(a) + b + c, "dust only");
    }
}
