/* kishmem: the OpenSHMEM 1.5 API with the 1.6 additions.  C and C++.
 * Typed families are declared from the one type table (kishmem/shmem_types.h) in
 * kishmem/shmem_decl.h; C11 generic selections and C++ overloads are in kishmem/shmem_generic.h. */
#ifndef KISHMEM_SHMEM_H
#define KISHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "kishmem/c_decls.h"
#include "kishmem/shmem_types.h"

KISHMEM_BEGIN_DECLS

/* ---- version and vendor --------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "kishmem"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* ---- threads --------------------------------------------------------------------------- */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* ---- point-to-point comparison and signal operators ------------------------------------ */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* ---- collectives' work arrays (deprecated active-set routines) -------------------------- */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- contexts, teams, memory hints ----------------------------------------------------- */
#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

typedef struct kishmem_ctx *shmem_ctx_t;
typedef struct kishmem_team *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;

typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

extern struct kishmem_ctx kishmem_ctx_default_obj;
extern struct kishmem_team kishmem_team_world_obj;
extern struct kishmem_team kishmem_team_shared_obj;
#define SHMEM_CTX_DEFAULT (&kishmem_ctx_default_obj)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD (&kishmem_team_world_obj)
#define SHMEM_TEAM_SHARED (&kishmem_team_shared_obj)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

KISHMEM_END_DECLS

#include "kishmem/shmem_decl.h"
#include "kishmem/shmem_generic.h"

#endif /* KISHMEM_SHMEM_H */
