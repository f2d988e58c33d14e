//! Contract reverts as sentences.
//!
//! Every custom error of the oracle and of the reference court carries a NatSpec `@notice` that
//! names its arguments in backticks ("The question text is `length` bytes, above the maximum
//! `maxLength`."). `build.rs` copies those notices out of the Solidity sources; this module
//! decodes revert data against a JSON ABI and fills the notice with the decoded arguments. The
//! contract's documentation is the one source of every explanation the CLI prints and the web
//! view shows, so a new error is explained the moment its NatSpec is written.
//!
//! Pure: no I/O.

use std::{
    sync::LazyLock,
    time::{Duration, UNIX_EPOCH},
};

use alloy::{
    dyn_abi::{DynSolValue, ErrorExt},
    json_abi::{InternalType, JsonAbi},
};
use serde::Serialize;

use super::{OracleError, bindings::IVeritasOracle};
use alloy::sol_types::SolInterface;

/// The notices and enums `build.rs` read from the contracts.
mod docs {
    include!(concat!(env!("OUT_DIR"), "/contract_docs.rs"));
}

/// The oracle's JSON ABI, from the interface file (the same one the bindings come from), its
/// errors' enum arguments typed (see [`with_enum_types`]).
pub fn oracle_abi() -> &'static JsonAbi {
    static ABI: LazyLock<JsonAbi> =
        LazyLock::new(|| with_enum_types(IVeritasOracle::abi::contract(), "IVeritasOracle"));
    &ABI
}

/// The reference court's (`VeritasCourt`) JSON ABI as far as [`super::court`] declares it: its
/// functions the tools call and every custom error, so that court reverts read as sentences.
pub fn court_abi() -> &'static JsonAbi {
    static ABI: LazyLock<JsonAbi> = LazyLock::new(|| {
        with_enum_types(
            super::court::IVeritasCourt::abi::contract(),
            "IVeritasCourt",
        )
    });
    &ABI
}

/// Revert data explained against the oracle's errors, then the court's (a court call can
/// revert with the oracle's error when the court calls the oracle, and the reverse).
pub fn explain_revert(data: &[u8]) -> Option<Explained> {
    explain(oracle_abi(), data).or_else(|| explain(court_abi(), data))
}

/// `abi` with its errors' enum arguments given back their `internalType` (`sol!` leaves it
/// out, as solc writes it: `enum IVeritasOracle.VerdictStatus`), so that wallets and
/// [`explain`] can name the member instead of printing its index.
fn with_enum_types(mut abi: JsonAbi, contract: &str) -> JsonAbi {
    for errors in abi.errors.values_mut() {
        for error in errors {
            for param in &mut error.inputs {
                let enum_ty = docs::ENUM_PARAMS
                    .iter()
                    .find(|(e, p, _)| *e == error.name && *p == param.name);
                if let Some((_, _, ty)) = enum_ty {
                    param.internal_type = Some(InternalType::Enum {
                        contract: Some(contract.into()),
                        ty: (*ty).into(),
                    });
                }
            }
        }
    }
    abi
}

/// Every custom error's sentence template (its `@notice`, arguments in backticks), by name.
pub fn notices() -> std::collections::BTreeMap<&'static str, &'static str> {
    docs::ERROR_NOTICES.iter().copied().collect()
}

/// One argument of a decoded error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Arg {
    /// Its name in the ABI.
    pub name: String,
    /// Its value as the sentence shows it (decimal integers, checksummed addresses, enum
    /// members by name).
    pub value: String,
}

/// A custom error decoded from revert data, with the contract's sentence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explained {
    /// The error's name, e.g. `VeritasTooEarly`.
    pub error: String,
    /// Its arguments in ABI order.
    pub args: Vec<Arg>,
    /// The `@notice` with every backticked argument name replaced by its value.
    pub sentence: String,
}

impl std::fmt::Display for Explained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error, self.sentence)
    }
}

