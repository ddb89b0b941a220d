import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the address or thread sanitizer's runtime is linked into the test process: resident memory means nothing
/// under one (its shadow memory and quarantine), and the client runs many times slower, so the tests that measure
/// memory or bound durations do not run then.
package let isRunningUnderSanitizer: Bool = {
    #if canImport(Glibc)
        // A null handle is RTLD_DEFAULT on Linux: every symbol the process has loaded.
        let runtimes: [String] = ["__asan_init", "__tsan_init"]
        return runtimes.contains { symbol in dlsym(nil, symbol) != nil }
    #else
        return false
    #endif
}()
