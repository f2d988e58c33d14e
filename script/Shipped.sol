// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Vm.sol";
import {IVeritasOracle} from "../contracts/interfaces/IVeritasOracle.sol";

/// @notice The oracle's two getters outside `IVeritasOracle`: where its modules' code lives.
interface IOracleModules {
    function COURT_MODULE() external view returns (address);
    function ADMIN_MODULE() external view returns (address);
}

/// @notice Deploys the oracle from the artifact `forge build` ships. The oracle compiles via-IR;
/// the tests and scripts compile without it (via-IR over the whole suite costs minutes per
/// build), so they never build the oracle themselves and run the very bytecode the node and the
/// deploy script deploy. Internal functions: the creation runs in the caller's context, so the
/// caller is the constructor's `msg.sender` as with `new`.
library Shipped {
    Vm private constant VM = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @dev The oracle's creation code with `initialOwner` and two modules deployed now as its
    /// constructor arguments.
    function oracleInitcode(address initialOwner) internal returns (bytes memory) {
        (address court, address admin) = modules();
        return abi.encodePacked(VM.getCode("VeritasOracle.sol:VeritasOracle"), abi.encode(initialOwner, court, admin));
    }

    /// @dev New instances of the oracle's two modules (an oracle runs their code on its storage).
    function modules() internal returns (address court, address admin) {
        court = deploy("VeritasCourtModule.sol:VeritasCourtModule", "");
        admin = deploy("VeritasAdminModule.sol:VeritasAdminModule", "");
    }

    /// @dev CREATE with `initcode`; the zero address when the constructor reverted (so a test can
    /// `expectRevert` it).
    function create(bytes memory initcode) internal returns (address deployed) {
        assembly {
            deployed := create(0, add(initcode, 0x20), mload(initcode))
        }
    }

    /// @dev A new oracle owned by `initialOwner`; reverts when its constructor does.
    function oracle(address initialOwner) internal returns (IVeritasOracle) {
        (address court, address admin) = modules();
        return IVeritasOracle(deploy("VeritasOracle.sol:VeritasOracle", abi.encode(initialOwner, court, admin)));
    }

    /// @dev A new instance of the compiled `artifact` ("File.sol:Contract") with the ABI-encoded
    /// constructor `args`; reverts when its constructor does.
    function deploy(string memory artifact, bytes memory args) internal returns (address deployed) {
        deployed = create(abi.encodePacked(VM.getCode(artifact), args));
        require(deployed != address(0), string.concat("Shipped: the constructor of ", artifact, " reverted"));
    }
}
