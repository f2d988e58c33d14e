//! How the node's SQLite store reads and writes this crate's values (the `sql` feature, which
//! the node turns on and the fuzz targets leave off): big integers as decimal text, exact beyond
//! 2^63 and readable in the `sqlite3` CLI, and a Merkle root as its `0x` text. A value that does
//! not parse is an error naming the text, never a silent 0.

use std::{fmt::Display, str::FromStr};

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::commitment::root::Root;
use crate::decimal::Dec;

/// Read a text column with `parse`, naming the text when it does not parse.
///
/// # Errors
/// The column is not text, or `parse` refuses it.
pub fn parse<T, E: Display>(
    value: ValueRef<'_>,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> FromSqlResult<T> {
    let s = value.as_str()?;
    parse(s).map_err(|e| FromSqlError::Other(format!("{s:?}: {e}").into()))
}

/// A big integer (`U256`, `I256`, `u128`) stored as decimal text: exact beyond 2^63 and
/// readable in the `sqlite3` CLI.
impl<T: Display> ToSql for Dec<T> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.to_string()))
    }
}

impl<T> FromSql for Dec<T>
where
    T: FromStr,
    T::Err: Display,
{
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        parse(value, |s| s.parse::<T>()).map(Dec)
    }
}

/// A Merkle root is stored as the `0x` text a `Hex<B256>` stored before it had its own type.
impl ToSql for Root {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.to_string()))
    }
}

impl FromSql for Root {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        parse(value, |s| s.parse::<Root>())
    }
}
