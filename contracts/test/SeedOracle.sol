// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The seed project's oracle layout, kept only as a gas baseline for `GasTest`: a bare
/// array of seven-word structs that only the owner appends to, no questions, no validation.
contract SeedOracle {
    struct Verdict {
        bytes32 questionHash;
        bytes32 merkleRoot;
        uint256 pYes;
        uint256 pNo;
        uint256 pNull;
        int256 fleissKappa;
        uint256 timestamp;
    }

    event VerdictPosted(
        uint256 indexed id,
        bytes32 questionHash,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa
    );

    error NotOwner();

    address public owner;
    Verdict[] public verdicts;

    constructor() {
        owner = msg.sender;
    }

    function postVerdict(
        bytes32 questionHash,
        bytes32 merkleRoot,
        uint256 pYes,
        uint256 pNo,
        uint256 pNull,
        int256 fleissKappa
    ) external {
        if (msg.sender != owner) revert NotOwner();
        verdicts.push(Verdict(questionHash, merkleRoot, pYes, pNo, pNull, fleissKappa, block.timestamp));
        emit VerdictPosted(verdicts.length - 1, questionHash, merkleRoot, pYes, pNo, pNull, fleissKappa);
    }

    function getVerdict(uint256 id)
        external
        view
        returns (bytes32, bytes32, uint256, uint256, uint256, int256, uint256)
    {
        Verdict storage v = verdicts[id];
        return (v.questionHash, v.merkleRoot, v.pYes, v.pNo, v.pNull, v.fleissKappa, v.timestamp);
    }

    function verdictCount() external view returns (uint256) {
        return verdicts.length;
    }
}
