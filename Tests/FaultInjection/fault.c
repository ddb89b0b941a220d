// An LD_PRELOAD shim that makes file system calls fail, for Strata's I/O fault tests
// (Tests/StrataFaultTests). It stands between SQLite (and Foundation) and the C library: the Nth call of the chosen
// kinds on a watched file fails the way a sick disk fails, then the calls after it fail too, or work again.
//
// Built by the tests with `cc -shared -fPIC -O1 -o fault.so fault.c -ldl` and loaded with LD_PRELOAD into a child
// process (the `strata` tool, or `strata-fault-child`). Linux and glibc only.
//
// Set through the environment, read once when the shim loads:
//
//   STRATA_FAULT_PATH    What to watch: paths containing one of these ':'-separated substrings (the database's file
//                        name catches its -wal, -shm and -journal files too). Unset: nothing is watched.
//   STRATA_FAULT_OPS     Which calls count, ','-separated: open, read, write, sync, truncate, lock, unlock, mmap,
//                        unlink, rename, link; or all (the default).
//   STRATA_FAULT_ERRNO   How a faulted call fails: EIO (the default), ENOSPC, EROFS, EDQUOT, or SHORT (a write that
//                        writes half of what it was given and reports that; only write calls count then).
//   STRATA_FAULT_AT      The 1-based position, among the calls that count, of the first one to fail; 0 (the default)
//                        fails none and only counts.
//   STRATA_FAULT_TIMES   How many calls fail from there: 0 (the default) fails every later call, a persistent fault;
//                        1 or more is a transient fault, after which the calls work again.
//   STRATA_FAULT_REPORT  A file the shim keeps two counters in as it goes, so that they survive a killed child:
//                        "calls N faults K\n" (the calls that counted, the calls it failed), space padded.
//
// A process that links the shim can also change the fault while it runs (the in-process tests of a pool that must
// recover): strata_fault_configure(ops, errno_or_0_for_short, at, times) resets the counter and arms a new fault
// (at 0 disarms), strata_fault_calls() and strata_fault_faults() read the counters.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum {
    OP_OPEN = 1 << 0,
    OP_READ = 1 << 1,
    OP_WRITE = 1 << 2,
    OP_SYNC = 1 << 3,
    OP_TRUNCATE = 1 << 4,
    OP_LOCK = 1 << 5,
    OP_UNLOCK = 1 << 6,
    OP_MMAP = 1 << 7,
    OP_UNLINK = 1 << 8,
    OP_RENAME = 1 << 9,
    OP_LINK = 1 << 10,
    OP_ALL = (1 << 11) - 1,
};

#define MAX_WATCHED 16
#define MAX_FD 65536
#define SHORT_WRITE (-1)

static char watched[MAX_WATCHED][256];
static int watchedCount;
static int enabledOps = OP_ALL;
static int faultErrno = EIO;
static long faultAt;
static long faultTimes;
static long calls;
static long faults;
static unsigned char watchedFD[MAX_FD];
static char *report;

// The C library's own functions, found once.
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pread64)(int, void *, size_t, off64_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off64_t);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);

#define FIND(name) real_##name = dlsym(RTLD_NEXT, #name)

static int ready;

/// Finds the C library's functions: in the constructor, or at the first call when another library's constructor
/// calls one before it.
static void findRealFunctions(void) {
    if (ready) return;
    FIND(open);
    FIND(open64);
    FIND(openat);
    FIND(openat64);
    FIND(close);
    FIND(read);
    FIND(pread);
    FIND(pread64);
    FIND(write);
    FIND(pwrite);
    FIND(pwrite64);
    FIND(fsync);
    FIND(fdatasync);
    FIND(ftruncate);
    FIND(ftruncate64);
    FIND(fcntl);
    FIND(fcntl64);
    FIND(mmap);
    FIND(mmap64);
    FIND(unlink);
    FIND(unlinkat);
    FIND(rename);
    FIND(renameat);
    FIND(link);
    FIND(linkat);
    ready = 1;
}

#define ENSURE_REAL() \
    if (!ready) findRealFunctions()

