/* kishmem MPI interoperability (link with -lkishmem_mpi, which needs MPI; libkishmem does not).
 *
 * Two ways to start kishmem in an MPI program:
 *   - shmem_init() / shmem_init_thread(), before or after MPI_Init: kishmem finds the launcher
 *     through PMIx (mpirun, srun --mpi=pmix) and its PEs are the processes of MPI_COMM_WORLD,
 *     PE number == MPI_COMM_WORLD rank.  Either library may be finalized first.
 *   - shmemx_init_mpi(comm) / shmemx_init_thread_mpi(comm, ...), after MPI_Init: the SHMEM world
 *     is exactly the processes of `comm`, PE number == rank in `comm`.  Only those processes call
 *     it (e.g. the ranks of one color of MPI_Comm_split); the others may use MPI alone.
 *     Call shmem_finalize before MPI_Finalize; if MPI_Finalize comes first, kishmem finalizes
 *     itself at its start (collectively over `comm`) and a later shmem_finalize does nothing.
 *
 * Every routine returns 0 on success and a non-zero value (with a message on stderr) on error.
 * Every routine here calls MPI: the thread that calls one must be allowed to call MPI at the
 * thread level MPI_Init_thread provided. */
#ifndef KISHMEM_SHMEMX_MPI_H
#define KISHMEM_SHMEMX_MPI_H

#include <mpi.h>
#include <shmem.h>

KISHMEM_BEGIN_DECLS

/* shmem_init over the processes of `comm` (an intra-communicator; MPI must be initialized).
 * Collective over `comm`.  A second call with a communicator congruent to the first one
 * returns 0; any other call once kishmem is initialized returns non-zero. */
int shmemx_init_mpi(MPI_Comm comm);

/* As shmemx_init_mpi, with a SHMEM_THREAD_* level as shmem_init_thread.  The SHMEM level does
 * not depend on MPI's (kishmem uses MPI only inside init, finalize and the routines below). */
int shmemx_init_thread_mpi(MPI_Comm comm, int requested, int *provided);

/* A new communicator of exactly the PEs of `team`, rank == team PE number.  Collective over the
 * team (every member calls, no other PE).  It is made with MPI_Comm_create_group over the
 * communicator kishmem was initialized with (shmemx_init_mpi), or over MPI_COMM_WORLD when
 * kishmem was started by shmem_init.  The caller owns it: MPI_Comm_free it when done. */
int shmemx_team_get_mpi_comm(shmem_team_t team, MPI_Comm *comm);

/* Teams from communicators.  Collective over `parent`: every PE of `parent` calls, passing the
 * communicator it belongs to or MPI_COMM_NULL; the communicators passed may differ between PEs
 * (e.g. the results of one MPI_Comm_split), and every member of each one must be a PE of
 * `parent` that calls with that communicator.  Each caller with a communicator gets in *team a
 * new team of that communicator's processes with team PE number == rank in it; callers with
 * MPI_COMM_NULL get SHMEM_TEAM_INVALID.  When the communicators do not fit this rule, every
 * caller returns non-zero with SHMEM_TEAM_INVALID.  Destroy the team with shmem_team_destroy. */
int shmemx_team_from_mpi_comm(MPI_Comm comm, shmem_team_t parent, shmem_team_t *team);

KISHMEM_END_DECLS

#endif /* KISHMEM_SHMEMX_MPI_H */
