/* The C interface of libkishmem for extension libraries (libkishmem_mpi): what they need of the
 * runtime beyond the OpenSHMEM API, as plain C, exported under the kishmem_ext_ prefix.  Not
 * installed: programs use shmem.h / shmemx.h; only libraries of this project call these.
 *
 * Rules: every routine here is a thin C wrapper over the runtime (shmem_api/src/ext.cpp); no C++
 * type crosses it; a new need of an extension is a new routine here, never an include of
 * runtime/src from the extension. */
#ifndef KISHMEM_EXT_H
#define KISHMEM_EXT_H

#include <stddef.h>

#include <shmem.h>

KISHMEM_BEGIN_DECLS

/* A bootstrap an extension supplies (e.g. over an MPI communicator): its ranks become the PEs.
 * kishmem_ext_init copies this struct; `self` stays the extension's until `destroy`. */
typedef void (*kishmem_ext_progress_fn)(void *arg);
typedef struct kishmem_ext_bootstrap {
    const char *name;          /* for messages, e.g. "mpi" (a static string) */
    int rank;                  /* this process's rank, 0 <= rank < size */
    int size;
    const int *local_ranks;    /* the ranks on this host, sorted, this one included; copied by */
    int n_local_ranks;         /* kishmem_ext_init.  NULL / 0: unknown (host names are compared) */
    void *self;
    /* Every rank contributes `bytes` bytes at `mine` (any size; may differ per rank).  On success
     * (0): sizes[r] (an array of `size` entries, the caller's) is rank r's byte count, *all a
     * malloc'd buffer of every rank's bytes in rank order (the caller frees it).  While it waits
     * it calls progress(progress_arg) now and then (software transports serve peers there).
     * Non-zero: failed, and the callback has said why (kishmem_ext_warn). */
    int (*allgather)(void *self, const void *mine, size_t bytes, size_t *sizes, void **all,
                     kishmem_ext_progress_fn progress, void *progress_arg);
    /* Ends every rank's process with `status` (the message has been printed); must not return. */
    void (*abort)(void *self, int status, const char *message);
    void (*finalize)(void *self); /* at shmem_finalize: no call of this bootstrap follows */
    void (*destroy)(void *self);  /* when the runtime drops the bootstrap (after finalize) */
} kishmem_ext_bootstrap;

/* shmem_init_thread over `boot`'s ranks: collective over them.  Returns the thread level
 * provided.  Call only while kishmem is neither initialized nor finalized. */
int kishmem_ext_init(const kishmem_ext_bootstrap *boot, int requested_thread_level);

/* The name of the bootstrap kishmem was started with ("pmix", "singleton", "mpi", ...). */
const char *kishmem_ext_bootstrap_name(void);

/* Messages as kishmem's own: the PE of messages (-1 before one is known); a warning (one line
 * naming `call`); a fatal error, which ends the whole job. */
int kishmem_ext_log_pe(void);
void kishmem_ext_warn(const char *call, const char *message);
void kishmem_ext_fatal(const char *call, const char *message) __attribute__((noreturn));

/* Waits until done(arg) returns non-zero, driving kishmem's progress in between, with the
 * KISHMEM_HANG_WARN / KISHMEM_HANG_ABORT messages ("`call`: waiting for `what` ..."; `what` is
 * printed as is). */
void kishmem_ext_wait(int (*done)(void *arg), void *arg, const char *call, const char *what);

/* The hang bounds every wait keeps (KISHMEM_HANG_WARN, KISHMEM_HANG_ABORT), for a bootstrap's own
 * waits before init and during init and finalize, where kishmem_ext_wait cannot serve: called now
 * and then with the seconds waited so far, it warns once (*warned, 0 at first) and ends the job
 * when the bounds say, naming call and what is awaited. */
void kishmem_ext_hang_bounds(const char *call, const char *what, double waited, int *warned);

/* Teams.  valid: non-zero for a live team.  slot: the team's runtime slot (0 <= slot < the
 * team limit, distinct among live teams).  members: writes the world PE of each team PE into
 * world_pes (when not NULL; room for the team's size) and returns the size. */
int kishmem_ext_team_valid(shmem_team_t team);
int kishmem_ext_team_slot(shmem_team_t team);
int kishmem_ext_team_members(shmem_team_t team, int *world_pes);
/* Collective over `team`: completes this PE's operations on every context, then a team
 * barrier (which serves peers while it waits). */
void kishmem_ext_team_quiesce(shmem_team_t team, const char *call);
/* Collective over `parent`: a new team of the parent PEs parent_indices[0..n) in that order
 * (the same list on every caller); SHMEM_TEAM_INVALID on PEs not in it, or when no team slot
 * is left (the runtime says so, and *full, when not NULL, becomes 1 on every PE of the parent). */
shmem_team_t kishmem_ext_team_from_list(shmem_team_t parent, const int *parent_indices, int n, const char *call,
                                        int *full);

KISHMEM_END_DECLS

#endif /* KISHMEM_EXT_H */
