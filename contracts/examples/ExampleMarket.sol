// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @title ExampleMarket
/// @notice A minimal binary prediction market on one Veritas question, to show integrators the
/// intended reading pattern. Not audited; an illustration, not a product.
/// @dev The pattern: check `isFinal` first (it never reverts), then `verdictStatus`: an `Expired`
/// question has no verdict (refund); otherwise read the triple with `getVerdict`. A verdict that
/// is not final may still change (in its challenge window, disputed, or escalated to the
/// arbiter), so settling on it would race the dispute or the arbiter.
///
/// Rules: anyone stakes ETH on YES or NO while the question is still `Asked` (no verdict yet, so
/// nobody stakes with the answer in hand). Once settled, YES wins when pYes > pNo and pYes > pNull,
/// NO wins when pNo > pYes and pNo > pNull; winners share the whole pot pro rata to their stake
/// (rounded down; the dust stays in the contract). Otherwise (NULL most likely, or a tie for the
/// top, or nobody staked on the winning side, or the question expired unanswered) every stake is
/// refunded.
contract ExampleMarket {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice How the market settled.
    enum Outcome {
        Open,
        Yes,
        No,
        Refund
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `staker` added `amount` wei on YES (`onYes`) or NO.
    event Staked(address indexed staker, bool onYes, uint256 amount);

    /// @notice The market settled on `outcome` from the oracle's triple.
    event Settled(Outcome outcome, uint256 pYes, uint256 pNo, uint256 pNull);

    /// @notice `staker` was paid `amount` wei.
    event Claimed(address indexed staker, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The question is unknown to the oracle.
    error MarketUnknownQuestion(uint256 questionId);

    /// @notice Staking is closed: the question already has a verdict in `status`.
    error MarketStakingClosed(IVeritasOracle.VerdictStatus status);

    /// @notice A stake of zero wei.
    error MarketZeroStake();

    /// @notice The verdict is not final yet (`isFinal` is false); the question is in `status`.
    error MarketVerdictNotFinal(IVeritasOracle.VerdictStatus status);

    /// @notice The market has already settled.
    error MarketAlreadySettled();

    /// @notice The market has not settled yet.
    error MarketNotSettled();

    /// @notice `staker` has nothing to claim.
    error MarketNothingToClaim(address staker);

    /// @notice Sending `amount` wei to `to` failed.
    error MarketTransferFailed(address to, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The oracle this market reads.
    IVeritasOracle public immutable oracle;

    /// @notice The oracle question this market is about.
    uint256 public immutable questionId;

    /// @notice The settled outcome (`Open` until `settle`).
    Outcome public outcome;

    /// @notice Total wei staked on YES and on NO.
    uint256 public totalYes;
    uint256 public totalNo;

    /// @notice Each account's stake on YES and on NO.
    mapping(address staker => uint256) public stakeYes;
    mapping(address staker => uint256) public stakeNo;

    /*//////////////////////////////////////////////////////////////
                                 LOGIC
    //////////////////////////////////////////////////////////////*/

    /// @param oracle_ The Veritas oracle.
    /// @param questionId_ An id already asked on `oracle_`.
    constructor(IVeritasOracle oracle_, uint256 questionId_) {
        if (oracle_.verdictStatus(questionId_) == IVeritasOracle.VerdictStatus.None) {
            revert MarketUnknownQuestion(questionId_);
        }
        oracle = oracle_;
        questionId = questionId_;
    }

    /// @notice Stake `msg.value` on YES (`onYes`) or NO, while the question has no verdict.
    function stake(bool onYes) external payable {
        if (msg.value == 0) revert MarketZeroStake();
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(questionId);
        if (status != IVeritasOracle.VerdictStatus.Asked) revert MarketStakingClosed(status);
        if (onYes) {
            stakeYes[msg.sender] += msg.value;
            totalYes += msg.value;
        } else {
            stakeNo[msg.sender] += msg.value;
            totalNo += msg.value;
        }
        emit Staked(msg.sender, onYes, msg.value);
    }

    /// @notice Settle from the oracle's final verdict. Anyone may call it, once.
    function settle() external returns (Outcome settled) {
        if (outcome != Outcome.Open) revert MarketAlreadySettled();
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(questionId);
        if (!oracle.isFinal(questionId)) revert MarketVerdictNotFinal(status);
        if (status == IVeritasOracle.VerdictStatus.Expired) {
            // Final without a verdict: nobody answered in time.
            outcome = Outcome.Refund;
            emit Settled(Outcome.Refund, 0, 0, 0);
            return Outcome.Refund;
        }
        (,, uint256 pYes, uint256 pNo, uint256 pNull,,) = oracle.getVerdict(questionId);

        if (pYes > pNo && pYes > pNull && totalYes > 0) settled = Outcome.Yes;
        else if (pNo > pYes && pNo > pNull && totalNo > 0) settled = Outcome.No;
        else settled = Outcome.Refund;
        outcome = settled;
        emit Settled(settled, pYes, pNo, pNull);
    }

    /// @notice Pay the caller its winnings (or its stakes back on a refund).
    function claim() external returns (uint256 amount) {
        Outcome settled = outcome;
        if (settled == Outcome.Open) revert MarketNotSettled();
        uint256 onYes = stakeYes[msg.sender];
        uint256 onNo = stakeNo[msg.sender];
        uint256 pot = totalYes + totalNo;
        if (settled == Outcome.Yes) amount = onYes * pot / totalYes; // rounds down
        else if (settled == Outcome.No) amount = onNo * pot / totalNo; // rounds down
        else amount = onYes + onNo;
        if (amount == 0) revert MarketNothingToClaim(msg.sender);

        // State before the external call: a re-entrant claim finds nothing.
        delete stakeYes[msg.sender];
        delete stakeNo[msg.sender];
        emit Claimed(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert MarketTransferFailed(msg.sender, amount);
    }
}
