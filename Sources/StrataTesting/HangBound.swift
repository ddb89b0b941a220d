/// How many seconds the tests give something that must happen, and must not hang, before they fail: far more than it
/// needs, because a hang never ends.
///
/// In the full parallel test run on 2 cores, the synchronous tests hold the concurrency pool's threads, and every
/// awaiting task waits for one: there, a probe task that slept 100 ms woke 18 s later once and about 3 s later several
/// more times, and the first request after a PostgreSQL server restart, 0.3 s alone, did not end within 20 s in
/// `.ci/run`.
package let hangBound = 90
