// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "./interfaces/IVeritasConsumer.sol";
import {IArbitrable} from "./interfaces/IArbitrable.sol";
import {IArbitrator} from "./interfaces/IArbitrator.sol";
import {IEvidence} from "./interfaces/IEvidence.sol";
import {WadTriple} from "./lib/WadTriple.sol";

/// @title VeritasOracle
/// @notice Questions in, pooled committee verdicts out: the on-chain half of Veritas, version 3.
/// @dev No single key settles a verdict, and no key changes a question's rules after its ask.
/// Independent operators each submit a *report* (ballot counts, evidence root, kappa); the
/// contract adds the counts and, at the question's quorum, turns them into the 1e18 triple itself
/// with the auditors' largest-remainder rule (`WadTriple`). A Resolved verdict is final after a
/// challenge window in which anyone may dispute it before the question's ERC-792 arbitrator
/// (this contract is its `IArbitrable`); escalated verdicts go there too. A court that does not
/// rule by its deadline is bypassed by `resolveByDefault`. Money moves by pull (`withdraw`).
///
/// Rules per question: the parameter set (`parametersId`, which names the arbitrator) is stored in
/// the question; parameter sets never change once created. The operators of a question are those
/// active now whose record says they were added before it was asked (`addedAfter`, the question
/// count at their addition, is compared with the id: the same as "added in an epoch <= the
/// question's epoch", without reading the question's epoch). A removed operator reports on
/// nothing, a re-added one only on later questions.
///
/// ERC-1497: `MetaEvidence(parametersId, uri)` at `setParameters` (the constructor's set has an
/// empty URI), `Evidence(arbitrator, id, submitter, url)` per evidence item of a question that has
/// an arbitrator, and `Dispute(arbitrator, disputeId, parametersId, id)` when a case is created:
/// the evidence group of a question is its id. The operators' reports are not repeated as
/// `Evidence` (it would cost every report an event): a court's interface reads them from this
/// contract's `ReportSubmitted(id, ...)` events of the same evidence group id.
///
/// Gas shapes the storage:
///
/// - The question text is emitted in `QuestionAsked` and never stored; storage keeps its sha256.
/// - The verdict is stored as the pooled *counts* (48 bits), not as probabilities: the triple is
///   a pure function of them, recomputed on read. The running tally of the reports and the final
///   verdict are the same slot, which the ask creates: no report ever creates it.
/// - The reporters are kept as 8-bit operator indices inside that slot (at most `MAX_QUORUM`).
/// - A question's rules are a `parametersId` (16 bits) into the immutable parameter sets.
/// - A callback costs a slot only for a question that has one (a flag in the tally says so).
///
/// Storage layout of one question (`_questions[id]`, four consecutive slots):
///
///     slot 0  [255..0]    questionHash   sha256 of the UTF-8 question text
///     slot 1  [159..0]    asker          address that asked
///             [199..160]  askedAt        uint40 block timestamp of the ask
///             [239..200]  resolveAfter   uint40 earliest report time (saturated, see askQuestion)
///             [255..240]  operatorEpoch  uint16 the epoch in force at the ask (views only)
///     slot 2  [7..0]      status         uint8 `VerdictStatus`
///             [15..8]     reportCount    uint8 reports pooled so far
///             [23..16]    flags          bit 0 a report escalated, bit 1 leading outcomes differ,
///                                        bit 2 money settled, bits 3-4 first report's leading
///                                        outcome, bit 5 has a callback, bit 6 a callback is owed
///             [39..24]    nYes           uint16 summed YES ballots
///             [55..40]    nNo            uint16 summed NO ballots
///             [71..56]    nNull          uint16 summed NULL ballots
///             [135..72]   kappa          int64 WAD kappa, minimum of the reports (two's complement)
///             [175..136]  time           uint40 max(resolveAfter, askedAt) while Asked (when
///                                        the report window opens); then the time of the
///                                        posting, ruling, default or expiry
///             [191..176]  parametersId   uint16 the question's parameter set
///             [247..192]  reporters      7 x uint8 operator indices, in report order
///             [255..248]  evidenceCount  uint8 evidence items submitted
///     slot 3  [255..0]    merkleRoot     first report's root, then the roots digest (0 before)
///
/// Other per-question slots, written only when needed: `_callbacks[id]` ([159..0] consumer,
/// [191..160] gas limit), `_extraFees[id]` (surplus ask payment), and `_cases[id]` (four slots:
/// [159..0] disputer, [255..160] bond uint96; [159..0] requester, [199..160] deadline uint40,
/// [207..200] ruling uint8; the dispute id; [63..0] pYes, [127..64] pNo of the disputer's claimed
/// triple). `_caseIds[keccak256(arbitrator, disputeId)]` maps a case back to its question.
///
/// Header slot (`_header`, slot 0): [39..0] questionCount (uint40), [55..40] parametersId in force
/// (uint16), [87..56] operatorEpoch (uint32, capped at 2^16 - 1: questions store it in 16 bits),
/// [95..88] active operators (uint8), [135..96] verdicts posted (uint40), then a copy of the set in
/// force's hot fields: [143..136] quorum, [159..144] maxBallotsPerReport, [191..160] reportWindow,
/// [223..192] challengeWindow. A report reads the header (cold) to count its verdict there, and
/// then needs no read of its parameter set when the question uses the set in force. Owner slot
/// (`_owner`). Counter slot (`_counters`): [159..0] pending owner, [167..160] operator indices
/// handed out.
/// Operator slot (`_operators[account]`): [7..0] index, [15..8] active, [47..16] epoch of its
/// latest addition, [87..48] addedAfter (question count at that addition).
/// Parameter set (`_parameters[id]`, Solidity's packing of `Parameters`): [7..0] quorum,
/// [23..8] maxBallotsPerReport, [55..24] reportWindow, [87..56] challengeWindow, [119..88]
/// arbitrationWindow, [215..120] askFee; then [95..0] disputeBond, [191..96] evidenceFee; then the
/// arbitrator; then arbitratorExtraData.
///
/// uint40 timestamps last until the year 36,812; 2^40 questions exceed any chain's capacity;
/// 96-bit amounts exceed all ether in existence (~1.2e26 wei < 7.9e28).
contract VeritasOracle is IVeritasOracle, IArbitrable, IEvidence {
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

    /// @notice Shortest report window: the node's end-to-end tests use 30 s with time travel.
    uint256 public constant MIN_REPORT_WINDOW = 30;

    /// @notice Shortest nonzero challenge window: a disputer needs time to see the verdict.
    uint256 public constant MIN_CHALLENGE_WINDOW = 60;

    /// @notice Shortest arbitration window: a court needs time to rule (and an escalation to be
    /// taken there) before the question defaults.
    uint256 public constant MIN_ARBITRATION_WINDOW = 1 hours;

    /// @notice Highest ask fee, dispute bond or evidence fee of a parameter set.
    uint256 public constant MAX_FEE = 1000 ether;

    /// @notice Most gas an asker may give its consumer's callback.
    uint256 public constant MAX_CALLBACK_GAS = 500_000;

    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_REFUSED = 0;
    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_VERDICT_STANDS = 1;
    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_YES = 2;
    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_NO = 3;
    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_UNRESOLVABLE = 4;
    /// @inheritdoc IVeritasOracle
    uint256 public constant RULING_DISPUTER_TRIPLE = 5;

    /// @notice Ruling options of a dispute's case (`createDispute`'s choices): 1..5.
    uint256 public constant DISPUTE_CHOICES = 5;

    /// @notice Ruling options of an escalation's case: 1..4 (there is no disputer's triple).
    uint256 public constant ESCALATION_CHOICES = 4;

    /// @notice Most evidence items per question.
    uint256 public constant MAX_EVIDENCE_PER_QUESTION = 64;

    /// @notice Longest evidence URL in bytes (the practical limit of browsers and servers).
    uint256 public constant MAX_URL_LENGTH = 2048;

    /// @notice Longest evidence title in bytes.
    uint256 public constant MAX_TITLE_LENGTH = 256;

    /// @notice Longest evidence snippet in bytes: the node's 200-word snippets with room to spare.
    uint256 public constant MAX_SNIPPET_LENGTH = 2048;

    /// @dev `resolveAfter` is stored in 40 bits; later values mean "never" just as well.
    uint64 private constant _MAX_RESOLVE_AFTER = type(uint40).max;

    /// @dev Kappa's bound in both directions, as a signed WAD.
    int256 private constant _KAPPA_BOUND = 1e18;

    /// @dev Flag bits of the verdict slot (see the layout above).
    uint8 private constant _FLAG_ESCALATED = 1;
    uint8 private constant _FLAG_DISAGREE = 2;
    uint8 private constant _FLAG_SETTLED = 4;
    uint8 private constant _LEADER_SHIFT = 3;
    uint8 private constant _FLAG_CALLBACK = 32;
    uint8 private constant _FLAG_OWED = 64;

    /// @dev `escalationReasons` bit of a verdict posted by `finalize` (quorum not met).
    uint8 private constant _REASON_WINDOW_CLOSED = 4;

    /// @dev `VerdictDefaulted` reasons.
    uint8 private constant _DEFAULT_REFUSED = 0;
    uint8 private constant _DEFAULT_NO_RULING = 1;
    uint8 private constant _DEFAULT_NOT_TAKEN = 2;

    /// @dev Gas a callback needs beyond its limit: the call's cold account access (2,600) and the
    /// bookkeeping after it (an event and a warm flag write), so the 63/64 rule never shortens it.
    uint256 private constant _CALLBACK_RESERVE = 10_000;

    /// @dev Default parameters of a new oracle: local-chain friendly (one operator settles, final
    /// at once, free, no court: an escalation defaults after a day). `script/Deploy.s.sol` sets
    /// public-chain values.
    uint8 private constant _DEFAULT_QUORUM = 1;
    uint16 private constant _DEFAULT_MAX_BALLOTS = 30; // T x M of the node's default committee
    uint32 private constant _DEFAULT_REPORT_WINDOW = 1 days;
    uint32 private constant _DEFAULT_ARBITRATION_WINDOW = 1 days;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev Slot 1 of a question (layout on the contract).
    struct Info {
        address asker;
        uint40 askedAt;
        uint40 resolveAfter;
        uint16 operatorEpoch;
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

    /// @dev A question's consumer and the gas of its callback.
    struct Callback {
        address consumer;
        uint32 gasLimit;
    }

    /// @dev Question count, parameter set and operator epoch in force, active operators, verdicts
    /// posted, and the hot fields of the set in force.
    struct Header {
        uint40 questionCount;
        uint16 parametersId;
        uint32 operatorEpoch;
        uint8 activeOperators;
        uint40 verdictCount;
        // The hot fields of the set in force (a nested struct would start a slot of its own).
        uint8 quorum;
        uint16 maxBallotsPerReport;
        uint32 reportWindow;
        uint32 challengeWindow;
    }

    /// @dev Pending owner and operator indices handed out.
    struct Counters {
        address pendingOwner;
        uint8 operatorCount;
    }

    /// @dev An operator's 8-bit index (assigned once, kept across removal), whether it is active,
    /// the epoch of its latest addition and the question count then.
    struct Operator {
        uint8 index;
        bool active;
        uint32 addedEpoch;
        uint40 addedAfter;
    }

    /// @dev A question's case before its court (layout on the contract).
    struct CaseRecord {
        address disputer;
        uint96 bond;
        address requester;
        uint40 deadline;
        uint8 ruling;
        uint256 disputeId;
        uint64 pYes;
        uint64 pNo;
    }

    /// @dev Counters, parameters and epoch in force (slot 0).
    Header private _header;

    /// @dev The owner.
    address private _owner;

    /// @dev Pending owner, operator count, verdict count.
    Counters private _counters;

    /// @dev Head of the global evidence hash chain.
    bytes32 private _evidenceHead;

    /// @dev Operators by address, and their addresses by index.
    mapping(address account => Operator) private _operators;
    mapping(uint256 index => address) private _operatorAt;

    /// @dev Parameter sets by id; id 0 is the constructor's. Never modified once written.
    mapping(uint256 parametersId => Parameters) private _parameters;

    /// @dev Question id (from 1) to its record.
    mapping(uint256 id => Record) private _questions;

    /// @dev Callbacks of the questions that named a consumer.
    mapping(uint256 id => Callback) private _callbacks;

    /// @dev What an asker paid beyond its parameter set's `askFee` (kept for the operators).
    mapping(uint256 id => uint256) private _extraFees;

    /// @dev Cases by question, and questions by keccak256(arbitrator, disputeId).
    mapping(uint256 id => CaseRecord) private _cases;
    mapping(bytes32 caseKey => uint256 id) private _caseIds;

    /// @dev Wei each account may withdraw.
    mapping(address account => uint256) private _credits;

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param initialOwner The owner, who then adds operators and creates parameter sets.
    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert VeritasZeroAddress();
        _owner = initialOwner;
        Parameters memory defaults = Parameters({
            quorum: _DEFAULT_QUORUM,
            maxBallotsPerReport: _DEFAULT_MAX_BALLOTS,
            reportWindow: _DEFAULT_REPORT_WINDOW,
            challengeWindow: 0,
            arbitrationWindow: _DEFAULT_ARBITRATION_WINDOW,
            askFee: 0,
            disputeBond: 0,
            evidenceFee: 0,
            arbitrator: address(0),
            arbitratorExtraData: ""
        });
        _parameters[0] = defaults;
        _header.quorum = _DEFAULT_QUORUM;
        _header.maxBallotsPerReport = _DEFAULT_MAX_BALLOTS;
        _header.reportWindow = _DEFAULT_REPORT_WINDOW;
        // A nonzero start, so no submission pays for creating the slot; unique to this oracle.
        _evidenceHead = keccak256(abi.encode(block.chainid, address(this)));
        emit OwnershipTransferred(address(0), initialOwner);
        emit ParametersChanged(0, defaults);
        emit MetaEvidence(0, "");
    }

    /*//////////////////////////////////////////////////////////////
                               MODIFIERS
    //////////////////////////////////////////////////////////////*/

    /// @dev Reverts with `VeritasNotOwner` unless the caller is the owner.
    modifier onlyOwner() {
        if (msg.sender != _owner) revert VeritasNotOwner(msg.sender);
        _;
    }

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    /// @dev A `resolveAfter` above 2^40 - 1 is stored (and returned by `getQuestion`) as 2^40 - 1:
    /// both are tens of thousands of years away. The event carries the value as given.
    function askQuestion(string calldata question, uint64 resolveAfter, AskRules calldata rules)
        external
        payable
        returns (uint256 id)
    {
        uint256 length = bytes(question).length;
        if (length == 0) revert VeritasEmptyQuestion();
        if (length > MAX_QUESTION_LENGTH) revert VeritasQuestionTooLong(length, MAX_QUESTION_LENGTH);
        bytes32 questionHash = sha256(bytes(question));
        id = _createQuestion(questionHash, resolveAfter, rules);
        emit QuestionAsked(
            id,
            msg.sender,
            questionHash,
            resolveAfter,
            uint64(_now()),
            rules.parametersId,
            rules.operatorEpoch,
            msg.value,
            rules.consumer,
            rules.callbackGasLimit,
            question
        );
    }

    /// @inheritdoc IVeritasOracle
    function getQuestion(uint256 id) external view returns (Question memory) {
        Record storage record = _questions[id];
        Info memory info = record.info;
        if (info.asker == address(0)) revert VeritasUnknownQuestion(id);
        Callback memory cb = _callbacks[id];
        return Question({
            questionHash: record.questionHash,
            asker: info.asker,
            askedAt: info.askedAt,
            resolveAfter: info.resolveAfter,
            parametersId: record.tally.parametersId,
            operatorEpoch: info.operatorEpoch,
            consumer: cb.consumer,
            callbackGasLimit: cb.gasLimit
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
        address arbitrator;
        (index, arbitrator) = _admitEvidence(id);
        bytes32 head = keccak256(abi.encode(_evidenceHead, id, msg.sender, url, title, snippet));
        _evidenceHead = head;
        emit EvidenceSubmitted(id, msg.sender, index, head, url, title, snippet);
        if (arbitrator != address(0)) emit Evidence(arbitrator, id, msg.sender, url);
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
        _submit(_operator(msg.sender), r, false);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev A report on a question asked before the caller was (last) added is skipped too, with
    /// `VeritasNotQuestionOperator`'s selector: an operator added later may batch every open question.
    function submitReports(Report[] calldata reports) external returns (uint256 submitted) {
        Operator memory op = _operator(msg.sender);
        for (uint256 i = 0; i < reports.length; i++) {
            if (_submit(op, reports[i], true)) {
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
            _notify(id, record, VerdictStatus.Expired, 0, 0, 0);
        } else {
            // The quorum was not met: the pooled verdict goes to the court.
            uint8 reasons = (t.flags & (_FLAG_ESCALATED | _FLAG_DISAGREE)) | _REASON_WINDOW_CLOSED;
            _post(id, record, t, record.merkleRoot, reasons);
            _countVerdict();
        }
    }

    /// @inheritdoc IVeritasOracle
    function hasReported(uint256 id, address operator) external view returns (bool) {
        uint256 index = _operators[operator].index;
        if (index == 0) return false;
        return _reported(_questions[id].tally, index);
    }

    /// @inheritdoc IVeritasOracle
    function canReport(uint256 id, address operator) external view returns (bool) {
        Operator memory op = _operators[operator];
        Tally memory t = _questions[id].tally;
        return op.active && op.addedAfter < id && t.status == VerdictStatus.Asked && !_reported(t, op.index);
    }

    /// @inheritdoc IVeritasOracle
    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull) {
        Tally memory t = _questions[id].tally;
        return (t.reportCount, t.nYes, t.nNo, t.nNull);
    }

    /*//////////////////////////////////////////////////////////////
                           VERDICTS AND THE COURT
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function dispute(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull)
        external
        payable
        returns (uint256 disputeId)
    {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status != VerdictStatus.Resolved) revert VeritasNotDisputable(id, t.status);
        Parameters storage params = _parameters[t.parametersId];
        uint256 nowTimestamp = _now();
        uint256 end = uint256(t.time) + params.challengeWindow;
        if (nowTimestamp >= end) revert VeritasChallengeWindowClosed(id, end, nowTimestamp);
        // A challenge window implies an arbitrator (checked by `setParameters`).
        address arbitrator = params.arbitrator;
        if (msg.sender == arbitrator) revert VeritasArbitratorCannotDispute(id, msg.sender);
        WadTriple.check(pYes, pNo, pNull);
        (uint256 postedYes, uint256 postedNo,) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        if (pYes == postedYes && pNo == postedNo) revert VeritasSameTriple(id);
        bytes memory extraData = params.arbitratorExtraData;
        uint256 cost = IArbitrator(arbitrator).arbitrationCost(extraData);
        uint256 required = cost + params.disputeBond;
        if (msg.value < required) revert VeritasInsufficientPayment(msg.value, required);
        uint256 bond = msg.value - cost;
        if (bond > type(uint96).max) revert VeritasAmountTooLarge(bond);

        // State first: the arbitrator is called next, and the consumer last.
        t.status = VerdictStatus.Disputed;
        record.tally = t;
        uint256 deadline = nowTimestamp + params.arbitrationWindow;
        CaseRecord storage c = _cases[id];
        // The casts cannot truncate: the bond was checked above, the triple is below WAD < 2^63
        // (`WadTriple.check`), the deadline is a uint40 time plus a uint32 window.
        // forge-lint: disable-start(unsafe-typecast)
        c.disputer = msg.sender;
        c.bond = uint96(bond);
        c.requester = msg.sender;
        c.deadline = uint40(deadline);
        c.pYes = uint64(pYes);
        c.pNo = uint64(pNo);
        // forge-lint: disable-end(unsafe-typecast)
        disputeId = IArbitrator(arbitrator).createDispute{value: cost}(DISPUTE_CHOICES, extraData);
        _openCase(id, c, arbitrator, disputeId, t.parametersId);
        emit VerdictDisputed(id, msg.sender, bond, pYes, pNo, pNull, arbitrator, disputeId);
        (uint256 a, uint256 b, uint256 n) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        _notify(id, record, VerdictStatus.Disputed, a, b, n);
    }

    /// @inheritdoc IVeritasOracle
    function requestArbitration(uint256 id) external payable returns (uint256 disputeId) {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status != VerdictStatus.Escalated) revert VeritasNotEscalated(id, t.status);
        Parameters storage params = _parameters[t.parametersId];
        address arbitrator = params.arbitrator;
        if (arbitrator == address(0)) revert VeritasNoArbitrator(id);
        uint256 nowTimestamp = _now();
        uint256 deadline = uint256(t.time) + params.arbitrationWindow;
        if (nowTimestamp >= deadline) revert VeritasCourtDeadlinePassed(id, deadline, nowTimestamp);
        bytes memory extraData = params.arbitratorExtraData;
        uint256 cost = IArbitrator(arbitrator).arbitrationCost(extraData);
        if (msg.value != cost) revert VeritasWrongPayment(msg.value, cost);

        t.status = VerdictStatus.Disputed;
        record.tally = t;
        CaseRecord storage c = _cases[id];
        c.requester = msg.sender;
        // Cannot truncate: a uint40 time plus a uint32 window.
        // forge-lint: disable-next-line(unsafe-typecast)
        c.deadline = uint40(nowTimestamp + params.arbitrationWindow);
        disputeId = IArbitrator(arbitrator).createDispute{value: cost}(ESCALATION_CHOICES, extraData);
        _openCase(id, c, arbitrator, disputeId, t.parametersId);
        emit ArbitrationRequested(id, msg.sender, arbitrator, disputeId);
    }

    /// @inheritdoc IVeritasOracle
    function appeal(uint256 id) external payable {
        Tally memory t = _questions[id].tally;
        if (t.status != VerdictStatus.Disputed) revert VeritasNotInCourt(id, t.status);
        CaseRecord storage c = _cases[id];
        uint256 nowTimestamp = _now();
        if (nowTimestamp >= c.deadline) revert VeritasCourtDeadlinePassed(id, c.deadline, nowTimestamp);
        Parameters storage params = _parameters[t.parametersId];
        uint256 deadline = nowTimestamp + params.arbitrationWindow;
        // Cannot truncate: a uint40 time plus a uint32 window.
        // forge-lint: disable-next-line(unsafe-typecast)
        c.deadline = uint40(deadline);
        IArbitrator(params.arbitrator).appeal{value: msg.value}(c.disputeId, params.arbitratorExtraData);
        // Cannot truncate, as above.
        // forge-lint: disable-next-line(unsafe-typecast)
        emit AppealFunded(id, msg.sender, msg.value, uint64(deadline));
    }

    /// @inheritdoc IVeritasOracle
    function courtCost(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        Parameters storage params = _parameters[t.parametersId];
        address arbitrator = params.arbitrator;
        if (arbitrator == address(0)) revert VeritasNoArbitrator(id);
        if (t.status == VerdictStatus.Disputed) {
            return IArbitrator(arbitrator).appealCost(_cases[id].disputeId, params.arbitratorExtraData);
        }
        return IArbitrator(arbitrator).arbitrationCost(params.arbitratorExtraData);
    }

    /// @inheritdoc IVeritasOracle
    function resolveByDefault(uint256 id) external {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        uint256 deadline;
        uint8 reason;
        if (t.status == VerdictStatus.Escalated) {
            deadline = uint256(t.time) + _parameters[t.parametersId].arbitrationWindow;
            reason = _DEFAULT_NOT_TAKEN;
        } else if (t.status == VerdictStatus.Disputed) {
            deadline = _cases[id].deadline;
            reason = _DEFAULT_NO_RULING;
        } else {
            revert VeritasNotInCourt(id, t.status);
        }
        uint256 nowTimestamp = _now();
        if (nowTimestamp < deadline) revert VeritasCourtDeadlineNotReached(id, deadline, nowTimestamp);
        _default(id, record, t, reason);
    }

    /// @inheritdoc IVeritasOracle
    function rule(uint256 disputeId, uint256 ruling) external override(IArbitrable, IVeritasOracle) {
        uint256 id = _caseIds[_caseKey(msg.sender, disputeId)];
        if (id == 0) revert VeritasUnknownDispute(msg.sender, disputeId);
        emit Ruling(msg.sender, disputeId, ruling);
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.status == VerdictStatus.Defaulted) {
            emit LateRulingIgnored(id, msg.sender, disputeId, ruling);
            return;
        }
        if (t.status != VerdictStatus.Disputed) revert VeritasNotInCourt(id, t.status);
        CaseRecord memory c = _cases[id];
        uint256 choices = c.disputer == address(0) ? ESCALATION_CHOICES : DISPUTE_CHOICES;
        if (ruling > choices) revert VeritasInvalidRuling(ruling, choices);
        if (_now() >= c.deadline) {
            // Too late: the outcome must not depend on whether `resolveByDefault` came first.
            _default(id, record, t, _DEFAULT_NO_RULING);
            emit LateRulingIgnored(id, msg.sender, disputeId, ruling);
            return;
        }
        if (ruling == RULING_REFUSED) {
            _default(id, record, t, _DEFAULT_REFUSED);
            return;
        }
        // Cannot truncate: at most DISPUTE_CHOICES.
        // forge-lint: disable-next-line(unsafe-typecast)
        _cases[id].ruling = uint8(ruling);
        t.status = VerdictStatus.Arbitrated;
        t.time = _now40();
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _rulingTriple(t, c, ruling);
        bool disputerWon = c.disputer != address(0) && ruling != RULING_VERDICT_STANDS;
        emit VerdictArbitrated(id, pYes, pNo, pNull, ruling, disputerWon, msg.sender);

        uint256 amount = _fee(id, t);
        if (c.disputer != address(0)) {
            amount += c.bond;
            if (disputerWon) {
                _credit(c.disputer, id, amount);
                amount = 0;
            }
        }
        _creditReporters(id, t, amount);
        emit QuestionSettled(id);
        _notify(id, record, VerdictStatus.Arbitrated, pYes, pNo, pNull);
    }

    /// @inheritdoc IVeritasOracle
    function courtDeadline(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (t.status == VerdictStatus.Escalated) {
            return uint256(t.time) + _parameters[t.parametersId].arbitrationWindow;
        }
        if (t.status == VerdictStatus.Disputed) return _cases[id].deadline;
        return 0;
    }

    /// @inheritdoc IVeritasOracle
    function getCase(uint256 id) external view returns (Case memory out) {
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
            out.pNull = WAD - c.pYes - c.pNo;
        }
        out.ruling = c.ruling;
    }

    /// @inheritdoc IVeritasOracle
    function caseOf(address arbitrator, uint256 disputeId) external view returns (uint256 id, address disputer) {
        id = _caseIds[_caseKey(arbitrator, disputeId)];
        if (id != 0) disputer = _cases[id].disputer;
    }

    /// @inheritdoc IVeritasOracle
    function settle(uint256 id) external {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.flags & _FLAG_SETTLED != 0) revert VeritasAlreadySettled(id);
        uint256 challengeWindow = _parameters[t.parametersId].challengeWindow;
        if (t.status != VerdictStatus.Resolved || _now() < uint256(t.time) + challengeWindow) {
            revert VeritasNotFinal(id, t.status);
        }
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        _creditReporters(id, t, _fee(id, t));
        emit QuestionSettled(id);
        // A verdict final at once was called back by the report that posted it.
        if (challengeWindow != 0) {
            (uint256 pYes, uint256 pNo, uint256 pNull) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
            _notify(id, record, VerdictStatus.Resolved, pYes, pNo, pNull);
        }
    }

    /// @inheritdoc IVeritasOracle
    function retryCallback(uint256 id) external {
        Record storage record = _questions[id];
        Tally memory t = record.tally;
        if (t.flags & _FLAG_OWED == 0) revert VeritasNoCallbackOwed(id);
        // Cleared first: a re-entrant retry finds nothing owed; a new failure sets it again.
        record.tally.flags = t.flags & ~_FLAG_OWED;
        (uint256 pYes, uint256 pNo, uint256 pNull) = _triple(id, t);
        _notify(id, record, t.status, pYes, pNo, pNull);
    }

    /// @inheritdoc IVeritasOracle
    function callbackOwed(uint256 id) external view returns (bool) {
        return _questions[id].tally.flags & _FLAG_OWED != 0;
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
        if (t.status == VerdictStatus.None || t.status == VerdictStatus.Asked || t.status == VerdictStatus.Expired) {
            revert VeritasVerdictNotFound(id);
        }
        (pYes, pNo, pNull) = _triple(id, t);
        return (record.questionHash, record.merkleRoot, pYes, pNo, pNull, t.kappa, t.time);
    }

    /// @inheritdoc IVeritasOracle
    function verdictStatus(uint256 id) external view returns (VerdictStatus) {
        return _questions[id].tally.status;
    }

    /// @inheritdoc IVeritasOracle
    function isFinal(uint256 id) external view returns (bool) {
        Tally memory t = _questions[id].tally;
        if (_finalStatus(t.status)) return true;
        if (t.status != VerdictStatus.Resolved) return false;
        return _now() >= uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /// @inheritdoc IVeritasOracle
    function finalAt(uint256 id) external view returns (uint256) {
        Tally memory t = _questions[id].tally;
        if (_finalStatus(t.status)) return t.time;
        if (t.status != VerdictStatus.Resolved) return 0;
        return uint256(t.time) + _parameters[t.parametersId].challengeWindow;
    }

    /// @inheritdoc IVeritasOracle
    function verdictCount() external view returns (uint256) {
        return _header.verdictCount;
    }

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function setParameters(Parameters calldata p, string calldata metaEvidence)
        external
        onlyOwner
        returns (uint16 parametersId_)
    {
        _checkParameters(p);
        uint256 next = uint256(_header.parametersId) + 1;
        if (next > type(uint16).max) revert VeritasParametersExhausted();
        _parameters[next] = p;
        // Cannot truncate: checked just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        parametersId_ = uint16(next);
        Header storage h = _header;
        h.parametersId = parametersId_;
        h.quorum = p.quorum;
        h.maxBallotsPerReport = p.maxBallotsPerReport;
        h.reportWindow = p.reportWindow;
        h.challengeWindow = p.challengeWindow;
        emit ParametersChanged(next, p);
        emit MetaEvidence(next, metaEvidence);
    }

    /// @inheritdoc IVeritasOracle
    function parametersId() external view returns (uint16) {
        return _header.parametersId;
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

    /// @inheritdoc IVeritasOracle
    function parameterSet(uint16 parametersId_) external view returns (Parameters memory) {
        return _parameters[parametersId_];
    }

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function owner() external view returns (address) {
        return _owner;
    }

    /// @inheritdoc IVeritasOracle
    function pendingOwner() external view returns (address) {
        return _counters.pendingOwner;
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Proposing again replaces the pending owner; to cancel, propose yourself.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert VeritasZeroAddress();
        _counters.pendingOwner = newOwner;
        emit OwnershipTransferStarted(msg.sender, newOwner);
    }

    /// @inheritdoc IVeritasOracle
    function acceptOwnership() external {
        if (msg.sender != _counters.pendingOwner) revert VeritasNotPendingOwner(msg.sender);
        address previousOwner = _owner;
        _owner = msg.sender;
        delete _counters.pendingOwner;
        emit OwnershipTransferred(previousOwner, msg.sender);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Idempotent: adding an active operator changes nothing and emits nothing. An operator
    /// keeps its index when removed and added again (its past reports stay its own), but reports
    /// only on questions asked after its latest addition.
    function addOperator(address operator) external onlyOwner {
        if (operator == address(0)) revert VeritasZeroAddress();
        if (operator == _parameters[_header.parametersId].arbitrator) revert VeritasOperatorIsArbitrator(operator);
        Operator memory op = _operators[operator];
        if (op.active) return;
        if (op.index == 0) {
            uint256 next = uint256(_counters.operatorCount) + 1;
            if (next > MAX_OPERATORS) revert VeritasTooManyOperators(MAX_OPERATORS);
            // Cannot truncate: bounded by MAX_OPERATORS = 255 just above.
            // forge-lint: disable-next-line(unsafe-typecast)
            op.index = uint8(next);
            _counters.operatorCount = op.index;
            _operatorAt[next] = operator;
        }
        Header memory h = _header;
        uint32 epoch = _nextEpoch(h);
        op.active = true;
        op.addedEpoch = epoch;
        op.addedAfter = h.questionCount;
        _operators[operator] = op;
        _header.operatorEpoch = epoch;
        // Cannot overflow: at most MAX_OPERATORS = 255 indices, so as many active operators.
        _header.activeOperators = h.activeOperators + 1;
        emit OperatorAdded(operator, epoch);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Idempotent: removing a non-operator changes nothing and emits nothing.
    function removeOperator(address operator) external onlyOwner {
        if (!_operators[operator].active) return;
        Header memory h = _header;
        uint32 epoch = _nextEpoch(h);
        _operators[operator].active = false;
        _header.operatorEpoch = epoch;
        _header.activeOperators = h.activeOperators - 1;
        emit OperatorRemoved(operator, epoch);
    }

    /// @inheritdoc IVeritasOracle
    function isOperator(address account) external view returns (bool) {
        return _operators[account].active;
    }

    /// @inheritdoc IVeritasOracle
    function operatorEpoch() external view returns (uint32) {
        return _header.operatorEpoch;
    }

    /// @inheritdoc IVeritasOracle
    function activeOperatorCount() external view returns (uint256) {
        return _header.activeOperators;
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

    /// @dev The auditors' 1e18 rule, kept here under its v2 name (tests and auditors call it).
    function _wadTriple(uint256 nYes, uint256 nNo, uint256 nNull) internal pure returns (uint256, uint256, uint256) {
        return WadTriple.fromCounts(nYes, nNo, nNull);
    }

    /// @dev The caller's operator record; reverts with `VeritasNotOperator` unless it is active.
    function _operator(address account) private view returns (Operator memory op) {
        op = _operators[account];
        if (!op.active) revert VeritasNotOperator(account);
    }

    /// @dev The epoch after `h`'s; epochs are stored in 16 bits per question.
    function _nextEpoch(Header memory h) private pure returns (uint32) {
        if (h.operatorEpoch >= type(uint16).max) revert VeritasEpochsExhausted();
        return h.operatorEpoch + 1;
    }

    /// @dev Whether `status` never changes again.
    function _finalStatus(VerdictStatus status) private pure returns (bool) {
        return
            status == VerdictStatus.Arbitrated || status == VerdictStatus.Expired || status == VerdictStatus.Defaulted;
    }

    /// @dev Whether the operator of index `index` reported in tally `t`.
    function _reported(Tally memory t, uint256 index) private pure returns (bool) {
        for (uint256 i = 0; i < t.reportCount; i++) {
            if (uint8(t.reporters >> (8 * i)) == index) return true;
        }
        return false;
    }

    /// @dev Checks the rules an asker pinned, takes the ask fee and writes question `id`.
    function _createQuestion(bytes32 questionHash, uint64 resolveAfter, AskRules calldata rules)
        private
        returns (uint256 id)
    {
        Header memory h = _header;
        if (rules.parametersId != h.parametersId) revert VeritasParametersMismatch(rules.parametersId, h.parametersId);
        if (rules.operatorEpoch != h.operatorEpoch) revert VeritasEpochMismatch(rules.operatorEpoch, h.operatorEpoch);
        uint256 quorum = h.quorum;
        if (quorum > h.activeOperators) revert VeritasQuorumUnreachable(quorum, h.activeOperators);
        id = uint256(h.questionCount) + 1;
        uint256 askFee = _parameters[h.parametersId].askFee;
        if (msg.value < askFee) revert VeritasInsufficientPayment(msg.value, askFee);
        // Only a surplus costs a slot: the common exact payment is known from the parameter set.
        if (msg.value > askFee) _extraFees[id] = msg.value - askFee;

        uint8 flags;
        address consumer = rules.consumer;
        uint256 gasLimit = rules.callbackGasLimit;
        if (consumer != address(0) || gasLimit != 0) {
            if (consumer.code.length == 0 || gasLimit == 0 || gasLimit > MAX_CALLBACK_GAS) {
                revert VeritasInvalidCallback(consumer, gasLimit, MAX_CALLBACK_GAS);
            }
            _callbacks[id] = Callback({consumer: consumer, gasLimit: rules.callbackGasLimit});
            flags = _FLAG_CALLBACK;
        }

        uint64 stored = resolveAfter > _MAX_RESOLVE_AFTER ? _MAX_RESOLVE_AFTER : resolveAfter;
        uint40 nowTimestamp = _now40();
        // The casts cannot truncate: 2^40 asks exceed any chain's capacity, `stored` was saturated
        // to 40 bits just above and epochs are capped at 2^16 - 1 (`_nextEpoch`).
        // forge-lint: disable-start(unsafe-typecast)
        _header.questionCount = uint40(id);
        Record storage record = _questions[id];
        record.questionHash = questionHash;
        record.info = Info({
            asker: msg.sender,
            askedAt: nowTimestamp,
            resolveAfter: uint40(stored),
            operatorEpoch: uint16(h.operatorEpoch)
        });
        record.tally = Tally({
            status: VerdictStatus.Asked,
            reportCount: 0,
            flags: flags,
            nYes: 0,
            nNo: 0,
            nNull: 0,
            kappa: 0,
            // The report window opens at resolveAfter, or at the ask when that is later.
            time: stored > nowTimestamp ? uint40(stored) : nowTimestamp,
            parametersId: h.parametersId,
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

    /// @dev Checks that question `id` takes evidence now and that the fee is paid, and counts the
    /// item. Returns its index (from 1) and the question's arbitrator.
    function _admitEvidence(uint256 id) private returns (uint256 index, address arbitrator) {
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
        Parameters storage params = _parameters[t.parametersId];
        uint256 fee = params.evidenceFee;
        if (msg.value != fee) revert VeritasWrongPayment(msg.value, fee);
        index = uint256(t.evidenceCount) + 1;
        // Cannot truncate: bounded by MAX_EVIDENCE_PER_QUESTION just above.
        // forge-lint: disable-next-line(unsafe-typecast)
        tallySlot.evidenceCount = uint8(index);
        arbitrator = params.arbitrator;
    }

    /// @dev Pools one report. A stale report (question not open, window closed, already reported,
    /// or in a batch a question asked before the operator's addition) reverts, or in a batch
    /// (`batch`) is skipped with `ReportSkipped`. Returns whether it counted.
    function _submit(Operator memory op, Report memory r, bool batch) private returns (bool) {
        Record storage record = _questions[r.id];
        Tally memory t = record.tally;
        (uint256 quorum, uint256 challengeWindow) = _admitReport(r, t, op, batch);
        if (quorum == 0) return false;
        bytes32 root = _pool(record, t, r, op.index);
        emit ReportSubmitted(r.id, msg.sender, r.merkleRoot, r.nYes, r.nNo, r.nNull, r.fleissKappa, r.escalated);
        if (t.reportCount >= quorum) {
            uint8 reasons = t.flags & (_FLAG_ESCALATED | _FLAG_DISAGREE);
            (uint256 pYes, uint256 pNo, uint256 pNull) = _post(r.id, record, t, root, reasons);
            _countVerdict();
            if (reasons == 0 && challengeWindow == 0 && t.flags & _FLAG_CALLBACK != 0) {
                _notify(r.id, record, VerdictStatus.Resolved, pYes, pNo, pNull);
            }
        } else {
            record.tally = t;
        }
        return true;
    }

    /// @dev The checks of a report against its question's tally `t`. Returns the question's quorum
    /// and challenge window, or a zero quorum when the report is stale and skipped (`batch`);
    /// reverts otherwise.
    function _admitReport(Report memory r, Tally memory t, Operator memory op, bool batch)
        private
        returns (uint256 quorum, uint256 challengeWindow)
    {
        uint256 id = r.id;
        if (t.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        if (t.status != VerdictStatus.Asked) {
            if (batch) return (_skip(id, VeritasNotOpen.selector), 0);
            revert VeritasNotOpen(id, t.status);
        }
        if (op.addedAfter >= id) {
            if (batch) return (_skip(id, VeritasNotQuestionOperator.selector), 0);
            revert VeritasNotQuestionOperator(id, msg.sender);
        }
        uint256 nowTimestamp = _now();
        if (nowTimestamp < t.time) revert VeritasTooEarly(id, t.time, nowTimestamp);
        uint256 maxBallots;
        uint256 reportWindow;
        (quorum, maxBallots, reportWindow, challengeWindow) = _hot(t.parametersId);
        uint256 deadline = uint256(t.time) + reportWindow;
        if (nowTimestamp >= deadline) {
            if (batch) return (_skip(id, VeritasReportWindowClosed.selector), 0);
            revert VeritasReportWindowClosed(id, deadline, nowTimestamp);
        }
        if (_reported(t, op.index)) {
            if (batch) return (_skip(id, VeritasAlreadyReported.selector), 0);
            revert VeritasAlreadyReported(id, msg.sender);
        }
        uint256 total;
        // Unchecked: three 16-bit values.
        unchecked {
            total = uint256(r.nYes) + r.nNo + r.nNull;
        }
        if (total > maxBallots) revert VeritasTooManyBallots(total, maxBallots);
        if (r.fleissKappa < -_KAPPA_BOUND || r.fleissKappa > _KAPPA_BOUND) {
            revert VeritasKappaOutOfRange(r.fleissKappa);
        }
        return (quorum, challengeWindow);
    }

    /// @dev Adds report `r` to the tally `t` (in memory) and writes the root or roots digest.
    /// Returns the new root.
    function _pool(Record storage record, Tally memory t, Report memory r, uint256 operatorIndex)
        private
        returns (bytes32 root)
    {
        uint8 leader = WadTriple.leading(r.nYes, r.nNo, r.nNull);
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

    /// @dev The hot fields of parameter set `parametersId_`: from the header when it is the set in
    /// force (the header is read anyway, to count the verdict), else from the set.
    function _hot(uint16 parametersId_)
        private
        view
        returns (uint256 quorum, uint256 maxBallots, uint256 reportWindow, uint256 challengeWindow)
    {
        uint256 header;
        // One SLOAD of the header slot (layout on the contract); Solidity would read it per field.
        assembly ("memory-safe") {
            header := sload(_header.slot)
        }
        if ((header >> 40) & 0xffff == parametersId_) {
            return (
                (header >> 136) & 0xff,
                (header >> 144) & 0xffff,
                (header >> 160) & 0xffffffff,
                (header >> 192) & 0xffffffff
            );
        }
        Parameters storage p = _parameters[parametersId_];
        return (p.quorum, p.maxBallotsPerReport, p.reportWindow, p.challengeWindow);
    }

    /// @dev Adds one to the header's verdict count ([135..96]) with one SLOAD and one SSTORE. It
    /// cannot overflow into the next field: never more verdicts than questions (< 2^40).
    function _countVerdict() private {
        assembly ("memory-safe") {
            sstore(_header.slot, add(sload(_header.slot), shl(96, 1)))
        }
    }

    /// @dev Emits `ReportSkipped` and returns 0 (the report did not count).
    function _skip(uint256 id, bytes4 reason) private returns (uint256) {
        emit ReportSkipped(id, msg.sender, reason);
        return 0;
    }

    /// @dev Posts the pooled verdict of the tally `t` (written back here), escalated when
    /// `reasons` is nonzero; the caller counts it. Returns the triple.
    function _post(uint256 id, Record storage record, Tally memory t, bytes32 root, uint8 reasons)
        private
        returns (uint256 pYes, uint256 pNo, uint256 pNull)
    {
        (pYes, pNo, pNull) = WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        bool escalated = reasons != 0;
        t.status = escalated ? VerdictStatus.Escalated : VerdictStatus.Resolved;
        t.time = _now40();
        record.tally = t;
        emit VerdictPosted(id, root, pYes, pNo, pNull, t.kappa, escalated, reasons, msg.sender);
    }

    /// @dev Records the case `c` of `id` as dispute `disputeId` of `arbitrator` and emits
    /// ERC-1497's `Dispute` (meta-evidence: the parameter set; evidence group: the question).
    function _openCase(uint256 id, CaseRecord storage c, address arbitrator, uint256 disputeId, uint16 parametersId_)
        private
    {
        c.disputeId = disputeId;
        _caseIds[_caseKey(arbitrator, disputeId)] = id;
        emit Dispute(arbitrator, disputeId, parametersId_, id);
    }

    /// @dev The key of dispute `disputeId` of `arbitrator` in `_caseIds`.
    function _caseKey(address arbitrator, uint256 disputeId) private pure returns (bytes32) {
        return keccak256(abi.encode(arbitrator, disputeId));
    }

    /// @dev Makes `id` final as Defaulted (unresolvable triple): the disputer's bond back, the fee
    /// to the reporters, the consumer called back.
    function _default(uint256 id, Record storage record, Tally memory t, uint8 reason) private {
        // Never taken (reasons are 0..2): keeps the Yul inliner from copying this function into its
        // callers (see `_notify`).
        if (reason > _DEFAULT_NOT_TAKEN) return _default(id, record, t, _DEFAULT_NOT_TAKEN);
        t.status = VerdictStatus.Defaulted;
        t.time = _now40();
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        emit VerdictDefaulted(id, reason);
        CaseRecord storage c = _cases[id];
        _credit(c.disputer, id, c.bond);
        _creditReporters(id, t, _fee(id, t));
        emit QuestionSettled(id);
        _notify(id, record, VerdictStatus.Defaulted, 1, 1, WAD - 2);
    }

    /// @dev The triple of ruling `ruling` on the case `c` of tally `t`.
    function _rulingTriple(Tally memory t, CaseRecord memory c, uint256 ruling)
        private
        pure
        returns (uint256, uint256, uint256)
    {
        if (ruling == RULING_YES) return (WAD - 2, 1, 1);
        if (ruling == RULING_NO) return (1, WAD - 2, 1);
        if (ruling == RULING_UNRESOLVABLE) return (1, 1, WAD - 2);
        if (ruling == RULING_DISPUTER_TRIPLE) return (c.pYes, c.pNo, WAD - c.pYes - c.pNo);
        return WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
    }

    /// @dev The triple `id` holds now (zero while it has none).
    function _triple(uint256 id, Tally memory t) private view returns (uint256, uint256, uint256) {
        if (t.status == VerdictStatus.Defaulted) return (1, 1, WAD - 2);
        if (t.status == VerdictStatus.Arbitrated) {
            CaseRecord memory c = _cases[id];
            return _rulingTriple(t, c, c.ruling);
        }
        if (
            t.status == VerdictStatus.Resolved || t.status == VerdictStatus.Escalated
                || t.status == VerdictStatus.Disputed
        ) {
            return WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        }
        return (0, 0, 0);
    }

    /// @dev Calls the consumer of `id` back with `status` and the triple, when it has one: with
    /// exactly its gas limit (reverts with `VeritasCallbackGas` when the transaction cannot give
    /// it under the 63/64 rule), copying no return data. A failure sets the owed flag and emits
    /// `CallbackFailed`. Every caller has written its state before.
    function _notify(uint256 id, Record storage record, VerdictStatus status, uint256 pYes, uint256 pNo, uint256 pNull)
        private
    {
        Tally storage tallySlot = record.tally;
        uint8 flags = tallySlot.flags;
        if (flags & _FLAG_CALLBACK == 0) return;
        // Never taken (no question is ever in status None): the Yul inliner does not copy a
        // recursive function into its callers, which keeps seven copies of this one (~2 kB) out
        // of the 24,576-byte code-size limit.
        if (status == VerdictStatus.None) return _notify(id, record, VerdictStatus.Asked, pYes, pNo, pNull);
        Callback memory cb = _callbacks[id];
        bytes memory data = abi.encodeCall(IVeritasConsumer.onVeritasVerdict, (id, status, pYes, pNo, pNull));
        uint256 gasLimit = cb.gasLimit;
        address consumer = cb.consumer;
        uint256 required = gasLimit + gasLimit / 63 + _CALLBACK_RESERVE;
        uint256 available = gasleft();
        if (available < required) revert VeritasCallbackGas(available, required);
        bool ok;
        assembly ("memory-safe") {
            ok := call(gasLimit, consumer, 0, add(data, 32), mload(data), 0, 0)
        }
        if (ok) {
            emit CallbackDelivered(id, consumer, status);
        } else {
            // Re-read: the consumer may have changed the flags (e.g. settled) before failing.
            tallySlot.flags = tallySlot.flags | _FLAG_OWED;
            emit CallbackFailed(id, consumer, status);
        }
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
        // Never taken (a question with a verdict has a reporter): keeps the Yul inliner from
        // copying this function into its callers (see `_notify`).
        if (t.reportCount == 0) return _creditReporters(id, t, 0);
        uint256 n = t.reportCount;
        uint256 share = amount / n;
        for (uint256 i = 0; i < n; i++) {
            address reporter = _operatorAt[uint8(t.reporters >> (8 * i))];
            _credit(reporter, id, i == 0 ? share + amount % n : share);
        }
    }

    /// @dev Reverts unless `p` is a parameter set the oracle can run every question on.
    function _checkParameters(Parameters calldata p) private view {
        if (p.quorum == 0 || p.quorum > MAX_QUORUM) revert VeritasInvalidQuorum(p.quorum);
        uint256 active = _header.activeOperators;
        if (p.quorum > active) revert VeritasQuorumUnreachable(p.quorum, active);
        if (p.maxBallotsPerReport == 0 || p.maxBallotsPerReport > MAX_BALLOTS_PER_REPORT) {
            revert VeritasInvalidBallotCap(p.maxBallotsPerReport);
        }
        if (p.reportWindow < MIN_REPORT_WINDOW) revert VeritasWindowTooShort(0, p.reportWindow, MIN_REPORT_WINDOW);
        if (p.challengeWindow != 0 && p.challengeWindow < MIN_CHALLENGE_WINDOW) {
            revert VeritasWindowTooShort(1, p.challengeWindow, MIN_CHALLENGE_WINDOW);
        }
        if (p.arbitrationWindow < MIN_ARBITRATION_WINDOW) {
            revert VeritasWindowTooShort(2, p.arbitrationWindow, MIN_ARBITRATION_WINDOW);
        }
        if (p.askFee > MAX_FEE) revert VeritasFeeTooHigh(0, p.askFee, MAX_FEE);
        if (p.disputeBond > MAX_FEE) revert VeritasFeeTooHigh(1, p.disputeBond, MAX_FEE);
        if (p.evidenceFee > MAX_FEE) revert VeritasFeeTooHigh(2, p.evidenceFee, MAX_FEE);
        if (p.challengeWindow != 0 && p.disputeBond == 0) revert VeritasBondRequired();
        address arbitrator = p.arbitrator;
        if (arbitrator == address(0)) {
            if (p.challengeWindow != 0) revert VeritasInvalidArbitrator(arbitrator);
        } else if (arbitrator.code.length == 0 || _operators[arbitrator].active) {
            revert VeritasInvalidArbitrator(arbitrator);
        }
    }
}
