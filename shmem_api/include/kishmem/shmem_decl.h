/* Declarations of the OpenSHMEM C API.  Every typed family is generated from the type table;
 * each KISHMEM_DECL_* macro below is one family.  Every routine's name is written
 * KISHMEM_NAME(rest of name): shmem.h includes this file with KISHMEM_NAME(x) = shmem_x, and
 * pshmem.h includes it again with KISHMEM_DECL_PSHMEM defined and KISHMEM_NAME(x) = pshmem_x, the
 * profiling interface's names, so both lists are one.  The helper macros are undefined at the
 * end; the declarations are visible (default visibility) even where the library itself is
 * compiled with -fvisibility=hidden. */
#if defined(KISHMEM_DECL_PSHMEM) ? !defined(KISHMEM_PSHMEM_DECL_H) : !defined(KISHMEM_SHMEM_DECL_H)
#ifdef KISHMEM_DECL_PSHMEM
#define KISHMEM_PSHMEM_DECL_H
#define KISHMEM_NAME(name) pshmem_##name
#else
#define KISHMEM_SHMEM_DECL_H
#define KISHMEM_NAME(name) shmem_##name
#endif

#define KISHMEM_DECL_CTX2(RET, NAME, ...) RET KISHMEM_NAME(NAME)(__VA_ARGS__); RET KISHMEM_NAME(ctx_##NAME)(shmem_ctx_t ctx, __VA_ARGS__);
/* Routines that also exist in device code: under nvcc both shmem_ forms are __host__ __device__
 * inline functions of kishmem/shmem_device.h (nothing is declared here); their pshmem_ forms
 * are the library's host functions. */
#if defined(__CUDACC__) && !defined(KISHMEM_DECL_PSHMEM)
#define KISHMEM_DECL_DEV2(RET, NAME, ...)
#define KISHMEM_DECL_DEV(...)
#else
#define KISHMEM_DECL_DEV2(RET, NAME, ...) KISHMEM_DECL_CTX2(RET, NAME, __VA_ARGS__)
#define KISHMEM_DECL_DEV(...) __VA_ARGS__
#endif
#define KISHMEM_DECL_HOST(...) __VA_ARGS__

#include "kishmem/c_decls.h"

KISHMEM_BEGIN_DECLS

/* ---- library setup, exit and query ----------------------------------------------------- */
void KISHMEM_NAME(init)(void);
int KISHMEM_NAME(init_thread)(int requested, int *provided);
void KISHMEM_NAME(query_thread)(int *provided);
int KISHMEM_NAME(query_initialized)(int *initialized);
int KISHMEM_NAME(query_finalized)(int *finalized);
void KISHMEM_NAME(finalize)(void);
void KISHMEM_NAME(global_exit)(int status);
KISHMEM_DECL_DEV(int KISHMEM_NAME(my_pe)(void); int KISHMEM_NAME(n_pes)(void);)
int KISHMEM_NAME(pe_accessible)(int pe);
int KISHMEM_NAME(addr_accessible)(const void *addr, int pe);
KISHMEM_DECL_DEV(void *KISHMEM_NAME(ptr)(const void *dest, int pe);)
void *KISHMEM_NAME(team_ptr)(shmem_team_t team, const void *dest, int pe);
void KISHMEM_NAME(info_get_version)(int *major, int *minor);
void KISHMEM_NAME(info_get_name)(char *name);
void start_pes(int npes);
void KISHMEM_NAME(pcontrol)(const int level, ...);
int _my_pe(void);
int _num_pes(void);

/* ---- memory management ----------------------------------------------------------------- */
void *KISHMEM_NAME(malloc)(size_t size);
void *KISHMEM_NAME(malloc_with_hints)(size_t size, long hints);
void *KISHMEM_NAME(calloc)(size_t count, size_t size);
void *KISHMEM_NAME(align)(size_t alignment, size_t size);
void *KISHMEM_NAME(realloc)(void *ptr, size_t size);
void KISHMEM_NAME(free)(void *ptr);
void *shmalloc(size_t size);
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void shfree(void *ptr);

