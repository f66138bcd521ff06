#include "ucx.h"

#include "config.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kishmem {

namespace {
// What an operation failed on purpose returns in place of UCX's request (KISHMEM_SIM_UCX_FAIL).
const ucs_status_ptr_t kFailed = UCS_STATUS_PTR(UCS_ERR_ENDPOINT_TIMEOUT);
}  // namespace

UcxTransport::~UcxTransport() { close(); }

Status UcxTransport::open(bool thread_multiple, int nchan, void* heap, std::size_t bytes, Blob* local_blob) {
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucx_config::read(&config);
    if (st != UCS_OK) {
        warn("shmem_init", "UCX configuration: %s", ucs_status_string(st));
        return Status::transport_error;
    }
    // Atomics on one word come from this host's CPUs (load/store peers) and through UCX (the
    // rest): both must be CPU atomics, as UCX's device mode is atomic only against the NIC's own.
    if (!std::getenv("UCX_ATOMIC_MODE")) ucp_config_modify(config, "ATOMIC_MODE", "cpu");
    ucp_params_t params;
    std::memset(&params, 0, sizeof params);
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
    params.mt_workers_shared = thread_multiple ? 1 : 0;
    st = ucp_init(&params, config, &ctx_);
    ucp_config_release(config);
    if (st != UCS_OK) {
        warn("shmem_init", "ucp_init: %s", ucs_status_string(st));
        return Status::transport_error;
    }
    // Registration only (no UCP_MEM_MAP_ALLOCATE): the memory is kishmem's own, and UCX reaches
    // it where it is (cma's process_vm_readv/writev on one host, a NIC's registration across
    // hosts), making no System V or /dev/shm segment for it.
    ucp_mem_map_params_t mp;
    std::memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = heap;
    mp.length = bytes;
    st = ucp_mem_map(ctx_, &mp, &memh_);
    if (st != UCS_OK) {
        warn("shmem_init", "ucp_mem_map of the %zu-byte heap: %s", bytes, ucs_status_string(st));
        return Status::transport_error;
    }
    void* rkey = nullptr;
    size_t rkey_len = 0;
    st = ucp_rkey_pack(ctx_, memh_, &rkey, &rkey_len);
    if (st != UCS_OK) {
        warn("shmem_init", "ucp_rkey_pack: %s", ucs_status_string(st));
        return Status::transport_error;
    }
    BlobWriter out;
    out.u64(reinterpret_cast<uintptr_t>(heap)).bytes(rkey, rkey_len).u64(static_cast<uint64_t>(nchan));
    ucp_rkey_buffer_release(rkey);
    chan_.resize(static_cast<std::size_t>(nchan));
    for (Channel& c : chan_) {
        ucp_worker_params_t wp;
        std::memset(&wp, 0, sizeof wp);
        wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        wp.thread_mode = thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
        st = ucp_worker_create(ctx_, &wp, &c.worker);
        ucp_address_t* addr = nullptr;
        size_t addr_len = 0;
        if (st == UCS_OK) st = ucp_worker_get_address(c.worker, &addr, &addr_len);
        if (st != UCS_OK) {
            warn("shmem_init", "UCX worker: %s", ucs_status_string(st));
            return Status::transport_error;
        }
        out.bytes(addr, addr_len);
        ucp_worker_release_address(c.worker, addr);
    }
    *local_blob = out.take();
    return Status::ok;
}

