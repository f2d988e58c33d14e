//! How chain values are stored: decimal text for `U256`/`I256` (readable in the `sqlite3` CLI,
//! exact beyond 2^63), `0x` hex text for hashes, addresses and signed bytes, and checked
//! integers. Reading a value that does not parse is an error naming its table, row and
//! column ([`StoreError::Corrupt`]), never a silent 0 or a saturated number.

use alloy::primitives::{Address, B256, Bytes};
use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use veritas_core::sql::parse;

use super::StoreError;
pub(crate) use crate::decimal::Dec;

/// A hash, address or byte string stored as `0x` hex text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hex<T>(pub(crate) T);

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