static int parseOps(const char *text) {
    if (text == NULL || *text == 0 || strcmp(text, "all") == 0) return OP_ALL;
    static const struct { const char *name; int op; } names[] = {
        {"open", OP_OPEN}, {"read", OP_READ}, {"write", OP_WRITE}, {"sync", OP_SYNC},
        {"truncate", OP_TRUNCATE}, {"lock", OP_LOCK}, {"unlock", OP_UNLOCK}, {"mmap", OP_MMAP},
        {"unlink", OP_UNLINK}, {"rename", OP_RENAME}, {"link", OP_LINK}, {"all", OP_ALL},
    };
    int ops = 0;
    const char *start = text;
    while (*start) {
        size_t length = strcspn(start, ",");
        for (size_t index = 0; index < sizeof(names) / sizeof(names[0]); index++) {
            if (strlen(names[index].name) == length && strncmp(names[index].name, start, length) == 0) {
                ops |= names[index].op;
            }
        }
        start += length;
        if (*start == ',') start++;
    }
    return ops;
}

static int parseErrno(const char *text) {
    if (text == NULL || *text == 0 || strcmp(text, "EIO") == 0) return EIO;
    if (strcmp(text, "ENOSPC") == 0) return ENOSPC;
    if (strcmp(text, "EROFS") == 0) return EROFS;
    if (strcmp(text, "EDQUOT") == 0) return EDQUOT;
    if (strcmp(text, "SHORT") == 0) return SHORT_WRITE;
    return EIO;
}

/// Writes the counters into the report file, which is mapped shared: nothing is lost when the child is killed.
static void updateReport(void) {
    if (report == NULL) return;
    char line[64];
    int length = snprintf(line, sizeof(line), "calls %ld faults %ld\n", __atomic_load_n(&calls, __ATOMIC_RELAXED),
                          __atomic_load_n(&faults, __ATOMIC_RELAXED));
    if (length <= 0 || length >= 63) return;
    memset(report, ' ', 63);
    memcpy(report, line, (size_t)length);
}

__attribute__((constructor)) static void setUp(void) {
    findRealFunctions();
    const char *paths = getenv("STRATA_FAULT_PATH");
    if (paths != NULL) {
        const char *start = paths;
        while (*start && watchedCount < MAX_WATCHED) {
            size_t length = strcspn(start, ":");
            if (length > 0 && length < sizeof(watched[0])) {
                memcpy(watched[watchedCount], start, length);
                watched[watchedCount][length] = 0;
                watchedCount++;
            }
            start += length;
            if (*start == ':') start++;
        }
    }
    enabledOps = parseOps(getenv("STRATA_FAULT_OPS"));
    faultErrno = parseErrno(getenv("STRATA_FAULT_ERRNO"));
    const char *at = getenv("STRATA_FAULT_AT");
    faultAt = at ? atol(at) : 0;
    const char *times = getenv("STRATA_FAULT_TIMES");
    faultTimes = times ? atol(times) : 0;
    const char *reportPath = getenv("STRATA_FAULT_REPORT");
    if (reportPath != NULL && *reportPath != 0) {
        int descriptor = real_open(reportPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (descriptor >= 0) {
            if (real_ftruncate(descriptor, 64) == 0) {
                void *mapped = real_mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0);
                if (mapped != MAP_FAILED) report = mapped;
            }
            real_close(descriptor);
        }
        updateReport();
    }
}

static int isWatchedPath(const char *path) {
    if (path == NULL) return 0;
    for (int index = 0; index < watchedCount; index++) {
        if (strstr(path, watched[index]) != NULL) return 1;
    }
    return 0;
}

static int isWatchedFD(int descriptor) {
    return descriptor >= 0 && descriptor < MAX_FD && watchedFD[descriptor];
}

static void setWatchedFD(int descriptor, int isWatched) {
    if (descriptor >= 0 && descriptor < MAX_FD) watchedFD[descriptor] = (unsigned char)isWatched;
}

/// Counts a call of kind `op` on a watched file, and says how it fails: 0 to let it through, an errno, or
/// SHORT_WRITE.
static int fault(int op) {
    if (!(enabledOps & op)) return 0;
    if (faultErrno == SHORT_WRITE && op != OP_WRITE) return 0;
    long position = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    int failing = faultAt > 0 && position >= faultAt && (faultTimes == 0 || position < faultAt + faultTimes);
    if (failing) __atomic_add_fetch(&faults, 1, __ATOMIC_RELAXED);
    updateReport();
    return failing ? faultErrno : 0;
}

// MARK: The controls for a process that loads the shim

