#ifndef STRATA_BENCH_CSQLITE_SHIM_H
#define STRATA_BENCH_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT casts -1 to a function pointer, which Swift cannot import as a macro.
static inline sqlite3_destructor_type bench_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
