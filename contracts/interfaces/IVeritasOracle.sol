// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IVeritasOracle
/// @notice The on-chain half of Veritas (version 2): questions are asked here (with a fee), several
/// independent operators each run an off-chain committee of LLM jurors and submit a *report* (the
/// ballot counts, the evidence Merkle root and the committee's Fleiss' kappa), and the contract
/// pools the reports into one verdict: a 1e18-scaled probability triple (YES, NO, NULL).
/// @dev Integrators read `isFinal(id)` (or `verdictStatus(id)`, never reverts) and then
/// `getVerdict(id)`. A verdict becomes final once its challenge window has passed undisputed, or
/// when the arbiter has ruled. All probabilities are WAD-scaled (1e18 = certainty), each > 0, and
/// the three sum to exactly 1e18. Money moves only by pull (`withdraw`).
interface IVeritasOracle {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice Lifecycle of a question id. Values are stable: new ones are only ever appended.
    /// @dev None: never asked. Asked: open for evidence (before `resolveAfter`), then for reports.
    /// Resolved: pooled verdict posted; final after the challenge window unless disputed.
    /// Escalated: pooled verdict posted but flagged for the arbiter (a report escalated, the
    /// reports' leading outcomes differ, or the report window ended before the quorum).
    /// Arbitrated: the arbiter has ruled; final. Disputed: a Resolved verdict was disputed within
    /// its challenge window, waiting for the arbiter. Expired: the report window ended with no
    /// report; no verdict, the fee is refunded to the asker; final.
    enum VerdictStatus {
        None,
        Asked,
        Resolved,
        Escalated,
        Arbitrated,
        Disputed,
        Expired
    }

    /// @notice What the contract keeps of a question (the text lives only in the event).
    struct Question {
        bytes32 questionHash; // sha256 of the UTF-8 question text
        address asker; // who asked
        uint64 askedAt; // block timestamp of the ask
        uint64 resolveAfter; // earliest timestamp of a report; evidence is accepted before it
    }

    /// @notice The rules that govern a question, fixed when it is asked.
    struct Parameters {
        uint8 quorum; // reports that finalise the verdict, 1..MAX_QUORUM
        uint16 maxBallotsPerReport; // cap on nYes + nNo + nNull of one report, 1..MAX_BALLOTS_PER_REPORT
        uint32 reportWindow; // seconds after resolveAfter during which reports are accepted, >= 1
        uint32 challengeWindow; // seconds a Resolved verdict can be disputed (0: final at once)
        uint96 askFee; // wei required by askQuestion, paid to the reporting operators
        uint96 disputeBond; // wei required by dispute
        uint96 evidenceFee; // wei paid (exactly) by submitEvidence, added to the question's fee
    }

    /// @notice One operator's report for one question (the argument of `submitReports`).
    struct Report {
        uint256 id; // question id
        bytes32 merkleRoot; // RFC 6962 root over the question and the operator's evidence bundle
        uint16 nYes; // valid YES ballots
        uint16 nNo; // valid NO ballots
        uint16 nNull; // valid NULL ballots
        int256 fleissKappa; // WAD-scaled Fleiss' kappa of the committee, in [-1e18, 1e18]
        bool escalated; // the operator's routing asks for the arbiter
    }

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A question was asked; the node reads the full text from this event.
    event QuestionAsked(
        uint256 indexed id, address indexed asker, bytes32 questionHash, uint64 resolveAfter, string question
    );

    /// @notice `operator` submitted its report for `id` (every field of the report).
    event ReportSubmitted(
        uint256 indexed id,
        address indexed operator,
        bytes32 merkleRoot,
        uint256 nYes,
        uint256 nNo,
        uint256 nNull,
        int256 fleissKappa,
        bool escalated
    );

    /// @notice A report of a `submitReports` batch was stale and skipped; `reason` is the selector
    /// of the error a single `submitReport` would have reverted with.
    event ReportSkipped(uint256 indexed id, address indexed operator, bytes4 reason);

    /// @notice The pooled verdict of `id` was posted. `operator` is the account whose transaction
    /// posted it: the operator of the quorum-th report, or whoever called `finalize`.
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

    /// @notice The report window of `id` ended with no report; `refund` wei was credited to the asker.
    event QuestionExpired(uint256 indexed id, uint256 refund);

    /// @notice `disputer` disputed the Resolved verdict of `id` with a bond of `bond` wei.
    event VerdictDisputed(uint256 indexed id, address indexed disputer, uint256 bond);

