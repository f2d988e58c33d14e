//! The JSON form of the node's big integers: decimal strings (pure).
//!
//! Question ids, 1e18 probabilities and kappas do not fit JSON's doubles, so every file and
//! answer the node writes carries them as decimal strings (`"600000000000000000"`), as the
//! auditor spec states. This is the one place that form is written and read; types keep their
//! typed value (`U256`, `I256`, `u128`, `i128`) and name a module here:
//!
//! ```text
//! #[serde(with = "crate::decimal")] question_id: U256,
//! #[serde(with = "crate::decimal::triple")] p_fixed: [u128; 3],
//! ```
//!
//! Where a type is needed rather than a field attribute (a store column), [`Dec`] wraps the
//! value: the same text in JSON, and in SQL (`store::sql`).

use std::{fmt::Display, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

/// A value whose written form is its decimal text: a JSON string (a JSON number is refused,
/// as by [`deserialize`]) and, in the store, a TEXT column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dec<T>(pub T);

impl<T: Display> Serialize for Dec<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, s)
    }
}

impl<'de, T> Deserialize<'de> for Dec<T>
where
    T: FromStr,
    T::Err: Display,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize(d).map(Dec)
    }
}

/// Write `value` as a decimal string.
///
/// # Errors
/// The serializer's.
pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// Read a decimal string (a JSON number is refused: it may already have lost digits).
///
/// # Errors
/// Not a string, or not a decimal integer of `T`'s range.
pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: FromStr,
    T::Err: Display,
    D: Deserializer<'de>,
{
    let text = String::deserialize(d)?;
    text.parse().map_err(D::Error::custom)
}

/// Three values (YES, NO, NULL) as an array of decimal strings.
pub mod triple {
    use super::*;

    /// Write the three values.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<T: Display, S: Serializer>(value: &[T; 3], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(value.iter().map(ToString::to_string))
    }

    /// Read exactly three decimal strings.
    ///
    /// # Errors
    /// Not an array of three strings, or one is not a decimal integer of `T`'s range.
    pub fn deserialize<'de, T, D>(d: D) -> Result<[T; 3], D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let texts = <[String; 3]>::deserialize(d)?;
        let [a, b, c] = texts;
        Ok([
            a.parse().map_err(D::Error::custom)?,
            b.parse().map_err(D::Error::custom)?,
            c.parse().map_err(D::Error::custom)?,
        ])
    }
}

/// An optional value: a decimal string or `null`.
pub mod option {
    use super::*;

    /// Write the value or `null`.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<T: Display, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }

    /// Read a decimal string or `null`.
    ///
    /// # Errors
    /// Neither `null` nor a decimal integer of `T`'s range.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        Option::<String>::deserialize(d)?
            .map(|text| text.parse().map_err(D::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy_primitives::{I256, U256};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Shape {
        #[serde(with = "crate::decimal")]
        id: U256,
        #[serde(with = "crate::decimal")]
        kappa: I256,
        #[serde(with = "crate::decimal::triple")]
        p: [u128; 3],
        #[serde(with = "crate::decimal::option")]
        block: Option<U256>,
    }

    #[test]
    fn decimal_strings_both_ways() {
        let text = r#"{"id":"115792089237316195423570985008687907853269984665640564039457584007913129639935","kappa":"-250000000000000000","p":["1","2","3"],"block":null}"#;
        let shape: Shape = serde_json::from_str(text).unwrap();
        assert_eq!(shape.id, U256::MAX);
        assert_eq!(
            shape.kappa,
            I256::try_from(-250_000_000_000_000_000i64).unwrap()
        );
        assert_eq!(serde_json::to_string(&shape).unwrap(), text);
    }

    #[test]
    fn the_wrapper_writes_and_reads_the_same_text() {
        let d: super::Dec<U256> = serde_json::from_str(r#""7""#).unwrap();
        assert_eq!(d.0, U256::from(7));
        assert_eq!(serde_json::to_string(&d).unwrap(), r#""7""#);
        for bad in ["7", "7.0", r#""-7""#, r#""7x""#, "null", "true"] {
            assert!(
                serde_json::from_str::<super::Dec<U256>>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn numbers_and_junk_are_refused() {
        let number = r#"{"id":7,"kappa":"0","p":["1","2","3"],"block":null}"#;
        assert!(serde_json::from_str::<Shape>(number).is_err());
        let junk = r#"{"id":"7x","kappa":"0","p":["1","2","3"],"block":null}"#;
        assert!(serde_json::from_str::<Shape>(junk).is_err());
        let short = r#"{"id":"7","kappa":"0","p":["1","2"],"block":"9"}"#;
        assert!(serde_json::from_str::<Shape>(short).is_err());
    }
}