void strata_fault_configure(const char *ops, int error, long at, long times) {
    enabledOps = parseOps(ops);
    faultErrno = error == 0 ? SHORT_WRITE : error;
    faultAt = at;
    faultTimes = times;
    __atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&faults, 0, __ATOMIC_RELAXED);
    updateReport();
}

long strata_fault_calls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }

long strata_fault_faults(void) { return __atomic_load_n(&faults, __ATOMIC_RELAXED); }

// MARK: Opening and closing

static int openResult(const char *path, int descriptor) {
    if (descriptor >= 0) setWatchedFD(descriptor, isWatchedPath(path));
    return descriptor;
}

#define OPEN_BODY(call)                                           \
    ENSURE_REAL();                                                \
    mode_t mode = 0;                                              \
    if (flags & (O_CREAT | O_TMPFILE)) {                          \
        va_list arguments;                                        \
        va_start(arguments, flags);                               \
        mode = (mode_t)va_arg(arguments, int);                    \
        va_end(arguments);                                        \
    }                                                             \
    if (isWatchedPath(path)) {                                    \
        int error = fault(OP_OPEN);                               \
        if (error > 0) {                                          \
            errno = error;                                        \
            return -1;                                            \
        }                                                         \
    }                                                             \
    return openResult(path, call);

int open(const char *path, int flags, ...) { OPEN_BODY(real_open(path, flags, mode)) }
int open64(const char *path, int flags, ...) { OPEN_BODY(real_open64(path, flags, mode)) }
int openat(int folder, const char *path, int flags, ...) { OPEN_BODY(real_openat(folder, path, flags, mode)) }
int openat64(int folder, const char *path, int flags, ...) { OPEN_BODY(real_openat64(folder, path, flags, mode)) }

int close(int descriptor) {
    ENSURE_REAL();
    setWatchedFD(descriptor, 0);
    return real_close(descriptor);
}

// MARK: Reading and writing

/// Whether a call on `descriptor` of kind `op` fails: sets errno and returns 1 when it does.
static int failed(int descriptor, int op) {
    if (!isWatchedFD(descriptor)) return 0;
    int error = fault(op);
    if (error <= 0) return 0;
    errno = error;
    return 1;
}

/// How many bytes a write of `count` on `descriptor` writes, or -1 (errno set) when it fails.
static ssize_t writeCount(int descriptor, size_t count) {
    if (!isWatchedFD(descriptor)) return (ssize_t)count;
    int error = fault(OP_WRITE);
    if (error == SHORT_WRITE) return (ssize_t)(count > 1 ? count / 2 : count);
    if (error > 0) {
        errno = error;
        return -1;
    }
    return (ssize_t)count;
}

ssize_t read(int descriptor, void *buffer, size_t count) {
    ENSURE_REAL();
    if (failed(descriptor, OP_READ)) return -1;
    return real_read(descriptor, buffer, count);
}

ssize_t pread(int descriptor, void *buffer, size_t count, off_t offset) {
    ENSURE_REAL();
    if (failed(descriptor, OP_READ)) return -1;
    return real_pread(descriptor, buffer, count, offset);
}

ssize_t pread64(int descriptor, void *buffer, size_t count, off64_t offset) {
    ENSURE_REAL();
    if (failed(descriptor, OP_READ)) return -1;
    return real_pread64(descriptor, buffer, count, offset);
}

ssize_t write(int descriptor, const void *buffer, size_t count) {
    ENSURE_REAL();
    ssize_t written = writeCount(descriptor, count);
    if (written < 0) return -1;
    return real_write(descriptor, buffer, (size_t)written);
}

ssize_t pwrite(int descriptor, const void *buffer, size_t count, off_t offset) {
    ENSURE_REAL();
    ssize_t written = writeCount(descriptor, count);
    if (written < 0) return -1;
    return real_pwrite(descriptor, buffer, (size_t)written, offset);
}

ssize_t pwrite64(int descriptor, const void *buffer, size_t count, off64_t offset) {
    ENSURE_REAL();
    ssize_t written = writeCount(descriptor, count);
    if (written < 0) return -1;
    return real_pwrite64(descriptor, buffer, (size_t)written, offset);
}

#define SIMPLE_FAULT(op) \
    ENSURE_REAL();       \
    if (failed(descriptor, op)) return -1;

