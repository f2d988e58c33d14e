// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "../interfaces/IVeritasConsumer.sol";

/// @title ExampleConsumer
/// @notice A minimal Veritas consumer for questions anyone asks naming it (`veritas ask
/// --callback`): it records the outcome of every question asked under the rules it was written
/// for, from the oracle's callback or, if a callback failed, from the pull path (`sync`). Written
/// the way integrators should (v3); not audited, an illustration, not a product.
/// @dev The pattern:
/// - Trust only the oracle, and only under your rules. A question's rules (its parameter set,
///   hence its court, and its consumer) are fixed when it is asked and never change, so checking
///   them on the first callback is checking them at the ask. A question asked under other rules
///   (another parameter set, another court) is recorded as `WrongRules` and never acted on.
///   (`ExampleMarket` asks its question itself and checks the rules in the same transaction.)
/// - Act only on a final status. `Disputed` is not final: the verdict may still change, so it is
///   noted and nothing else.
/// - Handle every final status: `Resolved` past its challenge window and `Arbitrated` carry a
///   triple (the leading outcome wins, a tie for the top is `Unresolvable`); `Expired` has no
///   triple (no report came); `Defaulted` carries the unresolvable triple (the court failed).
/// - Never revert on a legitimate callback: a revert only delays your own outcome (`retryCallback`).
contract ExampleConsumer is IVeritasConsumer {
    /// @notice What a question came to, for this consumer.
    enum Outcome {
        Unknown, // no final callback yet
        Yes, // YES leads (Resolved or Arbitrated)
        No, // NO leads
        Unresolvable, // NULL leads, or a tie for the top
        Expired, // no report came: no verdict
        Defaulted, // the court failed to rule in time (or refused): unresolvable
        WrongRules // asked under rules this consumer was not written for: ignored
    }

    /// @notice What the consumer knows of one question.
    struct Record {
        Outcome outcome; // the final outcome (Unknown until final)
        IVeritasOracle.VerdictStatus status; // the last status the oracle reported
        bool disputed; // a dispute was reported (informational: the verdict was challenged)
        uint256 pYes; // the final triple (zero for Expired)
        uint256 pNo;
        uint256 pNull;
    }

    /// @notice The oracle reported `status` for `id`, and the consumer recorded `outcome`.
    event Recorded(uint256 indexed id, IVeritasOracle.VerdictStatus status, Outcome outcome);

    /// @notice Only the oracle calls back.
    error ConsumerNotOracle(address caller);

    /// @notice `sync(id)` before `id` is final; it is in `status`.
    error ConsumerNotFinal(uint256 id, IVeritasOracle.VerdictStatus status);

    /// @notice The oracle this consumer trusts.
    IVeritasOracle public immutable oracle;

    /// @notice The parameter set questions must have been asked under.
    uint16 public immutable parametersId;

    /// @notice The court questions must go to (the parameter set names it; checked too, so that a
    /// reader of this contract sees which court it trusts).
    address public immutable arbitrator;

    /// @notice Each question's record.
    mapping(uint256 id => Record) public records;

    /// @param oracle_ The Veritas oracle.
    /// @param parametersId_ The parameter set questions must be asked under.
    /// @param arbitrator_ The court that set names.
    constructor(IVeritasOracle oracle_, uint16 parametersId_, address arbitrator_) {
        oracle = oracle_;
        parametersId = parametersId_;
        arbitrator = arbitrator_;
    }

    /// @notice Whether question `id` was asked under this consumer's rules, naming it.
    function rulesOk(uint256 id) public view returns (bool) {
        IVeritasOracle.Question memory q = oracle.getQuestion(id);
        if (q.consumer != address(this) || q.parametersId != parametersId) return false;
        return oracle.questionParameters(id).arbitrator == arbitrator;
    }

    /// @inheritdoc IVeritasConsumer
    /// @dev Records a final status; notes `Disputed`; ignores anything after the outcome is known.
    function onVeritasVerdict(uint256 id, IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        external
    {
        if (msg.sender != address(oracle)) revert ConsumerNotOracle(msg.sender);
        _record(id, status, pYes, pNo, pNull);
    }

    /// @notice The pull path: record `id`'s final outcome from the oracle's views, after a failed
    /// callback (the oracle's `retryCallback` is the other way). Anyone may call it.
    function sync(uint256 id) external returns (Outcome) {
        IVeritasOracle.VerdictStatus status = oracle.verdictStatus(id);
        if (!oracle.isFinal(id)) revert ConsumerNotFinal(id, status);
        uint256 pYes;
        uint256 pNo;
        uint256 pNull;
        if (status != IVeritasOracle.VerdictStatus.Expired) (,, pYes, pNo, pNull,,) = oracle.getVerdict(id);
        _record(id, status, pYes, pNo, pNull);
        return records[id].outcome;
    }

    /// @dev Records `status` of `id` unless its outcome is already known.
    function _record(uint256 id, IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        internal
    {
        Record storage r = records[id];
        if (r.outcome != Outcome.Unknown) return;
        r.status = status;
        if (!rulesOk(id)) {
            r.outcome = Outcome.WrongRules;
        } else if (status == IVeritasOracle.VerdictStatus.Disputed) {
            r.disputed = true;
        } else {
            r.outcome = _outcome(status, pYes, pNo, pNull);
            (r.pYes, r.pNo, r.pNull) = (pYes, pNo, pNull);
        }
        emit Recorded(id, status, r.outcome);
    }

    /// @dev The outcome of a final `status` with its triple.
    function _outcome(IVeritasOracle.VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        internal
        pure
        returns (Outcome)
    {
        if (status == IVeritasOracle.VerdictStatus.Expired) return Outcome.Expired;
        if (status == IVeritasOracle.VerdictStatus.Defaulted) return Outcome.Defaulted;
        if (pYes > pNo && pYes > pNull) return Outcome.Yes;
        if (pNo > pYes && pNo > pNull) return Outcome.No;
        return Outcome.Unresolvable;
    }
}
