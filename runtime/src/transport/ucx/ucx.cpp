#include "ucx.h"

#include <cstring>

namespace kishmem {

UcxTransport::~UcxTransport() { close(); }

Status UcxTransport::open(bool thread_multiple, void* heap, std::size_t bytes, Blob* local_blob) {
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    if (st != UCS_OK) {
        warn("shmem_init", "ucp_config_read: %s", ucs_status_string(st));
        return Status::transport_error;
    }
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
    ucp_worker_params_t wp;
    std::memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    st = ucp_worker_create(ctx_, &wp, &worker_);
    if (st != UCS_OK) {
        warn("shmem_init", "ucp_worker_create: %s", ucs_status_string(st));
        return Status::transport_error;
    }
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
    ucp_address_t* addr = nullptr;
    size_t addr_len = 0;
    void* rkey = nullptr;
    size_t rkey_len = 0;
    st = ucp_worker_get_address(worker_, &addr, &addr_len);
    if (st == UCS_OK) st = ucp_rkey_pack(ctx_, memh_, &rkey, &rkey_len);
    if (st != UCS_OK) {
        warn("shmem_init", "UCX address / rkey: %s", ucs_status_string(st));
        if (addr) ucp_worker_release_address(worker_, addr);
        return Status::transport_error;
    }
    *local_blob = BlobWriter().u64(reinterpret_cast<uintptr_t>(heap)).bytes(addr, addr_len).bytes(rkey, rkey_len).take();
    ucp_worker_release_address(worker_, addr);
    ucp_rkey_buffer_release(rkey);
    return Status::ok;
}

Status UcxTransport::connect(const std::vector<Blob>& blobs, const std::vector<bool>& want) {
    peers_.assign(blobs.size(), Peer{});
    for (size_t pe = 0; pe < blobs.size(); ++pe) {
        if (!want[pe]) continue;
        BlobReader r(blobs[pe]);
        uint64_t base = r.u64();
        Blob addr = r.bytes(), rkey = r.bytes();
        if (!r.at_end()) {
            warn("shmem_init", "malformed UCX connection data from PE %zu", pe);
            return Status::invalid;
        }
        ucp_ep_params_t ep;
        std::memset(&ep, 0, sizeof ep);
        ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        ep.address = reinterpret_cast<const ucp_address_t*>(addr.data());
        Peer& p = peers_[pe];
        p.base = base;
        ucs_status_t st = ucp_ep_create(worker_, &ep, &p.ep);
        if (st == UCS_OK) st = ucp_ep_rkey_unpack(p.ep, rkey.data(), &p.rkey);
        if (st != UCS_OK) {
            warn("shmem_init", "UCX endpoint to PE %zu: %s", pe, ucs_status_string(st));
            return Status::unreachable;
        }
    }
    return Status::ok;
}

Status UcxTransport::wait(ucs_status_ptr_t req, const char* what, int pe) {
    if (req == nullptr) return Status::ok;
    if (UCS_PTR_IS_ERR(req)) {
        warn(what, "UCX operation to PE %d failed: %s", pe, ucs_status_string(UCS_PTR_STATUS(req)));
        return Status::transport_error;
    }
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) ucp_worker_progress(worker_);
    ucp_request_free(req);
    if (st != UCS_OK) {
        warn(what, "UCX operation to PE %d failed: %s", pe, ucs_status_string(st));
        return Status::transport_error;
    }
    return Status::ok;
}

// Releases a request we do not wait for; its completion is observed by flush (quiet).
static Status detach(ucs_status_ptr_t req, const char* what, int pe) {
    if (req == nullptr) return Status::ok;
    if (UCS_PTR_IS_ERR(req)) {
        warn(what, "UCX operation to PE %d failed: %s", pe, ucs_status_string(UCS_PTR_STATUS(req)));
        return Status::transport_error;
    }
    ucp_request_free(req);
    return Status::ok;
}

Status UcxTransport::put(int pe, std::size_t off, const void* src, std::size_t n, bool nbi) {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    Peer& p = peers_[pe];
    ucs_status_ptr_t req = ucp_put_nbx(p.ep, src, n, p.base + off, p.rkey, &prm);
    return nbi ? detach(req, "put", pe) : wait(req, "put", pe);
}

Status UcxTransport::get(int pe, std::size_t off, void* dst, std::size_t n, bool nbi) {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    Peer& p = peers_[pe];
    ucs_status_ptr_t req = ucp_get_nbx(p.ep, dst, n, p.base + off, p.rkey, &prm);
    return nbi ? detach(req, "get", pe) : wait(req, "get", pe);
}

Status UcxTransport::amo(int pe, std::size_t off, AmoOp op, unsigned width, uint64_t operand, uint64_t compare,
                         uint64_t* fetched) {
    ucp_atomic_op_t uop = UCP_ATOMIC_OP_ADD;
    bool fetch = true;
    switch (op) {
        case AmoOp::fetch: uop = UCP_ATOMIC_OP_OR; operand = 0; break;
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
    // Operands and results in the target's width (little-endian: low bytes first).
    uint64_t value = operand, result = 0;
    if (op == AmoOp::cswap) {  // UCX: buffer holds the compare value, reply buffer the new one
        value = compare;
        result = operand;
    }
    ucp_request_param_t prm;
    std::memset(&prm, 0, sizeof prm);
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    prm.datatype = ucp_dt_make_contig(width);
    if (fetch) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = &result;
    }
    Peer& p = peers_[pe];
    ucs_status_ptr_t req = ucp_atomic_op_nbx(p.ep, uop, &value, 1, p.base + off, p.rkey, &prm);
    Status s = fetch ? wait(req, "atomic", pe) : detach(req, "atomic", pe);
    if (fetched) *fetched = width == 4 ? (result & 0xffffffffu) : result;
    return s;
}

Status UcxTransport::fence() {
    ucs_status_t st = ucp_worker_fence(worker_);
    return st == UCS_OK ? Status::ok : Status::transport_error;
}

Status UcxTransport::quiet() {
    ucp_request_param_t prm;
    prm.op_attr_mask = 0;
    return wait(ucp_worker_flush_nbx(worker_, &prm), "quiet", -1);
}

void UcxTransport::progress() {
    if (worker_) ucp_worker_progress(worker_);
}

void UcxTransport::close() {
    if (!worker_) return;
    for (Peer& p : peers_) {
        if (p.rkey) ucp_rkey_destroy(p.rkey);
        if (p.ep) {
            ucp_request_param_t prm;
            prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
            ucs_status_ptr_t req = ucp_ep_close_nbx(p.ep, &prm);
            if (req && !UCS_PTR_IS_ERR(req)) {
                while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(worker_);
                ucp_request_free(req);
            }
        }
    }
    peers_.clear();
    if (memh_) ucp_mem_unmap(ctx_, memh_);
    memh_ = nullptr;
    ucp_worker_destroy(worker_);
    worker_ = nullptr;
    if (ctx_) ucp_cleanup(ctx_);
    ctx_ = nullptr;
}

}  // namespace kishmem