int fsync(int descriptor) {
    SIMPLE_FAULT(OP_SYNC)
    return real_fsync(descriptor);
}

int fdatasync(int descriptor) {
    SIMPLE_FAULT(OP_SYNC)
    return real_fdatasync(descriptor);
}

int ftruncate(int descriptor, off_t length) {
    SIMPLE_FAULT(OP_TRUNCATE)
    return real_ftruncate(descriptor, length);
}

int ftruncate64(int descriptor, off64_t length) {
    SIMPLE_FAULT(OP_TRUNCATE)
    return real_ftruncate64(descriptor, length);
}

// MARK: Locks and memory maps

static int lockFault(int descriptor, int command, void *argument) {
    ENSURE_REAL();
    if (!isWatchedFD(descriptor)) return 0;
    if (command != F_SETLK && command != F_SETLKW && command != F_OFD_SETLK && command != F_OFD_SETLKW) return 0;
    const struct flock *lock = argument;
    if (lock == NULL) return 0;
    int error = fault(lock->l_type == F_UNLCK ? OP_UNLOCK : OP_LOCK);
    return error > 0 ? error : 0;
}

int fcntl(int descriptor, int command, ...) {
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    int error = lockFault(descriptor, command, argument);
    if (error) {
        errno = error;
        return -1;
    }
    return real_fcntl(descriptor, command, argument);
}

int fcntl64(int descriptor, int command, ...) {
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    int error = lockFault(descriptor, command, argument);
    if (error) {
        errno = error;
        return -1;
    }
    return (real_fcntl64 ? real_fcntl64 : real_fcntl)(descriptor, command, argument);
}

void *mmap(void *address, size_t length, int protection, int flags, int descriptor, off_t offset) {
    ENSURE_REAL();
    if (isWatchedFD(descriptor)) {
        int error = fault(OP_MMAP);
        if (error > 0) {
            errno = error;
            return MAP_FAILED;
        }
    }
    return real_mmap(address, length, protection, flags, descriptor, offset);
}

void *mmap64(void *address, size_t length, int protection, int flags, int descriptor, off64_t offset) {
    ENSURE_REAL();
    if (isWatchedFD(descriptor)) {
        int error = fault(OP_MMAP);
        if (error > 0) {
            errno = error;
            return MAP_FAILED;
        }
    }
    return real_mmap64(address, length, protection, flags, descriptor, offset);
}

// MARK: Names

#define PATH_FAULT(op, watchedCondition)              \
    ENSURE_REAL();                                    \
    if (watchedCondition) {                           \
        int error = fault(op);                        \
        if (error > 0) {                              \
            errno = error;                            \
            return -1;                                \
        }                                             \
    }

// A name that is not there fails as it would on a sound disk (ENOENT), neither counted nor faulted: a sick disk fails
// the calls that reach it.
static int exists(int folder, const char *path) {
    struct stat info;
    return fstatat(folder, path, &info, AT_SYMLINK_NOFOLLOW) == 0;
}

int unlink(const char *path) {
    PATH_FAULT(OP_UNLINK, isWatchedPath(path) && exists(AT_FDCWD, path))
    return real_unlink(path);
}

int unlinkat(int folder, const char *path, int flags) {
    PATH_FAULT(OP_UNLINK, isWatchedPath(path) && exists(folder, path))
    return real_unlinkat(folder, path, flags);
}

int rename(const char *from, const char *to) {
    PATH_FAULT(OP_RENAME, (isWatchedPath(from) || isWatchedPath(to)) && exists(AT_FDCWD, from))
    return real_rename(from, to);
}

int renameat(int fromFolder, const char *from, int toFolder, const char *to) {
    PATH_FAULT(OP_RENAME, (isWatchedPath(from) || isWatchedPath(to)) && exists(fromFolder, from))
    return real_renameat(fromFolder, from, toFolder, to);
}

int link(const char *from, const char *to) {
    PATH_FAULT(OP_LINK, (isWatchedPath(from) || isWatchedPath(to)) && exists(AT_FDCWD, from))
    return real_link(from, to);
}

int linkat(int fromFolder, const char *from, int toFolder, const char *to, int flags) {
    PATH_FAULT(OP_LINK, (isWatchedPath(from) || isWatchedPath(to)) && exists(fromFolder, from))
    return real_linkat(fromFolder, from, toFolder, to, flags);
}