/// Decode `data` (selector and arguments) as one of `abi`'s custom errors; `None` when no
/// error of `abi` has its selector or its arguments do not decode.
pub fn explain(abi: &JsonAbi, data: &[u8]) -> Option<Explained> {
    let selector = data.get(..4)?;
    let error = abi.errors().find(|e| e.selector().as_slice() == selector)?;
    let decoded = error.decode_error(data).ok()?;
    let args: Vec<Arg> = error
        .inputs
        .iter()
        .zip(&decoded.body)
        .map(|(param, value)| Arg {
            name: param.name.clone(),
            value: render(&param.name, param.internal_type.as_ref(), value),
        })
        .collect();
    let notice = docs::ERROR_NOTICES
        .iter()
        .find(|(name, _)| *name == error.name)
        .map_or("", |(_, notice)| notice);
    let sentence = if notice.is_empty() {
        let list: Vec<String> = args
            .iter()
            .map(|a| format!("{}={}", a.name, a.value))
            .collect();
        format!("({})", list.join(", "))
    } else {
        fill(notice, &args)
    };
    Some(Explained {
        error: error.name.clone(),
        args,
        sentence,
    })
}

/// The oracle's sentence for an already-decoded oracle error.
pub fn oracle_error(error: &OracleError) -> String {
    match explain(oracle_abi(), &error.abi_encode()) {
        Some(explained) => explained.to_string(),
        None => format!("{error:?}"),
    }
}

/// The court's sentence for an already-decoded court error.
pub fn court_error(error: &super::court::CourtError) -> String {
    match explain(court_abi(), &error.abi_encode()) {
        Some(explained) => explained.to_string(),
        None => format!("{error:?}"),
    }
}

/// Replace each `` `name` `` of `notice` naming an argument with that argument's value; other
/// backticked words (function names, constants) keep their backticks.
fn fill(notice: &str, args: &[Arg]) -> String {
    let mut out = String::with_capacity(notice.len() + 32);
    let mut parts = notice.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    let mut inside = true;
    for part in parts {
        if inside {
            match args.iter().find(|a| a.name == part) {
                Some(arg) => out.push_str(&arg.value),
                None => {
                    out.push('`');
                    out.push_str(part);
                    out.push('`');
                }
            }
        } else {
            out.push_str(part);
        }
        inside = !inside;
    }
    out
}

/// How an argument reads in a sentence: enums by member name, times as UTC dates too.
fn render(
    name: &str,
    internal_type: Option<&alloy::json_abi::InternalType>,
    value: &DynSolValue,
) -> String {
    match value {
        DynSolValue::Uint(v, _) => {
            if let Some(member) = enum_member(internal_type, *v) {
                return member.to_string();
            }
            let number = v.to_string();
            if is_time(name)
                && !v.is_zero()
                && let Ok(secs) = u64::try_from(*v)
            {
                let at = UNIX_EPOCH + Duration::from_secs(secs);
                return format!("{number} ({})", humantime::format_rfc3339_seconds(at));
            }
            number
        }
        DynSolValue::Int(v, _) => v.to_string(),
        DynSolValue::Address(a) => a.to_checksum(None),
        DynSolValue::Bool(b) => b.to_string(),
        DynSolValue::FixedBytes(word, size) => alloy::hex::encode_prefixed(&word[..*size]),
        DynSolValue::Bytes(b) => alloy::hex::encode_prefixed(b),
        DynSolValue::String(s) => format!("{s:?}"),
        other => format!("{other:?}"),
    }
}

/// The member named by `value` when the parameter's internal type is one of the contracts'
/// enums (`enum IVeritasOracle.VerdictStatus`).
fn enum_member(
    internal_type: Option<&InternalType>,
    value: alloy::primitives::U256,
) -> Option<&'static str> {
    let InternalType::Enum { ty, .. } = internal_type? else {
        return None;
    };
    let (_, members) = docs::ENUMS.iter().find(|(name, _)| *name == ty.as_str())?;
    members.get(usize::try_from(value).ok()?).copied()
}

