#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot import.
/// Binding with it makes SQLite copy the bytes before the call returns.
static inline sqlite3_destructor_type strata_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Turns off SQLite's double-quoted string literals in queries
/// (https://www.sqlite.org/quirks.html#dblquote): `"x"` is always an identifier, so an unknown one
/// is a "no such column" error instead of silently becoming the text `x`. Statements that create
/// schema (and existing schemas) keep the legacy rule. `sqlite3_db_config` is variadic, which Swift
/// cannot call.
static inline int strata_disable_double_quoted_strings(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_DQS_DML
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
#else
    return SQLITE_OK;
#endif
}

/// Column reads for typed access: the column's value is looked up once, its storage class is
/// returned, and the value is read only when the class is the one asked for, so a mismatch
/// converts nothing. One call into SQLite per column instead of `sqlite3_column_type` and then
/// `sqlite3_column_int64`, each of which looks the column up and checks for allocation failure.
///
/// The value of `sqlite3_column_value` is "unprotected": it may be read while no other thread
/// uses the connection, which Strata guarantees (a connection is used by one task at a time and
/// is opened with SQLITE_OPEN_NOMUTEX).
static inline int strata_column_int64(sqlite3_stmt *statement, int index, sqlite3_int64 *out) {
    sqlite3_value *value = sqlite3_column_value(statement, index);
    int type = sqlite3_value_type(value);
    if (type == SQLITE_INTEGER) *out = sqlite3_value_int64(value);
    return type;
}

static inline int strata_column_double(sqlite3_stmt *statement, int index, double *out) {
    sqlite3_value *value = sqlite3_column_value(statement, index);
    int type = sqlite3_value_type(value);
    if (type == SQLITE_FLOAT) *out = sqlite3_value_double(value);
    return type;
}

/// TEXT as UTF-8 (`*bytes` may be NULL for an empty string) or a BLOB's bytes, when the column
/// holds either; `*count` is the number of bytes.
static inline int strata_column_bytes(
    sqlite3_stmt *statement, int index, const void **bytes, int *count
) {
    sqlite3_value *value = sqlite3_column_value(statement, index);
    int type = sqlite3_value_type(value);
    if (type == SQLITE_TEXT) {
        *bytes = sqlite3_value_text(value);
        *count = sqlite3_value_bytes(value);
    } else if (type == SQLITE_BLOB) {
        *bytes = sqlite3_value_blob(value);
        *count = sqlite3_value_bytes(value);
    }
    return type;
}

#endif