Status UcxTransport::connect(const std::vector<Blob>& blobs, const std::vector<bool>& want) {
    for (Channel& c : chan_) c.peers.assign(blobs.size(), Peer{});
    for (size_t pe = 0; pe < blobs.size(); ++pe) {
        if (!want[pe]) continue;
        BlobReader r(blobs[pe]);
        uint64_t base = r.u64();
        Blob rkey = r.bytes();
        uint64_t nchan = r.u64();
        if (!r.ok() || nchan != chan_.size()) {
            warn("shmem_init", "PE %zu sent malformed UCX connection data (%llu channels, this PE %zu): is "
                 "KISHMEM_UCX_CHANNELS the same everywhere?", pe, static_cast<unsigned long long>(nchan), chan_.size());
            return Status::invalid;
        }
        for (Channel& c : chan_) {
            Blob addr = r.bytes();
            ucp_ep_params_t ep;
            std::memset(&ep, 0, sizeof ep);
            ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
            ep.address = reinterpret_cast<const ucp_address_t*>(addr.data());
            Peer& p = c.peers[pe];
            p.base = base;
            ucs_status_t st = r.ok() ? ucp_ep_create(c.worker, &ep, &p.ep) : UCS_ERR_INVALID_PARAM;
            if (st == UCS_OK) st = ucp_ep_rkey_unpack(p.ep, rkey.data(), &p.rkey);
            if (st != UCS_OK) {
                warn("shmem_init", "UCX endpoint to PE %zu: %s", pe, ucs_status_string(st));
                return Status::unreachable;
            }
        }
    }
    return Status::ok;
}

Status UcxTransport::wire_up(int me, const std::function<void()>& barrier) {
    auto flush_to = [&](bool higher) {
        for (Channel& c : chan_)
            for (std::size_t pe = 0; pe < c.peers.size(); ++pe) {
                Peer& p = c.peers[pe];
                if (!p.ep || (static_cast<int>(pe) > me) != higher) continue;
                ucp_request_param_t prm;
                prm.op_attr_mask = 0;
                ucs_status_ptr_t req = ucp_ep_flush_nbx(p.ep, &prm);
                if (UCS_PTR_IS_ERR(req)) return failed("connecting", static_cast<int>(pe), UCS_PTR_STATUS(req), false);
                if (req == nullptr) continue;
                ucs_status_t st;
                // this transport is not among the runtime's progress hooks yet: progress it here
                Waiter w("shmem_init", "PE %lld to accept a UCX connection", static_cast<long long>(pe));
                while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
                    progress();
                    w.spin();
                }
                ucp_request_free(req);
                if (st != UCS_OK) return failed("connecting", static_cast<int>(pe), st, false);
            }
        return Status::ok;
    };
    Status s = flush_to(true);
    barrier();  // also after a failure: the others are in it
    if (s == Status::ok) s = flush_to(false);
    barrier();  // serving the lower PEs until every PE is connected
    return s;
}

// Says that an operation failed, in the words of the routine the program called (ApiCall):
// "shmem_long_atomic_fetch_add(dest=0x.., 8 bytes, value=5, pe=1): UCX atomic to PE 1 failed".
Status UcxTransport::failed(const char* what, int pe, ucs_status_t st, bool on_purpose) const {
    char call[256], whom[32] = "";
    if (pe >= 0) std::snprintf(whom, sizeof whom, " to PE %d", pe);
    api_call_text(call, sizeof call, what);
    if (on_purpose)
        warn(call, "UCX %s%s failed: %s (failed on purpose: KISHMEM_SIM_UCX_FAIL=%s:%llu)", what, whom,
             ucs_status_string(st), env::word(fault_.kind), static_cast<unsigned long long>(fault_.nth));
    else
        warn(call, "UCX %s%s failed: %s", what, whom, ucs_status_string(st));
    return Status::transport_error;
}

// KISHMEM_SIM_UCX_FAIL: whether this operation of `kind` is the one to fail (counting those of
// the program's routines only: the runtime's own barriers do not move the count).
bool UcxTransport::due(env::UcxFail kind) {
    return __builtin_expect(fault_.on, 0) && fault_.kind == kind && kishmem_api_call.name &&
           fault_seen_.fetch_add(1, std::memory_order_relaxed) + 1 == fault_.nth;
}

