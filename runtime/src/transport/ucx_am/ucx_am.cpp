// See ucx_am.h.
#include "ucx_am.h"

#include <sched.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "../progress_thread.h"
#include "kishmem/waiter.h"

namespace kishmem {

namespace {

constexpr unsigned kReqId = 17, kRepId = 18;  // AM ids
enum class Op : uint32_t { write, read, fetch_add, compare_swap, set };

struct Req {
    Op op;
    int32_t src;       // the initiating PE
    uint32_t client;   // its client
    uint32_t pad;
    uint64_t seq;      // per (initiator, client, target), from 0
    uint64_t off, n;   // heap offset and bytes
    uint64_t operand, compare;
};
struct Rep {
    int32_t from;      // the answering PE
    uint32_t client;
    uint32_t status;   // kishmem::Status
    uint64_t seq;
    uint64_t old;      // atomics: the value before
};

struct Incoming {
    Req req;
    std::vector<char> data;
};

}  // namespace

class UcxAmClient;

struct UcxAm::Impl {
    int me = 0, npes = 0;
    std::size_t heap_bytes = 0;
    ibgda::HeapAccess* local = nullptr;
    ucp_context_h ctx = nullptr;
    ucp_worker_h worker = nullptr;
    std::vector<ucp_ep_h> eps;
    std::vector<Blob> addrs;               // every PE's worker address (connect), for endpoints made on demand
    std::mutex mu;                         // the worker and everything below
    std::vector<UcxAmClient*> clients;     // by id (nullptr once gone)
    std::vector<Incoming> incoming;        // arrived, not yet applied
    std::map<std::pair<uint64_t, uint64_t>, Incoming> early;  // ((src, client), seq) ahead of turn
    std::map<uint64_t, uint64_t> expect;   // (src, client) -> next sequence number to apply
    ProgressThread thread;
    std::atomic<uint64_t> sent{0}, served{0}, bytes{0};

    ~Impl();
    // Progresses the worker until req (what a *_nbx call returned) is complete; its status.
    ucs_status_t finish(ucs_status_ptr_t req) {
        if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
        if (!req) return UCS_OK;
        ucs_status_t st;
        while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) ucp_worker_progress(worker);
        ucp_request_free(req);
        return st;
    }
    // Sends one AM to pe and waits until UCX is done with header and data (mu held).
    Status send(int pe, unsigned id, const void* hdr, std::size_t hlen, const void* data, std::size_t n,
                std::string* why);
    // Applies whatever arrived in order, then answers (mu held); returns the requests applied.
    std::size_t serve();
    // One round of work (mu held): progress and serve.
    std::size_t pass() {
        std::size_t n = ucp_worker_progress(worker);
        return n + serve();
    }
    Status apply(const Req& r, const std::vector<char>& data, uint64_t* old, std::vector<char>* out);
    // The endpoint to pe, made now if connect() did not (mu held): a PE this one did not take
    // for off-host may still send it requests, and each one needs its answer.
    ucp_ep_h ep(int pe, std::string* why);
};

// An initiator: a HeapAccess whose operations become requests to the target PEs.
class UcxAmClient final : public ibgda::HeapAccess {
public:
    UcxAmClient(UcxAm::Impl* s, uint32_t id, LocalCopy copy)
        : s_(s), id_(id), copy_(std::move(copy)), seq_(s->npes, 0) {}
    ~UcxAmClient() override {
        std::lock_guard<std::mutex> g(s_->mu);
        s_->clients[id_] = nullptr;
    }
    Status write(int pe, std::size_t off, const void* src, std::size_t n) override {
        for (std::size_t at = 0; at < n; at += UcxAm::kChunk) {
            const std::size_t k = std::min(UcxAm::kChunk, n - at);
            tx_.resize(k);
            Status st = copy_in(tx_.data(), static_cast<const char*>(src) + at, k);
            if (st == Status::ok) st = request(pe, Op::write, off + at, k, 0, 0, tx_.data(), false);
            if (st != Status::ok) return st;
        }
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        for (std::size_t at = 0; at < n; at += UcxAm::kChunk) {
            const std::size_t k = std::min(UcxAm::kChunk, n - at);
            Status st = request(pe, Op::read, off + at, k, 0, 0, nullptr, true);
            if (st == Status::ok && rx_.size() != k) fail(pe, "a read answered with the wrong length"), st = Status::transport_error;
            if (st == Status::ok) st = copy_out(static_cast<char*>(dst) + at, rx_.data(), k);
            if (st != Status::ok) return st;
        }
        return Status::ok;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        Status st = request(pe, Op::fetch_add, off, 8, add, 0, nullptr, true);
        if (st == Status::ok) *old = old_;
        return st;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        Status st = request(pe, Op::compare_swap, off, 8, swap, compare, nullptr, true);
        if (st == Status::ok) *old = old_;
        return st;
    }
    Status atomic_set(int pe, std::size_t off, uint64_t value) override {
        return request(pe, Op::set, off, 8, value, 0, nullptr, true);
    }
    Status flush() override {
        std::unique_lock<std::mutex> g(s_->mu);
        return wait_all(g, -1);
    }
    std::string last_error() const override { return error_; }

