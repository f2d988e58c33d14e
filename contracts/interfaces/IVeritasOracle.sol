// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IVeritasOracle
/// @notice The on-chain half of Veritas: questions are asked here, an off-chain committee of LLM
/// jurors resolves them, and an operator posts the verdict as a 1e18-scaled probability triple
/// (YES, NO, NULL) with the Merkle root of the evidence it used and the committee's Fleiss' kappa.
/// @dev Integrators read `verdictStatus(id)` (never reverts) and `getVerdict(id)`. A verdict the
/// committee could not settle is posted with `escalated = true` and may be replaced once by the
/// arbiter (the human in the loop). All probabilities are WAD-scaled (1e18 = certainty), each > 0,
/// and the three sum to exactly 1e18.
interface IVeritasOracle {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice Lifecycle of a question id.
    /// @dev None: the id was never asked. Asked: waiting for a verdict. Resolved: settled
    /// automatically. Escalated: posted, but the committee flagged it for a human. Arbitrated: the
    /// arbiter has replaced an escalated verdict.
    enum VerdictStatus {
        None,
        Asked,
        Resolved,
        Escalated,
        Arbitrated
    }

    /// @notice What the contract keeps of a question (the text lives only in the event).
    struct Question {
        bytes32 questionHash; // sha256 of the UTF-8 question text
        address asker; // who asked
        uint64 askedAt; // block timestamp of the ask
        uint64 resolveAfter; // earliest timestamp at which a verdict may be posted
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A question was asked; the node reads the full text from this event.
    event QuestionAsked(
        uint256 indexed id, address indexed asker, bytes32 questionHash, uint64 resolveAfter, string question
    );

    /// @notice An operator posted the committee's verdict for `id`.
    event VerdictPosted(
        uint256 indexed id,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa,
        bool escalated,
        address indexed operator
    );

    /// @notice The arbiter replaced the escalated verdict of `id`.
    event VerdictArbitrated(uint256 indexed id, uint256 pYes, uint256 pNo, uint256 pNull, address indexed arbiter);

    /// @notice `operator` may now post verdicts.
    event OperatorAdded(address indexed operator);

    /// @notice `operator` may no longer post verdicts.
    event OperatorRemoved(address indexed operator);

    /// @notice The arbiter changed from `previousArbiter` to `newArbiter`.
    event ArbiterChanged(address indexed previousArbiter, address indexed newArbiter);

    /// @notice The owner proposed `newOwner`; ownership moves when `newOwner` accepts.
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);

    /// @notice Ownership moved from `previousOwner` to `newOwner`.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The question text is empty.
    error VeritasEmptyQuestion();

    /// @notice The question text is `length` bytes, above the maximum `maxLength`.
    error VeritasQuestionTooLong(uint256 length, uint256 maxLength);

    /// @notice No question with this id was asked.
    error VeritasUnknownQuestion(uint256 id);

    /// @notice The question already has a verdict.
    error VeritasVerdictAlreadyPosted(uint256 id);

    /// @notice The question has no verdict yet.
    error VeritasVerdictNotFound(uint256 id);

    /// @notice A verdict was posted before the question's `resolveAfter`.
    error VeritasTooEarly(uint256 id, uint64 resolveAfter, uint256 nowTimestamp);

    /// @notice The probability of outcome `outcome` (0 = YES, 1 = NO, 2 = NULL) is zero.
    error VeritasZeroProbability(uint8 outcome);

    /// @notice The three probabilities sum to `sum` instead of exactly 1e18.
    error VeritasProbabilitySum(uint256 sum);

    /// @notice Kappa is outside [-1e18, 1e18].
    error VeritasKappaOutOfRange(int256 fleissKappa);

    /// @notice `caller` is not an operator.
    error VeritasNotOperator(address caller);

    /// @notice `caller` is not the owner.
    error VeritasNotOwner(address caller);

    /// @notice `caller` is not the pending owner.
    error VeritasNotPendingOwner(address caller);

