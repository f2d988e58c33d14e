// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../interfaces/IVeritasConsumer.sol";

/// @title ExampleMarket
/// @notice A minimal binary prediction market on one Veritas question, written the way integrators
/// should (v3). Not audited; an illustration, not a product.
/// @dev The pattern:
/// - The market is written for one question text and one set of rules. `open()` asks the question
///   itself, naming the market as its consumer, pinning the parameter set it was written for
///   (and the operator epoch in force), and checks what the oracle stored: the question's sha256
///   and its rules (parameter set, arbitrator, quorum, challenge window). (The ask cannot be in
///   the constructor: the oracle refuses a consumer without code, and a contract has none until
///   its constructor returns.)
/// - Staking closes at a fixed time (`stakingClosesAt`, no later than the question's
///   `resolveAfter`), never on the oracle's status: before `resolveAfter` no report exists, so
///   nobody stakes with the answer in hand.
/// - It settles on the oracle's callback when the question is final, and anyone can still settle
///   through the pull path (`settle()`: `isFinal`, then `getVerdict`) if a callback failed.
/// - The market is the question's asker, so the oracle credits the ask fee back to the market
///   when the question expires or defaults: `reclaimAskFee()` withdraws it and forwards it to
///   whoever paid it (`opener`). A contract that asks must be able to withdraw its credits, or the
///   refund stays in the oracle for ever.
///
/// Rules: YES wins when pYes > pNo and pYes > pNull, NO wins when pNo > pYes and pNo > pNull;
/// winners share the whole pot pro rata to their stake (rounded down; the dust stays in the
/// contract). Otherwise (NULL most likely, a tie for the top, nobody on the winning side, the
/// question expired or defaulted) every stake is refunded.
contract ExampleMarket is IVeritasConsumer {
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

    /// @notice The rules the market was written for.
    struct Rules {
        uint16 parametersId; // the oracle's parameter set
        address arbitrator; // its court
        uint8 quorum; // at least this many independent reports
        uint32 challengeWindow; // at least this long to dispute a verdict
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The market asked its question: oracle id `questionId`.
    event Opened(uint256 indexed questionId);

    /// @notice `staker` added `amount` wei on YES (`onYes`) or NO.
    event Staked(address indexed staker, bool onYes, uint256 amount);

    /// @notice The market settled on `outcome` from the oracle's triple.
    event Settled(Outcome outcome, uint256 pYes, uint256 pNo, uint256 pNull);

    /// @notice `staker` was paid `amount` wei.
    event Claimed(address indexed staker, uint256 amount);

    /// @notice The ask fee the oracle refunded to the market, `amount` wei, went to `opener`.
    event AskFeeReclaimed(address indexed opener, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice Staking must close no later than the question's `resolveAfter`.
    error MarketBadSchedule(uint64 stakingClosesAt, uint64 resolveAfter);

    /// @notice The question text does not hash to the expected sha256.
    error MarketWrongQuestion(bytes32 expected, bytes32 actual);

    /// @notice The question's rules are not those the market was written for.
    error MarketWrongRules();

    /// @notice The market already asked its question.
    error MarketAlreadyOpen();

    /// @notice The market has not asked its question yet.
    error MarketNotOpen();

    /// @notice Staking closed at `closedAt`.
    error MarketStakingClosed(uint64 closedAt);

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

    /// @notice Only the oracle calls back, about this market's question.
    error MarketNotOracle(address caller);

    /// @notice Sending `amount` wei to `to` failed.
    error MarketTransferFailed(address to, uint256 amount);

    /// @notice The oracle holds no credit of the market (no refunded ask fee).
    error MarketNoRefund();

    /// @notice Only the oracle sends the market ether outside `open` and `stake`.
    error MarketUnexpectedEther(address sender);

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Gas the market asks the oracle to give its callback (settling costs ~60k).
    uint32 public constant CALLBACK_GAS = 150_000;

    /// @notice The oracle this market reads.
    IVeritasOracle public immutable oracle;

    /// @notice sha256 of the question text the market was written for.
    bytes32 public immutable questionHash;

    /// @notice When the question may first be answered.
    uint64 public immutable resolveAfter;

    /// @notice When staking closes (<= resolveAfter).
    uint64 public immutable stakingClosesAt;

    /// @dev The rules the market was written for.
    uint16 internal immutable _parametersId;
    address internal immutable _arbitrator;
    uint8 internal immutable _minQuorum;
    uint32 internal immutable _minChallengeWindow;

    /// @notice The oracle question (0 until `open`).
    uint256 public questionId;

    /// @notice Who paid the ask fee (`open`'s caller): a refunded ask fee goes back to it.
    address public opener;

    /// @notice The settled outcome (`Open` until settled).
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
    /// @param questionHash_ sha256 of the UTF-8 question text the market is about.
    /// @param resolveAfter_ The question's `resolveAfter`.
    /// @param stakingClosesAt_ When staking closes; at most `resolveAfter_`.
    /// @param rules The rules the market was written for.
    constructor(
        IVeritasOracle oracle_,
        bytes32 questionHash_,
        uint64 resolveAfter_,
        uint64 stakingClosesAt_,
        Rules memory rules
    ) {
        if (stakingClosesAt_ > resolveAfter_) {
            revert MarketBadSchedule(stakingClosesAt_, resolveAfter_);
        }
        oracle = oracle_;
        questionHash = questionHash_;
        resolveAfter = resolveAfter_;
        stakingClosesAt = stakingClosesAt_;
        _parametersId = rules.parametersId;
        _arbitrator = rules.arbitrator;
        _minQuorum = rules.quorum;
        _minChallengeWindow = rules.challengeWindow;
    }

    /// @notice Ask the market's question (once), paying the oracle's ask fee with `msg.value`;
    /// the market is the question's consumer, so `msg.value` also prepays its callback's gas:
    /// at least `(CALLBACK_GAS + oracle.CALLBACK_GAS_OVERHEAD()) × tx.gasprice` above the fee.
    /// Reverts unless `question` is the expected text and the rules in force are those the market
    /// was written for.
    function open(string calldata question) external payable returns (uint256 id) {
        if (questionId != 0) revert MarketAlreadyOpen();
        bytes32 actual = sha256(bytes(question));
        if (actual != questionHash) revert MarketWrongQuestion(questionHash, actual);
        IVeritasOracle.AskRules memory ask = IVeritasOracle.AskRules({
            parametersId: _parametersId,
            operatorEpoch: oracle.operatorEpoch(),
            consumer: address(this),
            callbackGasLimit: CALLBACK_GAS
        });
        id = oracle.askQuestion{value: msg.value}(question, resolveAfter, ask);
        // What the oracle stored is what the market was written for.
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        IVeritasOracle.Parameters memory p = oracle.questionParameters(id);
        if (q.questionHash != questionHash || q.consumer != address(this)) {
            revert MarketWrongQuestion(questionHash, q.questionHash);
        }
        if (
            q.parametersId != _parametersId || p.arbitrator != _arbitrator || p.quorum < _minQuorum
                || p.challengeWindow < _minChallengeWindow
        ) revert MarketWrongRules();
        questionId = id;
        opener = msg.sender;
        emit Opened(id);
    }

    /// @notice Stake `msg.value` on YES (`onYes`) or NO, until `stakingClosesAt`.
    function stake(bool onYes) external payable {
        if (msg.value == 0) revert MarketZeroStake();
        if (questionId == 0) revert MarketNotOpen();
        // A fixed time, chosen by the market's deployer: a few seconds of validator drift cannot
        // give anyone the answer (no report exists before resolveAfter).
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp >= stakingClosesAt) revert MarketStakingClosed(stakingClosesAt);
        if (onYes) {
            stakeYes[msg.sender] += msg.value;
            totalYes += msg.value;
        } else {
            stakeNo[msg.sender] += msg.value;
            totalNo += msg.value;
        }
        emit Staked(msg.sender, onYes, msg.value);
    }

    /// @inheritdoc IVeritasConsumer
    /// @dev Settles on a final status; ignores `Disputed` (the verdict may still change) and
    /// anything after settling, so the callback never fails on a legitimate call.
    function onVeritasVerdict(uint256 id, IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        external
    {
        if (msg.sender != address(oracle) || id != questionId || id == 0) revert MarketNotOracle(msg.sender);
        if (outcome != Outcome.Open || status == IVeritasOracle.VerdictStatus.Disputed) return;
        _settle(status, pYes, pNo, pNull);
    }

    /// @notice The pull path: settle from the oracle's final verdict. Anyone may call it, once.
    function settle() external returns (Outcome settled) {
        if (outcome != Outcome.Open) revert MarketAlreadySettled();
        uint256 id = questionId;
        if (id == 0) revert MarketNotOpen();
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(id);
        if (!oracle.isFinal(id)) revert MarketVerdictNotFinal(status);
        uint256 pYes;
        uint256 pNo;
        uint256 pNull;
        if (status != IVeritasOracle.VerdictStatus.Expired) (,, pYes, pNo, pNull,,) = oracle.getVerdict(id);
        return _settle(status, pYes, pNo, pNull);
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

    /// @notice Withdraw the market's credits in the oracle (the ask fee, refunded when the
    /// question expired or defaulted) and send them to `opener`, who paid the fee. Anyone may
    /// call it; the wei go to the opener only.
    function reclaimAskFee() external returns (uint256 amount) {
        if (oracle.credits(address(this)) == 0) revert MarketNoRefund();
        // The stakes are never in the oracle: what `withdraw` sends is exactly the refund.
        amount = oracle.withdraw();
        address to = opener;
        emit AskFeeReclaimed(to, amount);
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert MarketTransferFailed(to, amount);
    }

    /// @notice Accepts the oracle's `withdraw` transfer only: ether from anyone else would stay
    /// in the market with no way out.
    receive() external payable {
        if (msg.sender != address(oracle)) revert MarketUnexpectedEther(msg.sender);
    }

    /// @dev Settles on a final `status` with its triple (zero when Expired).
    function _settle(IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        internal
        returns (Outcome settled)
    {
        if (status == IVeritasOracle.VerdictStatus.Expired || status == IVeritasOracle.VerdictStatus.Defaulted) {
            settled = Outcome.Refund;
        } else if (pYes > pNo && pYes > pNull && totalYes > 0) {
            settled = Outcome.Yes;
        } else if (pNo > pYes && pNo > pNull && totalNo > 0) {
            settled = Outcome.No;
        } else {
            settled = Outcome.Refund;
        }
        outcome = settled;
        emit Settled(settled, pYes, pNo, pNull);
    }
}