    // Called by the reply handler (mu held).
    void answered(const Rep& r, const void* data, std::size_t n, int from) {
        ++done_;
        if (from == want_pe_ && r.seq == want_seq_) {  // the answer a read or an atomic waits for, not an earlier write's
            old_ = r.old;
            rx_.assign(static_cast<const char*>(data), static_cast<const char*>(data) + n);
        }
        if (r.status != static_cast<uint32_t>(Status::ok) && status_ == Status::ok)
            fail(from, std::string("PE ") + std::to_string(from) + " could not apply the operation to its heap (" +
                           status_name(static_cast<Status>(r.status)) + ")");
    }

private:
    Status copy_in(void* dst, const void* src, std::size_t n) {
        if (!copy_) return std::memcpy(dst, src, n), Status::ok;
        Status st = copy_(dst, src, n);
        if (st != Status::ok) fail(-1, "copying the source bytes into the message failed");
        return st;
    }
    Status copy_out(void* dst, const void* src, std::size_t n) {
        if (!copy_) return std::memcpy(dst, src, n), Status::ok;
        Status st = copy_(dst, src, n);
        if (st != Status::ok) fail(-1, "copying the bytes read into the destination failed");
        return st;
    }
    void fail(int pe, const std::string& why) {
        if (status_ != Status::ok) return;
        status_ = Status::transport_error;
        error_ = pe >= 0 && why.rfind("PE ", 0) != 0 ? "UCX to PE " + std::to_string(pe) + ": " + why : why;
    }
    // One request; with `wait`, returns once every request of this client is answered.
    Status request(int pe, Op op, uint64_t off, uint64_t n, uint64_t operand, uint64_t compare, const void* data,
                   bool wait) {
        std::unique_lock<std::mutex> g(s_->mu);
        if (status_ != Status::ok) return status_;
        std::string why;
        if (pe < 0 || pe >= s_->npes || !s_->ep(pe, &why)) {
            fail(pe, why.empty() ? "no such PE" : why);
            return status_;
        }
        Req r{op, s_->me, id_, 0, seq_[pe], off, n, operand, compare};
        const std::size_t bytes = op == Op::write ? n : 0;
        if (wait) want_pe_ = pe, want_seq_ = seq_[pe];  // before sending: send() progresses the worker
        if (s_->send(pe, kReqId, &r, sizeof r, data, bytes, &why) != Status::ok) {
            fail(pe, why);
            return status_;
        }
        ++seq_[pe];
        ++issued_;
        s_->sent.fetch_add(1, std::memory_order_relaxed);
        s_->bytes.fetch_add(bytes, std::memory_order_relaxed);
        return wait ? wait_all(g, pe) : Status::ok;
    }
    // Until every request of this client is answered (pe: the one just sent, for messages).
    // Bounded like every wait (KISHMEM_HANG_WARN / _ABORT name it): a lost answer ends the job
    // with words instead of spinning.
    Status wait_all(std::unique_lock<std::mutex>& g, int pe) {
        Waiter w("UCX active messages", "%lld of this PE's requests to be answered (the last to PE %lld)",
                 static_cast<long long>(issued_ - done_), pe);
        while (done_ < issued_ && status_ == Status::ok) {
            if (s_->pass() == 0) {  // let the service thread and the application in
                g.unlock();
                sched_yield();
                w.spin();
                g.lock();
            }
        }
        return status_;
    }

    UcxAm::Impl* s_;
    uint32_t id_;
    LocalCopy copy_;
    std::vector<uint64_t> seq_;  // next sequence number per target
    uint64_t issued_ = 0, done_ = 0;  // requests sent, answers received
    int want_pe_ = -1;           // the request a waiting call needs the answer of (target, sequence)
    uint64_t want_seq_ = 0;
    uint64_t old_ = 0;           // that answer's old value
    std::vector<char> tx_, rx_;  // a write's bytes on their way; that answer's bytes
    Status status_ = Status::ok; // sticky: the first failure
    std::string error_;
};

