/* Declarations of the OpenSHMEM C API.  Every typed family is generated from the type table;
 * each K_DECL_* macro below is one family.  Every routine's name is written K_N(rest of name):
 * shmem.h includes this file with K_N(x) = shmem_x, and pshmem.h includes it again with
 * KISHMEM_DECL_PSHMEM defined and K_N(x) = pshmem_x, the profiling interface's names, so both
 * lists are one. */
#if defined(KISHMEM_DECL_PSHMEM) ? !defined(KISHMEM_PSHMEM_DECL_H) : !defined(KISHMEM_SHMEM_DECL_H)
#ifdef KISHMEM_DECL_PSHMEM
#define KISHMEM_PSHMEM_DECL_H
#define K_N(name) pshmem_##name
#else
#define KISHMEM_SHMEM_DECL_H
#define K_N(name) shmem_##name
#endif

#define K_DECL_CTX2(RET, NAME, ...) RET K_N(NAME)(__VA_ARGS__); RET K_N(ctx_##NAME)(shmem_ctx_t ctx, __VA_ARGS__);
/* Routines that also exist in device code: under nvcc both shmem_ forms are __host__ __device__
 * inline functions of kishmem/shmem_device.h (nothing is declared here); their pshmem_ forms
 * are the library's host functions. */
#undef K_DECL_DEV2
#undef K_DECL_DEV
#if defined(__CUDACC__) && !defined(KISHMEM_DECL_PSHMEM)
#define K_DECL_DEV2(RET, NAME, ...)
#define K_DECL_DEV(...)
#else
#define K_DECL_DEV2(RET, NAME, ...) K_DECL_CTX2(RET, NAME, __VA_ARGS__)
#define K_DECL_DEV(...) __VA_ARGS__
#endif
#define K_DECL_HOST(...) __VA_ARGS__

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library setup, exit and query ----------------------------------------------------- */
void K_N(init)(void);
int K_N(init_thread)(int requested, int *provided);
void K_N(query_thread)(int *provided);
int K_N(query_initialized)(int *initialized);
int K_N(query_finalized)(int *finalized);
void K_N(finalize)(void);
void K_N(global_exit)(int status);
K_DECL_DEV(int K_N(my_pe)(void); int K_N(n_pes)(void);)
int K_N(pe_accessible)(int pe);
int K_N(addr_accessible)(const void *addr, int pe);
K_DECL_DEV(void *K_N(ptr)(const void *dest, int pe);)
void *K_N(team_ptr)(shmem_team_t team, const void *dest, int pe);
void K_N(info_get_version)(int *major, int *minor);
void K_N(info_get_name)(char *name);
void start_pes(int npes);
void K_N(pcontrol)(const int level, ...);
int _my_pe(void);
int _num_pes(void);

/* ---- memory management ----------------------------------------------------------------- */
void *K_N(malloc)(size_t size);
void *K_N(malloc_with_hints)(size_t size, long hints);
void *K_N(calloc)(size_t count, size_t size);
void *K_N(align)(size_t alignment, size_t size);
void *K_N(realloc)(void *ptr, size_t size);
void K_N(free)(void *ptr);
void *shmalloc(size_t size);
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void shfree(void *ptr);

