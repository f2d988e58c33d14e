// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IArbitrable} from "../interfaces/IArbitrable.sol";
import {IArbitrator} from "../interfaces/IArbitrator.sol";
import {WadTriple} from "../lib/WadTriple.sol";
import {VeritasModule} from "./VeritasModule.sol";

/// @title VeritasCourtModule
/// @notice The oracle's ERC-792 court adapter: disputes of a Resolved verdict, escalations taken
/// to the court, appeals, the court's rulings and the money they move, the default when the court
/// does not rule in time, and the consumer callback's retry. Its code runs only by `delegatecall`
/// from `VeritasOracle`'s `fallback`, on the oracle's storage (`VeritasStorage`): call these
/// functions on the oracle's address, typed as `IVeritasOracle`. Called directly it only ever sees
/// its own, empty storage (no question, no case, no money).
contract VeritasCourtModule is VeritasModule {
    /*//////////////////////////////////////////////////////////////
                          DISPUTES AND CASES
    //////////////////////////////////////////////////////////////*/

    /// @notice See `IVeritasOracle.dispute`.
    function dispute(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull, address beneficiary)
        external
        payable
        delegated
        nonReentrant
        returns (uint256 disputeId)
    {
        if (beneficiary == address(0)) revert IVeritasOracle.VeritasZeroAddress();
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status != IVeritasOracle.VerdictStatus.Resolved) {
            revert IVeritasOracle.VeritasNotDisputable(id, t.status);
        }
        IVeritasOracle.Parameters storage params = _parameters[t.parametersId];
        uint256 nowTimestamp = _now();
        uint256 end = uint256(t.time) + params.challengeWindow;
        if (nowTimestamp >= end) revert IVeritasOracle.VeritasChallengeWindowClosed(id, end, nowTimestamp);
        // A challenge window implies an arbitrator (checked by `setParameters`).
        address arbitrator = params.arbitrator;
        if (msg.sender == arbitrator) revert IVeritasOracle.VeritasArbitratorCannotDispute(id, msg.sender);
        WadTriple.check(pYes, pNo, pNull);
        (uint256 postedYes, uint256 postedNo,) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        if (pYes == postedYes && pNo == postedNo) revert IVeritasOracle.VeritasSameTriple(id);
        bytes memory extraData = params.arbitratorExtraData;
        uint256 cost = IArbitrator(arbitrator).arbitrationCost(extraData);
        uint256 required = cost + params.disputeBond;
        if (msg.value < required) revert IVeritasOracle.VeritasInsufficientPayment(msg.value, required);
        uint256 bond = msg.value - cost;
        if (bond > type(uint96).max) revert IVeritasOracle.VeritasAmountTooLarge(bond);

        // State first: the arbitrator is called next, and the consumer last.
        t.status = IVeritasOracle.VerdictStatus.Disputed;
        record.tally = t;
        uint256 deadline = nowTimestamp + params.arbitrationWindow;
        CaseRecord storage c = _cases[id];
        // The casts cannot truncate: the bond was checked above, the triple is below WAD < 2^63
        // (`WadTriple.check`), the deadline is a uint40 time plus a uint32 window.
        // forge-lint: disable-start(unsafe-typecast)
        c.disputer = beneficiary;
        c.bond = uint96(bond);
        c.requester = msg.sender;
        c.deadline = uint40(deadline);
        c.pYes = uint64(pYes);
        c.pNo = uint64(pNo);
        // forge-lint: disable-end(unsafe-typecast)
        disputeId = _openCase(id, c, arbitrator, cost, _DISPUTE_CHOICES, extraData, t.parametersId);
        emit IVeritasOracle.VerdictDisputed(id, msg.sender, bond, pYes, pNo, pNull, arbitrator, disputeId, beneficiary);
        _notify(
            id,
            record,
            IVeritasOracle.VerdictStatus.Disputed,
            postedYes,
            postedNo,
            WadTriple.WAD - postedYes - postedNo,
            address(0)
        );
    }

    /// @notice See `IVeritasOracle.requestArbitration`.
    function requestArbitration(uint256 id) external payable delegated nonReentrant returns (uint256 disputeId) {
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
        disputeId = _openCase(id, c, arbitrator, cost, _ESCALATION_CHOICES, extraData, t.parametersId);
        emit IVeritasOracle.ArbitrationRequested(id, msg.sender, arbitrator, disputeId);
    }

    /// @notice See `IVeritasOracle.appeal`.
    function appeal(uint256 id) external payable delegated nonReentrant {
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

    /// @notice See `IVeritasOracle.courtCost`.
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

    /// @notice See `IVeritasOracle.resolveByDefault`.
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

    /// @notice See `IVeritasOracle.rule`.
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
        if (ruling == _RULING_TOO_EARLY) {
            uint256 opens = _nextRound(t, record.info.askedAt);
            if (opens != 0) return _deferByCourt(id, record, t, c, arbitrator, opens);
            // At the deferral bound the question ends, unresolvable.
            ruling = _RULING_UNRESOLVABLE;
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

    /// @notice See `IVeritasOracle.courtDeadline`.
    function courtDeadline(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == IVeritasOracle.VerdictStatus.Escalated) {
            return uint256(t.time) + _parameters[t.parametersId].arbitrationWindow;
        }
        if (t.status == IVeritasOracle.VerdictStatus.Disputed) return _cases[id].deadline;
        return 0;
    }

    /// @notice See `IVeritasOracle.getCase`.
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

    /// @notice See `IVeritasOracle.caseOf`.
    /// @dev `disputer` is the dispute's beneficiary; `getCase(id).requester` is who sent it.
    function caseOf(address arbitrator, uint256 disputeId) external view returns (uint256 id, address disputer) {
        id = _caseIds[_caseKey(arbitrator, disputeId)];
        if (id != 0) disputer = _cases[id].disputer;
    }

    /// @notice See `IVeritasOracle.retryCallback`.
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

    /// @notice See `IVeritasOracle.callbackOwed`.
    function callbackOwed(uint256 id) external view returns (bool) {
        return _questions[id].tally.flags & _FLAG_OWED != 0;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Opens case `c` of question `id` at `arbitrator`, paying it `cost`, and indexes it by
    /// the court's dispute id. The case's own fields are written before (the court is called).
    function _openCase(
        uint256 id,
        CaseRecord storage c,
        address arbitrator,
        uint256 cost,
        uint256 choices,
        bytes memory extraData,
        uint16 parametersId
    ) private returns (uint256 disputeId) {
        _hold(true);
        disputeId = IArbitrator(arbitrator).createDispute{value: cost}(choices, extraData);
        _hold(false);
        c.disputeId = disputeId;
        _caseIds[_caseKey(arbitrator, disputeId)] = id;
        emit Dispute(arbitrator, disputeId, parametersId, id);
    }

    /// @dev The court ruled `id` (tally `t`, case `c` at `arbitrator`) too early: slashes every
    /// reporter whose report did not say "not yet" as a ruling against it would, refunds the
    /// appeals against the other side from that, gives a disputer its bond back and the rest (less
    /// the burn) to whoever took the case to the court, closes the case and defers the question to
    /// `opens`. The ask fee and evidence fees stay with the question.
    function _deferByCourt(
        uint256 id,
        Record storage record,
        Tally memory t,
        CaseRecord memory c,
        address arbitrator,
        uint256 opens
    ) private {
        (uint256 slashed,) = _closeReporters(id, t, _NOT_YET, true, 0);
        uint256 forfeit = slashed - _refundAppeals(id, t, c, _RULING_TOO_EARLY, slashed);
        uint256 burn = _burnShare(forfeit);
        _credit(c.disputer != address(0) ? c.disputer : c.requester, id, c.bond + forfeit - burn);
        _credit(_BURN_ADDRESS, id, burn);
        // The next round may go to the court again, as a new case.
        delete _caseIds[_caseKey(arbitrator, c.disputeId)];
        delete _cases[id];
        delete _appeals[id];
        _defer(id, record, t, opens);
    }

    /// @dev The key of dispute `disputeId` of `arbitrator` in `_caseIds`.
    function _caseKey(address arbitrator, uint256 disputeId) private pure returns (bytes32) {
        return keccak256(abi.encode(arbitrator, disputeId));
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
        if (ruling == _RULING_TOO_EARLY) return 6;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _rulingTriple(t, c, ruling);
        return 3 + WadTriple.leading(pYes, pNo, pNull);
    }
}