namespace {

ucs_status_t on_request(void* arg, const void* header, size_t hlen, void* data, size_t len,
                        const ucp_am_recv_param_t* param) {
    auto* s = static_cast<UcxAm::Impl*>(arg);
    if (hlen != sizeof(Req) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        warn("UCX active message", "PE %d dropped a malformed request (%zu header bytes)", s->me, hlen);
        return UCS_OK;
    }
    Incoming in;
    std::memcpy(&in.req, header, sizeof in.req);
    in.data.assign(static_cast<const char*>(data), static_cast<const char*>(data) + len);
    s->incoming.push_back(std::move(in));
    return UCS_OK;
}

ucs_status_t on_reply(void* arg, const void* header, size_t hlen, void* data, size_t len,
                      const ucp_am_recv_param_t*) {
    auto* s = static_cast<UcxAm::Impl*>(arg);
    Rep r;
    if (hlen != sizeof r) return UCS_OK;
    std::memcpy(&r, header, sizeof r);
    if (r.client < s->clients.size() && s->clients[r.client])
        s->clients[r.client]->answered(r, data, len, r.from);
    return UCS_OK;
}

}  // namespace

Status UcxAm::Impl::send(int pe, unsigned id, const void* hdr, std::size_t hlen, const void* data, std::size_t n,
                         std::string* why) {
    ucp_request_param_t p;
    std::memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    const ucs_status_t st = finish(ucp_am_send_nbx(eps[pe], id, hdr, hlen, data, n, &p));
    if (st == UCS_OK) return Status::ok;
    *why = std::string("sending an active message failed: ") + ucs_status_string(st);
    return Status::transport_error;
}

Status UcxAm::Impl::apply(const Req& r, const std::vector<char>& data, uint64_t* old, std::vector<char>* out) {
    switch (r.op) {
        case Op::write: return data.size() == r.n ? local->write(me, r.off, data.data(), r.n) : Status::invalid;
        case Op::read:
            out->resize(r.n);
            return local->read(me, r.off, out->data(), r.n);
        case Op::fetch_add: return local->fetch_add(me, r.off, r.operand, old);
        case Op::compare_swap: return local->compare_swap(me, r.off, r.compare, r.operand, old);
        case Op::set: return local->atomic_set(me, r.off, r.operand);
    }
    return Status::invalid;
}

std::size_t UcxAm::Impl::serve() {
    if (incoming.empty()) return 0;
    // In order per (source, client): what is ahead of its turn waits in `early`.
    std::vector<Incoming> batch;
    for (Incoming& in : incoming) {
        const uint64_t key = (static_cast<uint64_t>(in.req.src) << 32) | in.req.client;
        early.emplace(std::make_pair(key, in.req.seq), std::move(in));
    }
    incoming.clear();
    for (auto it = early.begin(); it != early.end();) {
        uint64_t& next = expect[it->first.first];
        if (it->first.second != next) {
            ++it;
            continue;
        }
        ++next;
        batch.push_back(std::move(it->second));
        it = early.erase(it);
    }
    struct Answer {
        int pe;
        Rep rep;
        std::vector<char> data;
    };
    std::vector<Answer> answers;
    bool wrote = false;
    for (Incoming& in : batch) {
        const Req& r = in.req;
        Answer a{r.src, Rep{me, r.client, 0, r.seq, 0}, {}};
        Status st = r.off > heap_bytes || r.n > heap_bytes - r.off ? Status::invalid : apply(r, in.data, &a.rep.old, &a.data);
        wrote |= r.op == Op::write;
        a.rep.status = static_cast<uint32_t>(st);
        answers.push_back(std::move(a));
    }
    // The writes are in the heap before anyone hears they are.
    Status flushed = wrote ? local->flush() : Status::ok;
    for (Answer& a : answers) {
        if (flushed != Status::ok && a.rep.status == 0) a.rep.status = static_cast<uint32_t>(flushed);
        std::string why;
        if (a.pe < 0 || a.pe >= npes || !ep(a.pe, &why)) {
            warn("UCX active message", "PE %d cannot answer PE %d: %s", me, a.pe, why.c_str());
            continue;
        }
        if (send(a.pe, kRepId, &a.rep, sizeof a.rep, a.data.data(), a.data.size(), &why) != Status::ok)
            warn("UCX active message", "PE %d cannot answer PE %d: %s (that PE's operation waits)", me, a.pe, why.c_str());
        bytes.fetch_add(a.data.size(), std::memory_order_relaxed);
    }
    served.fetch_add(batch.size(), std::memory_order_relaxed);
    return batch.size();
}

UcxAm::Impl::~Impl() {
    thread.stop();
    for (ucp_ep_h& ep : eps) {
        if (!ep) continue;
        ucp_request_param_t p;
        std::memset(&p, 0, sizeof p);
        p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        p.flags = UCP_EP_CLOSE_FLAG_FORCE;
        finish(ucp_ep_close_nbx(ep, &p));
        ep = nullptr;
    }
    if (worker) ucp_worker_destroy(worker);
    if (ctx) ucp_cleanup(ctx);
}