/* ---- teams and contexts ----------------------------------------------------------------- */
K_DECL_DEV(int K_N(team_my_pe)(shmem_team_t team); int K_N(team_n_pes)(shmem_team_t team);)
int K_N(team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int K_N(team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int K_N(team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int K_N(team_split_2d)(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void K_N(team_destroy)(shmem_team_t team);
int K_N(ctx_create)(long options, shmem_ctx_t *ctx);
int K_N(team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
void K_N(ctx_destroy)(shmem_ctx_t ctx);
int K_N(ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
void K_N(ctx_session_start)(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask);
void K_N(ctx_session_stop)(shmem_ctx_t ctx);

/* ---- RMA: every routine with and without a context ---------------------------------------- */
/* D declares the routines that also exist in device code: K_DECL_DEV2, or K_DECL_CTX2 for the
 * types without a device form. */
#define K_DECL_RMA_WITH(D, T, N)                                                                          \
    D(void, N##_put, T *dest, const T *source, size_t nelems, int pe)                   \
    D(void, N##_get, T *dest, const T *source, size_t nelems, int pe)                   \
    D(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)               \
    D(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)               \
    D(void, N##_p, T *dest, T value, int pe)                                            \
    D(T, N##_g, const T *source, int pe)                                                \
    D(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    D(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    D(void, N##_ibput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    D(void, N##_ibget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    D(void, N##_put_signal, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    D(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
#define K_DECL_RMA(T, N) K_DECL_RMA_WITH(K_DECL_DEV2, T, N)
#define K_DECL_RMA_HOST(T, N) K_DECL_RMA_WITH(K_DECL_CTX2, T, N)
KISHMEM_RMA_TYPES_DEV(K_DECL_RMA)
KISHMEM_RMA_TYPES_HOST_ONLY(K_DECL_RMA_HOST)

#define K_DECL_RMA_SIZE(B)                                                                        \
    K_DECL_DEV2(void, put##B, void *dest, const void *source, size_t nelems, int pe)              \
    K_DECL_DEV2(void, get##B, void *dest, const void *source, size_t nelems, int pe)              \
    K_DECL_DEV2(void, put##B##_nbi, void *dest, const void *source, size_t nelems, int pe)        \
    K_DECL_DEV2(void, get##B##_nbi, void *dest, const void *source, size_t nelems, int pe)        \
    K_DECL_DEV2(void, iput##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    K_DECL_DEV2(void, iget##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    K_DECL_DEV2(void, ibput##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    K_DECL_DEV2(void, ibget##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    K_DECL_DEV2(void, put##B##_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    K_DECL_DEV2(void, put##B##_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
KISHMEM_RMA_SIZES(K_DECL_RMA_SIZE)

K_DECL_DEV2(void, putmem, void *dest, const void *source, size_t nelems, int pe)
K_DECL_DEV2(void, getmem, void *dest, const void *source, size_t nelems, int pe)
K_DECL_DEV2(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
K_DECL_DEV2(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)
K_DECL_DEV2(void, putmem_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
K_DECL_DEV2(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

/* ---- signals ------------------------------------------------------------------------------- */
K_DECL_DEV(uint64_t K_N(signal_fetch)(const uint64_t *sig_addr);)
K_DECL_DEV(uint64_t K_N(signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);)
K_DECL_DEV2(void, signal_add, uint64_t *sig_addr, uint64_t signal, int pe)
K_DECL_DEV2(void, signal_set, uint64_t *sig_addr, uint64_t signal, int pe)

/* ---- atomic memory operations ---------------------------------------------------------- */
#define K_DECL_AMO_EXT(T, N)                                                                      \
    K_DECL_DEV2(T, N##_atomic_fetch, const T *source, int pe)                                     \
    K_DECL_DEV2(void, N##_atomic_set, T *dest, T value, int pe)                                   \
    K_DECL_DEV2(T, N##_atomic_swap, T *dest, T value, int pe)                                     \
    K_DECL_DEV2(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)                    \
    K_DECL_DEV2(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define K_DECL_AMO_STD(T, N)                                                                      \
    K_DECL_AMO_EXT(T, N)                                                                          \
    K_DECL_DEV2(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)                     \
    K_DECL_DEV2(T, N##_atomic_fetch_inc, T *dest, int pe)                                         \
    K_DECL_DEV2(void, N##_atomic_inc, T *dest, int pe)                                            \
    K_DECL_DEV2(T, N##_atomic_fetch_add, T *dest, T value, int pe)                                \
    K_DECL_DEV2(void, N##_atomic_add, T *dest, T value, int pe)                                   \
    K_DECL_DEV2(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe)    \
    K_DECL_DEV2(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                        \
    K_DECL_DEV2(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)
#define K_DECL_AMO_BIT(T, N)                                                                      \
    K_DECL_DEV2(T, N##_atomic_fetch_and, T *dest, T value, int pe)                                \
    K_DECL_DEV2(void, N##_atomic_and, T *dest, T value, int pe)                                   \
    K_DECL_DEV2(T, N##_atomic_fetch_or, T *dest, T value, int pe)                                 \
    K_DECL_DEV2(void, N##_atomic_or, T *dest, T value, int pe)                                    \
    K_DECL_DEV2(T, N##_atomic_fetch_xor, T *dest, T value, int pe)                                \
    K_DECL_DEV2(void, N##_atomic_xor, T *dest, T value, int pe)                                   \
    K_DECL_DEV2(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)               \
    K_DECL_DEV2(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)                \
    K_DECL_DEV2(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)
KISHMEM_AMO_STD_TYPES(K_DECL_AMO_STD)
KISHMEM_AMO_EXT_ONLY_TYPES(K_DECL_AMO_EXT)
KISHMEM_AMO_BIT_TYPES(K_DECL_AMO_BIT)

/* Deprecated (OpenSHMEM 1.3) AMO names. */
#define K_DECL_DEPR_AMO(T, N)                                                                     \
    T K_N(N##_fadd)(T *dest, T value, int pe); T K_N(N##_finc)(T *dest, int pe);           \
    void K_N(N##_add)(T *dest, T value, int pe); void K_N(N##_inc)(T *dest, int pe);        \
    T K_N(N##_cswap)(T *dest, T cond, T value, int pe);
#define K_DECL_DEPR_AMO_EXT(T, N)                                                                 \
    T K_N(N##_fetch)(const T *source, int pe); void K_N(N##_set)(T *dest, T value, int pe); \
    T K_N(N##_swap)(T *dest, T value, int pe);
KISHMEM_DEPR_AMO_TYPES(K_DECL_DEPR_AMO)
KISHMEM_DEPR_AMO_TYPES(K_DECL_DEPR_AMO_EXT)
KISHMEM_DEPR_AMO_EXT_TYPES(K_DECL_DEPR_AMO_EXT)

/* ---- memory ordering --------------------------------------------------------------------- */
K_DECL_DEV(void K_N(fence)(void); void K_N(quiet)(void);
           void K_N(ctx_fence)(shmem_ctx_t ctx); void K_N(ctx_quiet)(shmem_ctx_t ctx);)
void K_N(pe_quiet)(const int *target_pes, size_t npes);
void K_N(ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- collectives ------------------------------------------------------------------------- */
K_DECL_DEV(void K_N(barrier_all)(void); void K_N(sync_all)(void);)
K_DECL_DEV(int K_N(team_sync)(shmem_team_t team);)
void K_N(barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
void K_N(sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* D: K_DECL_DEV for the routines that also exist in device code (broadcast, fcollect, alltoall
 * of the device types), K_DECL_HOST for host-only types. */
#define K_DECL_COLL_D(D, T, N)                                                                    \
    D(int K_N(N##_broadcast)(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
      int K_N(N##_fcollect)(shmem_team_t team, T *dest, const T *source, size_t nelems);       \
      int K_N(N##_alltoall)(shmem_team_t team, T *dest, const T *source, size_t nelems);       \
      int K_N(N##_alltoalls)(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);) \
    int K_N(N##_collect)(shmem_team_t team, T *dest, const T *source, size_t nelems);
#define K_DECL_COLL(T, N) K_DECL_COLL_D(K_DECL_DEV, T, N)
#define K_DECL_COLL_HOST(T, N) K_DECL_COLL_D(K_DECL_HOST, T, N)
KISHMEM_RMA_TYPES_DEV(K_DECL_COLL)
KISHMEM_RMA_TYPES_HOST_ONLY(K_DECL_COLL_HOST)
K_DECL_DEV(int K_N(broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
           int K_N(fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
           int K_N(alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
           int K_N(alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);)
int K_N(collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);

#define K_DECL_COLL_AS(B)                                                                         \
    void K_N(broadcast##B)(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void K_N(collect##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void K_N(fcollect##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void K_N(alltoall##B)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void K_N(alltoalls##B)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
K_DECL_COLL_AS(32)
K_DECL_COLL_AS(64)

/* Reductions and sum scans exist in device code for the device types (K_DECL_DEV). */
#define K_DECL_REDUCE(D, T, N, OP) D(int K_N(N##_##OP##_reduce)(shmem_team_t team, T *dest, const T *source, size_t nreduce);)
#define K_DECL_REDUCE_BIT(T, N) K_DECL_REDUCE(K_DECL_DEV, T, N, and) K_DECL_REDUCE(K_DECL_DEV, T, N, or) K_DECL_REDUCE(K_DECL_DEV, T, N, xor)
#define K_DECL_REDUCE_MINMAX_D(D, T, N) K_DECL_REDUCE(D, T, N, max) K_DECL_REDUCE(D, T, N, min)
#define K_DECL_REDUCE_ARITH_D(D, T, N)                                                            \
    K_DECL_REDUCE(D, T, N, sum) K_DECL_REDUCE(D, T, N, prod)                                      \
    D(int K_N(N##_sum_inscan)(shmem_team_t team, T *dest, const T *source, size_t nelems);     \
      int K_N(N##_sum_exscan)(shmem_team_t team, T *dest, const T *source, size_t nelems);)
#define K_DECL_REDUCE_MINMAX(T, N) K_DECL_REDUCE_MINMAX_D(K_DECL_DEV, T, N)
#define K_DECL_REDUCE_ARITH(T, N) K_DECL_REDUCE_ARITH_D(K_DECL_DEV, T, N)
#define K_DECL_REDUCE_MINMAX_HOST(T, N) K_DECL_REDUCE_MINMAX_D(K_DECL_HOST, T, N)
#define K_DECL_REDUCE_ARITH_HOST(T, N) K_DECL_REDUCE_ARITH_D(K_DECL_HOST, T, N)
KISHMEM_REDUCE_BIT_TYPES(K_DECL_REDUCE_BIT)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(K_DECL_REDUCE_MINMAX)
KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(K_DECL_REDUCE_MINMAX_HOST)
KISHMEM_REDUCE_MINMAX_TYPES_DEV(K_DECL_REDUCE_ARITH)
KISHMEM_REDUCE_MINMAX_TYPES_HOST_ONLY(K_DECL_REDUCE_ARITH_HOST)
KISHMEM_REDUCE_COMPLEX_TYPES(K_DECL_REDUCE_ARITH_HOST)

#define K_DECL_TOALL(T, N, OP)                                                                    \
    void K_N(N##_##OP##_to_all)(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define K_DECL_TOALL_BIT(T, N) K_DECL_TOALL(T, N, and) K_DECL_TOALL(T, N, or) K_DECL_TOALL(T, N, xor)
#define K_DECL_TOALL_MINMAX(T, N) K_DECL_TOALL(T, N, max) K_DECL_TOALL(T, N, min)
#define K_DECL_TOALL_ARITH(T, N) K_DECL_TOALL(T, N, sum) K_DECL_TOALL(T, N, prod)
KISHMEM_TOALL_BIT_TYPES(K_DECL_TOALL_BIT)
KISHMEM_TOALL_MINMAX_TYPES(K_DECL_TOALL_MINMAX)
KISHMEM_TOALL_MINMAX_TYPES(K_DECL_TOALL_ARITH)
KISHMEM_REDUCE_COMPLEX_TYPES(K_DECL_TOALL_ARITH)

/* ---- point-to-point synchronization ------------------------------------------------------ */
#define K_DECL_SYNC(T, N)                                                                         \
    K_DECL_DEV(void K_N(N##_wait_until)(T *ivar, int cmp, T cmp_value);)                       \
    K_DECL_DEV(void K_N(N##_wait_until_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    K_DECL_DEV(size_t K_N(N##_wait_until_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    K_DECL_DEV(size_t K_N(N##_wait_until_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value);) \
    K_DECL_DEV(void K_N(N##_wait_until_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    K_DECL_DEV(size_t K_N(N##_wait_until_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    K_DECL_DEV(size_t K_N(N##_wait_until_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);) \
    K_DECL_DEV(int K_N(N##_test)(T *ivar, int cmp, T cmp_value);)                              \
    K_DECL_DEV(int K_N(N##_test_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);)   \
    K_DECL_DEV(size_t K_N(N##_test_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);) \
    K_DECL_DEV(size_t K_N(N##_test_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value);) \
    K_DECL_DEV(int K_N(N##_test_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    K_DECL_DEV(size_t K_N(N##_test_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);) \
    K_DECL_DEV(size_t K_N(N##_test_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);)
KISHMEM_SYNC_TYPES(K_DECL_SYNC)
#define K_DECL_DEPR_WAIT(T, N)                                                                    \
    void K_N(N##_wait)(T *ivar, T cmp_value);
KISHMEM_DEPR_WAIT_TYPES(K_DECL_DEPR_WAIT)
/* The untyped (long) deprecated forms: C11 has generic selections and C++ overloads of these
 * names instead (kishmem/shmem_generic.h); the pshmem_ names are always declared. */
#if defined(KISHMEM_DECL_PSHMEM) || (!defined(__cplusplus) && !(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L))
void K_N(wait)(long *ivar, long cmp_value);
void K_N(wait_until)(long *ivar, int cmp, long cmp_value);
#endif

/* ---- distributed locks ------------------------------------------------------------------- */
void K_N(set_lock)(long *lock);
void K_N(clear_lock)(long *lock);
int K_N(test_lock)(long *lock);

/* ---- cache management (deprecated; no effect on cache-coherent machines) ------------------ */
void K_N(clear_cache_inv)(void);
void K_N(set_cache_inv)(void);
void K_N(clear_cache_line_inv)(void *dest);
void K_N(set_cache_line_inv)(void *dest);
void K_N(udcflush)(void);
void K_N(udcflush_line)(void *dest);

#ifdef __cplusplus
}
#endif

#undef K_N
#ifndef KISHMEM_DECL_PSHMEM
#include "kishmem/shmem_device.h"
#endif

#endif /* KISHMEM_SHMEM_DECL_H / KISHMEM_PSHMEM_DECL_H */
