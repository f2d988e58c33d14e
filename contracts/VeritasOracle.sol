// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IVeritasOracle} from "./interfaces/IVeritasOracle.sol";

/// @title VeritasOracle
/// @notice Questions in, committee verdicts out: the on-chain half of Veritas.
/// @dev The core idea is that the contract stores only what an integrator must read and what the
/// node must check, packed so that the operator's `postVerdict` is cheap:
///
/// - The question text is emitted in `QuestionAsked` and never stored; storage keeps its sha256
///   (leaf 0 of the evidence Merkle tree is that text, so an auditor ties both together).
/// - A verdict is a WAD triple that sums to exactly 1e18, so only `pYes` and `pNo` are stored and
///   `pNull = 1e18 - pYes - pNo` is derived on read. Every stored WAD value is <= 1e18 < 2^63, so it
///   fits in 64 bits (kappa, signed, in [-1e18, 1e18], fits in an `int64`).
/// - The verdict slot is first written by `askQuestion`, with status `Asked`. The asker pays for
///   creating it (22,100 gas cold), and the operator's `postVerdict` rewrites an existing slot
///   (5,000 cold) instead of creating it: the node, which posts every verdict, saves 17,100 gas
///   per question. The operator still creates one slot: the Merkle root, which needs all 256 bits.
/// - Both counters share the owner's slot, which the constructor makes nonzero, so no ask or post
///   ever pays for a zero-to-nonzero counter.
///
/// Storage layout of one question (`_questions[id]`, four consecutive slots):
///
///     slot 0  [255..0]    questionHash   sha256 of the UTF-8 question text
///     slot 1  [159..0]    asker          address that asked
///             [199..160]  askedAt        uint40 block timestamp of the ask
///             [255..200]  resolveAfter   uint56 earliest timestamp of a post (see `askQuestion`)
///     slot 2  [63..0]     pYes           uint64 WAD probability of YES (0 until posted)
///             [127..64]   pNo            uint64 WAD probability of NO (0 until posted)
///             [191..128]  fleissKappa    int64 WAD kappa, two's complement (0 until posted)
///             [231..192]  timestamp      uint40 time of the post or of the arbitration
///             [239..232]  status         uint8 `VerdictStatus` (Asked from the ask on)
///             [255..240]  (unused)
///     slot 3  [255..0]    merkleRoot     RFC 6962 root of the evidence bundle (0 until posted)
///
/// Header slot (`_header`): [159..0] owner, [207..160] questionCount (uint48),
/// [255..208] verdictCount (uint48). 2^48 questions is far beyond any chain's capacity.
///
/// uint40 timestamps last until the year 36,812.
contract VeritasOracle is IVeritasOracle {
    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The fixed-point scale of every probability and of kappa: 1e18 means 1 (certainty).
    uint256 public constant WAD = 1e18;

    /// @inheritdoc IVeritasOracle
    /// @dev 2048 bytes holds a question with its resolution criteria (about 300 English words)
    /// while bounding what an ask can make the node fetch, hash and put in every juror's prompt.
    /// At the limit the text costs the asker about 49,000 gas (16 gas per calldata byte plus
    /// 8 gas per event byte).
    uint256 public constant MAX_QUESTION_LENGTH = 2048;

    /// @dev `resolveAfter` is stored in 56 bits; later values (beyond the year 2 billion) mean
    /// "never" just as well and are saturated to this.
    uint64 private constant _MAX_RESOLVE_AFTER = type(uint56).max;

    /// @dev Kappa's bound in both directions, as a signed WAD.
    int256 private constant _KAPPA_BOUND = 1e18;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev One question and its verdict; the slot layout is documented on the contract.
    struct Record {
        // slot 0
        bytes32 questionHash;
        // slot 1
        address asker;
        uint40 askedAt;
        uint56 resolveAfter;
        // slot 2
        uint64 pYes;
        uint64 pNo;
        int64 fleissKappa;
        uint40 timestamp;
        VerdictStatus status;
        // slot 3
        bytes32 merkleRoot;
    }

    /// @dev Owner and counters in one slot (see the contract's `@dev`).
    struct Header {
        address owner;
        uint48 questionCount;
        uint48 verdictCount;
    }

    /// @dev Owner, question count and verdict count.
    Header private _header;

    /// @dev Proposed owner, until it accepts.
    address private _pendingOwner;

    /// @dev Arbiter of escalated verdicts (zero until the owner sets one).
    address private _arbiter;

    /// @dev Accounts allowed to post verdicts.
    mapping(address account => bool) private _operators;

    /// @dev Question id (from 1) to its record.
    mapping(uint256 id => Record) private _questions;

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param initialOwner The owner, who then adds operators and sets the arbiter.
    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert VeritasZeroAddress();
        _header.owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
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
    /// @dev A `resolveAfter` above 2^56 - 1 is stored (and returned by `getQuestion`) as 2^56 - 1:
    /// both are billions of years away. The event carries the value as given.
    function askQuestion(string calldata question, uint64 resolveAfter) external returns (uint256 id) {
        uint256 length = bytes(question).length;
        if (length == 0) revert VeritasEmptyQuestion();
        if (length > MAX_QUESTION_LENGTH) revert VeritasQuestionTooLong(length, MAX_QUESTION_LENGTH);

        bytes32 questionHash = sha256(bytes(question));
        uint64 storedResolveAfter = resolveAfter > _MAX_RESOLVE_AFTER ? _MAX_RESOLVE_AFTER : resolveAfter;

        Header storage header = _header;
        id = uint256(header.questionCount) + 1;
        // The casts cannot truncate: 2^48 asks exceed any chain's capacity, `_now()` fits 40 bits
        // until the year 36,812 and `storedResolveAfter` was saturated to 56 bits just above.
        // forge-lint: disable-start(unsafe-typecast)
        header.questionCount = uint48(id);

        Record storage record = _questions[id];
        record.questionHash = questionHash;
        record.asker = msg.sender;
        record.askedAt = uint40(_now());
        record.resolveAfter = uint56(storedResolveAfter);
        // forge-lint: disable-end(unsafe-typecast)
        record.status = VerdictStatus.Asked;
        emit QuestionAsked(id, msg.sender, questionHash, resolveAfter, question);
    }

    /// @inheritdoc IVeritasOracle
    function getQuestion(uint256 id) external view returns (Question memory) {
        Record storage record = _questions[id];
        if (record.status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        return Question({
            questionHash: record.questionHash,
            asker: record.asker,
            askedAt: record.askedAt,
            resolveAfter: record.resolveAfter
        });
    }

    /// @inheritdoc IVeritasOracle
    function questionCount() external view returns (uint256) {
        return _header.questionCount;
    }

    /*//////////////////////////////////////////////////////////////
                                VERDICTS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IVeritasOracle
    function postVerdict(
        uint256 id,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa,
        bool escalated
    ) external {
        if (!_operators[msg.sender]) revert VeritasNotOperator(msg.sender);

        Record storage record = _questions[id];
        VerdictStatus status = record.status;
        if (status == VerdictStatus.None) revert VeritasUnknownQuestion(id);
        if (status != VerdictStatus.Asked) revert VeritasVerdictAlreadyPosted(id);
        uint256 nowTimestamp = _now();
        uint64 resolveAfter = record.resolveAfter;
        if (nowTimestamp < resolveAfter) revert VeritasTooEarly(id, resolveAfter, nowTimestamp);
        _checkTriple(pYes, pNo, pNull);
        if (fleissKappa < -_KAPPA_BOUND || fleissKappa > _KAPPA_BOUND) revert VeritasKappaOutOfRange(fleissKappa);

        // The casts cannot truncate: `_checkTriple` bounds each probability by WAD < 2^63, kappa is
        // bounded by +-WAD just above, and `_now()` fits 40 bits until the year 36,812.
        // forge-lint: disable-start(unsafe-typecast)
        record.pYes = uint64(pYes);
        record.pNo = uint64(pNo);
        record.fleissKappa = int64(fleissKappa);
        record.timestamp = uint40(nowTimestamp);
        // forge-lint: disable-end(unsafe-typecast)
        record.status = escalated ? VerdictStatus.Escalated : VerdictStatus.Resolved;
        record.merkleRoot = merkleRoot;
        // Checked, and cannot overflow 48 bits anyway: never more verdicts than questions.
        _header.verdictCount += 1;
        emit VerdictPosted(id, merkleRoot, pYes, pNo, pNull, fleissKappa, escalated, msg.sender);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Keeps the committee's Merkle root and kappa (what the jurors saw and how much they
    /// agreed); replaces the triple and the timestamp.
    function arbitrate(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull) external {
        if (msg.sender != _arbiter) revert VeritasNotArbiter(msg.sender);
        Record storage record = _questions[id];
        VerdictStatus status = record.status;
        if (status != VerdictStatus.Escalated) revert VeritasNotEscalated(id, status);
        _checkTriple(pYes, pNo, pNull);

        // The casts cannot truncate (see `postVerdict`).
        // forge-lint: disable-start(unsafe-typecast)
        record.pYes = uint64(pYes);
        record.pNo = uint64(pNo);
        record.timestamp = uint40(_now());
        // forge-lint: disable-end(unsafe-typecast)
        record.status = VerdictStatus.Arbitrated;
        emit VerdictArbitrated(id, pYes, pNo, pNull, msg.sender);
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
        if (uint8(record.status) < uint8(VerdictStatus.Resolved)) revert VeritasVerdictNotFound(id);
        pYes = record.pYes;
        pNo = record.pNo;
        // Exact, never rounds: the stored pair came from a triple that summed to exactly WAD.
        pNull = WAD - pYes - pNo;
        return (record.questionHash, record.merkleRoot, pYes, pNo, pNull, record.fleissKappa, record.timestamp);
    }

    /// @inheritdoc IVeritasOracle
    function verdictStatus(uint256 id) external view returns (VerdictStatus) {
        return _questions[id].status;
    }

    /// @inheritdoc IVeritasOracle
    function verdictCount() external view returns (uint256) {
        return _header.verdictCount;
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
    /// @dev Idempotent: adding an operator twice changes nothing and emits nothing.
    function addOperator(address operator) external onlyOwner {
        if (operator == address(0)) revert VeritasZeroAddress();
        if (_operators[operator]) return;
        _operators[operator] = true;
        emit OperatorAdded(operator);
    }

    /// @inheritdoc IVeritasOracle
    /// @dev Idempotent: removing a non-operator changes nothing and emits nothing.
    function removeOperator(address operator) external onlyOwner {
        if (!_operators[operator]) return;
        delete _operators[operator];
        emit OperatorRemoved(operator);
    }

    /// @inheritdoc IVeritasOracle
    function isOperator(address account) external view returns (bool) {
        return _operators[account];
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