UcxAm::UcxAm(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UcxAm::~UcxAm() = default;

Status UcxAm::open(int me, int npes, std::size_t heap_bytes, ibgda::HeapAccess* local, std::unique_ptr<UcxAm>* out,
                   Blob* mine, std::string* why) {
    auto s = std::make_unique<Impl>();
    s->me = me;
    s->npes = npes;
    s->heap_bytes = heap_bytes;
    s->local = local;
    s->eps.assign(npes, nullptr);
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    ucp_params_t params;
    std::memset(&params, 0, sizeof params);
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_AM;
    if (st == UCS_OK) st = ucp_init(&params, config, &s->ctx);
    if (config) ucp_config_release(config);
    ucp_worker_params_t wp;
    std::memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // under mu
    if (st == UCS_OK) st = ucp_worker_create(s->ctx, &wp, &s->worker);
    const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
    } handlers[] = {{kReqId, on_request}, {kRepId, on_reply}};
    for (const auto& h : handlers) {
        ucp_am_handler_param_t hp;
        std::memset(&hp, 0, sizeof hp);
        hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG |
                        UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
        hp.id = h.id;
        hp.cb = h.cb;
        hp.arg = s.get();
        hp.flags = UCP_AM_FLAG_WHOLE_MSG;
        if (st == UCS_OK) st = ucp_worker_set_am_recv_handler(s->worker, &hp);
    }
    ucp_address_t* addr = nullptr;
    size_t addr_len = 0;
    if (st == UCS_OK) st = ucp_worker_get_address(s->worker, &addr, &addr_len);
    if (st != UCS_OK) {
        *why = std::string("UCX for active messages: ") + ucs_status_string(st);
        return Status::transport_error;
    }
    *mine = BlobWriter().bytes(addr, addr_len).take();
    ucp_worker_release_address(s->worker, addr);
    *out = std::unique_ptr<UcxAm>(new UcxAm(std::move(s)));
    return Status::ok;
}

ucp_ep_h UcxAm::Impl::ep(int pe, std::string* why) {
    if (eps[pe]) return eps[pe];
    if (pe == me || static_cast<std::size_t>(pe) >= addrs.size()) {
        *why = "no UCX endpoint to PE " + std::to_string(pe);
        return nullptr;
    }
    BlobReader r(addrs[pe]);
    Blob addr = r.bytes();
    ucp_ep_params_t p;
    std::memset(&p, 0, sizeof p);
    // No peer-failure mode: its keepalive timed endpoints out on a loaded machine (a slow peer
    // is not a dead one); the runtime's liveness watch ends the job when a peer is gone.
    p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    p.address = reinterpret_cast<const ucp_address_t*>(addr.data());
    ucs_status_t st = r.ok() && !addr.empty() ? ucp_ep_create(worker, &p, &eps[pe]) : UCS_ERR_INVALID_PARAM;
    if (st == UCS_OK) {
        // Connected before the first message: a flush completes once the endpoint's wireup has.
        ucp_request_param_t fp;
        std::memset(&fp, 0, sizeof fp);
        st = finish(ucp_ep_flush_nbx(eps[pe], &fp));
    }
    if (st == UCS_OK) return eps[pe];
    eps[pe] = nullptr;
    *why = "UCX endpoint (active messages) to PE " + std::to_string(pe) + ": " + ucs_status_string(st);
    return nullptr;
}

Status UcxAm::connect(const std::vector<Blob>& blobs, const std::vector<bool>& want, std::string* why) {
    Impl& s = *impl_;
    std::lock_guard<std::mutex> g(s.mu);
    s.addrs = blobs;
    for (int pe = 0; pe < s.npes && pe < static_cast<int>(blobs.size()); ++pe)
        if (want[pe] && pe != s.me && !s.ep(pe, why)) return Status::unreachable;
    return Status::ok;
}

void UcxAm::start() {
    Impl* s = impl_.get();
    s->thread.start(
        [s]() -> std::size_t {
            std::lock_guard<std::mutex> g(s->mu);
            return s->pass();
        },
        2000, 50);
}

void UcxAm::stop() { impl_->thread.stop(); }

std::unique_ptr<ibgda::HeapAccess> UcxAm::client(LocalCopy copy) {
    Impl& s = *impl_;
    std::lock_guard<std::mutex> g(s.mu);
    const auto id = static_cast<uint32_t>(s.clients.size());
    auto c = std::make_unique<UcxAmClient>(&s, id, std::move(copy));
    s.clients.push_back(c.get());
    return c;
}

UcxAm::Stats UcxAm::stats() const {
    return Stats{impl_->sent.load(std::memory_order_relaxed), impl_->served.load(std::memory_order_relaxed),
                 impl_->bytes.load(std::memory_order_relaxed)};
}

}  // namespace kishmem
