// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";

/// @title VeritasOracle
/// @notice Questions in, pooled committee verdicts out: the on-chain half of Veritas, version 2.
/// @dev The core idea: no single key settles a verdict. Independent operators each submit a
/// *report* (ballot counts, evidence root, kappa); the contract adds the counts and, when the
/// question's quorum is reached, turns them into the 1e18 triple itself with the auditors'
/// largest-remainder rule. A Resolved verdict is final only after a challenge window in which
/// anyone may dispute it with a bond; the arbiter rules on disputed and escalated verdicts.
/// Money (ask fees, evidence fees, bonds) is credited and paid by pull (`withdraw`).
///
/// Gas shapes the storage:
///
/// - The question text is emitted in `QuestionAsked` and never stored; storage keeps its sha256.
/// - The verdict is stored as the pooled *counts* (48 bits), not as probabilities: the triple is
///   a pure function of them, recomputed on read. So the running tally of the reports and the
///   final verdict are the same slot, which the ask creates: no report ever creates it.
/// - The reporters are kept as 8-bit operator indices inside that slot (at most `MAX_QUORUM`), so
///   "one report per operator" and "pay the reporters" need no mapping per operator.
/// - A question's rules are a `parametersId` (16 bits) into the owner's parameter sets, not a copy.
/// - The evidence hash chain is one global slot (nonzero after the first submission) plus an
///   8-bit count per question in the verdict slot, so a submission never creates a slot.
///
/// Storage layout of one question (`_questions[id]`, four consecutive slots):
///
///     slot 0  [255..0]    questionHash   sha256 of the UTF-8 question text
///     slot 1  [159..0]    asker          address that asked
///             [199..160]  askedAt        uint40 block timestamp of the ask
///             [239..200]  resolveAfter   uint40 earliest report time (saturated, see askQuestion)
///             [255..240]  (unused)
///     slot 2  [7..0]      status         uint8 `VerdictStatus`
///             [15..8]     reportCount    uint8 reports pooled so far
///             [23..16]    flags          bit 0 a report escalated, bit 1 leading outcomes differ,
///                                        bit 2 money settled, bits 3-4 first report's leading outcome
///             [39..24]    nYes           uint16 summed YES ballots
///             [55..40]    nNo            uint16 summed NO ballots
///             [71..56]    nNull          uint16 summed NULL ballots
///             [135..72]   kappa          int64 WAD kappa, minimum of the reports (two's complement)
///             [175..136]  time           uint40 max(resolveAfter, askedAt) while Asked (when
///                                        the report window opens); then the time of the
///                                        posting, arbitration or expiry
///             [191..176]  parametersId   uint16 the question's parameter set
///             [247..192]  reporters      7 x uint8 operator indices, in report order
///             [255..248]  evidenceCount  uint8 evidence items submitted
///     slot 3  [255..0]    merkleRoot     first report's root, then the roots digest (0 before)
///
/// Other per-question slots, written only when needed: `_extraFees[id]` (surplus ask payment and
/// evidence fees), `_disputes[id]` ([159..0] disputer, [255..160] bond uint96) and `_rulings[id]`
/// ([63..0] pYes, [127..64] pNo of the arbiter's triple).
///
/// Header slot (`_header`): [159..0] owner, [199..160] questionCount (uint40), [239..200]
/// finalizedCount (uint40: verdicts posted by `finalize`), [255..240] parametersId in force
/// (uint16). Operator slot (`_operators[account]`): [7..0] index, [15..8] active, [55..16]
/// posted (uint40: verdicts its reports posted). The verdict count is finalizedCount plus every
/// operator's posted count: the finalising report writes the operator slot it has just read
/// (2,900 gas) instead of a cold global counter (5,000). Parameter set (2 slots):
/// [7..0] quorum, [23..8] maxBallotsPerReport, [55..24] reportWindow, [87..56] challengeWindow,
/// [183..88] askFee; then [95..0] disputeBond, [191..96] evidenceFee.
///
/// uint40 timestamps last until the year 36,812; 2^40 questions exceed any chain's capacity;
/// 96-bit amounts exceed all ether in existence (~1.2e26 wei < 7.9e28).
contract VeritasOracle is IVeritasOracle {
    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The fixed-point scale of every probability and of kappa: 1e18 means 1 (certainty).
    uint256 public constant WAD = 1e18;

    /// @inheritdoc IVeritasOracle
    /// @dev 2048 bytes holds a question with its resolution criteria (about 300 English words)
    /// while bounding what an ask can make the node fetch, hash and put in every juror's prompt.
    uint256 public constant MAX_QUESTION_LENGTH = 2048;

    /// @notice Most reports a verdict can pool: the reporters' indices share the verdict slot (7 x 8 bits).
    uint256 public constant MAX_QUORUM = 7;

    /// @notice Largest `maxBallotsPerReport`: MAX_QUORUM x 9,000 ballots still fit the 16-bit counts.
    uint256 public constant MAX_BALLOTS_PER_REPORT = 9000;

    /// @notice Most distinct operators ever added (indices are 8 bits, 0 meaning "none").
    uint256 public constant MAX_OPERATORS = 255;

    /// @notice Longest evidence URL in bytes (the practical limit of browsers and servers).
    uint256 public constant MAX_URL_LENGTH = 2048;

    /// @notice Longest evidence title in bytes.
    uint256 public constant MAX_TITLE_LENGTH = 256;

    /// @notice Longest evidence snippet in bytes: the node's 200-word snippets with room to spare.
    uint256 public constant MAX_SNIPPET_LENGTH = 2048;

    /// @notice Most evidence items per question: every one is put before the committee, so a
    /// question's evidence stays bounded even if someone pays to flood it.
    uint256 public constant MAX_EVIDENCE_PER_QUESTION = 64;

    /// @dev `resolveAfter` is stored in 40 bits; later values (beyond the year 36,812) mean
    /// "never" just as well and are saturated to this.
    uint64 private constant _MAX_RESOLVE_AFTER = type(uint40).max;

    /// @dev Kappa's bound in both directions, as a signed WAD.
    int256 private constant _KAPPA_BOUND = 1e18;

    /// @dev Flag bits of the verdict slot (see the layout above).
    uint8 private constant _FLAG_ESCALATED = 1;
    uint8 private constant _FLAG_DISAGREE = 2;
    uint8 private constant _FLAG_SETTLED = 4;
    uint8 private constant _LEADER_SHIFT = 3;

    /// @dev Default parameters of a new oracle: local-chain friendly (one operator settles, final
    /// at once, free). `script/Deploy.s.sol` sets public-chain values from the environment.
    uint8 private constant _DEFAULT_QUORUM = 1;
    uint16 private constant _DEFAULT_MAX_BALLOTS = 30; // T x M of the node's default committee
    uint32 private constant _DEFAULT_REPORT_WINDOW = 1 days;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev Slot 1 of a question (layout on the contract).
    struct Info {
        address asker;
        uint40 askedAt;
        uint40 resolveAfter;
    }

    /// @dev Slot 2 of a question: the running tally, then the verdict (layout on the contract).
    struct Tally {
        VerdictStatus status;
        uint8 reportCount;
        uint8 flags;
        uint16 nYes;
        uint16 nNo;
        uint16 nNull;
        int64 kappa;
        uint40 time;
        uint16 parametersId;
        uint56 reporters;
        uint8 evidenceCount;
    }

    /// @dev One question and its verdict.
    struct Record {
        bytes32 questionHash;
        Info info;
        Tally tally;
        bytes32 merkleRoot;
    }

    /// @dev Owner, counters and the parameter set in force, in one slot.
    struct Header {
        address owner;
        uint40 questionCount;
        uint40 finalizedCount;
        uint16 parametersId;
    }

    /// @dev An operator's 8-bit index (assigned once, kept across removal) and whether it is active.
    struct Operator {
        uint8 index;
        bool active;
        uint40 posted;
    }

    /// @dev A dispute: who bonded how much.
    struct Dispute {
        address disputer;
        uint96 bond;
    }

    /// @dev The arbiter's triple (pNull = WAD - pYes - pNo).
    struct Ruling {
        uint64 pYes;
        uint64 pNo;
    }

    /// @dev Owner, question count, verdict count, parameters in force.
    Header private _header;

    /// @dev Proposed owner, until it accepts; and the number of operator indices handed out.
    address private _pendingOwner;
    uint8 private _operatorCount;

    /// @dev Arbiter of escalated and disputed verdicts (zero until the owner sets one).
    address private _arbiter;

    /// @dev Head of the global evidence hash chain.
    bytes32 private _evidenceHead;

    /// @dev Operators by address, and their addresses by index.
    mapping(address account => Operator) private _operators;
    mapping(uint256 index => address) private _operatorAt;

    /// @dev Parameter sets by id; id 0 is the constructor's.
    mapping(uint256 parametersId => Parameters) private _parameters;

    /// @dev Question id (from 1) to its record.
    mapping(uint256 id => Record) private _questions;

    /// @dev What an asker paid beyond its parameter set's `askFee` (kept for the operators).
    mapping(uint256 id => uint256) private _extraFees;

    /// @dev Disputes and arbiter rulings by question.
    mapping(uint256 id => Dispute) private _disputes;
    mapping(uint256 id => Ruling) private _rulings;

    /// @dev Wei each account may withdraw.
    mapping(address account => uint256) private _credits;

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param initialOwner The owner, who then adds operators, sets the arbiter and the parameters.
    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert VeritasZeroAddress();
        _header.owner = initialOwner;
        Parameters memory defaults = Parameters({
            quorum: _DEFAULT_QUORUM,
            maxBallotsPerReport: _DEFAULT_MAX_BALLOTS,
            reportWindow: _DEFAULT_REPORT_WINDOW,
            challengeWindow: 0,
            askFee: 0,
            disputeBond: 0,
            evidenceFee: 0
        });
        _parameters[0] = defaults;
        // A nonzero start, so no submission pays for creating the slot; unique to this oracle.
        _evidenceHead = keccak256(abi.encode(block.chainid, address(this)));
        emit OwnershipTransferred(address(0), initialOwner);
        emit ParametersChanged(0, defaults);
    }

    /*//////////////////////////////////////////////////////////////
                               MODIFIERS
    //////////////////////////////////////////////////////////////*/

    /// @dev Reverts with `VeritasNotOwner` unless the caller is the owner.
    modifier onlyOwner() {
        if (msg.sender != _header.owner) revert VeritasNotOwner(msg.sender);
        _;
    }

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    /// @dev A `resolveAfter` above 2^40 - 1 is stored (and returned by `getQuestion`) as 2^40 - 1:
    /// both are tens of thousands of years away. The event carries the value as given.
    function askQuestion(string calldata question, uint64 resolveAfter) external payable returns (uint256 id) {
        uint256 length = bytes(question).length;
        if (length == 0) revert VeritasEmptyQuestion();
        if (length > MAX_QUESTION_LENGTH) revert VeritasQuestionTooLong(length, MAX_QUESTION_LENGTH);

        bytes32 questionHash = sha256(bytes(question));
        id = _createQuestion(questionHash, resolveAfter);
        emit QuestionAsked(id, msg.sender, questionHash, resolveAfter, question);
    }

    /// @inheritdoc IVeritasOracle
    function getQuestion(uint256 id) external view returns (Question memory) {
        Record storage record = _questions[id];
        Info memory info = record.info;
        if (info.asker == address(0)) revert VeritasUnknownQuestion(id);
        return Question({
            questionHash: record.questionHash, asker: info.asker, askedAt: info.askedAt, resolveAfter: info.resolveAfter
        });
    }

    /// @inheritdoc IVeritasOracle
    function questionCount() external view returns (uint256) {
        return _header.questionCount;
    }

    /*//////////////////////////////////////////////////////////////
                                EVIDENCE
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function submitEvidence(uint256 id, string calldata url, string calldata title, string calldata snippet)
        external
        payable
        returns (uint256 index)
    {
        _checkEvidenceLengths(bytes(url).length, bytes(title).length, bytes(snippet).length);
        index = _admitEvidence(id);
        bytes32 head = keccak256(abi.encode(_evidenceHead, id, msg.sender, url, title, snippet));
        _evidenceHead = head;
        emit EvidenceSubmitted(id, msg.sender, index, head, url, title, snippet);
    }

    /// @inheritdoc IVeritasOracle
    function evidenceCount(uint256 id) external view returns (uint256) {
        return _questions[id].tally.evidenceCount;
    }

    /// @inheritdoc IVeritasOracle
    function evidenceHead() external view returns (bytes32) {
        return _evidenceHead;
    }

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function submitReport(
        uint256 id,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated
    ) external {
        Report memory r = Report(id, merkleRoot, nYes, nNo, nNull, fleissKappa, escalated);
        _submit(_operatorIndex(msg.sender), r, false);
    }

    /// @inheritdoc IVeritasOracle
    function submitReports(Report[] calldata reports) external returns (uint256 submitted) {
        uint256 index = _operatorIndex(msg.sender);
        for (uint256 i = 0; i < reports.length; i++) {
            if (_submit(index, reports[i], true)) {
                submitted++;
            }
        }
    }

    /// @inheritdoc IVeritasOracle
    function finalize(uint256 id) external {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        if (t.status != VerdictStatus.Asked) revert VeritasNotOpen(id, t.status);
        uint256 nowTimestamp = _now();
        uint256 deadline = uint256(t.time) + _parameters[t.parametersId].reportWindow;
        if (nowTimestamp < deadline) revert VeritasReportWindowOpen(id, deadline, nowTimestamp);

        if (t.reportCount == 0) {
            t.status = VerdictStatus.Expired;
            t.time = _now40();
            t.flags |= _FLAG_SETTLED;
            record.tally = t;
            uint256 refund = _fee(id, t);
            emit QuestionExpired(id, refund);
            _credit(record.info.asker, id, refund);
            emit QuestionSettled(id);
        } else {
            // The quorum was not met: the pooled verdict goes to the arbiter.
            _post(id, record, t, record.merkleRoot, true);
            // Checked, and cannot overflow 40 bits anyway: never more verdicts than questions.
            _header.finalizedCount += 1;
        }
    }

    /// @inheritdoc IVeritasOracle
    function hasReported(uint256 id, address operator) external view returns (bool) {
        uint256 index = _operators[operator].index;
        if (index == 0) return false;
        Tally memory t = _questions[id].tally;
        for (uint256 i = 0; i < t.reportCount; i++) {
            if (uint8(t.reporters >> (8 * i)) == index) return true;
        }
        return false;
    }

    /// @inheritdoc IVeritasOracle
    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull) {
        Tally memory t = _questions[id].tally;
        return (t.reportCount, t.nYes, t.nNo, t.nNull);
    }

    /*//////////////////////////////////////////////////////////////
                           VERDICTS AND DISPUTES
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function dispute(uint256 id) external payable {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status != VerdictStatus.Resolved) revert VeritasNotDisputable(id, t.status);
        Parameters storage params = _parameters[t.parametersId];
        uint256 nowTimestamp = _now();
        uint256 end = uint256(t.time) + params.challengeWindow;
        if (nowTimestamp >= end) revert VeritasChallengeWindowClosed(id, end, nowTimestamp);
        uint256 bond = params.disputeBond;
        if (msg.value < bond) revert VeritasInsufficientPayment(msg.value, bond);
        if (msg.value > type(uint96).max) revert VeritasAmountTooLarge(msg.value);

        // Cannot truncate: checked against type(uint96).max just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        _disputes[id] = Dispute({disputer: msg.sender, bond: uint96(msg.value)});
        record.tally.status = VerdictStatus.Disputed;
        emit VerdictDisputed(id, msg.sender, msg.value);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Money: on a Disputed verdict, when the arbiter's leading outcome differs from the pooled
    /// one (ties in YES, NO, NULL order), the disputer is credited its bond and the question's fee;
    /// otherwise the reporters are credited both. On an Escalated verdict the reporters are
    /// credited the fee. Shares are equal; the indivisible rest goes to the first reporter.
    function arbitrate(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull) external {
        if (msg.sender != _arbiter) revert VeritasNotArbiter(msg.sender);
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        VerdictStatus status = t.status;
        if (status != VerdictStatus.Escalated && status != VerdictStatus.Disputed) {
            revert VeritasNotArbitrable(id, status);
        }
        _checkTriple(pYes, pNo, pNull);

        // The casts cannot truncate: `_checkTriple` bounds each probability by WAD < 2^63.
        // forge-lint: disable-next-line(unsafe-typecast)
        _rulings[id] = Ruling({pYes: uint64(pYes), pNo: uint64(pNo)});
        t.status = VerdictStatus.Arbitrated;
        t.time = _now40();
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        emit VerdictArbitrated(id, pYes, pNo, pNull, msg.sender);

        uint256 amount = _fee(id, t);
        if (status == VerdictStatus.Disputed) {
            Dispute memory d = _disputes[id];
            amount += d.bond;
            if (_leading(pYes, pNo, pNull) != _leading(t.nYes, t.nNo, t.nNull)) {
                _credit(d.disputer, id, amount);
                amount = 0;
            }
        }
        _creditReporters(id, t, amount);
        emit QuestionSettled(id);
    }

    /// @inheritdoc IVeritasOracle
    function settle(uint256 id) external {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.flags & _FLAG_SETTLED != 0) revert VeritasAlreadySettled(id);
        if (
            t.status != VerdictStatus.Resolved || _now() < uint256(t.time) + _parameters[t.parametersId].challengeWindow
        ) {
            revert VeritasNotFinal(id, t.status);
        }
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        _creditReporters(id, t, _fee(id, t));
        emit QuestionSettled(id);
    }

    /// @inheritdoc IVeritasOracle
    function withdraw() external returns (uint256 amount) {
        amount = _credits[msg.sender];
        if (amount == 0) revert VeritasNothingToWithdraw(msg.sender);
        // State before the external call: a re-entrant withdraw finds nothing.
        delete _credits[msg.sender];
        emit Withdrawn(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert VeritasTransferFailed(msg.sender, amount);
    }

    /// @inheritdoc IVeritasOracle
    function credits(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @inheritdoc IVeritasOracle
    function pendingFee(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.None || t.flags & _FLAG_SETTLED != 0) return 0;
        return _fee(id, t);
    }

    /// @inheritdoc IVeritasOracle
    function getDispute(uint256 id) external view returns (address disputer, uint256 bond) {
        Dispute memory d = _disputes[id];
        return (d.disputer, d.bond);
    }

    /// @inheritdoc IVeritasOracle
    function getVerdict(uint256 id)
        external
        view
        returns (
            bytes32 questionHash,
            bytes32 merkleRoot,
            uint256 pYes,
            uint256 pNo,
            uint256 pNull,
            int256 fleissKappa,
            uint256 timestamp
        )
    {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        VerdictStatus status = t.status;
        if (status == VerdictStatus.Arbitrated) {
            Ruling memory ruling = _rulings[id];
            pYes = ruling.pYes;
            pNo = ruling.pNo;
            // Exact, never rounds: the stored pair came from a triple that summed to exactly WAD.
            pNull = WAD - pYes - pNo;
        } else if (
            status == VerdictStatus.Resolved || status == VerdictStatus.Escalated || status == VerdictStatus.Disputed
        ) {
            (pYes, pNo, pNull) = _wadTriple(t.nYes, t.nNo, t.nNull);
        } else {
            revert VeritasVerdictNotFound(id);
        }
        return (record.questionHash, record.merkleRoot, pYes, pNo, pNull, t.kappa, t.time);
    }

    /// @inheritdoc IVeritasOracle
    function verdictStatus(uint256 id) external view returns (VerdictStatus) {
        return _questions[id].tally.status;
    }

    /// @inheritdoc IVeritasOracle
    function isFinal(uint256 id) external view returns (bool) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.Arbitrated || t.status == VerdictStatus.Expired) return true;
        if (t.status != VerdictStatus.Resolved) return false;
        return _now() >= uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /// @inheritdoc IVeritasOracle
    function finalAt(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.Arbitrated || t.status == VerdictStatus.Expired) return t.time;
        if (t.status != VerdictStatus.Resolved) return 0;
        return uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Sums the operators' counters: 2 storage reads per operator ever added (at most 255).
    function verdictCount() external view returns (uint256 count) {
        count = _header.finalizedCount;
        uint256 operators = _operatorCount;
        for (uint256 i = 1; i <= operators; i++) {
            count += _operators[_operatorAt[i]].posted;
        }
    }

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function setParameters(Parameters calldata parameters_) external onlyOwner {
        if (parameters_.quorum == 0 || parameters_.quorum > MAX_QUORUM) {
            revert VeritasInvalidQuorum(parameters_.quorum);
        }
        if (parameters_.maxBallotsPerReport == 0 || parameters_.maxBallotsPerReport > MAX_BALLOTS_PER_REPORT) {
            revert VeritasInvalidBallotCap(parameters_.maxBallotsPerReport);
        }
        if (parameters_.reportWindow == 0) revert VeritasInvalidReportWindow();
        uint256 next = uint256(_header.parametersId) + 1;
        if (next > type(uint16).max) revert VeritasParametersExhausted();
        _parameters[next] = parameters_;
        // Cannot truncate: checked just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        _header.parametersId = uint16(next);
        emit ParametersChanged(next, parameters_);
    }

    /// @inheritdoc IVeritasOracle
    function parameters() external view returns (Parameters memory) {
        return _parameters[_header.parametersId];
    }

    /// @inheritdoc IVeritasOracle
    function questionParameters(uint256 id) external view returns (Parameters memory) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        return _parameters[t.parametersId];
    }

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function owner() external view returns (address) {
        return _header.owner;
    }

    /// @inheritdoc IVeritasOracle
    function pendingOwner() external view returns (address) {
        return _pendingOwner;
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Proposing again replaces the pending owner; to cancel, propose yourself.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert VeritasZeroAddress();
        _pendingOwner = newOwner;
        emit OwnershipTransferStarted(msg.sender, newOwner);
    }

    /// @inheritdoc IVeritasOracle
    function acceptOwnership() external {
        if (msg.sender != _pendingOwner) revert VeritasNotPendingOwner(msg.sender);
        address previousOwner = _header.owner;
        _header.owner = msg.sender;
        delete _pendingOwner;
        emit OwnershipTransferred(previousOwner, msg.sender);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Idempotent: adding an operator twice changes nothing and emits nothing. An operator
    /// keeps its index when removed and added again, so its past reports still count as its own.
    function addOperator(address operator) external onlyOwner {
        if (operator == address(0)) revert VeritasZeroAddress();
        Operator memory op = _operators[operator];
        if (op.active) return;
        if (op.index == 0) {
            uint256 next = uint256(_operatorCount) + 1;
            if (next > MAX_OPERATORS) revert VeritasTooManyOperators(MAX_OPERATORS);
            // Cannot truncate: bounded by MAX_OPERATORS = 255 just above.
            // forge-lint: disable-next-line(unsafe-typecast)
            op.index = uint8(next);
            _operatorCount = op.index;
            _operatorAt[next] = operator;
        }
        op.active = true;
        _operators[operator] = op;
        emit OperatorAdded(operator);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Idempotent: removing a non-operator changes nothing and emits nothing.
    function removeOperator(address operator) external onlyOwner {
        if (!_operators[operator].active) return;
        _operators[operator].active = false;
        emit OperatorRemoved(operator);
    }

    /// @inheritdoc IVeritasOracle
    function isOperator(address account) external view returns (bool) {
        return _operators[account].active;
    }

    /// @inheritdoc IVeritasOracle
    function setArbiter(address newArbiter) external onlyOwner {
        if (newArbiter == address(0)) revert VeritasZeroAddress();
        address previousArbiter = _arbiter;
        _arbiter = newArbiter;
        emit ArbiterChanged(previousArbiter, newArbiter);
    }

    /// @inheritdoc IVeritasOracle
    function arbiter() external view returns (address) {
        return _arbiter;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The current time; `virtual` so tests and forks can control it.
    function _now() internal view virtual returns (uint256) {
        return block.timestamp;
    }

    /// @dev `_now()` in 40 bits: cannot truncate before the year 36,812.
    function _now40() private view returns (uint40) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint40(_now());
    }

    /// @dev The caller's operator index; reverts with `VeritasNotOperator` unless it is active.
    function _operatorIndex(address account) private view returns (uint256) {
        Operator memory op = _operators[account];
        if (!op.active) revert VeritasNotOperator(account);
        return op.index;
    }

    /// @dev Takes the ask fee and writes question `id`'s three slots and the header.
    function _createQuestion(bytes32 questionHash, uint64 resolveAfter) private returns (uint256 id) {
        Header storage header = _header;
        uint16 parametersId = header.parametersId;
        id = uint256(header.questionCount) + 1;
        uint256 askFee = _parameters[parametersId].askFee;
        if (msg.value < askFee) revert VeritasInsufficientPayment(msg.value, askFee);
        // Only a surplus costs a slot: the common exact payment is known from the parameter set.
        if (msg.value > askFee) _extraFees[id] = msg.value - askFee;

        uint64 stored = resolveAfter > _MAX_RESOLVE_AFTER ? _MAX_RESOLVE_AFTER : resolveAfter;
        uint40 nowTimestamp = _now40();
        // The casts cannot truncate: 2^40 asks exceed any chain's capacity and `stored` was
        // saturated to 40 bits just above.
        // forge-lint: disable-start(unsafe-typecast)
        header.questionCount = uint40(id);
        Record storage record = _questions[id];
        record.questionHash = questionHash;
        record.info = Info({asker: msg.sender, askedAt: nowTimestamp, resolveAfter: uint40(stored)});
        record.tally = Tally({
            status: VerdictStatus.Asked,
            reportCount: 0,
            flags: 0,
            nYes: 0,
            nNo: 0,
            nNull: 0,
            kappa: 0,
            // The report window opens at resolveAfter, or at the ask when that is later.
            time: stored > nowTimestamp ? uint40(stored) : nowTimestamp,
            parametersId: parametersId,
            reporters: 0,
            evidenceCount: 0
        });
        // forge-lint: disable-end(unsafe-typecast)
    }

    /// @dev Reverts with `VeritasEvidenceTooLong` on the first field above its cap.
    function _checkEvidenceLengths(uint256 url, uint256 title, uint256 snippet) private pure {
        if (url > MAX_URL_LENGTH) revert VeritasEvidenceTooLong(0, url, MAX_URL_LENGTH);
        if (title > MAX_TITLE_LENGTH) revert VeritasEvidenceTooLong(1, title, MAX_TITLE_LENGTH);
        if (snippet > MAX_SNIPPET_LENGTH) revert VeritasEvidenceTooLong(2, snippet, MAX_SNIPPET_LENGTH);
    }

    /// @dev Checks that question `id` takes evidence now and that the fee is paid, adds the fee to
    /// the question's and counts the item. Returns its index (from 1).
    function _admitEvidence(uint256 id) private returns (uint256 index) {
        Tally storage tallySlot = _questions[id].tally;
        Tally memory t = tallySlot;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        uint256 nowTimestamp = _now();
        // While Asked, `time` is when reports open (resolveAfter, or the ask when later); no report
        // comes before it, so the question is still Asked whenever this check passes.
        if (nowTimestamp >= t.time) revert VeritasEvidenceClosed(id, t.time, nowTimestamp);
        if (t.evidenceCount >= MAX_EVIDENCE_PER_QUESTION) revert VeritasTooMuchEvidence(id, MAX_EVIDENCE_PER_QUESTION);
        // Exactly the fee, so the question's evidence fees are evidenceCount x evidenceFee and no
        // slot records them.
        uint256 fee = _parameters[t.parametersId].evidenceFee;
        if (msg.value != fee) revert VeritasWrongPayment(msg.value, fee);
        index = uint256(t.evidenceCount) + 1;
        // Cannot truncate: bounded by MAX_EVIDENCE_PER_QUESTION just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        tallySlot.evidenceCount = uint8(index);
    }

    /// @dev Pools one report. A stale report (question not open, window closed, already reported)
    /// reverts, or in a batch (`batch`) is skipped with `ReportSkipped`. Returns whether it counted.
    function _submit(uint256 operatorIndex, Report memory r, bool batch) private returns (bool) {
        Record storage record = _questions[r.id];
        Tally memory t = record.tally;
        uint256 quorum = _admitReport(r, t, operatorIndex, batch);
        if (quorum == 0) return false;
        bytes32 root = _pool(record, t, r, operatorIndex);
        emit ReportSubmitted(r.id, msg.sender, r.merkleRoot, r.nYes, r.nNo, r.nNull, r.fleissKappa, r.escalated);
        if (t.reportCount >= quorum) {
            _post(r.id, record, t, root, t.flags & (_FLAG_ESCALATED | _FLAG_DISAGREE) != 0);
            // Checked, and cannot overflow 40 bits anyway: never more verdicts than questions.
            _operators[msg.sender].posted += 1;
        } else {
            record.tally = t;
        }
        return true;
    }

    /// @dev The checks of a report against its question's tally `t`. Returns the question's quorum,
    /// or 0 when the report is stale and skipped (`batch`); reverts otherwise.
    function _admitReport(Report memory r, Tally memory t, uint256 operatorIndex, bool batch)
        private
        returns (uint256 quorum)
    {
        uint256 id = r.id;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        if (t.status != VerdictStatus.Asked) {
            if (batch) return _skip(id, VeritasNotOpen.selector);
            revert VeritasNotOpen(id, t.status);
        }
        uint256 nowTimestamp = _now();
        if (nowTimestamp < t.time) revert VeritasTooEarly(id, t.time, nowTimestamp);
        Parameters storage params = _parameters[t.parametersId];
        uint256 deadline = uint256(t.time) + params.reportWindow;
        if (nowTimestamp >= deadline) {
            if (batch) return _skip(id, VeritasReportWindowClosed.selector);
            revert VeritasReportWindowClosed(id, deadline, nowTimestamp);
        }
        for (uint256 i = 0; i < t.reportCount; i++) {
            if (uint8(t.reporters >> (8 * i)) == operatorIndex) {
                if (batch) return _skip(id, VeritasAlreadyReported.selector);
                revert VeritasAlreadyReported(id, msg.sender);
            }
        }
        uint256 total;
        // Unchecked: three 16-bit values.
        unchecked {
            total = uint256(r.nYes) + r.nNo + r.nNull;
        }
        if (total > params.maxBallotsPerReport) revert VeritasTooManyBallots(total, params.maxBallotsPerReport);
        if (r.fleissKappa < -_KAPPA_BOUND || r.fleissKappa > _KAPPA_BOUND) {
            revert VeritasKappaOutOfRange(r.fleissKappa);
        }
        return params.quorum;
    }

    /// @dev Adds report `r` to the tally `t` (in memory) and writes the root or roots digest.
    /// Returns the new root.
    function _pool(Record storage record, Tally memory t, Report memory r, uint256 operatorIndex)
        private
        returns (bytes32 root)
    {
        uint8 leader = _leading(r.nYes, r.nNo, r.nNull);
        uint256 count = t.reportCount;
        // The casts cannot truncate: kappa was bounded by +-WAD < 2^63; each count sum is at most
        // MAX_QUORUM x MAX_BALLOTS_PER_REPORT = 63,000 < 2^16; `count` < MAX_QUORUM (a question
        // leaves Asked at its quorum) and operator indices are 8-bit.
        // forge-lint: disable-start(unsafe-typecast)
        if (count == 0) {
            t.flags |= leader << _LEADER_SHIFT;
            t.kappa = int64(r.fleissKappa);
            root = r.merkleRoot;
        } else {
            if (leader != (t.flags >> _LEADER_SHIFT) & 3) t.flags |= _FLAG_DISAGREE;
            if (r.fleissKappa < t.kappa) t.kappa = int64(r.fleissKappa);
            root = sha256(abi.encodePacked(record.merkleRoot, r.merkleRoot));
        }
        record.merkleRoot = root;
        if (r.escalated) t.flags |= _FLAG_ESCALATED;
        // Unchecked: see the casts above (the sums stay below 2^16, `count` below 7).
        unchecked {
            t.nYes += r.nYes;
            t.nNo += r.nNo;
            t.nNull += r.nNull;
            t.reporters |= uint56(operatorIndex << (8 * count));
            t.reportCount = uint8(count + 1);
        }
        // forge-lint: disable-end(unsafe-typecast)
    }

    /// @dev Emits `ReportSkipped` and returns 0 (the report did not count).
    function _skip(uint256 id, bytes4 reason) private returns (uint256) {
        emit ReportSkipped(id, msg.sender, reason);
        return 0;
    }

    /// @dev Posts the pooled verdict of the tally `t` (written back here); the caller counts it.
    function _post(uint256 id, Record storage record, Tally memory t, bytes32 root, bool escalated) private {
        (uint256 pYes, uint256 pNo, uint256 pNull) = _wadTriple(t.nYes, t.nNo, t.nNull);
        t.status = escalated ? VerdictStatus.Escalated : VerdictStatus.Resolved;
        t.time = _now40();
        record.tally = t;
        emit VerdictPosted(id, root, pYes, pNo, pNull, t.kappa, escalated, msg.sender);
    }

    /// @dev The fee held for question `id` of tally `t`: the ask fee of its parameter set, plus
    /// the ask's surplus, plus the evidence fees (each item paid exactly `evidenceFee`).
    function _fee(uint256 id, Tally memory t) private view returns (uint256) {
        Parameters storage params = _parameters[t.parametersId];
        return uint256(params.askFee) + _extraFees[id] + uint256(t.evidenceCount) * params.evidenceFee;
    }

    /// @dev Credits `amount` to `account` for question `id` (nothing when zero).
    function _credit(address account, uint256 id, uint256 amount) private {
        if (amount == 0) return;
        _credits[account] += amount;
        emit Credited(account, id, amount);
    }

    /// @dev Splits `amount` equally between the reporters of `t`; the first gets the rest.
    /// Every Resolved, Escalated or Disputed tally has at least one reporter.
    function _creditReporters(uint256 id, Tally memory t, uint256 amount) private {
        if (amount == 0) return;
        uint256 n = t.reportCount;
        uint256 share = amount / n;
        for (uint256 i = 0; i < n; i++) {
            address reporter = _operatorAt[uint8(t.reporters >> (8 * i))];
            _credit(reporter, id, i == 0 ? share + amount % n : share);
        }
    }

    /// @dev The leading outcome (0 YES, 1 NO, 2 NULL) of three values, ties in YES, NO, NULL order.
    function _leading(uint256 a, uint256 b, uint256 c) private pure returns (uint8) {
        if (a >= b && a >= c) return 0;
        return b >= c ? 1 : 2;
    }

    /// @dev The auditors' 1e18 rule (README, "Pooled verdict"): α = n + 1,
    /// p_k = floor(α_k·WAD / Σα) (rounding down), and the 0, 1 or 2 units still missing go one each
    /// to the largest remainders α_k·WAD mod Σα, ties in YES, NO, NULL order. Each p_k > 0.
    function _wadTriple(uint256 nYes, uint256 nNo, uint256 nNull)
        internal
        pure
        returns (uint256 pYes, uint256 pNo, uint256 pNull)
    {
        // Unchecked: each count is below 2^16, so every product is below 2^77 and the floors sum
        // to at most WAD (the remainders are what is missing).
        unchecked {
            uint256 a0 = (nYes + 1) * WAD;
            uint256 a1 = (nNo + 1) * WAD;
            uint256 a2 = (nNull + 1) * WAD;
            uint256 total = nYes + nNo + nNull + 3;
            pYes = a0 / total;
            pNo = a1 / total;
            pNull = a2 / total;
            uint256 missing = WAD - pYes - pNo - pNull;
            if (missing == 0) return (pYes, pNo, pNull);
            uint256 r0 = a0 % total;
            uint256 r1 = a1 % total;
            uint256 r2 = a2 % total;
            if (missing == 1) {
                // The largest remainder, ties to the earlier outcome.
                if (r0 >= r1 && r0 >= r2) pYes++;
                else if (r1 >= r2) pNo++;
                else pNull++;
            } else {
                // Two units: every outcome but the last in (remainder desc, K order), i.e. the
                // smallest remainder, ties to the later outcome.
                if (r2 <= r0 && r2 <= r1) {
                    pYes++;
                    pNo++;
                } else if (r1 <= r0) {
                    pYes++;
                    pNull++;
                } else {
                    pNo++;
                    pNull++;
                }
            }
        }
    }

    /// @dev Reverts unless each probability is > 0 and the three sum to exactly WAD. On success
    /// each is therefore < WAD, which the 64-bit storage casts rely on.
    function _checkTriple(uint256 pYes, uint256 pNo, uint256 pNull) private pure {
        if (pYes == 0) revert VeritasZeroProbability(0);
        if (pNo == 0) revert VeritasZeroProbability(1);
        if (pNull == 0) revert VeritasZeroProbability(2);
        uint256 sum;
        // Saturating addition, so that an overflowing triple reverts with `VeritasProbabilitySum`
        // (reporting type(uint256).max) instead of a bare arithmetic panic.
        unchecked {
            sum = pYes + pNo;
            if (sum < pYes) sum = type(uint256).max;
            uint256 total = sum + pNull;
            sum = total < sum ? type(uint256).max : total;
        }
        if (sum != WAD) revert VeritasProbabilitySum(sum);
    }
}