    /// @notice `caller` is not the arbiter.
    error VeritasNotArbiter(address caller);

    /// @notice Only an escalated verdict can be arbitrated; `id` is in `status`.
    error VeritasNotEscalated(uint256 id, VerdictStatus status);

    /// @notice The zero address is not allowed here.
    error VeritasZeroAddress();

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Ask a question for the oracle to resolve.
    /// @param question The question, UTF-8, 1 to `MAX_QUESTION_LENGTH` bytes.
    /// @param resolveAfter Earliest timestamp at which a verdict may be posted (0 = at once).
    /// @return id The sequential id of the question, starting at 1.
    function askQuestion(string calldata question, uint64 resolveAfter) external returns (uint256 id);

    /// @notice Maximum length of a question in bytes.
    function MAX_QUESTION_LENGTH() external view returns (uint256);

    /// @notice The stored record of question `id`.
    /// @dev Reverts with `VeritasUnknownQuestion` for an id never asked.
    function getQuestion(uint256 id) external view returns (Question memory);

    /// @notice Number of questions asked so far (also the id of the latest one).
    function questionCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                                VERDICTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Post the committee's verdict for question `id`. Operators only, once per question.
    /// @param id The question id.
    /// @param merkleRoot RFC 6962 SHA-256 Merkle root over the question and its evidence bundle.
    /// @param pYes WAD-scaled probability of YES, > 0.
    /// @param pNo WAD-scaled probability of NO, > 0.
    /// @param pNull WAD-scaled probability of NULL (unresolvable), > 0.
    /// @param fleissKappa WAD-scaled Fleiss' kappa of the committee, in [-1e18, 1e18].
    /// @param escalated True when the committee's routing asks for a human arbiter.
    function postVerdict(
        uint256 id,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa,
        bool escalated
    ) external;

    /// @notice Replace the escalated verdict of `id` with the arbiter's triple. Arbiter only, once.
    /// @param id The question id; its verdict must be `Escalated`.
    /// @param pYes WAD-scaled probability of YES, > 0.
    /// @param pNo WAD-scaled probability of NO, > 0.
    /// @param pNull WAD-scaled probability of NULL, > 0.
    function arbitrate(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull) external;

    /// @notice The verdict of question `id`, in the seed's reading shape.
    /// @dev Reverts with `VeritasVerdictNotFound` when there is none; check `verdictStatus` first.
    /// @return questionHash sha256 of the question text.
    /// @return merkleRoot Root of the committed evidence bundle.
    /// @return pYes WAD-scaled probability of YES.
    /// @return pNo WAD-scaled probability of NO.
    /// @return pNull WAD-scaled probability of NULL.
    /// @return fleissKappa WAD-scaled Fleiss' kappa (signed).
    /// @return timestamp Block timestamp of the post (or of the arbitration).
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
        );

    /// @notice The lifecycle status of `id`; never reverts (`None` for an unknown id).
    function verdictStatus(uint256 id) external view returns (VerdictStatus);

    /// @notice Number of verdicts posted so far.
    function verdictCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                                 ROLES
    //////////////////////////////////////////////////////////////*/

    /// @notice The current owner.
    function owner() external view returns (address);

    /// @notice The owner proposed by `transferOwnership`, until accepted.
    function pendingOwner() external view returns (address);

    /// @notice Step one of an ownership transfer: propose `newOwner`. Owner only.
    function transferOwnership(address newOwner) external;

    /// @notice Step two of an ownership transfer: the pending owner accepts.
    function acceptOwnership() external;

    /// @notice Allow `operator` to post verdicts. Owner only.
    function addOperator(address operator) external;

    /// @notice Stop `operator` from posting verdicts. Owner only.
    function removeOperator(address operator) external;

    /// @notice Whether `account` may post verdicts.
    function isOperator(address account) external view returns (bool);

    /// @notice Set the arbiter of escalated verdicts. Owner only.
    function setArbiter(address newArbiter) external;

    /// @notice The arbiter of escalated verdicts.
    function arbiter() external view returns (address);
}
