// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";
import {IVeritasConsumer} from "./interfaces/IVeritasConsumer.sol";
import {IEvidence} from "./interfaces/IEvidence.sol";
import {WadTriple} from "./lib/WadTriple.sol";

/// @title VeritasStorage
/// @notice The storage layout, constants and shared internal logic of the Veritas oracle. Three
/// contracts inherit it and run on the same storage: `VeritasOracle` (the address integrators
/// use: the question's life from ask to settlement, withdrawals, the verdict views),
/// `VeritasCourtModule` (disputes, escalations, appeals, rulings, defaults, callback retries) and
/// `VeritasAdminModule` (parameters, owner, operators and stake, evidence refunds, constants,
/// every other view); the oracle reaches both modules by `delegatecall` from its `fallback`. None
/// declares a state variable of its own, so the layout below is the only one.
/// @dev Storage layout of one question (`_questions[id]`, four consecutive slots):
///
///     slot 0  [255..0]    questionHash   sha256 of the UTF-8 question text
///     slot 1  [159..0]    asker          address that asked
///             [199..160]  askedAt        uint40 block timestamp of the ask
///             [231..200]  resolveDelay   uint32 the asked resolveAfter less askedAt (0 when
///                                        before it; at most maxHorizon, a uint32)
///             [247..232]  operatorEpoch  uint16 the epoch in force at the ask (views only)
///             [255..248]  clarifications uint8 the asker's clarifications (`clarify`)
///     slot 2  [7..0]      status         uint8 `VerdictStatus`
///             [15..8]     reportCount    uint8 reports pooled so far
///             [23..16]    flags          bit 0 commit-reveal, bit 1 money settled, bits 2..4
///                                        the deferrals so far (0..7), bit 5 has a callback,
///                                        bit 6 a callback is owed (bit 7 unused)
///             [39..24]    nYes           uint16 summed YES ballots
///             [55..40]    nNo            uint16 summed NO ballots
///             [71..56]    nNull          uint16 summed NULL ballots
///             [135..72]   kappa          int64 WAD kappa, minimum of the reports (two's complement)
///             [175..136]  time           uint40 max(resolveAfter, askedAt) while Asked (when
///                                        the report window opens); then the time of the
///                                        posting, ruling, default or expiry
///             [191..176]  parametersId   uint16 the question's parameter set
///             [247..192]  reporters      7 x 8-bit entries, in report order: [4..0] operator
///                                        index, [6..5] the report's leading outcome (3: the
///                                        report said "not yet"), [7] the report escalated
///             [255..248]  evidenceCount  uint8 evidence items submitted
///     slot 3  [255..0]    merkleRoot     first report's root, then the roots digest (0 before)
///
/// Other per-question slots, written only when needed: `_callbacks[id]` ([159..0] consumer,
/// [191..160] gas limit, [255..192] the asker's prepaid callback gas in wei), `_extraFees[id]` (surplus ask payment), `_evidence[id][submitter]`
/// ([7..0] items, [255..8] wei paid), and `_cases[id]` (four slots: [159..0] beneficiary of the
/// dispute, [255..160] bond uint96; [159..0] requester (the disputer, or who took an escalation to
/// court), [199..160] deadline uint40, [207..200] ruling uint8; the dispute id; [63..0] pYes,
/// [127..64] pNo of the disputer's claimed triple). `_caseIds[keccak256(arbitrator, disputeId)]`
/// maps a case back to its question. A commit-reveal question also has `_rounds[id]` ([7..0]
/// commits, [39..8] bitmap of the committers' indices, [79..40] reveal deadline),
/// `_reopenings[id]` once `finalize` reopened its commit phase for withheld commits ([39..0] the
/// reopened phase's commit deadline, [47..40] how many times), and
/// `_commitments[id][operator]`.
///
/// Header slot (`_header`, slot 0): [39..0] questionCount (uint40), [55..40] parametersId in force
/// (uint16), [87..56] operatorEpoch (uint32, capped at 2^16 - 1: questions store it in 16 bits),
/// [95..88] active operators (uint8), [135..96] verdicts posted (uint40), then a copy of the set in
/// force's hot fields: [143..136] quorum, [159..144] maxBallotsPerReport, [191..160] reportWindow,
/// [223..192] challengeWindow, [254..224] its report bond in `BOND_UNIT`s (at most 10^9 < 2^30),
/// [255] its reports are committed then revealed (`revealWindow` > 0 and quorum > 1). A report reads the
/// header (cold) to count its verdict there, and then needs no read of its parameter set when the
/// question uses the set in force. Owner slot (`_owner`). Counter slot (`_counters`): [159..0]
/// pending owner, [167..160] highest operator index handed out, [199..168] maxHorizon (seconds).
/// Operator slot (`_operators[account]`): [7..0] index (1..31, 0 none), [15..8] active, [31..16]
/// epoch of its latest addition, [71..32] addedAfter (question count at that addition), [87..72]
/// unsettled reports, [159..88] wei of stake locked by them, [255..160] wei staked.
/// Parameter set (`_parameters[id]`, Solidity's packing of `Parameters`): [7..0] quorum,
/// [23..8] maxBallotsPerReport, [55..24] reportWindow, [87..56] challengeWindow, [119..88]
/// arbitrationWindow, [215..120] askFee; then [95..0] disputeBond, [191..96] evidenceFee; then the
/// arbitrator; then arbitratorExtraData; then revealWindow.
///
/// uint40 timestamps last until the year 36,812; 2^40 questions exceed any chain's capacity;
/// 96-bit amounts exceed all ether in existence (~1.2e26 wei < 7.9e28).
abstract contract VeritasStorage is IEvidence {
    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    uint256 internal constant _MAX_QUESTION_LENGTH = 2048;
    uint256 internal constant _MAX_QUORUM = 7;
    uint256 internal constant _MAX_BALLOTS_PER_REPORT = 9000;
    /// @dev Operator indices are 5 bits in a reporter entry (0 meaning "none"); indices are reused
    /// once their operator is gone (removed, no stake, no unsettled report), so this bounds the
    /// operators that hold an index at the same time, not the operators ever added.
    uint256 internal constant _MAX_OPERATORS = 31;
    /// @dev Times `finalize` reopens a commit-reveal question's commit phase for the slots of
    /// commits never revealed: bounded, so a question always ends; each time costs every
    /// withholder its bond.
    uint256 internal constant _MAX_REOPENINGS = 2;
    uint256 internal constant _MIN_REPORT_WINDOW = 30;
    uint256 internal constant _MIN_CHALLENGE_WINDOW = 60;
    uint256 internal constant _MIN_ARBITRATION_WINDOW = 1 hours;
    /// @dev A parameter set's `revealWindow`: 0 (no commit-reveal) or within these bounds.
    uint256 internal constant _MIN_REVEAL_WINDOW = 30;
    uint256 internal constant _MAX_REVEAL_WINDOW = 7 days;
    uint256 internal constant _MAX_FEE = 1000 ether;
    uint256 internal constant _MAX_CALLBACK_GAS = 500_000;
    /// @dev Gas an ask prepays beyond its callback's limit, for the oracle's part of a delivery:
    /// the cold call and account (2,600), the events, and the payment's write (a new credit is
    /// 22,100; a reporter's stake, already written, ~200). Measured in `CallbackGas.t.sol`.
    uint256 internal constant _CALLBACK_GAS_OVERHEAD = 25_000;

    uint256 internal constant _RULING_REFUSED = 0;
    uint256 internal constant _RULING_VERDICT_STANDS = 1;
    uint256 internal constant _RULING_YES = 2;
    uint256 internal constant _RULING_NO = 3;
    uint256 internal constant _RULING_UNRESOLVABLE = 4;
    uint256 internal constant _RULING_TOO_EARLY = 5;
    uint256 internal constant _RULING_DISPUTER_TRIPLE = 6;
    uint256 internal constant _DISPUTE_CHOICES = 6;
    uint256 internal constant _ESCALATION_CHOICES = 5;

    /// @dev Deferrals a question may have: 3 bits of its flags. With the backoff below, the
    /// last report round opens about 55 days after the first deferral.
    uint256 internal constant _MAX_DEFERRALS = 7;
    /// @dev The backoff before report round k + 1, in hours, 16 bits per deferral k:
    /// 1, 6, 24, 72, 168, 336, 720.
    uint256 internal constant _DEFERRAL_HOURS = 0x02d0_0150_00a8_0048_0018_0006_0001;
    uint8 internal constant _DEFERRALS_SHIFT = 2;
    uint8 internal constant _DEFERRALS_MASK = 7 << 2;
    /// @dev A reporter entry's leading outcome for a report that said "not yet".
    uint8 internal constant _NOT_YET = 3;

    /// @dev Clarifications a question may have, and their length: 1 kB says what an asker meant;
    /// the cap keeps a clarification within `60,000 + 16 gas per byte` and the jurors' prompt
    /// bounded.
    uint256 internal constant _MAX_CLARIFICATIONS = 4;
    uint256 internal constant _MAX_CLARIFICATION_LENGTH = 1024;

    uint256 internal constant _MAX_EVIDENCE_PER_QUESTION = 64;
    /// @dev Per account and question: a spammer needs many accounts, and each pays the rising price.
    uint256 internal constant _MAX_EVIDENCE_PER_SUBMITTER = 8;
    /// @dev The evidence fee doubles every 8 items: the 64 items of a question cost 2,040 x
    /// `evidenceFee` in all, the last one 128 x.
    uint256 internal constant _EVIDENCE_PRICE_STEP = 8;
    uint256 internal constant _MAX_URL_LENGTH = 2048;
    uint256 internal constant _MAX_TITLE_LENGTH = 256;
    uint256 internal constant _MAX_SNIPPET_LENGTH = 2048;

    /// @dev Half of every slashed bond and every lost dispute bond is burned (UMA's default).
    uint256 internal constant _BURN_BPS = 5000;
    address internal constant _BURN_ADDRESS = address(0xdEaD);
    /// @dev Report bonds are locked in micro-ether (the header holds the bond in 32 bits of them).
    uint256 internal constant _BOND_UNIT = 1e12;

    uint32 internal constant _DEFAULT_MAX_HORIZON = 365 days;

    /// @dev Kappa's bound in both directions, as a signed WAD.
    int256 internal constant _KAPPA_BOUND = int256(WadTriple.WAD);

    /// @dev Flag bits of the verdict slot (see the layout above).
    uint8 internal constant _FLAG_COMMIT_REVEAL = 1;
    uint8 internal constant _FLAG_SETTLED = 2;
    uint8 internal constant _FLAG_CALLBACK = 32;
    uint8 internal constant _FLAG_OWED = 64;

    /// @dev `escalationReasons` bits.
    uint8 internal constant _REASON_ESCALATED = 1;
    uint8 internal constant _REASON_DISSENT = 2;
    uint8 internal constant _REASON_WINDOW_CLOSED = 4;
    uint8 internal constant _REASON_TIE = 8;
    uint8 internal constant _REASON_DEFERRALS = 16;
    /// @dev `_reasons`' bit for "more than half of the reports said not yet": never posted (the
    /// question is deferred, or escalates with `_REASON_DEFERRALS`), so it costs no second loop.
    uint8 internal constant _NOT_YET_MAJORITY = 128;

    /// @dev `_closeReporters`' outcome no reporter agrees with (a default: no verdict was confirmed).
    uint8 internal constant _NO_OUTCOME = 4;

    /// @dev `VerdictDefaulted` reasons.
    uint8 internal constant _DEFAULT_REFUSED = 0;
    uint8 internal constant _DEFAULT_NO_RULING = 1;
    uint8 internal constant _DEFAULT_NOT_TAKEN = 2;

    /// @dev Gas a callback needs beyond its limit: the call's cold account access (2,600) and the
    /// bookkeeping after it (an event and a warm flag write), so the 63/64 rule never shortens it.
    uint256 internal constant _CALLBACK_RESERVE = 10_000;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev Slot 1 of a question (layout on the contract).
    struct Info {
        address asker;
        uint40 askedAt;
        uint32 resolveDelay;
        uint16 operatorEpoch;
        uint8 clarifications;
    }

    /// @dev Slot 2 of a question: the running tally, then the verdict (layout on the contract).
    struct Tally {
        IVeritasOracle.VerdictStatus status;
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

    /// @dev A question's consumer, the gas of its callback, and what the asker prepaid for that
    /// gas (paid to whoever delivers the final status, see `_notify`).
    struct Callback {
        address consumer;
        uint32 gasLimit;
        uint64 deposit;
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
        uint32 bondUnits;
    }

    /// @dev Pending owner, highest operator index handed out, the asks' horizon.
    struct Counters {
        address pendingOwner;
        uint8 operatorCount;
        uint32 maxHorizon;
    }

    /// @dev An operator's index (0 when it holds none), whether it is active, the epoch of its
    /// latest addition and the question count then, and its stake: unsettled reports, the wei they
    /// lock, the wei staked.
    struct Operator {
        uint8 index;
        bool active;
        uint16 addedEpoch;
        uint40 addedAfter;
        uint16 openReports;
        uint72 locked;
        uint96 stake;
    }

    /// @dev The commits of a commit-reveal question: how many, the operator indices that committed
    /// (bit i for index i), and the reveal deadline once the quorum committed (0 before).
    struct CommitRound {
        uint8 commits;
        uint32 committers;
        uint40 revealDeadline;
    }

    /// @dev A commit phase `finalize` reopened for the slots of withheld commits: its deadline and
    /// how many times it was reopened. Apart from `CommitRound`, so that the happy path (which
    /// never reopens) reads and writes exactly what it did.
    struct Reopening {
        uint40 commitDeadline;
        uint8 count;
    }

    /// @dev An appeal funded through `appeal`: who paid, how much, and the ruling in force that it
    /// was against. `amount` cannot truncate: 2^88 wei exceed all the ether there is.
    struct Appeal {
        address funder;
        uint88 amount;
        uint8 against;
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
    Header internal _header;

    /// @dev The owner.
    address internal _owner;

    /// @dev Pending owner, operator index hint, horizon.
    Counters internal _counters;

    /// @dev Head of the global evidence hash chain.
    bytes32 internal _evidenceHead;

    /// @dev Operators by address, and their addresses by index.
    mapping(address account => Operator) internal _operators;
    mapping(uint256 index => address) internal _operatorAt;

    /// @dev Parameter sets by id; id 0 is the constructor's. Never modified once written.
    mapping(uint256 parametersId => IVeritasOracle.Parameters) internal _parameters;

    /// @dev Question id (from 1) to its record.
    mapping(uint256 id => Record) internal _questions;

    /// @dev Callbacks of the questions that named a consumer.
    mapping(uint256 id => Callback) internal _callbacks;

    /// @dev What an asker paid beyond its parameter set's `askFee` (kept for the operators).
    mapping(uint256 id => uint256) internal _extraFees;

    /// @dev Cases by question, and questions by keccak256(arbitrator, disputeId).
    mapping(uint256 id => CaseRecord) internal _cases;
    mapping(bytes32 caseKey => uint256 id) internal _caseIds;

    /// @dev Wei each account may withdraw.
    mapping(address account => uint256) internal _credits;

    /// @dev Evidence of each submitter per question: [7..0] items, [255..8] wei paid.
    mapping(uint256 id => mapping(address submitter => uint256)) internal _evidence;

    /// @dev Commit-reveal questions: their commit round, and each operator's commitment until it
    /// is revealed or slashed.
    mapping(uint256 id => CommitRound) internal _rounds;
    mapping(uint256 id => mapping(address operator => bytes32)) internal _commitments;
    mapping(uint256 id => Reopening) internal _reopenings;

    /// @dev Appeals of each question's case, in the order they were funded.
    mapping(uint256 id => Appeal[]) internal _appeals;

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The transient slot (EIP-1153) of the re-entrancy lock: keccak256("veritas.oracle.reentrancy")
    /// - 1. One lock for the oracle and its modules (a delegatecall shares the transient storage).
    uint256 private constant _LOCK_SLOT = 0x6f58a6959815753594741286c2e13872687d55da902a1b73ee0479e39fc32901;

    /// @dev Every state-changing entry point refuses to run while the lock is held, and the lock
    /// is held across every call the oracle makes to code it does not trust (a consumer's
    /// callback, an arbitrator, a withdrawal's recipient), each made after the call's state is
    /// written. So nothing called out to can enter the oracle again to change its state; views
    /// stay open. Only the calls out pay for taking the lock: each entry point pays one TLOAD.
    modifier nonReentrant() {
        _checkUnlocked();
        _;
    }

    /// @dev Reverts with `VeritasReentrantCall` while the oracle is calling out.
    function _checkUnlocked() private view {
        assembly ("memory-safe") {
            if tload(_LOCK_SLOT) {
                mstore(0, 0x182c92c6) // VeritasReentrantCall()
                revert(0x1c, 4)
            }
        }
    }

    /// @dev Takes (`true`) or releases the lock around a call out.
    function _hold(bool held) internal {
        assembly ("memory-safe") {
            tstore(_LOCK_SLOT, held)
        }
    }

    /// @dev The current time; `virtual` so tests and forks can control it.
    function _now() internal view virtual returns (uint256) {
        return block.timestamp;
    }

    /// @dev `_now()` in 40 bits: cannot truncate before the year 36,812.
    function _now40() internal view returns (uint40) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint40(_now());
    }

    /// @dev Whether `status` never changes again.
    function _finalStatus(IVeritasOracle.VerdictStatus status) internal pure returns (bool) {
        return status == IVeritasOracle.VerdictStatus.Arbitrated || status == IVeritasOracle.VerdictStatus.Expired
            || status == IVeritasOracle.VerdictStatus.Defaulted;
    }

    /// @dev Whether the operator of index `index` reported in tally `t`.
    function _reported(Tally memory t, uint256 index) internal pure returns (bool) {
        for (uint256 i = 0; i < t.reportCount; i++) {
            if (uint8(t.reporters >> (8 * i)) & 31 == index) return true;
        }
        return false;
    }

    /// @dev The wei one report on a question of parameter set `parametersId_` locks: its
    /// `disputeBond` rounded down to whole `BOND_UNIT`s, or nothing without a challenge window
    /// (nothing can be disputed, and escalations never slash). The same at report and release.
    function _bondOf(uint256 parametersId_) internal view returns (uint256) {
        IVeritasOracle.Parameters storage p = _parameters[parametersId_];
        return _bondUnits(p.challengeWindow, p.revealWindow, p.disputeBond) * _BOND_UNIT;
    }

    /// @dev The report bond in `BOND_UNIT`s of a set with this challenge window and dispute bond
    /// (at most MAX_FEE / BOND_UNIT = 10^9, which fits the header's 32 bits).
    function _bondUnits(uint256 challengeWindow, uint256 revealWindow, uint256 disputeBond)
        internal
        pure
        returns (uint256)
    {
        // A commit-reveal set bonds its reports too: a commit that is never revealed must cost
        // something (its bond is burned by `finalize`), or a griefer holds a slot for free.
        return challengeWindow == 0 && revealWindow == 0 ? 0 : disputeBond / _BOND_UNIT;
    }

    /// @dev Why the pooled tally `t` escalates (`escalationReasons` bits 0, 1 and 3): at least half
    /// of the reports escalated; at least half of them lead with an outcome other than the pooled
    /// one (the minimum weight of a dissent: one report out of three or more cannot escalate
    /// alone); the pooled counts tie for the top.
    function _reasons(Tally memory t) internal pure returns (uint8 reasons) {
        uint256 a = t.nYes;
        uint256 b = t.nNo;
        uint256 c = t.nNull;
        uint8 leader = WadTriple.leading(a, b, c);
        if (leader == 0 ? (a == b || a == c) : (leader == 1 && b == c)) reasons = _REASON_TIE;
        uint256 n = t.reportCount;
        uint256 escalated;
        uint256 dissent;
        uint256 notYet;
        for (uint256 i = 0; i < n; i++) {
            uint256 entry = uint8(t.reporters >> (8 * i));
            if (entry >> 7 != 0) escalated++;
            uint256 outcome = (entry >> 5) & 3;
            if (outcome != leader) dissent++;
            if (outcome == _NOT_YET) notYet++;
        }
        if (escalated * 2 >= n && escalated != 0) reasons |= _REASON_ESCALATED;
        if (dissent * 2 >= n && dissent != 0) reasons |= _REASON_DISSENT;
        if (notYet * 2 > n) reasons |= _NOT_YET_MAJORITY;
    }

    /// @dev Total evidence fees of `count` items at base fee `fee` (doubling every
    /// `_EVIDENCE_PRICE_STEP` items).
    function _evidenceTotal(uint256 count, uint256 fee) internal pure returns (uint256) {
        uint256 doubling = 2 ** (count / _EVIDENCE_PRICE_STEP);
        return fee * (_EVIDENCE_PRICE_STEP * (doubling - 1) + (count % _EVIDENCE_PRICE_STEP) * doubling);
    }

    /// @dev The evidence fees held for the question of tally `t`.
    function _evidenceFees(Tally memory t) internal view returns (uint256) {
        return _evidenceTotal(t.evidenceCount, _parameters[t.parametersId].evidenceFee);
    }

    /// @dev The fee held for question `id` of tally `t` for its reporters (or its asker): the ask
    /// fee of its parameter set plus the ask's surplus. Evidence fees are held apart.
    function _fee(uint256 id, Tally memory t) internal view returns (uint256) {
        return uint256(_parameters[t.parametersId].askFee) + _extraFees[id];
    }

    /// @dev When the next report round of `id` (tally `t`, asked at `askedAt`) opens if it is
    /// deferred now: after the backoff of its deferral count, clamped to the ask plus the horizon.
    /// 0 when it cannot be deferred any more (`_MAX_DEFERRALS` reached, or the horizon passed).
    function _nextRound(Tally memory t, uint256 askedAt) internal view returns (uint256 opens) {
        uint256 count = (t.flags & _DEFERRALS_MASK) >> _DEFERRALS_SHIFT;
        if (count >= _MAX_DEFERRALS) return 0;
        uint256 nowTimestamp = _now();
        uint256 latest = askedAt + _counters.maxHorizon;
        opens = nowTimestamp + _deferralDelay(count);
        if (opens > latest) opens = latest;
        if (opens <= nowTimestamp) return 0;
    }

    /// @dev The backoff before the round after deferral number `count` (from 0; below 7).
    function _deferralDelay(uint256 count) internal pure returns (uint256) {
        return ((_DEFERRAL_HOURS >> (16 * count)) & 0xffff) * 1 hours;
    }

    /// @dev Defers `id` (tally `t`, written back here) to a new report round opening at `opens`
    /// (from `_nextRound`): the tally emptied, the deferral counted, a commit round cleared, an owed
    /// callback forgotten (the status it owed is gone). The caller released the round's report
    /// bonds first.
    function _defer(uint256 id, Record storage record, Tally memory t, uint256 opens) internal {
        uint256 count = ((t.flags & _DEFERRALS_MASK) >> _DEFERRALS_SHIFT) + 1;
        // The casts cannot truncate: `count` is at most 7 (`_nextRound`), `opens` at most a uint40
        // time plus a uint32 horizon.
        // forge-lint: disable-start(unsafe-typecast)
        t.flags = uint8((t.flags & ~(_DEFERRALS_MASK | _FLAG_OWED)) | (count << _DEFERRALS_SHIFT));
        t.time = uint40(opens);
        // forge-lint: disable-end(unsafe-typecast)
        t.status = IVeritasOracle.VerdictStatus.Asked;
        t.reportCount = 0;
        t.nYes = 0;
        t.nNo = 0;
        t.nNull = 0;
        t.kappa = 0;
        t.reporters = 0;
        record.tally = t;
        if (t.flags & _FLAG_COMMIT_REVEAL != 0) {
            delete _rounds[id];
            delete _reopenings[id];
        }
        emit IVeritasOracle.QuestionDeferred(id, opens, count);
    }

    /// @dev Releases the report bond and unsettled-report count of every reporter of tally `t`
    /// but operator index `keep` (0: none), whose record its caller holds in memory.
    function _releaseReports(Tally memory t, uint256 keep) internal {
        uint256 n = t.reportCount;
        uint256 bond = _bondOf(t.parametersId);
        for (uint256 i = 0; i < n; i++) {
            uint256 index = uint8(t.reporters >> (8 * i)) & 31;
            if (index == keep) continue;
            Operator storage op = _operators[_operatorAt[index]];
            // The casts cannot truncate: the bond was added to `locked` (checked) by the report.
            // forge-lint: disable-start(unsafe-typecast)
            op.openReports -= 1;
            op.locked -= uint72(bond);
            // forge-lint: disable-end(unsafe-typecast)
        }
    }

    /// @dev Credits `amount` to `account` for question `id` (nothing when zero).
    function _credit(address account, uint256 id, uint256 amount) internal {
        if (amount == 0) return;
        _credits[account] += amount;
        emit IVeritasOracle.Credited(account, id, amount);
    }

    /// @dev Closes the reports of `id` (tally `t`): releases each reporter's report bond and
    /// unsettled-report count; when `slash`, takes the bond of each reporter whose leading outcome
    /// is not `outcome` (`Slashed`). Splits `amount` equally between the reporters whose leading
    /// outcome is `outcome` (none for `_NO_OUTCOME`), the first the remainder.
    /// Returns the wei slashed and the part of `amount` nobody agreeing could take.
    function _closeReporters(uint256 id, Tally memory t, uint8 outcome, bool slash, uint256 amount)
        internal
        returns (uint256 slashed, uint256 unpaid)
    {
        uint256 n = t.reportCount;
        // Never taken with a verdict (it has a reporter): keeps the Yul inliner from copying this
        // function into its callers (see `_notify`).
        if (n == 0) return (0, amount);
        uint256 agreeing;
        for (uint256 i = 0; i < n; i++) {
            if (_agrees(uint8(t.reporters >> (8 * i)), outcome)) agreeing++;
        }
        if (agreeing == 0) unpaid = amount;
        uint256 share = agreeing == 0 ? 0 : amount / agreeing;
        uint256 rest = agreeing == 0 ? 0 : amount % agreeing;
        uint256 bond = _bondOf(t.parametersId);
        for (uint256 i = 0; i < n; i++) {
            uint8 entry = uint8(t.reporters >> (8 * i));
            address reporter = _operatorAt[entry & 31];
            Operator storage op = _operators[reporter];
            bool agrees = _agrees(entry, outcome);
            // The casts cannot truncate: the bond was added to `locked` (checked) by the report.
            // forge-lint: disable-start(unsafe-typecast)
            op.openReports -= 1;
            op.locked -= uint72(bond);
            if (slash && !agrees && bond != 0) {
                op.stake -= uint96(bond);
                slashed += bond;
                emit IVeritasOracle.Slashed(id, reporter, bond);
            }
            // forge-lint: disable-end(unsafe-typecast)
            if (agrees) {
                _credit(reporter, id, share + rest);
                rest = 0;
            }
        }
    }

    /// @dev Whether a reporter entry's leading outcome is `outcome`.
    function _agrees(uint8 entry, uint8 outcome) internal pure returns (bool) {
        return (entry >> 5) & 3 == outcome;
    }

    /// @dev The part of `amount` that is burned.
    function _burnShare(uint256 amount) internal pure returns (uint256) {
        return amount * _BURN_BPS / 10_000;
    }

    /// @dev Makes `id` final as Defaulted (unresolvable triple): the dispute bond burned (a default
    /// never profits whoever disputed: else naming a silent court's judge, or disputing before a
    /// court known to be silent, would void a correct verdict for the cost of the court), the fee
    /// back to the asker (it got no answer, and no reporter earns a fee for a
    /// verdict that was never confirmed: else a liar would be paid whenever the court is silent),
    /// the evidence fees burned, every report bond released unslashed, the consumer called back.
    function _default(uint256 id, Record storage record, Tally memory t, uint8 reason) internal {
        // Never taken (reasons are 0..2): keeps the Yul inliner from copying this function into its
        // callers (see `_notify`).
        if (reason > _DEFAULT_NOT_TAKEN) return _default(id, record, t, _DEFAULT_NOT_TAKEN);
        t.status = IVeritasOracle.VerdictStatus.Defaulted;
        t.time = _now40();
        t.flags |= _FLAG_SETTLED;
        record.tally = t;
        emit IVeritasOracle.VerdictDefaulted(id, reason);
        (, uint256 unpaid) = _closeReporters(id, t, _NO_OUTCOME, false, _fee(id, t));
        _credit(record.info.asker, id, unpaid);
        _credit(_BURN_ADDRESS, id, _evidenceFees(t) + _cases[id].bond);
        emit IVeritasOracle.QuestionSettled(id);
        _notify(id, record, IVeritasOracle.VerdictStatus.Defaulted, 1, 1, WadTriple.WAD - 2, tx.origin);
    }

    /// @dev The triple of ruling `ruling` on the case `c` of tally `t`.
    function _rulingTriple(Tally memory t, CaseRecord memory c, uint256 ruling)
        internal
        pure
        returns (uint256, uint256, uint256)
    {
        if (ruling == _RULING_YES) return (WadTriple.WAD - 2, 1, 1);
        if (ruling == _RULING_NO) return (1, WadTriple.WAD - 2, 1);
        if (ruling == _RULING_UNRESOLVABLE) return (1, 1, WadTriple.WAD - 2);
        if (ruling == _RULING_DISPUTER_TRIPLE) return (c.pYes, c.pNo, WadTriple.WAD - c.pYes - c.pNo);
        return WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
    }

    /// @dev The triple `id` holds now (zero while it has none).
    function _triple(uint256 id, Tally memory t) internal view returns (uint256, uint256, uint256) {
        if (t.status == IVeritasOracle.VerdictStatus.Defaulted) return (1, 1, WadTriple.WAD - 2);
        if (t.status == IVeritasOracle.VerdictStatus.Arbitrated) {
            CaseRecord memory c = _cases[id];
            return _rulingTriple(t, c, c.ruling);
        }
        if (
            t.status == IVeritasOracle.VerdictStatus.Resolved || t.status == IVeritasOracle.VerdictStatus.Escalated
                || t.status == IVeritasOracle.VerdictStatus.Disputed
        ) {
            return WadTriple.fromCounts(t.nYes, t.nNo, t.nNull);
        }
        return (0, 0, 0);
    }

    /// @dev Calls the consumer of `id` back with `status` and the triple, when it has one: with
    /// exactly its gas limit (reverts with `VeritasCallbackGas` when the transaction cannot give
    /// it under the 63/64 rule), copying no return data. A failure sets the owed flag and emits
    /// `CallbackFailed`. Every caller has written its state before. `payee`, when not zero, is
    /// credited the asker's prepaid callback gas before the call: the caller delivering a
    /// question's final status passes the account that pays the transaction's gas (`tx.origin`:
    /// for a court's ruling the sender is the court), a reporter is paid into its stake by its
    /// caller instead (`_payReporter`), and a dispute's or a retry's delivery pays nothing. A
    /// final status is delivered once, so the deposit is paid at most once.
    function _notify(
        uint256 id,
        Record storage record,
        IVeritasOracle.VerdictStatus status,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        address payee
    ) internal {
        Tally storage tallySlot = record.tally;
        uint8 flags = tallySlot.flags;
        if (flags & _FLAG_CALLBACK == 0) return;
        // Never taken (no question is ever in status None): the Yul inliner does not copy a
        // recursive function into its callers, which keeps its copies (~2 kB) out of the
        // 24,576-byte code-size limit.
        if (status == IVeritasOracle.VerdictStatus.None) {
            return _notify(id, record, IVeritasOracle.VerdictStatus.Asked, pYes, pNo, pNull, payee);
        }
        Callback memory cb = _callbacks[id];
        if (payee != address(0) && cb.deposit != 0) {
            _credit(payee, id, cb.deposit);
            emit IVeritasOracle.CallbackGasPaid(id, payee, cb.deposit);
        }
        bytes memory data = abi.encodeCall(IVeritasConsumer.onVeritasVerdict, (id, status, pYes, pNo, pNull));
        uint256 gasLimit = cb.gasLimit;
        address consumer = cb.consumer;
        uint256 required = gasLimit + gasLimit / 63 + _CALLBACK_RESERVE;
        uint256 available = gasleft();
        if (available < required) revert IVeritasOracle.VeritasCallbackGas(available, required);
        bool ok;
        _hold(true);
        assembly ("memory-safe") {
            ok := call(gasLimit, consumer, 0, add(data, 32), mload(data), 0, 0)
        }
        _hold(false);
        if (ok) {
            // A later status delivered supersedes a failed one: nothing is owed any more, so
            // `retryCallback` never delivers a status twice or one the consumer already has.
            if (flags & _FLAG_OWED != 0) tallySlot.flags = flags & ~_FLAG_OWED;
            emit IVeritasOracle.CallbackDelivered(id, consumer, status);
        } else {
            // Re-read: the consumer may have changed the flags (e.g. settled) before failing.
            tallySlot.flags = tallySlot.flags | _FLAG_OWED;
            emit IVeritasOracle.CallbackFailed(id, consumer, status);
        }
    }
}
