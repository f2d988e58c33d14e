// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Script} from "forge-std/Script.sol";
import {VeritasOracle} from "../contracts/VeritasOracle.sol";
import {IVeritasOracle} from "../contracts/interfaces/IVeritasOracle.sol";

/// @title Deploy
/// @notice Deploys VeritasOracle, grants its roles and sets its parameters from the environment,
/// and records the deployment in `deployments/<chainId>.json`.
/// @dev Environment:
///   PRIVATE_KEY         deployer key (required; `make deploy-local` defaults it to anvil's account 0)
///   VERITAS_OPERATORS   comma-separated operator addresses (default: the deployer)
///   VERITAS_ARBITER     arbiter of escalated verdicts (default: the deployer)
///   VERITAS_OWNER       if set and not the deployer, proposed as owner; it must call
///                       `acceptOwnership()` itself (two-step transfer), so the deployer stays owner
///                       until then.
/// Parameters of the questions (defaults: the contract's local-chain defaults; set them for a
/// public chain, e.g. VERITAS_CHALLENGE_WINDOW=86400 and nonzero fees and bond):
///   VERITAS_QUORUM            reports that finalise a verdict (default 1)
///   VERITAS_MAX_BALLOTS       ballots per report (default 30)
///   VERITAS_REPORT_WINDOW     seconds after resolveAfter to report (default 86400)
///   VERITAS_CHALLENGE_WINDOW  seconds a verdict can be disputed (default 0: final at once)
///   VERITAS_ASK_FEE           wei per question (default 0)
///   VERITAS_DISPUTE_BOND      wei per dispute (default 0)
///   VERITAS_EVIDENCE_FEE      wei per evidence item (default 0)
/// The parameters are set only when one of them differs from the defaults (one transaction less).
/// A script cannot know the hash or block of the transactions it broadcasts (they are sent after
/// `run()` returns), so this file leaves out `txHash` and `deployBlock`;
/// `script/record-deployment.js` (run by `make deploy-local`) adds them from forge's broadcast
/// receipts.
contract Deploy is Script {
    function run() external returns (VeritasOracle oracle) {
        uint256 key = vm.envUint("PRIVATE_KEY");
        address deployer = vm.addr(key);

        address[] memory defaultOperators = new address[](1);
        defaultOperators[0] = deployer;
        address[] memory operators = vm.envOr("VERITAS_OPERATORS", ",", defaultOperators);
        address arbiter = vm.envOr("VERITAS_ARBITER", deployer);
        address newOwner = vm.envOr("VERITAS_OWNER", address(0));

        IVeritasOracle.Parameters memory params = _parameters();

        vm.startBroadcast(key);
        oracle = new VeritasOracle(deployer);
        for (uint256 i = 0; i < operators.length; i++) {
            oracle.addOperator(operators[i]);
        }
        oracle.setArbiter(arbiter);
        if (keccak256(abi.encode(params)) != keccak256(abi.encode(oracle.parameters()))) {
            oracle.setParameters(params);
        }
        if (newOwner != address(0) && newOwner != deployer) {
            oracle.transferOwnership(newOwner);
        }
        vm.stopBroadcast();

        _record(oracle, deployer, operators, arbiter);
    }

    /// @dev The question parameters from the environment (see the contract's doc).
    function _parameters() private view returns (IVeritasOracle.Parameters memory) {
        return IVeritasOracle.Parameters({
            quorum: uint8(vm.envOr("VERITAS_QUORUM", uint256(1))),
            maxBallotsPerReport: uint16(vm.envOr("VERITAS_MAX_BALLOTS", uint256(30))),
            reportWindow: uint32(vm.envOr("VERITAS_REPORT_WINDOW", uint256(1 days))),
            challengeWindow: uint32(vm.envOr("VERITAS_CHALLENGE_WINDOW", uint256(0))),
            askFee: uint96(vm.envOr("VERITAS_ASK_FEE", uint256(0))),
            disputeBond: uint96(vm.envOr("VERITAS_DISPUTE_BOND", uint256(0))),
            evidenceFee: uint96(vm.envOr("VERITAS_EVIDENCE_FEE", uint256(0)))
        });
    }

    /// @dev Writes `deployments/<chainId>.json`; keys are documented in deployments/README.md.
    function _record(VeritasOracle oracle, address deployer, address[] memory operators, address arbiter) private {
        string memory key = "deployment";
        vm.serializeString(key, "contract", "VeritasOracle");
        vm.serializeAddress(key, "address", address(oracle));
        vm.serializeUint(key, "chainId", block.chainid);
        vm.serializeAddress(key, "deployer", deployer);
        vm.serializeAddress(key, "owner", oracle.owner());
        vm.serializeAddress(key, "pendingOwner", oracle.pendingOwner());
        vm.serializeAddress(key, "operators", operators);
        string memory json = vm.serializeAddress(key, "arbiter", arbiter);
        vm.writeJson(json, string.concat("deployments/", vm.toString(block.chainid), ".json"));
    }
}
