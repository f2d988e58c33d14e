// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {WadTriple} from "../lib/WadTriple.sol";
import {VeritasModule} from "./VeritasModule.sol";

/// @title VeritasAdminModule
/// @notice The oracle's parameters, owner, operators and their stake, evidence refunds, its
/// constants, and the views `VeritasOracle` does not serve itself. Its code runs only by
/// `delegatecall` from `VeritasOracle`'s `fallback`, on the oracle's storage (`VeritasStorage`):
/// call these functions on the oracle's address, typed as `IVeritasOracle`. Called directly it only
/// ever sees its own, empty storage (no owner, no question, no money).
contract VeritasAdminModule is VeritasModule {
    /// @dev Reverts with `VeritasNotOwner` unless the caller is the owner.
    modifier onlyOwner() {
        if (msg.sender != _owner) revert IVeritasOracle.VeritasNotOwner(msg.sender);
        _;
    }

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The fixed-point scale of every probability and of kappa: 1e18 means 1 (certainty).
    function WAD() external pure returns (uint256) {
        return WadTriple.WAD;
    }

    /// @notice See `IVeritasOracle.MAX_QUESTION_LENGTH`.
    function MAX_QUESTION_LENGTH() external pure returns (uint256) {
        return _MAX_QUESTION_LENGTH;
    }

    /// @notice See `IVeritasOracle.MAX_QUORUM`.
    function MAX_QUORUM() external pure returns (uint256) {
        return _MAX_QUORUM;
    }

    /// @notice See `IVeritasOracle.MAX_BALLOTS_PER_REPORT`.
    function MAX_BALLOTS_PER_REPORT() external pure returns (uint256) {
        return _MAX_BALLOTS_PER_REPORT;
    }

    /// @notice See `IVeritasOracle.MAX_OPERATORS`.
    function MAX_OPERATORS() external pure returns (uint256) {
        return _MAX_OPERATORS;
    }

    /// @notice See `IVeritasOracle.MIN_REPORT_WINDOW`.
    function MIN_REPORT_WINDOW() external pure returns (uint256) {
        return _MIN_REPORT_WINDOW;
    }

    /// @notice See `IVeritasOracle.MIN_CHALLENGE_WINDOW`.
    function MIN_CHALLENGE_WINDOW() external pure returns (uint256) {
        return _MIN_CHALLENGE_WINDOW;
    }

    /// @notice See `IVeritasOracle.MIN_ARBITRATION_WINDOW`.
    function MIN_ARBITRATION_WINDOW() external pure returns (uint256) {
        return _MIN_ARBITRATION_WINDOW;
    }

    /// @notice See `IVeritasOracle.MAX_FEE`.
    function MAX_FEE() external pure returns (uint256) {
        return _MAX_FEE;
    }

    /// @notice See `IVeritasOracle.MAX_CALLBACK_GAS`.
    function MAX_CALLBACK_GAS() external pure returns (uint256) {
        return _MAX_CALLBACK_GAS;
    }

    /// @notice See `IVeritasOracle.CALLBACK_GAS_OVERHEAD`.
    function CALLBACK_GAS_OVERHEAD() external pure returns (uint256) {
        return _CALLBACK_GAS_OVERHEAD;
    }

    /// @notice See `IVeritasOracle.RULING_REFUSED`.
    function RULING_REFUSED() external pure returns (uint256) {
        return _RULING_REFUSED;
    }

    /// @notice See `IVeritasOracle.RULING_VERDICT_STANDS`.
    function RULING_VERDICT_STANDS() external pure returns (uint256) {
        return _RULING_VERDICT_STANDS;
    }

    /// @notice See `IVeritasOracle.RULING_YES`.
    function RULING_YES() external pure returns (uint256) {
        return _RULING_YES;
    }

    /// @notice See `IVeritasOracle.RULING_NO`.
    function RULING_NO() external pure returns (uint256) {
        return _RULING_NO;
    }

    /// @notice See `IVeritasOracle.RULING_UNRESOLVABLE`.
    function RULING_UNRESOLVABLE() external pure returns (uint256) {
        return _RULING_UNRESOLVABLE;
    }

    /// @notice See `IVeritasOracle.RULING_DISPUTER_TRIPLE`.
    function RULING_DISPUTER_TRIPLE() external pure returns (uint256) {
        return _RULING_DISPUTER_TRIPLE;
    }

    /// @notice See `IVeritasOracle.RULING_TOO_EARLY`.
    function RULING_TOO_EARLY() external pure returns (uint256) {
        return _RULING_TOO_EARLY;
    }

    /// @notice See `IVeritasOracle.MAX_DEFERRALS`.
    function MAX_DEFERRALS() external pure returns (uint256) {
        return _MAX_DEFERRALS;
    }

    /// @notice See `IVeritasOracle.deferralDelay`. 0 from `MAX_DEFERRALS` on.
    function deferralDelay(uint256 count) external pure returns (uint256) {
        return count < _MAX_DEFERRALS ? _deferralDelay(count) : 0;
    }

    /// @notice See `IVeritasOracle.MAX_CLARIFICATIONS`.
    function MAX_CLARIFICATIONS() external pure returns (uint256) {
        return _MAX_CLARIFICATIONS;
    }

    /// @notice See `IVeritasOracle.MAX_CLARIFICATION_LENGTH`.
    function MAX_CLARIFICATION_LENGTH() external pure returns (uint256) {
        return _MAX_CLARIFICATION_LENGTH;
    }

    /// @notice See `IVeritasOracle.DISPUTE_CHOICES`.
    function DISPUTE_CHOICES() external pure returns (uint256) {
        return _DISPUTE_CHOICES;
    }

    /// @notice See `IVeritasOracle.ESCALATION_CHOICES`.
    function ESCALATION_CHOICES() external pure returns (uint256) {
        return _ESCALATION_CHOICES;
    }

    /// @notice See `IVeritasOracle.MAX_EVIDENCE_PER_QUESTION`.
    function MAX_EVIDENCE_PER_QUESTION() external pure returns (uint256) {
        return _MAX_EVIDENCE_PER_QUESTION;
    }

    /// @notice See `IVeritasOracle.MAX_EVIDENCE_PER_SUBMITTER`.
    function MAX_EVIDENCE_PER_SUBMITTER() external pure returns (uint256) {
        return _MAX_EVIDENCE_PER_SUBMITTER;
    }

    /// @notice See `IVeritasOracle.EVIDENCE_PRICE_STEP`.
    function EVIDENCE_PRICE_STEP() external pure returns (uint256) {
        return _EVIDENCE_PRICE_STEP;
    }

    /// @notice See `IVeritasOracle.MAX_URL_LENGTH`.
    function MAX_URL_LENGTH() external pure returns (uint256) {
        return _MAX_URL_LENGTH;
    }

    /// @notice See `IVeritasOracle.MAX_TITLE_LENGTH`.
    function MAX_TITLE_LENGTH() external pure returns (uint256) {
        return _MAX_TITLE_LENGTH;
    }

    /// @notice See `IVeritasOracle.MAX_SNIPPET_LENGTH`.
    function MAX_SNIPPET_LENGTH() external pure returns (uint256) {
        return _MAX_SNIPPET_LENGTH;
    }

    /// @notice See `IVeritasOracle.BURN_BPS`.
    function BURN_BPS() external pure returns (uint256) {
        return _BURN_BPS;
    }

    /// @notice See `IVeritasOracle.BURN_ADDRESS`.
    function BURN_ADDRESS() external pure returns (address) {
        return _BURN_ADDRESS;
    }

    /// @notice See `IVeritasOracle.BOND_UNIT`.
    function BOND_UNIT() external pure returns (uint256) {
        return _BOND_UNIT;
    }

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.getQuestion`.
    function getQuestion(uint256 id) external view returns (IVeritasOracle.Question memory) {
        Record storage record = _questions[id];
        Info memory info = record.info;
        if (info.asker == address(0)) revert IVeritasOracle.VeritasUnknownQuestion(id);
        Callback memory cb = _callbacks[id];
        return IVeritasOracle.Question({
            questionHash: record.questionHash,
            asker: info.asker,
            askedAt: info.askedAt,
            resolveAfter: uint64(info.askedAt) + info.resolveDelay,
            parametersId: record.tally.parametersId,
            operatorEpoch: info.operatorEpoch,
            consumer: cb.consumer,
            callbackGasLimit: cb.gasLimit,
            callbackDeposit: cb.deposit
        });
    }

    /// @notice See `IVeritasOracle.questionCount`.
    function questionCount() external view returns (uint256) {
        return _header.questionCount;
    }

    /// @notice See `IVeritasOracle.evidenceCount`.
    function evidenceCount(uint256 id) external view returns (uint256) {
        return _questions[id].tally.evidenceCount;
    }

    /// @notice See `IVeritasOracle.evidenceHead`.
    function evidenceHead() external view returns (bytes32) {
        return _evidenceHead;
    }

    /// @notice See `IVeritasOracle.deferral`.
    function deferral(uint256 id) external view returns (uint256 count, uint256 reportsOpenAt) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        return ((t.flags & _DEFERRALS_MASK) >> _DEFERRALS_SHIFT, t.time);
    }

    /// @notice See `IVeritasOracle.clarify`.
    function clarify(uint256 id, string calldata text) external nonReentrant {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        if (msg.sender != record.info.asker) revert IVeritasOracle.VeritasNotAsker(id, msg.sender);
        // Before the first report or commit of the first round only: every report of a question
        // then commits to the same clarifications, all of them.
        if (
            t.status != IVeritasOracle.VerdictStatus.Asked || t.reportCount != 0 || t.flags & _DEFERRALS_MASK != 0
                || (t.flags & _FLAG_COMMIT_REVEAL != 0 && _rounds[id].committers != 0)
        ) revert IVeritasOracle.VeritasClarificationClosed(id);
        uint256 length = bytes(text).length;
        if (length == 0 || length > _MAX_CLARIFICATION_LENGTH) {
            revert IVeritasOracle.VeritasClarificationLength(length, _MAX_CLARIFICATION_LENGTH);
        }
        // In the question's own slot, read above for the asker: no new slot to pay for.
        uint256 index = uint256(record.info.clarifications) + 1;
        if (index > _MAX_CLARIFICATIONS) revert IVeritasOracle.VeritasTooManyClarifications(id, _MAX_CLARIFICATIONS);
        // Cannot truncate: at most `_MAX_CLARIFICATIONS`.
        // forge-lint: disable-next-line(unsafe-typecast)
        record.info.clarifications = uint8(index);
        emit IVeritasOracle.QuestionClarified(id, index, text);
    }

    /// @notice See `IVeritasOracle.clarificationCount`.
    function clarificationCount(uint256 id) external view returns (uint256) {
        return _questions[id].info.clarifications;
    }

    /// @notice See `IVeritasOracle.nextEvidenceFee`.
    function nextEvidenceFee(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        return uint256(_parameters[t.parametersId].evidenceFee) << (t.evidenceCount / _EVIDENCE_PRICE_STEP);
    }

    /// @notice See `IVeritasOracle.evidenceOf`.
    function evidenceOf(uint256 id, address account) external view returns (uint256 paid, uint256 items) {
        uint256 mine = _evidence[id][account];
        return (mine >> 8, mine & 0xff);
    }

    /// @notice See `IVeritasOracle.refundEvidence`.
    /// @dev Pull payment: each submitter claims its own fees once the question has Expired (it
    /// never had a verdict, so its evidence served nothing). The item count stays.
    function refundEvidence(uint256 id) external nonReentrant returns (uint256 amount) {
        uint256 mine = _evidence[id][msg.sender];
        amount = mine >> 8;
        if (_questions[id].tally.status != IVeritasOracle.VerdictStatus.Expired || amount == 0) {
            revert IVeritasOracle.VeritasNothingToRefund(id, msg.sender);
        }
        _evidence[id][msg.sender] = mine & 0xff;
        _credit(msg.sender, id, amount);
    }

    /// @notice See `IVeritasOracle.setMaxHorizon`.
    function setMaxHorizon(uint32 seconds_) external nonReentrant onlyOwner {
        if (seconds_ < 1 days || seconds_ > 100 * 365 days) revert IVeritasOracle.VeritasInvalidHorizon(seconds_);
        _counters.maxHorizon = seconds_;
        emit IVeritasOracle.MaxHorizonChanged(seconds_);
    }

    /// @notice See `IVeritasOracle.maxHorizon`.
    function maxHorizon() external view returns (uint256) {
        return _counters.maxHorizon;
    }

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.hasReported`.
    function hasReported(uint256 id, address operator) external view returns (bool) {
        uint256 index = _operators[operator].index;
        if (index == 0) return false;
        return _reported(_questions[id].tally, index);
    }

    /// @notice See `IVeritasOracle.canReport`.
    /// @dev Also false when the operator's free stake is below the question's report bond.
    function canReport(uint256 id, address operator) external view returns (bool) {
        Operator memory op = _operators[operator];
        Tally memory t = _questions[id].tally;
        return op.active && op.addedAfter < id && t.status == IVeritasOracle.VerdictStatus.Asked
            && !_reported(t, op.index) && _commitments[id][operator] == 0
            // A committer whose withheld commit was slashed cannot commit in a reopened phase.
            && (_rounds[id].committers >> op.index) & 1 == 0 && uint256(op.stake) - op.locked >= _bondOf(t.parametersId);
    }

    /// @notice See `IVeritasOracle.tally`.
    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull) {
        Tally memory t = _questions[id].tally;
        return (t.reportCount, t.nYes, t.nNo, t.nNull);
    }

    /*//////////////////////////////////////////////////////////////
                                 MONEY
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.credits`.
    function credits(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @notice See `IVeritasOracle.pendingFee`.
    /// @dev The ask fee (with its surplus) and the evidence fees still held for `id`.
    function pendingFee(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None || t.flags & _FLAG_SETTLED != 0) return 0;
        return _fee(id, t) + _evidenceFees(t);
    }

    /// @notice See `IVeritasOracle.finalAt`.
    function finalAt(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (_finalStatus(t.status)) return t.time;
        if (t.status != IVeritasOracle.VerdictStatus.Resolved) return 0;
        return uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /// @notice See `IVeritasOracle.verdictCount`.
    function verdictCount() external view returns (uint256) {
        return _header.verdictCount;
    }

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.setParameters`.
    function setParameters(IVeritasOracle.Parameters calldata p, string calldata metaEvidence)
        external
        nonReentrant
        onlyOwner
        returns (uint16 parametersId_)
    {
        _checkParameters(p);
        uint256 next = uint256(_header.parametersId) + 1;
        if (next > type(uint16).max) revert IVeritasOracle.VeritasParametersExhausted();
        _parameters[next] = p;
        // Cannot truncate: checked just above; the bond is at most MAX_FEE = 1e21 wei, 1e9 units.
        // forge-lint: disable-start(unsafe-typecast)
        parametersId_ = uint16(next);
        Header storage h = _header;
        h.parametersId = parametersId_;
        h.quorum = p.quorum;
        h.maxBallotsPerReport = p.maxBallotsPerReport;
        h.reportWindow = p.reportWindow;
        h.challengeWindow = p.challengeWindow;
        // Bit 31: the set's reports are committed then revealed (the bond fits 30 bits).
        h.bondUnits = uint32(_bondUnits(p.challengeWindow, p.revealWindow, p.disputeBond))
            | (p.revealWindow != 0 && p.quorum > 1 ? uint32(1 << 31) : 0);
        // forge-lint: disable-end(unsafe-typecast)
        emit IVeritasOracle.ParametersChanged(next, p);
        emit MetaEvidence(next, metaEvidence);
    }

    /// @notice See `IVeritasOracle.parametersId`.
    function parametersId() external view returns (uint16) {
        return _header.parametersId;
    }

    /// @notice See `IVeritasOracle.parameters`.
    function parameters() external view returns (IVeritasOracle.Parameters memory) {
        return _parameters[_header.parametersId];
    }

    /// @notice See `IVeritasOracle.questionParameters`.
    function questionParameters(uint256 id) external view returns (IVeritasOracle.Parameters memory) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        return _parameters[t.parametersId];
    }

    /// @notice See `IVeritasOracle.parameterSet`.
    function parameterSet(uint16 parametersId_) external view returns (IVeritasOracle.Parameters memory) {
        return _parameters[parametersId_];
    }

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.owner`.
    function owner() external view returns (address) {
        return _owner;
    }

    /// @notice See `IVeritasOracle.pendingOwner`.
    function pendingOwner() external view returns (address) {
        return _counters.pendingOwner;
    }

    /// @notice See `IVeritasOracle.transferOwnership`.
    /// @dev Proposing again replaces the pending owner; to cancel, propose yourself.
    function transferOwnership(address newOwner) external nonReentrant onlyOwner {
        if (newOwner == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        _counters.pendingOwner = newOwner;
        emit IVeritasOracle.OwnershipTransferStarted(msg.sender, newOwner);
    }

    /// @notice See `IVeritasOracle.acceptOwnership`.
    function acceptOwnership() external nonReentrant {
        if (msg.sender != _counters.pendingOwner) revert IVeritasOracle.VeritasNotPendingOwner(msg.sender);
        address previousOwner = _owner;
        _owner = msg.sender;
        delete _counters.pendingOwner;
        emit IVeritasOracle.OwnershipTransferred(previousOwner, msg.sender);
    }

    /// @notice See `IVeritasOracle.addOperator`.
    /// @dev Idempotent: adding an active operator changes nothing and emits nothing. An operator
    /// keeps its index while it holds one (removed, it keeps it while it has stake or unsettled
    /// reports), but reports only on questions asked after its latest addition. A new index is the
    /// next never used, or else the lowest free one.
    function addOperator(address operator) external nonReentrant onlyOwner {
        if (operator == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        if (operator == _parameters[_header.parametersId].arbitrator) {
            revert IVeritasOracle.VeritasOperatorIsArbitrator(operator);
        }
        Operator memory op = _operators[operator];
        if (op.active) return;
        if (op.index == 0) {
            uint256 index = _freeIndex();
            // Cannot truncate: at most MAX_OPERATORS = 31.
            // forge-lint: disable-next-line(unsafe-typecast)
            op.index = uint8(index);
            _operatorAt[index] = operator;
        }
        Header memory h = _header;
        uint32 epoch = _nextEpoch(h);
        op.active = true;
        // Cannot truncate: epochs are capped at 2^16 - 1 (`_nextEpoch`).
        // forge-lint: disable-next-line(unsafe-typecast)
        op.addedEpoch = uint16(epoch);
        op.addedAfter = h.questionCount;
        _operators[operator] = op;
        _header.operatorEpoch = epoch;
        // Cannot overflow: at most MAX_OPERATORS indices, so as many active operators.
        _header.activeOperators = h.activeOperators + 1;
        emit IVeritasOracle.OperatorAdded(operator, epoch);
    }

    /// @notice See `IVeritasOracle.removeOperator`.
    /// @dev Idempotent: removing a non-operator changes nothing and emits nothing. The index is
    /// released at once when the operator holds no stake and no unsettled report.
    function removeOperator(address operator) external nonReentrant onlyOwner {
        if (!_operators[operator].active) return;
        Header memory h = _header;
        uint32 epoch = _nextEpoch(h);
        _operators[operator].active = false;
        _header.operatorEpoch = epoch;
        _header.activeOperators = h.activeOperators - 1;
        emit IVeritasOracle.OperatorRemoved(operator, epoch);
        _release(operator);
    }

    /// @notice See `IVeritasOracle.isOperator`.
    function isOperator(address account) external view returns (bool) {
        return _operators[account].active;
    }

    /// @notice See `IVeritasOracle.operatorEpoch`.
    function operatorEpoch() external view returns (uint32) {
        return _header.operatorEpoch;
    }

    /// @notice See `IVeritasOracle.activeOperatorCount`.
    function activeOperatorCount() external view returns (uint256) {
        return _header.activeOperators;
    }

    /// @notice See `IVeritasOracle.releaseIndex`.
    function releaseIndex(address operator) external nonReentrant {
        if (!_release(operator)) revert IVeritasOracle.VeritasIndexInUse(operator);
    }

    /*//////////////////////////////////////////////////////////////
                                 STAKE
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.stake`.
    function stake(address operator) external payable delegated nonReentrant {
        if (operator == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        Operator storage op = _operators[operator];
        uint256 total = uint256(op.stake) + msg.value;
        if (total > type(uint96).max) revert IVeritasOracle.VeritasAmountTooLarge(total);
        // Cannot truncate: checked just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        op.stake = uint96(total);
        emit IVeritasOracle.Staked(operator, msg.sender, msg.value, total);
    }

    /// @notice See `IVeritasOracle.withdrawStake`.
    /// @dev Only the free stake: what unsettled reports lock stays until their questions settle
    /// (settle, ruling or default), so no reporter leaves before its verdicts can no longer be
    /// overturned. Nothing else delays a withdrawal: the lock is per report.
    function withdrawStake(uint256 amount) external nonReentrant {
        Operator storage op = _operators[msg.sender];
        uint256 staked = op.stake;
        uint256 free = staked - op.locked;
        if (amount > free) revert IVeritasOracle.VeritasInsufficientStake(msg.sender, free, amount);
        // Cannot truncate: below the stake.
        // forge-lint: disable-next-line(unsafe-typecast)
        op.stake = uint96(staked - amount);
        emit IVeritasOracle.StakeWithdrawn(msg.sender, amount, staked - amount);
        _credit(msg.sender, 0, amount);
        _release(msg.sender);
    }

    /// @notice See `IVeritasOracle.operatorStake`.
    function operatorStake(address operator)
        external
        view
        returns (uint256 staked, uint256 locked, uint256 openReports)
    {
        Operator memory op = _operators[operator];
        return (op.stake, op.locked, op.openReports);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The epoch after `h`'s; epochs are stored in 16 bits per question.
    function _nextEpoch(Header memory h) private pure returns (uint32) {
        if (h.operatorEpoch >= type(uint16).max) revert IVeritasOracle.VeritasEpochsExhausted();
        return h.operatorEpoch + 1;
    }

    /// @dev An index no operator holds: the next never handed out, else the lowest released one.
    function _freeIndex() private returns (uint256) {
        uint256 next = uint256(_counters.operatorCount) + 1;
        if (next <= _MAX_OPERATORS) {
            // Cannot truncate: at most MAX_OPERATORS.
            // forge-lint: disable-next-line(unsafe-typecast)
            _counters.operatorCount = uint8(next);
            return next;
        }
        for (uint256 i = 1; i <= _MAX_OPERATORS; i++) {
            if (_operatorAt[i] == address(0)) return i;
        }
        revert IVeritasOracle.VeritasTooManyOperators(_MAX_OPERATORS);
    }

    /// @dev Frees the index of `account` when it is not active and holds no stake and no
    /// unsettled report (so no open question's tally refers to it). Returns whether it did.
    function _release(address account) private returns (bool) {
        Operator memory op = _operators[account];
        if (op.index == 0 || op.active || op.openReports != 0) return false;
        // Only a stake worth holding keeps the index: at least one report bond of the set in force
        // (and one unit). Else a few wei staked on removed operators (anyone may stake for anyone)
        // would hold all 31 indices and block new operators; now that costs 31 bonds, given away.
        uint256 worth = _bondOf(_header.parametersId);
        if (op.stake >= (worth > _BOND_UNIT ? worth : _BOND_UNIT)) return false;
        delete _operatorAt[op.index];
        _operators[account].index = 0;
        emit IVeritasOracle.OperatorIndexReleased(account, op.index);
        return true;
    }

    /// @dev Reverts unless `p` is a parameter set the oracle can run every question on.
    function _checkParameters(IVeritasOracle.Parameters calldata p) private view {
        if (p.quorum == 0 || p.quorum > _MAX_QUORUM) revert IVeritasOracle.VeritasInvalidQuorum(p.quorum);
        uint256 active = _header.activeOperators;
        if (p.quorum > active) revert IVeritasOracle.VeritasQuorumUnreachable(p.quorum, active);
        if (p.maxBallotsPerReport == 0 || p.maxBallotsPerReport > _MAX_BALLOTS_PER_REPORT) {
            revert IVeritasOracle.VeritasInvalidBallotCap(p.maxBallotsPerReport);
        }
        if (p.reportWindow < _MIN_REPORT_WINDOW) {
            revert IVeritasOracle.VeritasWindowTooShort(0, p.reportWindow, _MIN_REPORT_WINDOW);
        }
        if (p.challengeWindow != 0 && p.challengeWindow < _MIN_CHALLENGE_WINDOW) {
            revert IVeritasOracle.VeritasWindowTooShort(1, p.challengeWindow, _MIN_CHALLENGE_WINDOW);
        }
        if (p.arbitrationWindow < _MIN_ARBITRATION_WINDOW) {
            revert IVeritasOracle.VeritasWindowTooShort(2, p.arbitrationWindow, _MIN_ARBITRATION_WINDOW);
        }
        uint256 reveal = p.revealWindow;
        if (reveal != 0 && (reveal < _MIN_REVEAL_WINDOW || reveal > _MAX_REVEAL_WINDOW)) {
            revert IVeritasOracle.VeritasInvalidRevealWindow(reveal, _MIN_REVEAL_WINDOW, _MAX_REVEAL_WINDOW);
        }
        if (p.askFee > _MAX_FEE) revert IVeritasOracle.VeritasFeeTooHigh(0, p.askFee, _MAX_FEE);
        if (p.disputeBond > _MAX_FEE) revert IVeritasOracle.VeritasFeeTooHigh(1, p.disputeBond, _MAX_FEE);
        if (p.evidenceFee > _MAX_FEE) revert IVeritasOracle.VeritasFeeTooHigh(2, p.evidenceFee, _MAX_FEE);
        // A bond below one unit would lock nothing; sets with a challenge window or a reveal window
        // need one (see `_bondUnits`).
        if (p.disputeBond < _BOND_UNIT && (p.disputeBond != 0 || p.challengeWindow != 0 || reveal != 0)) {
            revert IVeritasOracle.VeritasBondRequired();
        }
        address arbitrator = p.arbitrator;
        if (arbitrator == address(0)) {
            if (p.challengeWindow != 0) revert IVeritasOracle.VeritasInvalidArbitrator(arbitrator);
        } else if (arbitrator.code.length == 0 || _operators[arbitrator].active) {
            revert IVeritasOracle.VeritasInvalidArbitrator(arbitrator);
        }
    }
}
