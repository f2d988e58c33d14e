// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {Deploy} from "../../script/Deploy.s.sol";
import {VeritasOracle} from "../VeritasOracle.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice The deploy script grants the roles it reads from the environment and records them.
contract DeployTest is Test {
    uint256 internal constant CHAIN_ID = 4_242_424;

    function test_DeployReadsRolesFromEnvAndWritesRecord() public {
        // A chain id of its own, so the record never clobbers a real deployments/<chainId>.json.
        vm.chainId(CHAIN_ID);
        uint256 key = 0xA11CE;
        address deployer = vm.addr(key);
        address op1 = makeAddr("op1");
        address op2 = makeAddr("op2");
        address arbiter = makeAddr("arbiter");
        address newOwner = makeAddr("newOwner");
        vm.setEnv("PRIVATE_KEY", vm.toString(key));
        vm.setEnv("VERITAS_OPERATORS", string.concat(vm.toString(op1), ",", vm.toString(op2)));
        vm.setEnv("VERITAS_ARBITER", vm.toString(arbiter));
        vm.setEnv("VERITAS_OWNER", vm.toString(newOwner));
        vm.setEnv("VERITAS_QUORUM", "3");
        vm.setEnv("VERITAS_CHALLENGE_WINDOW", "86400");
        vm.setEnv("VERITAS_ASK_FEE", "10000000000000000");
        vm.setEnv("VERITAS_DISPUTE_BOND", "100000000000000000");

        VeritasOracle oracle = new Deploy().run();

        assertTrue(oracle.isOperator(op1));
        assertTrue(oracle.isOperator(op2));
        assertFalse(oracle.isOperator(deployer));
        assertEq(oracle.arbiter(), arbiter);
        assertEq(oracle.owner(), deployer);
        assertEq(oracle.pendingOwner(), newOwner);
        IVeritasOracle.Parameters memory p = oracle.parameters();
        assertEq(p.quorum, 3);
        assertEq(p.maxBallotsPerReport, 30);
        assertEq(p.reportWindow, 1 days);
        assertEq(p.challengeWindow, 86400);
        assertEq(p.askFee, 0.01 ether);
        assertEq(p.disputeBond, 0.1 ether);
        assertEq(p.evidenceFee, 0);

        string memory path = string.concat("deployments/", vm.toString(CHAIN_ID), ".json");
        string memory json = vm.readFile(path);
        vm.removeFile(path);
        assertEq(vm.parseJsonAddress(json, ".address"), address(oracle));
        assertEq(vm.parseJsonUint(json, ".chainId"), CHAIN_ID);
        assertEq(vm.parseJsonAddress(json, ".deployer"), deployer);
        assertEq(vm.parseJsonAddress(json, ".arbiter"), arbiter);
        assertEq(vm.parseJsonAddress(json, ".pendingOwner"), newOwner);
        address[] memory operators = vm.parseJsonAddressArray(json, ".operators");
        assertEq(operators.length, 2);
        assertEq(operators[0], op1);
        assertEq(operators[1], op2);
    }
}
