// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseTest} from "./Base.t.sol";
import {IVeritasOracle} from "../interfaces/IVeritasOracle.sol";

/// @notice Issue #40: the oracle's external ABI is the interface file's, function for function.
/// `VeritasOracle` serves the question's life itself and routes the rest to `VeritasCourtModule`
/// and `VeritasAdminModule` by explicit selector tables; these tests read the compiled artifacts,
/// so a function added to a module but not to the interface, or to the interface but not to a
/// table, fails here rather than at a caller.
contract RoutingTest is BaseTest {
    /// @dev The selectors of artifact `name` ("out/<name>.sol/<name>.json"), as hex strings.
    function _selectors(string memory name) private view returns (string[] memory sigs, bytes4[] memory sels) {
        string memory json = vm.readFile(string.concat("out/", name, ".sol/", name, ".json"));
        sigs = vm.parseJsonKeys(json, ".methodIdentifiers");
        sels = new bytes4[](sigs.length);
        for (uint256 i; i < sigs.length; ++i) {
            sels[i] = bytes4(keccak256(bytes(sigs[i])));
        }
    }

    function _has(bytes4[] memory set, bytes4 s) private pure returns (bool) {
        for (uint256 i; i < set.length; ++i) {
            if (set[i] == s) return true;
        }
        return false;
    }

    /// @dev Every function the interface declares reaches code on the oracle's address: called
    /// with no arguments it never reverts with `VeritasUnknownFunction` (it runs, or its own
    /// decoding or rules refuse it).
    function test_EveryInterfaceFunctionResolves() public {
        (string[] memory sigs, bytes4[] memory sels) = _selectors("IVeritasOracle");
        assertGt(sels.length, 70, "the interface artifact was read");
        bytes memory unknown;
        for (uint256 i; i < sels.length; ++i) {
            (, bytes memory ret) = address(oracle).staticcall(abi.encodePacked(sels[i]));
            unknown = abi.encodeWithSelector(IVeritasOracle.VeritasUnknownFunction.selector, sels[i]);
            assertTrue(keccak256(ret) != keccak256(unknown), string.concat(sigs[i], " is not routed"));
        }
    }

    /// @dev The three contracts together implement exactly the interface: no function of a module
    /// hides outside it, and none is served twice (a module's copy of an oracle function would
    /// never run). The oracle's own extras are its two module addresses.
    function test_ContractsImplementExactlyTheInterface() public view {
        (, bytes4[] memory iface) = _selectors("IVeritasOracle");
        (string[] memory oSigs, bytes4[] memory own) = _selectors("VeritasOracle");
        (string[] memory cSigs, bytes4[] memory court) = _selectors("VeritasCourtModule");
        (string[] memory aSigs, bytes4[] memory admin) = _selectors("VeritasAdminModule");
        uint256 extras;
        for (uint256 i; i < own.length; ++i) {
            if (_has(iface, own[i])) continue;
            assertTrue(
                own[i] == bytes4(keccak256("COURT_MODULE()")) || own[i] == bytes4(keccak256("ADMIN_MODULE()")),
                string.concat("VeritasOracle.", oSigs[i], " is not in IVeritasOracle")
            );
            ++extras;
        }
        assertEq(extras, 2);
        for (uint256 i; i < court.length; ++i) {
            assertTrue(
                _has(iface, court[i]), string.concat("VeritasCourtModule.", cSigs[i], " is not in IVeritasOracle")
            );
            assertFalse(_has(own, court[i]) || _has(admin, court[i]), string.concat(cSigs[i], " is served twice"));
        }
        for (uint256 i; i < admin.length; ++i) {
            assertTrue(
                _has(iface, admin[i]), string.concat("VeritasAdminModule.", aSigs[i], " is not in IVeritasOracle")
            );
            assertFalse(_has(own, admin[i]), string.concat(aSigs[i], " is served twice"));
        }
        assertEq(own.length - extras + court.length + admin.length, iface.length, "every interface function has code");
    }
}
