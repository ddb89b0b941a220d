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

/// The last error the operating system reported on a file of the database `name` (`"main"`): its database file
/// when `journal` is 0, its rollback journal or WAL when 1; 0 when none, or when SQLite cannot say.
///
/// SQLite's unix VFS reports a read that fails with EIO as corruption (`SQLITE_IOERR_CORRUPTFS`, then
/// `SQLITE_CORRUPT`) and keeps the errno only on the file, where `SQLITE_FCNTL_LAST_ERRNO` reads it: this is how an
/// error message can say that the disk, not the file, may be at fault. The journal's file is reached through
/// `SQLITE_FCNTL_JOURNAL_POINTER`, whose methods are called directly (a struct of function pointers).
static inline int strata_last_file_errno(sqlite3 *db, const char *name, int journal) {
    int number = 0;
    if (!journal) {
        if (sqlite3_file_control(db, name, SQLITE_FCNTL_LAST_ERRNO, &number) != SQLITE_OK) return 0;
        return number;
    }
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, name, SQLITE_FCNTL_JOURNAL_POINTER, &file) != SQLITE_OK) return 0;
    // An in-memory journal (a temporary or in-memory database, journal_mode = MEMORY) has no file control method.
    if (file == 0 || file->pMethods == 0 || file->pMethods->xFileControl == 0) return 0;
    if (file->pMethods->xFileControl(file, SQLITE_FCNTL_LAST_ERRNO, &number) != SQLITE_OK) return 0;
    return number;
}

/// A result code `sqlite3.h` defines, by name: see `strata_extended_result_code`.
typedef struct {
    const char *name;
    int code;
} strata_named_result_code;