/// Arguments that are unix times by the contracts' naming.
fn is_time(name: &str) -> bool {
    matches!(
        name,
        "nowTimestamp" | "deadline" | "finalAt" | "resolveAfter" | "opens" | "end" | "latest"
    )
}

#[cfg(test)]
mod tests {
    use alloy::primitives::{Address, U256};

    use super::*;

    fn oracle(error: OracleError) -> Explained {
        explain(oracle_abi(), &error.abi_encode()).expect("an oracle error decodes")
    }

    #[test]
    fn fills_the_notice_with_the_arguments() {
        let e = oracle(OracleError::VeritasQuestionTooLong(
            IVeritasOracle::VeritasQuestionTooLong {
                length: U256::from(600),
                maxLength: U256::from(512),
            },
        ));
        assert_eq!(e.error, "VeritasQuestionTooLong");
        assert_eq!(
            e.sentence,
            "The question text is 600 bytes, above the maximum 512."
        );
    }

    #[test]
    fn enums_read_by_name_and_times_as_dates() {
        let e = oracle(OracleError::VeritasNotOpen(
            IVeritasOracle::VeritasNotOpen {
                id: U256::from(7),
                status: IVeritasOracle::VerdictStatus::Disputed,
            },
        ));
        assert!(e.sentence.ends_with("it is in Disputed."), "{}", e.sentence);
        let e = oracle(OracleError::VeritasTooEarly(
            IVeritasOracle::VeritasTooEarly {
                id: U256::from(7),
                resolveAfter: 1_800_000_000,
                nowTimestamp: U256::from(1_700_000_000u64),
            },
        ));
        let at = e
            .args
            .iter()
            .find(|a| a.name == "resolveAfter")
            .map(|a| a.value.as_str());
        assert_eq!(at, Some("1800000000 (2027-01-15T08:00:00Z)"));
    }

    #[test]
    fn every_oracle_error_has_a_notice() {
        for error in oracle_abi().errors() {
            let notice = docs::ERROR_NOTICES.iter().find(|(n, _)| *n == error.name);
            assert!(
                notice.is_some_and(|(_, text)| !text.is_empty()),
                "{} has no @notice",
                error.name
            );
        }
        assert!(oracle_abi().errors().count() > 60);
    }

    #[test]
    fn court_errors_read_as_the_courts_sentences() {
        use crate::contract::court::{CourtError, IVeritasCourt};
        let who = Address::repeat_byte(0x11);
        let error = CourtError::CourtNotJudge(IVeritasCourt::CourtNotJudge {
            disputeId: U256::from(3),
            caller: who,
        });
        let e = explain_revert(&error.abi_encode()).expect("a court error decodes");
        assert_eq!(e.error, "CourtNotJudge");
        assert_eq!(
            e.sentence,
            format!(
                "{} is not the judge of the dispute's current round.",
                who.to_checksum(None)
            )
        );
        assert_eq!(court_error(&error), e.to_string());
        for error in court_abi().errors() {
            let notice = docs::ERROR_NOTICES.iter().find(|(n, _)| *n == error.name);
            assert!(notice.is_some(), "{} has no @notice", error.name);
        }
        assert_eq!(court_abi().errors().count(), 12);
    }

    #[test]
    fn addresses_are_checksummed_and_unknown_data_is_none() {
        let who = Address::repeat_byte(0xab);
        let e = oracle(OracleError::VeritasNotOwner(
            IVeritasOracle::VeritasNotOwner { caller: who },
        ));
        assert!(
            e.sentence.contains(&who.to_checksum(None)),
            "{}",
            e.sentence
        );
        assert_eq!(explain(oracle_abi(), &[0xde, 0xad, 0xbe, 0xef]), None);
        assert_eq!(explain(oracle_abi(), &[0x01]), None);
    }
}
