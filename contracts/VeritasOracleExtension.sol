// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";
import {IArbitrable} from "./interfaces/IArbitrable.sol";
import {IArbitrator} from "./interfaces/IArbitrator.sol";
import {WadTriple} from "./lib/WadTriple.sol";
import {VeritasStorage} from "./VeritasStorage.sol";

/// @title VeritasOracleExtension
/// @notice The rare paths of `VeritasOracle`: the court (requests, appeals, rulings, defaults),
/// parameters, roles, operators and their stake, evidence refunds, and the views the oracle does
/// not serve itself. Its code runs only by `delegatecall` from the oracle's `fallback`, on the
/// oracle's storage (`VeritasStorage`): call these functions on the oracle's address. Called
/// directly it only ever sees its own, empty storage (no owner, no question, no money).
contract VeritasOracleExtension is VeritasStorage {
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

    function MAX_QUESTION_LENGTH() external pure returns (uint256) {
        return _MAX_QUESTION_LENGTH;
    }

    function MAX_QUORUM() external pure returns (uint256) {
        return _MAX_QUORUM;
    }

    function MAX_BALLOTS_PER_REPORT() external pure returns (uint256) {
        return _MAX_BALLOTS_PER_REPORT;
    }

    function MAX_OPERATORS() external pure returns (uint256) {
        return _MAX_OPERATORS;
    }

    function MIN_REPORT_WINDOW() external pure returns (uint256) {
        return _MIN_REPORT_WINDOW;
    }

    function MIN_CHALLENGE_WINDOW() external pure returns (uint256) {
        return _MIN_CHALLENGE_WINDOW;
    }

    function MIN_ARBITRATION_WINDOW() external pure returns (uint256) {
        return _MIN_ARBITRATION_WINDOW;
    }

    function MAX_FEE() external pure returns (uint256) {
        return _MAX_FEE;
    }

    function MAX_CALLBACK_GAS() external pure returns (uint256) {
        return _MAX_CALLBACK_GAS;
    }

    function CALLBACK_GAS_OVERHEAD() external pure returns (uint256) {
        return _CALLBACK_GAS_OVERHEAD;
    }

    function RULING_REFUSED() external pure returns (uint256) {
        return _RULING_REFUSED;
    }

    function RULING_VERDICT_STANDS() external pure returns (uint256) {
        return _RULING_VERDICT_STANDS;
    }

    function RULING_YES() external pure returns (uint256) {
        return _RULING_YES;
    }

    function RULING_NO() external pure returns (uint256) {
        return _RULING_NO;
    }

    function RULING_UNRESOLVABLE() external pure returns (uint256) {
        return _RULING_UNRESOLVABLE;
    }

    function RULING_DISPUTER_TRIPLE() external pure returns (uint256) {
        return _RULING_DISPUTER_TRIPLE;
    }

    function DISPUTE_CHOICES() external pure returns (uint256) {
        return _DISPUTE_CHOICES;
    }

    function ESCALATION_CHOICES() external pure returns (uint256) {
        return _ESCALATION_CHOICES;
    }

    function MAX_EVIDENCE_PER_QUESTION() external pure returns (uint256) {
        return _MAX_EVIDENCE_PER_QUESTION;
    }

    function MAX_EVIDENCE_PER_SUBMITTER() external pure returns (uint256) {
        return _MAX_EVIDENCE_PER_SUBMITTER;
    }

    function EVIDENCE_PRICE_STEP() external pure returns (uint256) {
        return _EVIDENCE_PRICE_STEP;
    }

    function MAX_URL_LENGTH() external pure returns (uint256) {
        return _MAX_URL_LENGTH;
    }

    function MAX_TITLE_LENGTH() external pure returns (uint256) {
        return _MAX_TITLE_LENGTH;
    }

    function MAX_SNIPPET_LENGTH() external pure returns (uint256) {
        return _MAX_SNIPPET_LENGTH;
    }

    function BURN_BPS() external pure returns (uint256) {
        return _BURN_BPS;
    }

    function BURN_ADDRESS() external pure returns (address) {
        return _BURN_ADDRESS;
    }

    function BOND_UNIT() external pure returns (uint256) {
        return _BOND_UNIT;
    }

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    function getQuestion(uint256 id) external view returns (IVeritasOracle.Question memory) {
        Record storage record = _questions[id];
        Info memory info = record.info;
        if (info.asker == address(0)) revert IVeritasOracle.VeritasUnknownQuestion(id);
        Callback memory cb = _callbacks[id];
        return IVeritasOracle.Question({
            questionHash: record.questionHash,
            asker: info.asker,
            askedAt: info.askedAt,
            resolveAfter: info.resolveAfter,
            parametersId: record.tally.parametersId,
            operatorEpoch: info.operatorEpoch,
            consumer: cb.consumer,
            callbackGasLimit: cb.gasLimit,
            callbackDeposit: cb.deposit
        });
    }

    function questionCount() external view returns (uint256) {
        return _header.questionCount;
    }

    function evidenceCount(uint256 id) external view returns (uint256) {
        return _questions[id].tally.evidenceCount;
    }

    function evidenceHead() external view returns (bytes32) {
        return _evidenceHead;
    }

    function nextEvidenceFee(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        return uint256(_parameters[t.parametersId].evidenceFee) << (t.evidenceCount / _EVIDENCE_PRICE_STEP);
    }

    function evidenceOf(uint256 id, address account) external view returns (uint256 paid, uint256 items) {
        uint256 mine = _evidence[id][account];
        return (mine >> 8, mine & 0xff);
    }

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

    function setMaxHorizon(uint32 seconds_) external nonReentrant onlyOwner {
        if (seconds_ < 1 days || seconds_ > 100 * 365 days) revert IVeritasOracle.VeritasInvalidHorizon(seconds_);
        _counters.maxHorizon = seconds_;
        emit IVeritasOracle.MaxHorizonChanged(seconds_);
    }

    function maxHorizon() external view returns (uint256) {
        return _counters.maxHorizon;
    }

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    function hasReported(uint256 id, address operator) external view returns (bool) {
        uint256 index = _operators[operator].index;
        if (index == 0) return false;
        return _reported(_questions[id].tally, index);
    }

    /// @dev Also false when the operator's free stake is below the question's report bond.
    function canReport(uint256 id, address operator) external view returns (bool) {
        Operator memory op = _operators[operator];
        Tally memory t = _questions[id].tally;
        return op.active && op.addedAfter < id && t.status == IVeritasOracle.VerdictStatus.Asked
            && !_reported(t, op.index) && _commitments[id][operator] == 0
            // A committer whose withheld commit was slashed cannot commit in a reopened phase.
            && (_rounds[id].committers >> op.index) & 1 == 0 && uint256(op.stake) - op.locked >= _bondOf(t.parametersId);
    }

    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull) {
        Tally memory t = _questions[id].tally;
        return (t.reportCount, t.nYes, t.nNo, t.nNull);
    }

    /*//////////////////////////////////////////////////////////////
                               THE COURT
    //////////////////////////////////////////////////////////////*/

    function requestArbitration(uint256 id) external payable nonReentrant returns (uint256 disputeId) {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status != IVeritasOracle.VerdictStatus.Escalated) {
            revert IVeritasOracle.VeritasNotEscalated(id, t.status);
        }
        IVeritasOracle.Parameters storage params = _parameters[t.parametersId];
        address arbitrator = params.arbitrator;
        if (arbitrator == address(0)) revert IVeritasOracle.VeritasNoArbitrator(id);
        uint256 nowTimestamp = _now();
        uint256 deadline = uint256(t.time) + params.arbitrationWindow;
        if (nowTimestamp >= deadline) revert IVeritasOracle.VeritasCourtDeadlinePassed(id, deadline, nowTimestamp);
        bytes memory extraData = params.arbitratorExtraData;
        uint256 cost = IArbitrator(arbitrator).arbitrationCost(extraData);
        if (msg.value != cost) revert IVeritasOracle.VeritasWrongPayment(msg.value, cost);

        t.status = IVeritasOracle.VerdictStatus.Disputed;
        record.tally = t;
        CaseRecord storage c = _cases[id];
        c.requester = msg.sender;
        // Cannot truncate: a uint40 time plus a uint32 window.
        // forge-lint: disable-next-line(unsafe-typecast)
        c.deadline = uint40(nowTimestamp + params.arbitrationWindow);
        _hold(true);
        disputeId = IArbitrator(arbitrator).createDispute{value: cost}(_ESCALATION_CHOICES, extraData);
        _hold(false);
        c.disputeId = disputeId;
        _caseIds[_caseKey(arbitrator, disputeId)] = id;
        emit Dispute(arbitrator, disputeId, t.parametersId, id);
        emit IVeritasOracle.ArbitrationRequested(id, msg.sender, arbitrator, disputeId);
    }

    function appeal(uint256 id) external payable nonReentrant {
        Tally memory t = _questions[id].tally;
        if (t.status != IVeritasOracle.VerdictStatus.Disputed) revert IVeritasOracle.VeritasNotInCourt(id, t.status);
        CaseRecord storage c = _cases[id];
        uint256 nowTimestamp = _now();
        if (nowTimestamp >= c.deadline) {
            revert IVeritasOracle.VeritasCourtDeadlinePassed(id, c.deadline, nowTimestamp);
        }
        IVeritasOracle.Parameters storage params = _parameters[t.parametersId];
        IArbitrator arbitrator = IArbitrator(params.arbitrator);
        uint256 disputeId = c.disputeId;
        uint256 deadline = nowTimestamp + params.arbitrationWindow;
        // A view: the ruling this appeal is against, which decides its refund (`_refundAppeals`).
        // Clamped when out of range (only from a broken court): `_side` gives it a side of its own.
        uint256 against = arbitrator.currentRuling(disputeId);
        // Cannot truncate: a uint40 time plus a uint32 window; 2^88 wei exceed all the ether;
        // `against` is clamped.
        // forge-lint: disable-start(unsafe-typecast)
        c.deadline = uint40(deadline);
        _appeals[id].push(
            Appeal({
                funder: msg.sender,
                amount: uint88(msg.value),
                against: against > type(uint8).max ? type(uint8).max : uint8(against)
            })
        );
        // forge-lint: disable-end(unsafe-typecast)
        _hold(true);
        arbitrator.appeal{value: msg.value}(disputeId, params.arbitratorExtraData);
        _hold(false);
        // Cannot truncate, as above.
        // forge-lint: disable-next-line(unsafe-typecast)
        emit IVeritasOracle.AppealFunded(id, msg.sender, msg.value, uint64(deadline));
    }

    function courtCost(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        IVeritasOracle.Parameters storage params = _parameters[t.parametersId];
        address arbitrator = params.arbitrator;
        if (arbitrator == address(0)) revert IVeritasOracle.VeritasNoArbitrator(id);
        if (t.status == IVeritasOracle.VerdictStatus.Disputed) {
            return IArbitrator(arbitrator).appealCost(_cases[id].disputeId, params.arbitratorExtraData);
        }
        return IArbitrator(arbitrator).arbitrationCost(params.arbitratorExtraData);
    }

    function resolveByDefault(uint256 id) external nonReentrant {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        uint256 deadline;
        uint8 reason;
        if (t.status == IVeritasOracle.VerdictStatus.Escalated) {
            deadline = uint256(t.time) + _parameters[t.parametersId].arbitrationWindow;
            reason = _DEFAULT_NOT_TAKEN;
        } else if (t.status == IVeritasOracle.VerdictStatus.Disputed) {
            deadline = _cases[id].deadline;
            reason = _DEFAULT_NO_RULING;
        } else {
            revert IVeritasOracle.VeritasNotInCourt(id, t.status);
        }
        uint256 nowTimestamp = _now();
        if (nowTimestamp < deadline) revert IVeritasOracle.VeritasCourtDeadlineNotReached(id, deadline, nowTimestamp);
        _default(id, record, t, reason);
    }

    /// @dev Money of a ruling. Final outcome F: YES, NO or NULL for rulings 2, 3, 4; the leading
    /// outcome of the disputer's triple (5) or of the pooled verdict (1). Every ruling slashes the
    /// report bond of every reporter whose leading outcome is not F. A dispute the disputer
    /// wins: the beneficiary gets its bond back, the fee and the slashed wei less `BURN_BPS` of
    /// them. A dispute the disputer loses burns `BURN_BPS` of its bond and the dissenters' slashed
    /// bonds; the rest and the fee go to the reporters whose leading outcome is F. An escalation pays the fee to the reporters whose
    /// leading outcome is F (the asker when none is). Evidence fees are burned.
    function rule(uint256 disputeId, uint256 ruling) external nonReentrant {
        address arbitrator = msg.sender;
        uint256 id = _caseIds[_caseKey(arbitrator, disputeId)];
        if (id == 0) revert IVeritasOracle.VeritasUnknownDispute(arbitrator, disputeId);
        emit IArbitrable.Ruling(arbitrator, disputeId, ruling);
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == IVeritasOracle.VerdictStatus.Defaulted) {
            emit IVeritasOracle.LateRulingIgnored(id, arbitrator, disputeId, ruling);
            return;
        }
        if (t.status != IVeritasOracle.VerdictStatus.Disputed) revert IVeritasOracle.VeritasNotInCourt(id, t.status);
        CaseRecord memory c = _cases[id];
        uint256 choices = c.disputer == address(0) ? _ESCALATION_CHOICES : _DISPUTE_CHOICES;
        if (ruling > choices) revert IVeritasOracle.VeritasInvalidRuling(ruling, choices);
        if (_now() >= c.deadline) {
            // Too late: the outcome must not depend on whether `resolveByDefault` came first.
            _default(id, record, t, _DEFAULT_NO_RULING);
            emit IVeritasOracle.LateRulingIgnored(id, arbitrator, disputeId, ruling);
            return;
        }
        if (ruling == _RULING_REFUSED) {
            _default(id, record, t, _DEFAULT_REFUSED);
            return;
        }
        // Cannot truncate: at most DISPUTE_CHOICES.
        // forge-lint: disable-next-line(unsafe-typecast)
        _cases[id].ruling = uint8(ruling);
        t.status = IVeritasOracle.VerdictStatus.Arbitrated;
        t.time = _now40();
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _rulingTriple(t, c, ruling);
        bool disputerWon = c.disputer != address(0) && ruling != _RULING_VERDICT_STANDS;
        emit IVeritasOracle.VerdictArbitrated(id, pYes, pNo, pNull, ruling, disputerWon, arbitrator);
        _payRuling(id, record, t, c, ruling, WadTriple.leading(pYes, pNo, pNull), disputerWon);
        emit IVeritasOracle.QuestionSettled(id);
        // The court's ruling is sent by the court: its gas is paid by `tx.origin`.
        _notify(id, record, IVeritasOracle.VerdictStatus.Arbitrated, pYes, pNo, pNull, tx.origin);
    }

    function courtDeadline(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.Escalated) {
            return uint256(t.time) + _parameters[t.parametersId].arbitrationWindow;
        }
        if (t.status == IVeritasOracle.VerdictStatus.Disputed) return _cases[id].deadline;
        return 0;
    }

    function getCase(uint256 id) external view returns (IVeritasOracle.Case memory out) {
        CaseRecord memory c = _cases[id];
        if (c.requester == address(0)) return out;
        out.arbitrator = _parameters[_questions[id].tally.parametersId].arbitrator;
        out.disputeId = c.disputeId;
        out.disputer = c.disputer;
        out.bond = c.bond;
        out.requester = c.requester;
        out.deadline = c.deadline;
        if (c.disputer != address(0)) {
            out.pYes = c.pYes;
            out.pNo = c.pNo;
            out.pNull = WadTriple.WAD - c.pYes - c.pNo;
        }
        out.ruling = c.ruling;
    }

    /// @dev `disputer` is the dispute's beneficiary; `getCase(id).requester` is who sent it.
    function caseOf(address arbitrator, uint256 disputeId) external view returns (uint256 id, address disputer) {
        id = _caseIds[_caseKey(arbitrator, disputeId)];
        if (id != 0) disputer = _cases[id].disputer;
    }

    function retryCallback(uint256 id) external nonReentrant {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.flags & _FLAG_OWED == 0) revert IVeritasOracle.VeritasNoCallbackOwed(id);
        // Cleared first: a re-entrant retry finds nothing owed; a new failure sets it again.
        record.tally.flags = t.flags & ~_FLAG_OWED;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _triple(id, t);
        // The deposit went to whoever delivered (or tried) the final status: a retry is not paid.
        _notify(id, record, t.status, pYes, pNo, pNull, address(0));
    }

    function callbackOwed(uint256 id) external view returns (bool) {
        return _questions[id].tally.flags & _FLAG_OWED != 0;
    }

    function credits(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @dev The ask fee (with its surplus) and the evidence fees still held for `id`.
    function pendingFee(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None || t.flags & _FLAG_SETTLED != 0) return 0;
        return _fee(id, t) + _evidenceFees(t);
    }

    function finalAt(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (_finalStatus(t.status)) return t.time;
        if (t.status != IVeritasOracle.VerdictStatus.Resolved) return 0;
        return uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    function verdictCount() external view returns (uint256) {
        return _header.verdictCount;
    }

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

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

    function parametersId() external view returns (uint16) {
        return _header.parametersId;
    }

    function parameters() external view returns (IVeritasOracle.Parameters memory) {
        return _parameters[_header.parametersId];
    }

    function questionParameters(uint256 id) external view returns (IVeritasOracle.Parameters memory) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.None) revert IVeritasOracle.VeritasUnknownQuestion(id);
        return _parameters[t.parametersId];
    }

    function parameterSet(uint16 parametersId_) external view returns (IVeritasOracle.Parameters memory) {
        return _parameters[parametersId_];
    }

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    function owner() external view returns (address) {
        return _owner;
    }

    function pendingOwner() external view returns (address) {
        return _counters.pendingOwner;
    }

    /// @dev Proposing again replaces the pending owner; to cancel, propose yourself.
    function transferOwnership(address newOwner) external nonReentrant onlyOwner {
        if (newOwner == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        _counters.pendingOwner = newOwner;
        emit IVeritasOracle.OwnershipTransferStarted(msg.sender, newOwner);
    }

    function acceptOwnership() external nonReentrant {
        if (msg.sender != _counters.pendingOwner) revert IVeritasOracle.VeritasNotPendingOwner(msg.sender);
        address previousOwner = _owner;
        _owner = msg.sender;
        delete _counters.pendingOwner;
        emit IVeritasOracle.OwnershipTransferred(previousOwner, msg.sender);
    }

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

    function isOperator(address account) external view returns (bool) {
        return _operators[account].active;
    }

    function operatorEpoch() external view returns (uint32) {
        return _header.operatorEpoch;
    }

    function activeOperatorCount() external view returns (uint256) {
        return _header.activeOperators;
    }

    function releaseIndex(address operator) external nonReentrant {
        if (!_release(operator)) revert IVeritasOracle.VeritasIndexInUse(operator);
    }

    /*//////////////////////////////////////////////////////////////
                                 STAKE
    //////////////////////////////////////////////////////////////*/

    function stake(address operator) external payable nonReentrant {
        if (operator == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        Operator storage op = _operators[operator];
        uint256 total = uint256(op.stake) + msg.value;
        if (total > type(uint96).max) revert IVeritasOracle.VeritasAmountTooLarge(total);
        // Cannot truncate: checked just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        op.stake = uint96(total);
        emit IVeritasOracle.Staked(operator, msg.sender, msg.value, total);
    }

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

    /// @dev The key of dispute `disputeId` of `arbitrator` in `_caseIds`.
    function _caseKey(address arbitrator, uint256 disputeId) private pure returns (bytes32) {
        return keccak256(abi.encode(arbitrator, disputeId));
    }

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

    /// @dev Credits the money of ruling `ruling` with final outcome `outcome` (see `rule`). The
    /// appeals that won are refunded first from what the losing side forfeits, before the burn:
    /// else an honest party facing a wrong ruling would lose less by accepting it than by
    /// appealing and winning.
    function _payRuling(
        uint256 id,
        Record storage record,
        Tally memory t,
        CaseRecord memory c,
        uint256 ruling,
        uint8 outcome,
        bool disputerWon
    ) private {
        uint256 fee = _fee(id, t);
        uint256 burned = _evidenceFees(t);
        uint256 unpaid;
        if (disputerWon) {
            (uint256 slashed,) = _closeReporters(id, t, outcome, true, 0);
            uint256 forfeit = slashed - _refundAppeals(id, t, c, ruling, slashed);
            uint256 burn = _burnShare(forfeit);
            burned += burn;
            _credit(c.disputer, id, c.bond + fee + forfeit - burn);
        } else if (c.disputer != address(0)) {
            uint256 forfeit = c.bond - _refundAppeals(id, t, c, ruling, c.bond);
            uint256 burn = _burnShare(forfeit);
            // The verdict stands: a dissenter's leading outcome was rejected too, and its bond is
            // burned whole, so that nobody (reporter or disputer) gains from another's dissent.
            uint256 slashed;
            (slashed, unpaid) = _closeReporters(id, t, outcome, true, fee + forfeit - burn);
            burned += burn + slashed;
        } else {
            // An escalation the court decided: every reporter whose leading outcome the court
            // rejected is slashed as a disputed liar would be, and the requester, who paid the
            // court, is paid from it (less the burned share). Escalating, dissenting or withholding
            // is no slash-free path.
            uint256 slashed;
            (slashed, unpaid) = _closeReporters(id, t, outcome, true, fee);
            uint256 forfeit = slashed - _refundAppeals(id, t, c, ruling, slashed);
            uint256 burn = _burnShare(forfeit);
            burned += burn;
            _credit(c.requester, id, forfeit - burn);
        }
        // Nobody agreed with the final outcome: what the reporters would have shared goes back to
        // the asker.
        _credit(record.info.asker, id, unpaid);
        _credit(_BURN_ADDRESS, id, burned);
    }

    /// @dev Credits back, from `available` wei and in funding order, the fee of every appeal of
    /// `id` against a ruling on the other side of the final `ruling` (`_side`). Returns the wei
    /// credited.
    function _refundAppeals(uint256 id, Tally memory t, CaseRecord memory c, uint256 ruling, uint256 available)
        private
        returns (uint256 paid)
    {
        Appeal[] storage appeals = _appeals[id];
        uint256 n = appeals.length;
        uint256 side = _side(t, c, ruling);
        for (uint256 i = 0; i < n && paid < available; i++) {
            Appeal memory a = appeals[i];
            if (_side(t, c, a.against) == side) continue;
            uint256 amount = a.amount < available - paid ? a.amount : available - paid;
            paid += amount;
            _credit(a.funder, id, amount);
        }
    }

    /// @dev Which side ruling `ruling` of case `c` gives the case to: for a dispute, the verdict (1)
    /// or the disputer (2, any ruling but "the verdict stands"); for an escalation, 3 + the
    /// ruling's leading outcome. A refusal or a ruling out of range is a side of its own, so an
    /// appeal against it that ends in a ruling is an appeal won. By side, not by number: rulings
    /// 2 and 5 that both uphold a dispute are one outcome for whoever appealed. (A disputer who
    /// appeals a ruling in its own favour and loses is refunded from its own bond: it paid the
    /// court `a` to get back at most `a`, never a gain.)
    function _side(Tally memory t, CaseRecord memory c, uint256 ruling) private pure returns (uint256) {
        uint256 choices = c.disputer == address(0) ? _ESCALATION_CHOICES : _DISPUTE_CHOICES;
        if (ruling == _RULING_REFUSED || ruling > choices) return 0;
        if (c.disputer != address(0)) return ruling == _RULING_VERDICT_STANDS ? 1 : 2;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _rulingTriple(t, c, ruling);
        return 3 + WadTriple.leading(pYes, pNo, pNull);
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