    /// @notice The arbiter ruled on the escalated or disputed verdict of `id`.
    event VerdictArbitrated(uint256 indexed id, uint256 pYes, uint256 pNo, uint256 pNull, address indexed arbiter);

    /// @notice The money of `id` (fee, and bond if disputed) was credited; nothing more is owed.
    event QuestionSettled(uint256 indexed id);

    /// @notice `amount` wei was credited to `account` for question `id`.
    event Credited(address indexed account, uint256 indexed id, uint256 amount);

    /// @notice `account` withdrew `amount` wei.
    event Withdrawn(address indexed account, uint256 amount);

    /// @notice Evidence for `id` was submitted (every field). `index` counts the question's items
    /// from 1; `evidenceHead` is the contract's evidence hash chain after this item.
    event EvidenceSubmitted(
        uint256 indexed id,
        address indexed submitter,
        uint256 index,
        bytes32 evidenceHead,
        string url,
        string title,
        string snippet
    );

    /// @notice The owner set new parameters; questions asked from now on use them (id `parametersId`).
    event ParametersChanged(uint256 indexed parametersId, Parameters parameters);

    /// @notice `operator` may now submit reports.
    event OperatorAdded(address indexed operator);

    /// @notice `operator` may no longer submit reports.
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

    /// @notice The question has no verdict.
    error VeritasVerdictNotFound(uint256 id);

    /// @notice A report was submitted before the question's `resolveAfter`.
    error VeritasTooEarly(uint256 id, uint64 resolveAfter, uint256 nowTimestamp);

    /// @notice The question no longer takes reports or `finalize`: it is in `status`.
    error VeritasNotOpen(uint256 id, VerdictStatus status);

    /// @notice `operator` already reported on `id`.
    error VeritasAlreadyReported(uint256 id, address operator);

