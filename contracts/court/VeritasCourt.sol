// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbitrator} from "../interfaces/IArbitrator.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @title VeritasCourt
/// @notice A small reference ERC-792 arbitrator for VeritasOracle: a fixed list of judges, one per
/// round, in list order. A judge who is a party to the case (who sent the dispute or the request,
/// the dispute's beneficiary, or an operator that reported on the question) never rules on it: the
/// round goes to the next judge in the list who is not, so naming a judge as beneficiary cannot
/// make the court mute; each appeal moves the case past the judge who ruled. A ruling becomes
/// final after the appeal period, when anyone calls `executeRuling`. Appeals come through the
/// arbitrable (the oracle moves its court deadline with them). Nothing here can be changed after
/// deployment.
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
        // The lowest index of a judge who may rule the current round (past every judge who ruled).
        uint8 next;
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
    /// @notice Only the dispute's arbitrable (`arbitrable`) may appeal it: it moves its own court
    /// deadline with the appeal.
    error CourtNotArbitrable(uint256 disputeId, address caller);
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

    /// @notice The judge of `disputeId`'s current round: the first judge from the round's place in
    /// the list who is not a party to the case; the zero address when every one left is.
    function judgeOf(uint256 disputeId) external view returns (address) {
        Case storage c = _case(disputeId);
        uint256 index = _judgeIndex(disputeId, c.arbitrable, c.next);
        return index < _judges.length ? _judges[index] : address(0);
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
                next: 0,
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
        Case storage c = _case(disputeId);
        if (_judgeIndex(disputeId, c.arbitrable, c.next) >= _judges.length) return type(uint256).max;
        return APPEAL_COST;
    }

    /// @notice The judge of the dispute's current round rules `ruling` (0 refuses); the appeal
    /// period starts. The judge is credited the round's fee.
    function giveRuling(uint256 disputeId, uint256 ruling) external {
        Case storage c = _case(disputeId);
        if (c.status != DisputeStatus.Waiting) revert CourtWrongStatus(disputeId, c.status);
        if (ruling > c.choices) revert CourtInvalidRuling(ruling, c.choices);
        uint256 index = _judgeIndex(disputeId, c.arbitrable, c.next);
        address judge = index < _judges.length ? _judges[index] : address(0);
        if (msg.sender != judge) {
            // A party calling in its list turn is told why it is not its round.
            if (_isParty(disputeId, c.arbitrable, msg.sender)) revert CourtJudgeIsParty(disputeId, msg.sender);
            revert CourtNotJudge(disputeId, msg.sender);
        }
        // Cannot truncate: bounded by `choices`, a uint8; the index by the list's 255 judges.
        // forge-lint: disable-start(unsafe-typecast)
        c.ruling = uint8(ruling);
        c.next = uint8(index + 1);
        // forge-lint: disable-end(unsafe-typecast)
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
        if (msg.sender != c.arbitrable) revert CourtNotArbitrable(disputeId, msg.sender);
        if (c.status != DisputeStatus.Appealable) revert CourtWrongStatus(disputeId, c.status);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp >= c.appealEnd) revert CourtAppealPeriod(disputeId, c.appealEnd, block.timestamp);
        if (_judgeIndex(disputeId, c.arbitrable, c.next) >= _judges.length) revert CourtNoMoreAppeals(disputeId);
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

    /// @dev The index of the first judge from `from` who is not a party to `disputeId` (the list's
    /// length when none is).
    function _judgeIndex(uint256 disputeId, address arbitrable, uint256 from) private view returns (uint256 i) {
        for (i = from; i < _judges.length; i++) {
            if (!_isParty(disputeId, arbitrable, _judges[i])) return i;
        }
    }

    /// @dev Whether `account` is a party to `disputeId`: the case's beneficiary or requester, or an
    /// operator that reported on the question.
    function _isParty(uint256 disputeId, address arbitrable, address account) private view returns (bool) {
        (uint256 questionId, address disputer) = IVeritasOracle(arbitrable).caseOf(address(this), disputeId);
        return account == disputer || IVeritasOracle(arbitrable).getCase(questionId).requester == account
            || IVeritasOracle(arbitrable).hasReported(questionId, account);
    }

    /// @dev Dispute `disputeId`, or a revert.
    function _case(uint256 disputeId) private view returns (Case storage) {
        if (disputeId >= _cases.length) revert CourtUnknownDispute(disputeId);
        return _cases[disputeId];
    }
}
