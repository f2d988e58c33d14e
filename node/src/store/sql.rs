//! How chain values are stored: decimal text for `U256`/`I256` (readable in the `sqlite3` CLI,
//! exact beyond 2^63), `0x` hex text for hashes, addresses and signed bytes, and checked
//! integers. Reading a value that does not parse is an error naming its table, row and
//! column ([`StoreError::Corrupt`]), never a silent 0 or a saturated number.

use std::{fmt::Display, str::FromStr};

use alloy::primitives::{Address, B256, Bytes};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use super::StoreError;
use crate::commitment::root::Root;
pub(crate) use crate::decimal::Dec;

/// A hash, address or byte string stored as `0x` hex text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hex<T>(pub(crate) T);

fn text<'a>(value: ValueRef<'a>) -> FromSqlResult<&'a str> {
    value.as_str()
}

fn parse<T, E: std::fmt::Display>(
    value: ValueRef<'_>,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> FromSqlResult<T> {
    let s = text(value)?;
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

impl ToSql for Hex<B256> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.to_string()))
    }
}

impl FromSql for Hex<B256> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        parse(value, |s| s.parse::<B256>()).map(Hex)
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

impl ToSql for Hex<Address> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.to_checksum(None)))
    }
}

impl FromSql for Hex<Address> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        parse(value, |s| s.parse::<Address>()).map(Hex)
    }
}

impl ToSql for Hex<Bytes> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.0.to_string()))
    }
}

impl FromSql for Hex<Bytes> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        parse(value, |s| s.parse::<Bytes>()).map(Hex)
    }
}

/// Reads one row's columns, turning any value that does not fit its type into
/// [`StoreError::Corrupt`] naming the table, the row (its key, column 0) and the column.
pub(crate) struct RowReader<'a, 'r> {
    row: &'a rusqlite::Row<'r>,
    table: &'static str,
    columns: &'static [&'static str],
    key: String,
}

impl<'a, 'r> RowReader<'a, 'r> {
    /// Wrap `row`, whose columns are `columns` (the first is the row's key).
    pub(crate) fn new(
        row: &'a rusqlite::Row<'r>,
        table: &'static str,
        columns: &'static [&'static str],
    ) -> Self {
        let key = match row.get_ref(0) {
            Ok(ValueRef::Text(t)) => String::from_utf8_lossy(t).into_owned(),
            Ok(ValueRef::Integer(i)) => i.to_string(),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("(unreadable key: {e})"),
        };
        Self {
            row,
            table,
            columns,
            key,
        }
    }

    /// Column `idx` as `T`.
    pub(crate) fn get<T: FromSql>(&self, idx: usize) -> Result<T, StoreError> {
        self.row.get(idx).map_err(|e| StoreError::Corrupt {
            table: self.table,
            row: self.key.clone(),
            column: self.columns.get(idx).copied().unwrap_or("?"),
            reason: e.to_string(),
        })
    }
}

/// Map `f` over the rows of a query, stopping at the first corrupt row.
pub(crate) fn collect<T>(
    rows: rusqlite::Rows<'_>,
    mut f: impl FnMut(&rusqlite::Row<'_>) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut rows = rows;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(f(row)?);
    }
    Ok(out)
}
