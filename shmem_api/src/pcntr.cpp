// shmemx_pcntr_* (a context's operation counts, rt::OpCount) and shmemx_register_gettid.
#include "check.h"

using namespace kishmem;
using namespace kishmem::api;

namespace {
// The context whose counts are asked for, and the result pointer, both checked.
kishmem_ctx* counted(const char* call, shmem_ctx_t ctx, const void* out, const char* what = "cntr_value") {
    if (!ctx_given(call, ctx)) fail_ctx(call, ctx);
    if (!out) fatal(call, "%s is NULL: pass the address to write the count(s) to", what);
    return ctx;
}
uint64_t load(const kishmem_ctx* c, rt::OpCount k) { return __atomic_load_n(&c->counts[k], __ATOMIC_ACQUIRE); }
uint64_t writes_done(const kishmem_ctx* c) { return load(c, rt::write_done); }
uint64_t reads_done(const kishmem_ctx* c) { return load(c, rt::read_now) + load(c, rt::read_later_done); }
uint64_t reads_issued(const kishmem_ctx* c) { return load(c, rt::read_now) + load(c, rt::read_later_issued); }
}  // namespace

extern "C" {

void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t* v) {
    *v = load(counted("shmemx_pcntr_get_issued_write", ctx, v), rt::write_issued);
}
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t* v) {
    *v = reads_issued(counted("shmemx_pcntr_get_issued_read", ctx, v));
}
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t* v) {
    *v = writes_done(counted("shmemx_pcntr_get_completed_write", ctx, v));
}
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t* v) {
    *v = reads_done(counted("shmemx_pcntr_get_completed_read", ctx, v));
}
void shmemx_pcntr_get_completed_target(uint64_t* v) {
    counted("shmemx_pcntr_get_completed_target", SHMEM_CTX_DEFAULT, v);
    *v = rt::target_count();
}
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t* p) {
    const kishmem_ctx* c = counted("shmemx_pcntr_get_all", ctx, p, "pcntr");
    // Completed before issued: a count read later is never below one read earlier.
    p->completed_put = writes_done(c);
    p->completed_get = reads_done(c);
    p->pending_put = load(c, rt::write_issued);
    p->pending_get = reads_issued(c);
    p->target = rt::target_count();
}

void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) { log_set_thread_id(gettid_fn); }

}  // extern "C"
