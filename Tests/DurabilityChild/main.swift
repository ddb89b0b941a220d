// The child process of the crash-durability tests; see Tests/StrataTests/Reliability.
print("strata-durability-child: no command")