/* ---- teams and contexts ----------------------------------------------------------------- */
KISHMEM_DECL_DEV(int KISHMEM_NAME(team_my_pe)(shmem_team_t team); int KISHMEM_NAME(team_n_pes)(shmem_team_t team);)
int KISHMEM_NAME(team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int KISHMEM_NAME(team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int KISHMEM_NAME(team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int KISHMEM_NAME(team_split_2d)(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void KISHMEM_NAME(team_destroy)(shmem_team_t team);
int KISHMEM_NAME(ctx_create)(long options, shmem_ctx_t *ctx);
int KISHMEM_NAME(team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
void KISHMEM_NAME(ctx_destroy)(shmem_ctx_t ctx);
int KISHMEM_NAME(ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
void KISHMEM_NAME(ctx_session_start)(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask);
void KISHMEM_NAME(ctx_session_stop)(shmem_ctx_t ctx);

/* ---- RMA: every routine with and without a context ---------------------------------------- */
/* D declares the routines that also exist in device code: KISHMEM_DECL_DEV2, or KISHMEM_DECL_CTX2 for the
 * types without a device form. */
#define KISHMEM_DECL_RMA_WITH(D, T, N)                                                                    \
    D(void, N##_put, T *dest, const T *source, size_t nelems, int pe)                   \
    D(void, N##_get, T *dest, const T *source, size_t nelems, int pe)                   \
    D(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)               \
    D(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)               \
    D(void, N##_p, T *dest, T value, int pe)                                            \
    D(T, N##_g, const T *source, int pe)                                                \
    D(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    D(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    KISHMEM_SIG_IB(D, T, N##_ibput, N##_ibget)                                          \
    D(void, N##_put_signal, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    D(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
#define KISHMEM_DECL_RMA(T, N) KISHMEM_DECL_RMA_WITH(KISHMEM_DECL_DEV2, T, N)
#define KISHMEM_DECL_RMA_HOST(T, N) KISHMEM_DECL_RMA_WITH(KISHMEM_DECL_CTX2, T, N)
KISHMEM_RMA_TYPES_DEV(KISHMEM_DECL_RMA)
KISHMEM_RMA_TYPES_HOST_ONLY(KISHMEM_DECL_RMA_HOST)

#define KISHMEM_DECL_RMA_SIZE(B)                                                                  \
    KISHMEM_DECL_DEV2(void, put##B, void *dest, const void *source, size_t nelems, int pe)        \
    KISHMEM_DECL_DEV2(void, get##B, void *dest, const void *source, size_t nelems, int pe)        \
    KISHMEM_DECL_DEV2(void, put##B##_nbi, void *dest, const void *source, size_t nelems, int pe)  \
    KISHMEM_DECL_DEV2(void, get##B##_nbi, void *dest, const void *source, size_t nelems, int pe)  \
    KISHMEM_DECL_DEV2(void, iput##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    KISHMEM_DECL_DEV2(void, iget##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    KISHMEM_SIG_IB(KISHMEM_DECL_DEV2, void, ibput##B, ibget##B)                                   \
    KISHMEM_DECL_DEV2(void, put##B##_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    KISHMEM_DECL_DEV2(void, put##B##_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
KISHMEM_RMA_SIZES(KISHMEM_DECL_RMA_SIZE)

KISHMEM_DECL_DEV2(void, putmem, void *dest, const void *source, size_t nelems, int pe)
KISHMEM_DECL_DEV2(void, getmem, void *dest, const void *source, size_t nelems, int pe)
KISHMEM_DECL_DEV2(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
KISHMEM_DECL_DEV2(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)
KISHMEM_DECL_DEV2(void, putmem_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
KISHMEM_DECL_DEV2(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

/* ---- signals ------------------------------------------------------------------------------- */
KISHMEM_DECL_DEV(uint64_t KISHMEM_NAME(signal_fetch)(const uint64_t *sig_addr);)
KISHMEM_DECL_DEV(uint64_t KISHMEM_NAME(signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);)
KISHMEM_DECL_DEV2(void, signal_add, uint64_t *sig_addr, uint64_t signal, int pe)
KISHMEM_DECL_DEV2(void, signal_set, uint64_t *sig_addr, uint64_t signal, int pe)

/* ---- atomic memory operations ---------------------------------------------------------- */
#define KISHMEM_DECL_AMO_EXT(T, N)                                                                \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch, const T *source, int pe)                               \
    KISHMEM_DECL_DEV2(void, N##_atomic_set, T *dest, T value, int pe)                             \
    KISHMEM_DECL_DEV2(T, N##_atomic_swap, T *dest, T value, int pe)                               \
    KISHMEM_SIG_AMO_EXT_NBI(KISHMEM_DECL_DEV2, T, N)
#define KISHMEM_DECL_AMO_STD(T, N)                                                                \
    KISHMEM_DECL_AMO_EXT(T, N)                                                                    \
    KISHMEM_DECL_DEV2(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)               \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch_inc, T *dest, int pe)                                   \
    KISHMEM_DECL_DEV2(void, N##_atomic_inc, T *dest, int pe)                                      \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch_add, T *dest, T value, int pe)                          \
    KISHMEM_DECL_DEV2(void, N##_atomic_add, T *dest, T value, int pe)                             \
    KISHMEM_SIG_AMO_STD_NBI(KISHMEM_DECL_DEV2, T, N)
#define KISHMEM_DECL_AMO_BIT(T, N)                                                                \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch_and, T *dest, T value, int pe)                          \
    KISHMEM_DECL_DEV2(void, N##_atomic_and, T *dest, T value, int pe)                             \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch_or, T *dest, T value, int pe)                           \
    KISHMEM_DECL_DEV2(void, N##_atomic_or, T *dest, T value, int pe)                              \
    KISHMEM_DECL_DEV2(T, N##_atomic_fetch_xor, T *dest, T value, int pe)                          \
    KISHMEM_DECL_DEV2(void, N##_atomic_xor, T *dest, T value, int pe)                             \
    KISHMEM_SIG_AMO_BIT_NBI(KISHMEM_DECL_DEV2, T, N)
KISHMEM_AMO_STD_TYPES(KISHMEM_DECL_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(KISHMEM_DECL_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(KISHMEM_DECL_AMO_BIT)

/* Deprecated (OpenSHMEM 1.3) AMO names. */
#define KISHMEM_DECL_DEPR_AMO(T, N)                                                               \
    T KISHMEM_NAME(N##_fadd)(T *dest, T value, int pe); T KISHMEM_NAME(N##_finc)(T *dest, int pe); \
    void KISHMEM_NAME(N##_add)(T *dest, T value, int pe); void KISHMEM_NAME(N##_inc)(T *dest, int pe); \
    T KISHMEM_NAME(N##_cswap)(T *dest, T cond, T value, int pe);
#define KISHMEM_DECL_DEPR_AMO_EXT(T, N)                                                           \
    T KISHMEM_NAME(N##_fetch)(const T *source, int pe); void KISHMEM_NAME(N##_set)(T *dest, T value, int pe); \
    T KISHMEM_NAME(N##_swap)(T *dest, T value, int pe);
KISHMEM_DEPR_AMO_TYPES(KISHMEM_DECL_DEPR_AMO)
KISHMEM_DEPR_AMO_TYPES(KISHMEM_DECL_DEPR_AMO_EXT)
KISHMEM_DEPR_AMO_EXT_TYPES(KISHMEM_DECL_DEPR_AMO_EXT)

/* ---- memory ordering --------------------------------------------------------------------- */
KISHMEM_DECL_DEV(void KISHMEM_NAME(fence)(void); void KISHMEM_NAME(quiet)(void);
           void KISHMEM_NAME(ctx_fence)(shmem_ctx_t ctx); void KISHMEM_NAME(ctx_quiet)(shmem_ctx_t ctx);)
void KISHMEM_NAME(pe_quiet)(const int *target_pes, size_t npes);
void KISHMEM_NAME(ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- collectives ------------------------------------------------------------------------- */
KISHMEM_DECL_DEV(void KISHMEM_NAME(barrier_all)(void); void KISHMEM_NAME(sync_all)(void);)
KISHMEM_DECL_DEV(int KISHMEM_NAME(team_sync)(shmem_team_t team);)
void KISHMEM_NAME(barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
void KISHMEM_NAME(sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* D: KISHMEM_DECL_DEV for the routines that also exist in device code (broadcast, fcollect, alltoall
 * of the device types), KISHMEM_DECL_HOST for host-only types. */
#define KISHMEM_DECL_COLL_D(D, T, N)                                                              \
    D(int KISHMEM_NAME(N##_broadcast)(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
      int KISHMEM_NAME(N##_fcollect)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
      int KISHMEM_NAME(N##_alltoall)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
      int KISHMEM_NAME(N##_alltoalls)(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);) \
    int KISHMEM_NAME(N##_collect)(shmem_team_t team, T *dest, const T *source, size_t nelems);
#define KISHMEM_DECL_COLL(T, N) KISHMEM_DECL_COLL_D(KISHMEM_DECL_DEV, T, N)
#define KISHMEM_DECL_COLL_HOST(T, N) KISHMEM_DECL_COLL_D(KISHMEM_DECL_HOST, T, N)
KISHMEM_RMA_TYPES_DEV(KISHMEM_DECL_COLL)
KISHMEM_RMA_TYPES_HOST_ONLY(KISHMEM_DECL_COLL_HOST)
KISHMEM_DECL_DEV(int KISHMEM_NAME(broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
           int KISHMEM_NAME(fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
           int KISHMEM_NAME(alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
           int KISHMEM_NAME(alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);)
int KISHMEM_NAME(collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);

#define KISHMEM_DECL_COLL_AS(B)                                                                   \
    void KISHMEM_NAME(broadcast##B)(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void KISHMEM_NAME(collect##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void KISHMEM_NAME(fcollect##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void KISHMEM_NAME(alltoall##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void KISHMEM_NAME(alltoalls##B)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
KISHMEM_DECL_COLL_AS(32)
KISHMEM_DECL_COLL_AS(64)

/* Reductions and sum scans exist in device code for the device types (KISHMEM_DECL_DEV). */
#define KISHMEM_DECL_REDUCE(D, T, N, OP) D(int KISHMEM_NAME(N##_##OP##_reduce)(shmem_team_t team, T *dest, const T *source, size_t nreduce);)
#define KISHMEM_DECL_REDUCE_BIT(T, N) KISHMEM_DECL_REDUCE(KISHMEM_DECL_DEV, T, N, and) KISHMEM_DECL_REDUCE(KISHMEM_DECL_DEV, T, N, or) KISHMEM_DECL_REDUCE(KISHMEM_DECL_DEV, T, N, xor)
#define KISHMEM_DECL_REDUCE_MINMAX_D(D, T, N) KISHMEM_DECL_REDUCE(D, T, N, max) KISHMEM_DECL_REDUCE(D, T, N, min)
#define KISHMEM_DECL_REDUCE_ARITH_D(D, T, N)                                                      \
    KISHMEM_DECL_REDUCE(D, T, N, sum) KISHMEM_DECL_REDUCE(D, T, N, prod)                          \
    D(int KISHMEM_NAME(N##_sum_inscan)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
      int KISHMEM_NAME(N##_sum_exscan)(shmem_team_t team, T *dest, const T *source, size_t nelems);)
#define KISHMEM_DECL_REDUCE_MINMAX(T, N) KISHMEM_DECL_REDUCE_MINMAX_D(KISHMEM_DECL_DEV, T, N)
#define KISHMEM_DECL_REDUCE_ARITH(T, N) KISHMEM_DECL_REDUCE_ARITH_D(KISHMEM_DECL_DEV, T, N)
#define KISHMEM_DECL_REDUCE_MINMAX_HOST(T, N) KISHMEM_DECL_REDUCE_MINMAX_D(KISHMEM_DECL_HOST, T, N)
#define KISHMEM_DECL_REDUCE_ARITH_HOST(T, N) KISHMEM_DECL_REDUCE_ARITH_D(KISHMEM_DECL_HOST, T, N)
KISHMEM_REDUCE_BIT_TYPES(KISHMEM_DECL_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(KISHMEM_DECL_REDUCE_MINMAX)
KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(KISHMEM_DECL_REDUCE_MINMAX_HOST)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(KISHMEM_DECL_REDUCE_ARITH)
KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(KISHMEM_DECL_REDUCE_ARITH_HOST)
KISHMEM_REDUCE_COMPLEX_TYPES(KISHMEM_DECL_REDUCE_ARITH_HOST)

#define KISHMEM_DECL_TOALL(T, N, OP)                                                              \
    void KISHMEM_NAME(N##_##OP##_to_all)(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define KISHMEM_DECL_TOALL_BIT(T, N) KISHMEM_DECL_TOALL(T, N, and) KISHMEM_DECL_TOALL(T, N, or) KISHMEM_DECL_TOALL(T, N, xor)
#define KISHMEM_DECL_TOALL_MINMAX(T, N) KISHMEM_DECL_TOALL(T, N, max) KISHMEM_DECL_TOALL(T, N, min)
#define KISHMEM_DECL_TOALL_ARITH(T, N) KISHMEM_DECL_TOALL(T, N, sum) KISHMEM_DECL_TOALL(T, N, prod)
KISHMEM_TOALL_BIT_TYPES(KISHMEM_DECL_TOALL_BIT)
KISHMEM_TOALL_MINMAX_TYPES(KISHMEM_DECL_TOALL_MINMAX)
KISHMEM_TOALL_MINMAX_TYPES(KISHMEM_DECL_TOALL_ARITH)
KISHMEM_REDUCE_COMPLEX_TYPES(KISHMEM_DECL_TOALL_ARITH)

/* ---- point-to-point synchronization ------------------------------------------------------ */
#define KISHMEM_DECL_SYNC(T, N)                                                                   \
    KISHMEM_DECL_DEV(void KISHMEM_NAME(N##_wait_until)(T *ivar, int cmp, T cmp_value);)           \
    KISHMEM_DECL_DEV(void KISHMEM_NAME(N##_wait_until_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_wait_until_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_wait_until_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(void KISHMEM_NAME(N##_wait_until_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_wait_until_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_wait_until_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);) \
    KISHMEM_DECL_DEV(int KISHMEM_NAME(N##_test)(T *ivar, int cmp, T cmp_value);)                  \
    KISHMEM_DECL_DEV(int KISHMEM_NAME(N##_test_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_test_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_test_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value);) \
    KISHMEM_DECL_DEV(int KISHMEM_NAME(N##_test_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_test_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    KISHMEM_DECL_DEV(size_t KISHMEM_NAME(N##_test_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);)
KISHMEM_SYNC_TYPES(KISHMEM_DECL_SYNC)
#define KISHMEM_DECL_DEPR_WAIT(T, N)                                                              \
    void KISHMEM_NAME(N##_wait)(T *ivar, T cmp_value);
KISHMEM_DEPR_WAIT_TYPES(KISHMEM_DECL_DEPR_WAIT)
/* The untyped (long) deprecated forms, functions in C (C11 too: a call goes through the generic
 * selection of kishmem/shmem_generic.h, defined after this, which picks the long form for a long
 * pointer; `(shmem_wait_until)(...)` and `&shmem_wait_until` name the function).  C++ has
 * overloads of these names instead; the pshmem_ names are always declared. */
#if defined(KISHMEM_DECL_PSHMEM) || !defined(__cplusplus)
void KISHMEM_NAME(wait)(long *ivar, long cmp_value);
void KISHMEM_NAME(wait_until)(long *ivar, int cmp, long cmp_value);
#endif

/* ---- distributed locks ------------------------------------------------------------------- */
void KISHMEM_NAME(set_lock)(long *lock);
void KISHMEM_NAME(clear_lock)(long *lock);
int KISHMEM_NAME(test_lock)(long *lock);

/* ---- cache management (deprecated; no effect on cache-coherent machines) ------------------ */
void KISHMEM_NAME(clear_cache_inv)(void);
void KISHMEM_NAME(set_cache_inv)(void);
void KISHMEM_NAME(clear_cache_line_inv)(void *dest);
void KISHMEM_NAME(set_cache_line_inv)(void *dest);
void KISHMEM_NAME(udcflush)(void);
void KISHMEM_NAME(udcflush_line)(void *dest);

KISHMEM_END_DECLS

#undef KISHMEM_NAME
#undef KISHMEM_DECL_CTX2
#undef KISHMEM_DECL_DEV2
#undef KISHMEM_DECL_DEV
#undef KISHMEM_DECL_HOST
#undef KISHMEM_DECL_RMA_WITH
#undef KISHMEM_DECL_RMA
#undef KISHMEM_DECL_RMA_HOST
#undef KISHMEM_DECL_RMA_SIZE
#undef KISHMEM_DECL_AMO_EXT
#undef KISHMEM_DECL_AMO_STD
#undef KISHMEM_DECL_AMO_BIT
#undef KISHMEM_DECL_DEPR_AMO
#undef KISHMEM_DECL_DEPR_AMO_EXT
#undef KISHMEM_DECL_COLL_D
#undef KISHMEM_DECL_COLL
#undef KISHMEM_DECL_COLL_HOST
#undef KISHMEM_DECL_COLL_AS
#undef KISHMEM_DECL_REDUCE
#undef KISHMEM_DECL_REDUCE_BIT
#undef KISHMEM_DECL_REDUCE_MINMAX_D
#undef KISHMEM_DECL_REDUCE_ARITH_D
#undef KISHMEM_DECL_REDUCE_MINMAX
#undef KISHMEM_DECL_REDUCE_ARITH
#undef KISHMEM_DECL_REDUCE_MINMAX_HOST
#undef KISHMEM_DECL_REDUCE_ARITH_HOST
#undef KISHMEM_DECL_TOALL
#undef KISHMEM_DECL_TOALL_BIT
#undef KISHMEM_DECL_TOALL_MINMAX
#undef KISHMEM_DECL_TOALL_ARITH
#undef KISHMEM_DECL_SYNC
#undef KISHMEM_DECL_DEPR_WAIT
#ifndef KISHMEM_DECL_PSHMEM
#include "kishmem/shmem_device.h"
#endif

#endif /* KISHMEM_SHMEM_DECL_H / KISHMEM_PSHMEM_DECL_H */