/// The `index`th extended result code this `sqlite3.h` defines, with its name; a NULL name past the last one. For the
/// test that checks Strata names each one (Swift cannot import the header's `(SQLITE_IOERR | (1<<8))` macros).
static inline strata_named_result_code strata_extended_result_code(int index) {
    static const strata_named_result_code codes[] = {
#ifdef SQLITE_ERROR_MISSING_COLLSEQ
        {"SQLITE_ERROR_MISSING_COLLSEQ", SQLITE_ERROR_MISSING_COLLSEQ},
#endif
#ifdef SQLITE_ERROR_RETRY
        {"SQLITE_ERROR_RETRY", SQLITE_ERROR_RETRY},
#endif
#ifdef SQLITE_ERROR_SNAPSHOT
        {"SQLITE_ERROR_SNAPSHOT", SQLITE_ERROR_SNAPSHOT},
#endif
#ifdef SQLITE_IOERR_READ
        {"SQLITE_IOERR_READ", SQLITE_IOERR_READ},
#endif
#ifdef SQLITE_IOERR_SHORT_READ
        {"SQLITE_IOERR_SHORT_READ", SQLITE_IOERR_SHORT_READ},
#endif
#ifdef SQLITE_IOERR_WRITE
        {"SQLITE_IOERR_WRITE", SQLITE_IOERR_WRITE},
#endif
#ifdef SQLITE_IOERR_FSYNC
        {"SQLITE_IOERR_FSYNC", SQLITE_IOERR_FSYNC},
#endif
#ifdef SQLITE_IOERR_DIR_FSYNC
        {"SQLITE_IOERR_DIR_FSYNC", SQLITE_IOERR_DIR_FSYNC},
#endif
#ifdef SQLITE_IOERR_TRUNCATE
        {"SQLITE_IOERR_TRUNCATE", SQLITE_IOERR_TRUNCATE},
#endif
#ifdef SQLITE_IOERR_FSTAT
        {"SQLITE_IOERR_FSTAT", SQLITE_IOERR_FSTAT},
#endif
#ifdef SQLITE_IOERR_UNLOCK
        {"SQLITE_IOERR_UNLOCK", SQLITE_IOERR_UNLOCK},
#endif
#ifdef SQLITE_IOERR_RDLOCK
        {"SQLITE_IOERR_RDLOCK", SQLITE_IOERR_RDLOCK},
#endif
#ifdef SQLITE_IOERR_DELETE
        {"SQLITE_IOERR_DELETE", SQLITE_IOERR_DELETE},
#endif
#ifdef SQLITE_IOERR_BLOCKED
        {"SQLITE_IOERR_BLOCKED", SQLITE_IOERR_BLOCKED},
#endif
#ifdef SQLITE_IOERR_NOMEM
        {"SQLITE_IOERR_NOMEM", SQLITE_IOERR_NOMEM},
#endif
#ifdef SQLITE_IOERR_ACCESS
        {"SQLITE_IOERR_ACCESS", SQLITE_IOERR_ACCESS},
#endif
#ifdef SQLITE_IOERR_CHECKRESERVEDLOCK
        {"SQLITE_IOERR_CHECKRESERVEDLOCK", SQLITE_IOERR_CHECKRESERVEDLOCK},
#endif
#ifdef SQLITE_IOERR_LOCK
        {"SQLITE_IOERR_LOCK", SQLITE_IOERR_LOCK},
#endif
#ifdef SQLITE_IOERR_CLOSE
        {"SQLITE_IOERR_CLOSE", SQLITE_IOERR_CLOSE},
#endif
#ifdef SQLITE_IOERR_DIR_CLOSE
        {"SQLITE_IOERR_DIR_CLOSE", SQLITE_IOERR_DIR_CLOSE},
#endif
#ifdef SQLITE_IOERR_SHMOPEN
        {"SQLITE_IOERR_SHMOPEN", SQLITE_IOERR_SHMOPEN},
#endif
#ifdef SQLITE_IOERR_SHMSIZE
        {"SQLITE_IOERR_SHMSIZE", SQLITE_IOERR_SHMSIZE},
#endif
#ifdef SQLITE_IOERR_SHMLOCK
        {"SQLITE_IOERR_SHMLOCK", SQLITE_IOERR_SHMLOCK},
#endif
#ifdef SQLITE_IOERR_SHMMAP
        {"SQLITE_IOERR_SHMMAP", SQLITE_IOERR_SHMMAP},
#endif
#ifdef SQLITE_IOERR_SEEK
        {"SQLITE_IOERR_SEEK", SQLITE_IOERR_SEEK},
#endif
#ifdef SQLITE_IOERR_DELETE_NOENT
        {"SQLITE_IOERR_DELETE_NOENT", SQLITE_IOERR_DELETE_NOENT},
#endif
#ifdef SQLITE_IOERR_MMAP
        {"SQLITE_IOERR_MMAP", SQLITE_IOERR_MMAP},
#endif
#ifdef SQLITE_IOERR_GETTEMPPATH
        {"SQLITE_IOERR_GETTEMPPATH", SQLITE_IOERR_GETTEMPPATH},
#endif
#ifdef SQLITE_IOERR_CONVPATH
        {"SQLITE_IOERR_CONVPATH", SQLITE_IOERR_CONVPATH},
#endif
#ifdef SQLITE_IOERR_VNODE
        {"SQLITE_IOERR_VNODE", SQLITE_IOERR_VNODE},
#endif
#ifdef SQLITE_IOERR_AUTH
        {"SQLITE_IOERR_AUTH", SQLITE_IOERR_AUTH},
#endif
#ifdef SQLITE_IOERR_BEGIN_ATOMIC
        {"SQLITE_IOERR_BEGIN_ATOMIC", SQLITE_IOERR_BEGIN_ATOMIC},
#endif
#ifdef SQLITE_IOERR_COMMIT_ATOMIC
        {"SQLITE_IOERR_COMMIT_ATOMIC", SQLITE_IOERR_COMMIT_ATOMIC},
#endif
#ifdef SQLITE_IOERR_ROLLBACK_ATOMIC
        {"SQLITE_IOERR_ROLLBACK_ATOMIC", SQLITE_IOERR_ROLLBACK_ATOMIC},
#endif
#ifdef SQLITE_IOERR_DATA
        {"SQLITE_IOERR_DATA", SQLITE_IOERR_DATA},
#endif
#ifdef SQLITE_IOERR_CORRUPTFS
        {"SQLITE_IOERR_CORRUPTFS", SQLITE_IOERR_CORRUPTFS},
#endif
#ifdef SQLITE_LOCKED_SHAREDCACHE
        {"SQLITE_LOCKED_SHAREDCACHE", SQLITE_LOCKED_SHAREDCACHE},
#endif
#ifdef SQLITE_LOCKED_VTAB
        {"SQLITE_LOCKED_VTAB", SQLITE_LOCKED_VTAB},
#endif
#ifdef SQLITE_BUSY_RECOVERY
        {"SQLITE_BUSY_RECOVERY", SQLITE_BUSY_RECOVERY},
#endif
#ifdef SQLITE_BUSY_SNAPSHOT
        {"SQLITE_BUSY_SNAPSHOT", SQLITE_BUSY_SNAPSHOT},
#endif
#ifdef SQLITE_BUSY_TIMEOUT
        {"SQLITE_BUSY_TIMEOUT", SQLITE_BUSY_TIMEOUT},
#endif
#ifdef SQLITE_CANTOPEN_NOTEMPDIR
        {"SQLITE_CANTOPEN_NOTEMPDIR", SQLITE_CANTOPEN_NOTEMPDIR},
#endif
#ifdef SQLITE_CANTOPEN_ISDIR
        {"SQLITE_CANTOPEN_ISDIR", SQLITE_CANTOPEN_ISDIR},
#endif
#ifdef SQLITE_CANTOPEN_FULLPATH
        {"SQLITE_CANTOPEN_FULLPATH", SQLITE_CANTOPEN_FULLPATH},
#endif
#ifdef SQLITE_CANTOPEN_CONVPATH
        {"SQLITE_CANTOPEN_CONVPATH", SQLITE_CANTOPEN_CONVPATH},
#endif
#ifdef SQLITE_CANTOPEN_DIRTYWAL
        {"SQLITE_CANTOPEN_DIRTYWAL", SQLITE_CANTOPEN_DIRTYWAL},
#endif
#ifdef SQLITE_CANTOPEN_SYMLINK
        {"SQLITE_CANTOPEN_SYMLINK", SQLITE_CANTOPEN_SYMLINK},
#endif
#ifdef SQLITE_CORRUPT_VTAB
        {"SQLITE_CORRUPT_VTAB", SQLITE_CORRUPT_VTAB},
#endif
#ifdef SQLITE_CORRUPT_SEQUENCE
        {"SQLITE_CORRUPT_SEQUENCE", SQLITE_CORRUPT_SEQUENCE},
#endif
#ifdef SQLITE_CORRUPT_INDEX
        {"SQLITE_CORRUPT_INDEX", SQLITE_CORRUPT_INDEX},
#endif
#ifdef SQLITE_READONLY_RECOVERY
        {"SQLITE_READONLY_RECOVERY", SQLITE_READONLY_RECOVERY},
#endif
#ifdef SQLITE_READONLY_CANTLOCK
        {"SQLITE_READONLY_CANTLOCK", SQLITE_READONLY_CANTLOCK},
#endif
#ifdef SQLITE_READONLY_ROLLBACK
        {"SQLITE_READONLY_ROLLBACK", SQLITE_READONLY_ROLLBACK},
#endif
#ifdef SQLITE_READONLY_DBMOVED
        {"SQLITE_READONLY_DBMOVED", SQLITE_READONLY_DBMOVED},
#endif
#ifdef SQLITE_READONLY_CANTINIT
        {"SQLITE_READONLY_CANTINIT", SQLITE_READONLY_CANTINIT},
#endif
#ifdef SQLITE_READONLY_DIRECTORY
        {"SQLITE_READONLY_DIRECTORY", SQLITE_READONLY_DIRECTORY},
#endif
#ifdef SQLITE_ABORT_ROLLBACK
        {"SQLITE_ABORT_ROLLBACK", SQLITE_ABORT_ROLLBACK},
#endif
#ifdef SQLITE_CONSTRAINT_CHECK
        {"SQLITE_CONSTRAINT_CHECK", SQLITE_CONSTRAINT_CHECK},
#endif
#ifdef SQLITE_CONSTRAINT_COMMITHOOK
        {"SQLITE_CONSTRAINT_COMMITHOOK", SQLITE_CONSTRAINT_COMMITHOOK},
#endif
#ifdef SQLITE_CONSTRAINT_FOREIGNKEY
        {"SQLITE_CONSTRAINT_FOREIGNKEY", SQLITE_CONSTRAINT_FOREIGNKEY},
#endif
#ifdef SQLITE_CONSTRAINT_FUNCTION
        {"SQLITE_CONSTRAINT_FUNCTION", SQLITE_CONSTRAINT_FUNCTION},
#endif
#ifdef SQLITE_CONSTRAINT_NOTNULL
        {"SQLITE_CONSTRAINT_NOTNULL", SQLITE_CONSTRAINT_NOTNULL},
#endif
#ifdef SQLITE_CONSTRAINT_PRIMARYKEY
        {"SQLITE_CONSTRAINT_PRIMARYKEY", SQLITE_CONSTRAINT_PRIMARYKEY},
#endif
#ifdef SQLITE_CONSTRAINT_TRIGGER
        {"SQLITE_CONSTRAINT_TRIGGER", SQLITE_CONSTRAINT_TRIGGER},
#endif
#ifdef SQLITE_CONSTRAINT_UNIQUE
        {"SQLITE_CONSTRAINT_UNIQUE", SQLITE_CONSTRAINT_UNIQUE},
#endif
#ifdef SQLITE_CONSTRAINT_VTAB
        {"SQLITE_CONSTRAINT_VTAB", SQLITE_CONSTRAINT_VTAB},
#endif
#ifdef SQLITE_CONSTRAINT_ROWID
        {"SQLITE_CONSTRAINT_ROWID", SQLITE_CONSTRAINT_ROWID},
#endif
#ifdef SQLITE_CONSTRAINT_PINNED
        {"SQLITE_CONSTRAINT_PINNED", SQLITE_CONSTRAINT_PINNED},
#endif
#ifdef SQLITE_CONSTRAINT_DATATYPE
        {"SQLITE_CONSTRAINT_DATATYPE", SQLITE_CONSTRAINT_DATATYPE},
#endif
#ifdef SQLITE_NOTICE_RECOVER_WAL
        {"SQLITE_NOTICE_RECOVER_WAL", SQLITE_NOTICE_RECOVER_WAL},
#endif
#ifdef SQLITE_NOTICE_RECOVER_ROLLBACK
        {"SQLITE_NOTICE_RECOVER_ROLLBACK", SQLITE_NOTICE_RECOVER_ROLLBACK},
#endif
#ifdef SQLITE_WARNING_AUTOINDEX
        {"SQLITE_WARNING_AUTOINDEX", SQLITE_WARNING_AUTOINDEX},
#endif
#ifdef SQLITE_AUTH_USER
        {"SQLITE_AUTH_USER", SQLITE_AUTH_USER},
#endif
#ifdef SQLITE_OK_LOAD_PERMANENTLY
        {"SQLITE_OK_LOAD_PERMANENTLY", SQLITE_OK_LOAD_PERMANENTLY},
#endif
#ifdef SQLITE_OK_SYMLINK
        {"SQLITE_OK_SYMLINK", SQLITE_OK_SYMLINK},
#endif
#ifdef SQLITE_IOERR_IN_PAGE
        {"SQLITE_IOERR_IN_PAGE", SQLITE_IOERR_IN_PAGE},
#endif
#ifdef SQLITE_NOTICE_RBU
        {"SQLITE_NOTICE_RBU", SQLITE_NOTICE_RBU},
#endif
        {0, 0},
    };
    int count = (int)(sizeof(codes) / sizeof(codes[0]));
    return index >= 0 && index < count ? codes[index] : codes[count - 1];
}

#endif