Status UcxTransport::wait(ucs_status_ptr_t req, const char* what, int pe, bool on_purpose) {
    if (req == nullptr) return Status::ok;
    if (UCS_PTR_IS_ERR(req)) return failed(what, pe, UCS_PTR_STATUS(req), on_purpose);
    ucs_status_t st;
    // Every worker progresses: over tcp a peer blocked on another channel needs this PE to serve it.
    if ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        // A peer that stops serving (software RMA over tcp) is named, as in every other wait.
        Waiter w(what, "PE %lld to complete a UCX operation (is it serving its peers?)", pe);
        while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) w.spin();
    }
    ucp_request_free(req);
    return st == UCS_OK ? Status::ok : failed(what, pe, st, false);
}

// Releases a request we do not wait for; its completion is observed by flush (quiet).
Status UcxTransport::detach(ucs_status_ptr_t req, const char* what, int pe, bool on_purpose) {
    if (req == nullptr) return Status::ok;
    if (UCS_PTR_IS_ERR(req)) return failed(what, pe, UCS_PTR_STATUS(req), on_purpose);
    ucp_request_free(req);
    return Status::ok;
}

Status UcxTransport::put(int chan, int pe, std::size_t off, const void* src, std::size_t n, bool nbi) {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    Channel& c = ch(chan);
    Peer& p = c.peers[pe];
    const bool fail = due(env::UcxFail::put);
    if (!fail && mapped(pe)) {
        c.count();
        return mapped_->put(chan, pe, off, src, n, nbi);
    }
    ucs_status_ptr_t req = fail ? kFailed : ucp_put_nbx(p.ep, src, n, p.base + off, p.rkey, &prm);
    c.count();
    return nbi ? detach(req, "put", pe, fail) : wait(req, "put", pe, fail);
}

Status UcxTransport::get(int chan, int pe, std::size_t off, void* dst, std::size_t n, bool nbi) {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    Channel& c = ch(chan);
    Peer& p = c.peers[pe];
    const bool fail = due(env::UcxFail::get);
    if (!fail && mapped(pe)) {
        c.count();
        return mapped_->get(chan, pe, off, dst, n, nbi);
    }
    ucs_status_ptr_t req = fail ? kFailed : ucp_get_nbx(p.ep, dst, n, p.base + off, p.rkey, &prm);
    c.count();
    return nbi ? detach(req, "get", pe, fail) : wait(req, "get", pe, fail);
}

Status UcxTransport::ucx_amo(Channel& c, int pe, std::size_t off, ucp_atomic_op_t uop, unsigned width, uint64_t value,
                             uint64_t swap, bool fetch, uint64_t* fetched) {
    // Operands and results in the target's width (little-endian: low bytes first).  For CSWAP
    // the buffer holds the compare value and the reply buffer the new one.
    uint64_t result = uop == UCP_ATOMIC_OP_CSWAP ? swap : 0;
    ucp_request_param_t prm;
    std::memset(&prm, 0, sizeof prm);
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    prm.datatype = ucp_dt_make_contig(width);
    if (fetch) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = &result;
    }
    Peer& p = c.peers[pe];
    const bool fail = due(env::UcxFail::atomic);
    ucs_status_ptr_t req = fail ? kFailed : ucp_atomic_op_nbx(p.ep, uop, &value, 1, p.base + off, p.rkey, &prm);
    c.count();
    Status s = fetch ? wait(req, "atomic", pe, fail) : detach(req, "atomic", pe, fail);
    if (fetched) *fetched = width == 4 ? (result & 0xffffffffu) : result;
    return s;
}

