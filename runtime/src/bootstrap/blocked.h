// Blocking calls into the launcher's library (PMIx_Commit, PMIx_Get of a peer's data,
// PMIx_Finalize) cannot be polled: a server that stops answering leaves the caller inside one
// for good, where the waits' own checks (KISHMEM_HANG_WARN / KISHMEM_HANG_ABORT, liveness.h)
// never run.  While such a call runs, a thread of its own (made at the first one) says after
// KISHMEM_HANG_WARN seconds where this PE waits, and after KISHMEM_HANG_ABORT ends it with a
// message (not through the launcher: it is the launcher that does not answer).
#pragma once

namespace kishmem::blocked {

// One blocking call, for the scope's lifetime: `call` is the SHMEM routine it serves (e.g.
// "shmem_finalize"), `what` the library call (kept as given: a string that outlives the scope).
class Scope {
public:
    Scope(const char* call, const char* what);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
};

}  // namespace kishmem::blocked