    /// @notice The report window of `id` closed at `deadline`.
    error VeritasReportWindowClosed(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice `finalize(id)` before the report window closes at `deadline`.
    error VeritasReportWindowOpen(uint256 id, uint256 deadline, uint256 nowTimestamp);

    /// @notice A report holds `total` ballots, above the question's cap `maxBallots`.
    error VeritasTooManyBallots(uint256 total, uint256 maxBallots);

    /// @notice The probability of outcome `outcome` (0 = YES, 1 = NO, 2 = NULL) is zero.
    error VeritasZeroProbability(uint8 outcome);

    /// @notice The three probabilities sum to `sum` instead of exactly 1e18.
    error VeritasProbabilitySum(uint256 sum);

    /// @notice Kappa is outside [-1e18, 1e18].
    error VeritasKappaOutOfRange(int256 fleissKappa);

    /// @notice `paid` wei sent where `required` wei are needed.
    error VeritasInsufficientPayment(uint256 paid, uint256 required);

    /// @notice `paid` wei sent where exactly `required` wei are needed.
    error VeritasWrongPayment(uint256 paid, uint256 required);

    /// @notice `value` wei does not fit the 96-bit amounts the contract stores (more than all ether).
    error VeritasAmountTooLarge(uint256 value);

    /// @notice Evidence for `id` is accepted only before its `resolveAfter`.
    error VeritasEvidenceClosed(uint256 id, uint64 resolveAfter, uint256 nowTimestamp);

    /// @notice An evidence field (0 = url, 1 = title, 2 = snippet) is `length` bytes, above `maxLength`.
    error VeritasEvidenceTooLong(uint8 field, uint256 length, uint256 maxLength);

    /// @notice Question `id` already holds the maximum number of evidence items.
    error VeritasTooMuchEvidence(uint256 id, uint256 maxItems);

    /// @notice Only a Resolved verdict within its challenge window can be disputed; `id` is in `status`.
    error VeritasNotDisputable(uint256 id, VerdictStatus status);

    /// @notice The challenge window of `id` ended at `finalAt`.
    error VeritasChallengeWindowClosed(uint256 id, uint256 finalAt, uint256 nowTimestamp);

    /// @notice Only an Escalated or Disputed verdict can be arbitrated; `id` is in `status`.
    error VeritasNotArbitrable(uint256 id, VerdictStatus status);

    /// @notice `settle(id)` needs a final Resolved verdict; `id` is in `status` (or still in its window).
    error VeritasNotFinal(uint256 id, VerdictStatus status);

    /// @notice The money of `id` was already settled.
    error VeritasAlreadySettled(uint256 id);

    /// @notice `account` has no credit to withdraw.
    error VeritasNothingToWithdraw(address account);

    /// @notice Sending `amount` wei to `account` failed.
    error VeritasTransferFailed(address account, uint256 amount);

    /// @notice Quorum `quorum` is outside 1..MAX_QUORUM.
    error VeritasInvalidQuorum(uint256 quorum);

    /// @notice Ballot cap `cap` is outside 1..MAX_BALLOTS_PER_REPORT.
    error VeritasInvalidBallotCap(uint256 cap);

    /// @notice The report window must be at least one second.
    error VeritasInvalidReportWindow();

    /// @notice The owner changed the parameters 65,535 times; deploy a new oracle.
    error VeritasParametersExhausted();

    /// @notice MAX_OPERATORS distinct operators were already added; deploy a new oracle.
    error VeritasTooManyOperators(uint256 maxOperators);

    /// @notice `caller` is not an operator.
    error VeritasNotOperator(address caller);

    /// @notice `caller` is not the owner.
    error VeritasNotOwner(address caller);

    /// @notice `caller` is not the pending owner.
    error VeritasNotPendingOwner(address caller);

    /// @notice `caller` is not the arbiter.
    error VeritasNotArbiter(address caller);

    /// @notice The zero address is not allowed here.
    error VeritasZeroAddress();

    /*//////////////////////////////////////////////////////////////
                               QUESTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Ask a question for the oracle to resolve, paying at least `askFee`.
    /// @dev The whole `msg.value` becomes the question's fee (a surplus is kept for the operators,
    /// never refunded). The question is governed by the parameters in force now.
    /// @param question The question, UTF-8, 1 to `MAX_QUESTION_LENGTH` bytes.
    /// @param resolveAfter Earliest timestamp of a report (0 = at once); evidence is accepted before it.
    /// @return id The sequential id of the question, starting at 1.
    function askQuestion(string calldata question, uint64 resolveAfter) external payable returns (uint256 id);

    /// @notice Maximum length of a question in bytes.
    function MAX_QUESTION_LENGTH() external view returns (uint256);

    /// @notice The stored record of question `id`.
    /// @dev Reverts with `VeritasUnknownQuestion` for an id never asked.
    function getQuestion(uint256 id) external view returns (Question memory);

    /// @notice Number of questions asked so far (also the id of the latest one).
    function questionCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                                EVIDENCE
    //////////////////////////////////////////////////////////////*/

    /// @notice Submit an evidence item for question `id` before its `resolveAfter`, paying exactly
    /// the question's `evidenceFee` (added to the question's fee). Every field is emitted; the
    /// contract keeps only the question's item count and the global evidence hash chain.
    /// @param id The question id.
    /// @param url Where the evidence is, at most `MAX_URL_LENGTH` bytes.
    /// @param title Its title, at most `MAX_TITLE_LENGTH` bytes.
    /// @param snippet The relevant excerpt, at most `MAX_SNIPPET_LENGTH` bytes.
    /// @return index The item's number within question `id`, from 1.
    function submitEvidence(uint256 id, string calldata url, string calldata title, string calldata snippet)
        external
        payable
        returns (uint256 index);

    /// @notice Number of evidence items submitted for `id`.
    function evidenceCount(uint256 id) external view returns (uint256);

    /// @notice Head of the evidence hash chain over every submission to this contract:
    /// head_0 = keccak256(abi.encode(chainId, oracle)), then for each submission
    /// head_n = keccak256(abi.encode(head_{n-1}, id, submitter, url, title, snippet)).
    function evidenceHead() external view returns (bytes32);

    /*//////////////////////////////////////////////////////////////
                                REPORTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Submit the caller's report for question `id`: operators only, once per operator,
    /// from `resolveAfter` until the report window closes. The quorum-th report finalises the
    /// pooled verdict (`VerdictPosted`).
    /// @param id The question id.
    /// @param merkleRoot RFC 6962 SHA-256 Merkle root over the question and the operator's bundle.
    /// @param nYes Valid YES ballots of the committee.
    /// @param nNo Valid NO ballots.
    /// @param nNull Valid NULL ballots; nYes + nNo + nNull <= the question's `maxBallotsPerReport`.
    /// @param fleissKappa WAD-scaled Fleiss' kappa of the committee, in [-1e18, 1e18].
    /// @param escalated True when the operator's routing asks for the arbiter.
    function submitReport(
        uint256 id,
        bytes32 merkleRoot,
        uint16 nYes,
        uint16 nNo,
        uint16 nNull,
        int256 fleissKappa,
        bool escalated
    ) external;

    /// @notice Submit many reports of the caller in one transaction. A stale report (question no
    /// longer open, report window closed, already reported by the caller) is skipped with
    /// `ReportSkipped`; any other invalid report reverts the whole batch.
    /// @return submitted Number of reports accepted.
    function submitReports(Report[] calldata reports) external returns (uint256 submitted);

    /// @notice After the report window of `id`, anyone may close it: with at least one report the
    /// pooled verdict is posted escalated (quorum not met); with none the question is Expired and
    /// its fee is credited back to the asker.
    function finalize(uint256 id) external;

    /// @notice Whether `operator` has submitted a report on `id`.
    function hasReported(uint256 id, address operator) external view returns (bool);

    /// @notice The reports pooled so far for `id`: how many, and the summed counts.
    function tally(uint256 id) external view returns (uint256 reports, uint256 nYes, uint256 nNo, uint256 nNull);

    /*//////////////////////////////////////////////////////////////
                           VERDICTS AND DISPUTES
    //////////////////////////////////////////////////////////////*/

    /// @notice Dispute the Resolved verdict of `id` within its challenge window, bonding at least
    /// the question's `disputeBond` (the whole `msg.value` is the bond). One dispute per question.
    function dispute(uint256 id) external payable;

    /// @notice The arbiter's ruling on an Escalated or Disputed verdict: replaces the triple, keeps
    /// the root and kappa, and settles the money. Arbiter only, once.
    /// @param id The question id.
    /// @param pYes WAD-scaled probability of YES, > 0.
    /// @param pNo WAD-scaled probability of NO, > 0.
    /// @param pNull WAD-scaled probability of NULL, > 0.
    function arbitrate(uint256 id, uint256 pYes, uint256 pNo, uint256 pNull) external;

    /// @notice Once the Resolved verdict of `id` is final, credit its fee to the reporting
    /// operators. Anyone may call it, once.
    function settle(uint256 id) external;

    /// @notice Pay the caller all its credits.
    /// @return amount Wei sent.
    function withdraw() external returns (uint256 amount);

    /// @notice Wei the caller of `withdraw` would receive.
    function credits(address account) external view returns (uint256);

    /// @notice Wei held for `id`'s operators (or its asker) and not yet credited: 0 once settled.
    function pendingFee(uint256 id) external view returns (uint256);

    /// @notice The dispute of `id`: who and how much (zero when none).
    function getDispute(uint256 id) external view returns (address disputer, uint256 bond);

    /// @notice The verdict of question `id`, in the seed's reading shape.
    /// @dev Reverts with `VeritasVerdictNotFound` when there is none; check `verdictStatus` or
    /// `isFinal` first. A verdict may still change until `isFinal(id)`.
    /// @return questionHash sha256 of the question text.
    /// @return merkleRoot Evidence root (one report) or the digest of the reports' roots.
    /// @return pYes WAD-scaled probability of YES.
    /// @return pNo WAD-scaled probability of NO.
    /// @return pNull WAD-scaled probability of NULL.
    /// @return fleissKappa WAD-scaled Fleiss' kappa (signed; the minimum of the reports').
    /// @return timestamp Block timestamp of the posting (or of the arbitration).
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

    /// @notice Whether `id` will never change again: Resolved past its challenge window, Arbitrated,
    /// or Expired. Integrators act only on a final question.
    function isFinal(uint256 id) external view returns (bool);

    /// @notice When `id` becomes (or became) final: the end of a Resolved verdict's challenge window,
    /// the arbitration or expiry time; 0 while unknown (Asked, Escalated, Disputed).
    function finalAt(uint256 id) external view returns (uint256);

    /// @notice Number of pooled verdicts posted so far.
    function verdictCount() external view returns (uint256);

    /*//////////////////////////////////////////////////////////////
                               PARAMETERS
    //////////////////////////////////////////////////////////////*/

    /// @notice Set the parameters for questions asked from now on. Owner only.
    function setParameters(Parameters calldata parameters) external;

    /// @notice The parameters in force now (those of the next question).
    function parameters() external view returns (Parameters memory);

    /// @notice The parameters that govern question `id` (fixed when it was asked).
    function questionParameters(uint256 id) external view returns (Parameters memory);

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

    /// @notice Allow `operator` to submit reports. Owner only.
    function addOperator(address operator) external;

    /// @notice Stop `operator` from submitting reports. Owner only.
    function removeOperator(address operator) external;

    /// @notice Whether `account` may submit reports.
    function isOperator(address account) external view returns (bool);

    /// @notice Set the arbiter of escalated and disputed verdicts. Owner only.
    function setArbiter(address newArbiter) external;

    /// @notice The arbiter of escalated and disputed verdicts.
    function arbiter() external view returns (address);
}
