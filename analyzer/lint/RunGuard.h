// What keeps a lint run well-behaved under its environment's limits: a SIGINT, SIGTERM or
// SIGHUP removes the run's temporary prelude directories before the signal ends the
// process, and a thread limit (ulimit -u) means fewer worker threads and a warning instead
// of LLVM's abort in pthread_create.
#pragma once

namespace syncwatch {

// Call first in main, before any other thread exists: the signals are blocked in every
// thread and taken by one thread of its own (sigwait), which cleans up and then lets the
// signal do what it would have done. Without that thread (none could start), nothing
// changes.
void cleanUpOnSignals();

// How many threads can be running at once, up to Wanted, found by starting them (they wait,
// then end).
unsigned threadsThatCanStart(unsigned Wanted);

} // namespace syncwatch