Status UcxTransport::amo(int chan, int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
                         uint64_t* fetched) {
    Channel& c = ch(chan);
    if (mapped(pe)) {
        if (due(env::UcxFail::atomic)) return failed("atomic", pe, UCS_PTR_STATUS(kFailed), true);
        c.count();
        return mapped_->amo(chan, pe, off, op, width, operand, compare, fetched);
    }
    ucp_atomic_op_t uop = UCP_ATOMIC_OP_ADD;
    bool fetch = true;
    switch (op) {
        case AmoOp::fetch: uop = UCP_ATOMIC_OP_ADD; operand = 0; break;
        case AmoOp::set: uop = UCP_ATOMIC_OP_SWAP; break;
        case AmoOp::swap: uop = UCP_ATOMIC_OP_SWAP; break;
        case AmoOp::cswap: uop = UCP_ATOMIC_OP_CSWAP; break;
        case AmoOp::add: fetch = false; [[fallthrough]];
        case AmoOp::fetch_add: uop = UCP_ATOMIC_OP_ADD; break;
        case AmoOp::and_: fetch = false; [[fallthrough]];
        case AmoOp::fetch_and: uop = UCP_ATOMIC_OP_AND; break;
        case AmoOp::or_: fetch = false; [[fallthrough]];
        case AmoOp::fetch_or: uop = UCP_ATOMIC_OP_OR; break;
        case AmoOp::xor_: fetch = false; [[fallthrough]];
        case AmoOp::fetch_xor: uop = UCP_ATOMIC_OP_XOR; break;
    }
    return uop == UCP_ATOMIC_OP_CSWAP ? ucx_amo(c, pe, off, uop, width, compare, operand, true, fetched)
                                      : ucx_amo(c, pe, off, uop, width, operand, 0, fetch, fetched);
}

Status UcxTransport::fence(int chan) {
    Channel& c = ch(chan);
    if (c.idle()) return Status::ok;
    if (mapped_) mapped_->fence(chan);
    ucs_status_t st = ucp_worker_fence(c.worker);
    return st == UCS_OK ? Status::ok : Status::transport_error;
}

Status UcxTransport::quiet(int chan) {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    Channel& c = ch(chan);
    // Everything this thread issued is counted in `issued` now (its own increments precede
    // this load), so a completed flush that covers `target` covers this thread's operations.
    uint64_t target = c.issued.load(std::memory_order_acquire);
    if (c.flushed.load(std::memory_order_acquire) >= target) return Status::ok;
    // The flush is requested after `target` operations were handed to UCX: it covers them all,
    // whichever thread issued them, and so may publish `target` when it completes.
    if (mapped_) mapped_->quiet(chan);
    const bool fail = due(env::UcxFail::flush);
    Status s = wait(fail ? kFailed : ucp_worker_flush_nbx(c.worker, &prm), "flush", -1, fail);
    if (s != Status::ok) return s;
    uint64_t seen = c.flushed.load(std::memory_order_relaxed);
    while (seen < target && !c.flushed.compare_exchange_weak(seen, target, std::memory_order_release,
                                                                std::memory_order_relaxed)) {
    }
    return Status::ok;
}

void UcxTransport::progress() { progress_all(); }

std::size_t UcxTransport::progress_all() {
    std::size_t n = 0;
    for (Channel& c : chan_) n += ucp_worker_progress(c.worker);
    return n;
}

void UcxTransport::start_progress_thread() {
    progress_thread_.start([this] { return progress_all(); }, 2000, 50);
}

void UcxTransport::close() {
    progress_thread_.stop();
    for (Channel& c : chan_) {
        for (Peer& p : c.peers) {
            if (p.rkey) ucp_rkey_destroy(p.rkey);
            if (!p.ep) continue;
            ucp_request_param_t prm;
            prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
            ucs_status_ptr_t req = ucp_ep_close_nbx(p.ep, &prm);
            if (req && !UCS_PTR_IS_ERR(req)) {
                while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(c.worker);
                ucp_request_free(req);
            }
        }
        c.peers.clear();
    }
    if (memh_) ucp_mem_unmap(ctx_, memh_);
    memh_ = nullptr;
    for (Channel& c : chan_)
        if (c.worker) ucp_worker_destroy(c.worker);
    chan_.clear();
    if (ctx_) ucp_cleanup(ctx_);
    ctx_ = nullptr;
}

}  // namespace kishmem
