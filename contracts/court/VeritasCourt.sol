// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbitrator} from "../interfaces/IArbitrator.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @title VeritasCourt
/// @notice A small reference ERC-792 arbitrator for VeritasOracle: a fixed list of judges, one per
/// round. Round 0 is judged by `judges[0]`; each appeal moves the case to the next judge, up to
/// `judges.length - 1` appeals. A ruling becomes final after the appeal period, when anyone calls
/// `executeRuling`. A judge who is a party to the case (the disputer, or an operator that reported
/// on the question) is refused: that round then gets no ruling and the oracle's deadline defaults
/// the question. Nothing here can be changed after deployment.
/// @dev Serves VeritasOracle arbitrables only: the party check asks the arbitrable's `caseOf` and
/// `hasReported`. Fees are held per dispute round and credited to the judge who rules it.
contract VeritasCourt is IArbitrator {
    /// @notice Cost of a new dispute, in wei.
    uint256 public immutable ARBITRATION_COST;

    /// @notice Cost of each appeal, in wei.
    uint256 public immutable APPEAL_COST;

    /// @notice Seconds after a ruling during which it can be appealed.
    uint256 public immutable APPEAL_PERIOD;

    /// @dev The judges, in round order; set once by the constructor.
    address[] private _judges;

    /// @dev One dispute.
    struct Case {
        address arbitrable;
        uint8 choices;
        uint8 round;
        uint8 ruling;
        DisputeStatus status;
        uint40 appealStart;
        uint40 appealEnd;
        uint256 fee;
    }

    /// @dev Disputes by id (their index).
    Case[] private _cases;

    /// @notice Wei each judge may withdraw.
    mapping(address judge => uint256) public fees;

    /// @notice The list of judges is empty, has a zero address or holds more than 255.
    error CourtInvalidJudges();
    /// @notice `paid` wei where exactly `required` are needed.
    error CourtWrongPayment(uint256 paid, uint256 required);
    /// @notice Disputes need 1..255 choices.
    error CourtInvalidChoices(uint256 choices);
    /// @notice No dispute with this id.
    error CourtUnknownDispute(uint256 disputeId);
    /// @notice The dispute is in `status`, not the one the call needs.
    error CourtWrongStatus(uint256 disputeId, DisputeStatus status);
    /// @notice `caller` is not the judge of the dispute's current round.
    error CourtNotJudge(uint256 disputeId, address caller);
    /// @notice `judge` is a party to the dispute (its disputer, or a reporter of the question).
    error CourtJudgeIsParty(uint256 disputeId, address judge);
    /// @notice `ruling` is above the dispute's `choices`.
    error CourtInvalidRuling(uint256 ruling, uint256 choices);
    /// @notice The appeal period ends at `end`.
    error CourtAppealPeriod(uint256 disputeId, uint256 end, uint256 nowTimestamp);
    /// @notice No judge is left for another appeal.
    error CourtNoMoreAppeals(uint256 disputeId);
    /// @notice Nothing to withdraw, or the transfer failed.
    error CourtWithdrawFailed(address judge);

    /// @notice `judge` ruled `ruling` on `disputeId` in round `round`.
    event RulingGiven(uint256 indexed disputeId, address indexed judge, uint256 round, uint256 ruling);

    /// @param judges_ The judges, one per round (round 0 first); 1 to 255 nonzero addresses.
    /// @param arbitrationCost_ Wei a dispute costs.
    /// @param appealCost_ Wei an appeal costs.
    /// @param appealPeriod_ Seconds a ruling can be appealed.
    constructor(address[] memory judges_, uint256 arbitrationCost_, uint256 appealCost_, uint256 appealPeriod_) {
        if (judges_.length == 0 || judges_.length > type(uint8).max) revert CourtInvalidJudges();
        for (uint256 i = 0; i < judges_.length; i++) {
            if (judges_[i] == address(0)) revert CourtInvalidJudges();
        }
        _judges = judges_;
        ARBITRATION_COST = arbitrationCost_;
        APPEAL_COST = appealCost_;
        APPEAL_PERIOD = appealPeriod_;
    }

    /// @notice The judges, in round order.
    function judges() external view returns (address[] memory) {
        return _judges;
    }

    /// @notice The judge of `disputeId`'s current round.
    function judgeOf(uint256 disputeId) external view returns (address) {
        return _judges[_case(disputeId).round];
    }

    /// @notice The round of `disputeId` (0 before any appeal).
    function roundOf(uint256 disputeId) external view returns (uint256) {
        return _case(disputeId).round;
    }

    /// @inheritdoc IArbitrator
    /// @dev Requires exactly `ARBITRATION_COST`.
    function createDispute(uint256 choices, bytes calldata) external payable returns (uint256 disputeId) {
        if (msg.value != ARBITRATION_COST) revert CourtWrongPayment(msg.value, ARBITRATION_COST);
        if (choices == 0 || choices > type(uint8).max) revert CourtInvalidChoices(choices);
        disputeId = _cases.length;
        _cases.push(
            Case({
                arbitrable: msg.sender,
                // Cannot truncate: checked just above.
                // forge-lint: disable-next-line(unsafe-typecast)
                choices: uint8(choices),
                round: 0,
                ruling: 0,
                status: DisputeStatus.Waiting,
                appealStart: 0,
                appealEnd: 0,
                fee: msg.value
            })
        );
        emit DisputeCreation(disputeId, msg.sender);
    }

    /// @inheritdoc IArbitrator
    function arbitrationCost(bytes calldata) external view returns (uint256) {
        return ARBITRATION_COST;
    }

    /// @inheritdoc IArbitrator
    /// @dev `type(uint256).max` when no judge is left for another round.
    function appealCost(uint256 disputeId, bytes calldata) external view returns (uint256) {
        if (uint256(_case(disputeId).round) + 1 >= _judges.length) return type(uint256).max;
        return APPEAL_COST;
    }

    /// @notice The judge of the dispute's current round rules `ruling` (0 refuses); the appeal
    /// period starts. The judge is credited the round's fee.
    function giveRuling(uint256 disputeId, uint256 ruling) external {
        Case storage c = _case(disputeId);
        if (c.status != DisputeStatus.Waiting) revert CourtWrongStatus(disputeId, c.status);
        address judge = _judges[c.round];
        if (msg.sender != judge) revert CourtNotJudge(disputeId, msg.sender);
        if (ruling > c.choices) revert CourtInvalidRuling(ruling, c.choices);
        (uint256 questionId, address disputer) = IVeritasOracle(c.arbitrable).caseOf(address(this), disputeId);
        // A dispute names its beneficiary (`disputer` here); who sent it is the case's requester.
        if (
            judge == disputer || IVeritasOracle(c.arbitrable).hasReported(questionId, judge)
                || (disputer != address(0) && IVeritasOracle(c.arbitrable).getCase(questionId).requester == judge)
        ) {
            revert CourtJudgeIsParty(disputeId, judge);
        }
        // Cannot truncate: bounded by `choices`, a uint8.
        // forge-lint: disable-next-line(unsafe-typecast)
        c.ruling = uint8(ruling);
        c.status = DisputeStatus.Appealable;
        // forge-lint: disable-next-line(unsafe-typecast)
        c.appealStart = uint40(block.timestamp);
        // forge-lint: disable-next-line(unsafe-typecast)
        c.appealEnd = uint40(block.timestamp + APPEAL_PERIOD);
        fees[judge] += c.fee;
        c.fee = 0;
        emit RulingGiven(disputeId, judge, c.round, ruling);
        emit AppealPossible(disputeId, c.arbitrable);
    }

    /// @inheritdoc IArbitrator
    /// @dev Exactly `APPEAL_COST`, during the appeal period, while a judge is left; the next judge
    /// then rules.
    function appeal(uint256 disputeId, bytes calldata) external payable {
        Case storage c = _case(disputeId);
        if (c.status != DisputeStatus.Appealable) revert CourtWrongStatus(disputeId, c.status);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp >= c.appealEnd) revert CourtAppealPeriod(disputeId, c.appealEnd, block.timestamp);
        if (uint256(c.round) + 1 >= _judges.length) revert CourtNoMoreAppeals(disputeId);
        if (msg.value != APPEAL_COST) revert CourtWrongPayment(msg.value, APPEAL_COST);
        c.round += 1;
        c.status = DisputeStatus.Waiting;
        c.appealStart = 0;
        c.appealEnd = 0;
        c.fee = msg.value;
        emit AppealDecision(disputeId, c.arbitrable);
    }

    /// @notice After the appeal period, anyone executes the ruling: it is sent to the arbitrable.
    function executeRuling(uint256 disputeId) external {
        Case storage c = _case(disputeId);
        if (c.status != DisputeStatus.Appealable) revert CourtWrongStatus(disputeId, c.status);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp < c.appealEnd) revert CourtAppealPeriod(disputeId, c.appealEnd, block.timestamp);
        c.status = DisputeStatus.Solved;
        IArbitrable(c.arbitrable).rule(disputeId, c.ruling);
    }

    /// @inheritdoc IArbitrator
    function appealPeriod(uint256 disputeId) external view returns (uint256 start, uint256 end) {
        Case storage c = _case(disputeId);
        if (c.status != DisputeStatus.Appealable) return (0, 0);
        return (c.appealStart, c.appealEnd);
    }

    /// @inheritdoc IArbitrator
    function disputeStatus(uint256 disputeId) external view returns (DisputeStatus) {
        return _case(disputeId).status;
    }

    /// @inheritdoc IArbitrator
    function currentRuling(uint256 disputeId) external view returns (uint256) {
        return _case(disputeId).ruling;
    }

    /// @notice A judge withdraws the fees of the rounds it ruled.
    /// @return amount Wei sent.
    function withdraw() external returns (uint256 amount) {
        amount = fees[msg.sender];
        if (amount == 0) revert CourtWithdrawFailed(msg.sender);
        fees[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert CourtWithdrawFailed(msg.sender);
    }

    /// @dev Dispute `disputeId`, or a revert.
    function _case(uint256 disputeId) private view returns (Case storage) {
        if (disputeId >= _cases.length) revert CourtUnknownDispute(disputeId);
        return _cases[disputeId];
    }
}
