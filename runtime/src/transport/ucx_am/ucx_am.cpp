// See ucx_am.h.
#include "ucx_am.h"

#include <sched.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "../progress_thread.h"
#include "../ucx/config.h"
#include "kishmem/env.h"
#include "kishmem/waiter.h"

namespace kishmem {

namespace {

constexpr unsigned kReqId = 17, kRepId = 18;  // AM ids
enum class Op : uint32_t { write, read, fetch_add, compare_swap, set };

const char* op_name(Op op) {
    switch (op) {
        case Op::write: return "write";
        case Op::read: return "read";
        case Op::fetch_add: return "fetch-add";
        case Op::compare_swap: return "compare-swap";
        case Op::set: return "atomic set";
    }
    return "?";
}

struct Req {
    Op op;
    int32_t src;       // the initiating PE
    uint32_t client;   // its client
    uint32_t resent;   // 0: first sending; else which resending
    uint64_t seq;      // per (initiator, client, target), from 0
    uint64_t acked;    // every request of this (initiator, client) to the target below it is answered there
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

// An answer as sent, kept by the target until the initiator's `acked` passes it: a request that
// arrives again (its answer lost, or the request resent) is answered again, never applied again.
struct Answer {
    Rep rep;
    std::vector<char> data;
};

// What a target keeps per (initiator, client).
struct Stream {
    uint64_t expect = 0;                  // next sequence number to apply
    std::map<uint64_t, Incoming> early;   // arrived ahead of its turn
    std::map<uint64_t, Answer> answers;   // sent, not yet acknowledged
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
    std::map<uint64_t, Stream> streams;    // by (src << 32 | client)
    ProgressThread thread;
    std::atomic<uint64_t> sent{0}, served{0}, bytes{0}, resent{0}, repeated{0}, reconnects{0};
    std::vector<unsigned> ep_gen;  // per PE: how often its endpoint was made anew
    std::vector<ucp_ep_h> retired; // endpoints set aside by reconnect(), closed with the others
    // KISHMEM_SIM_AM_FAULT: one message of this PE dropped, sent twice or held back on purpose
    env::Fault<env::AmFault> fault;
    uint64_t requests_out = 0, answers_out = 0;  // first sendings, counted for the fault
    struct Held {
        int pe;
        unsigned id;
        std::vector<char> hdr, data;
    };
    std::vector<Held> held;  // delay_request: sent after the next message, or when nothing moves
    int broken_pe = -1;      // break_endpoint: every message to this PE is lost ...
    unsigned broken_gen = 0; // ... until its endpoint is made anew

    ~Impl();
    // Progresses the worker until req (what a *_nbx call returned: `what` to PE pe) is complete;
    // its status.  Bounded by the hang bounds (KISHMEM_HANG_WARN / _ABORT), which name it: the
    // caller holds mu, so this wait cannot run the application's progress as a Waiter does.
    ucs_status_t finish(ucs_status_ptr_t req, const char* what, int pe) {
        if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
        if (!req) return UCS_OK;
        ucs_status_t st;
        const auto start = std::chrono::steady_clock::now();
        bool warned = false;
        for (unsigned spins = 1; (st = ucp_request_check_status(req)) == UCS_INPROGRESS; ++spins) {
            ucp_worker_progress(worker);
            if (spins % 4096 != 0) continue;
            const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const WaitPolicy& w = wait_policy();
            if (!hang_due(waited, warned, w.hang_warn, w.hang_abort)) continue;
            char awaited[160];
            std::snprintf(awaited, sizeof awaited, "the completion of %s to PE %d", what, pe);
            hang_bounds("UCX active messages", awaited, waited, &warned);
        }
        ucp_request_free(req);
        return st;
    }
    // Sends one AM to pe and waits until UCX is done with header and data (mu held).
    Status send(int pe, unsigned id, const void* hdr, std::size_t hlen, const void* data, std::size_t n,
                std::string* why);
    // send() of a first sending (`first`: not a resending), where KISHMEM_SIM_AM_FAULT may drop
    // it, send it twice or hold it back.
    Status send_first(int pe, unsigned id, const void* hdr, std::size_t hlen, const void* data, std::size_t n,
                      std::string* why);
    // Sends what delay_request held back (mu held).
    void release_held();
    // Sets the endpoint to pe aside and makes a new one on its next use (mu held): after requests
    // or answers to pe went missing twice over, the connection itself is suspect.
    void reconnect(int pe, const char* why);
    // Applies whatever arrived in order, then answers (mu held); returns the requests applied.
    std::size_t serve();
    // One round of work (mu held): progress and serve.
    std::size_t pass() {
        std::size_t n = ucp_worker_progress(worker);
        n += serve();
        if (n == 0 && !held.empty()) release_held(), ++n;
        return n;
    }
    Status apply(const Req& r, const std::vector<char>& data, uint64_t* old, std::vector<char>* out);
    // The endpoint to pe, made now if connect() did not (mu held): a PE this one did not take
    // for off-host may still send it requests, and each one needs its answer.
    ucp_ep_h ep(int pe, std::string* why);
};

// An initiator: a HeapAccess whose operations become requests to the target PEs.
//
// Exactly once: every request carries (client, sequence number per target); the target applies
// each sequence number once, in order, and keeps its answer until the client acknowledges it
// (Req::acked). A request not answered within a while (kResendAfter, doubling) is sent again,
// write bytes included, and a second answer to one request is ignored: a lost request or answer
// costs time, never an operation lost or applied twice.
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
            std::vector<char> bytes(k);
            Status st = copy_in(bytes.data(), static_cast<const char*>(src) + at, k);
            if (st == Status::ok) st = request(pe, Op::write, off + at, k, 0, 0, std::move(bytes), false);
            if (st != Status::ok) return st;
        }
        return Status::ok;
    }
    Status read(int pe, std::size_t off, void* dst, std::size_t n) override {
        for (std::size_t at = 0; at < n; at += UcxAm::kChunk) {
            const std::size_t k = std::min(UcxAm::kChunk, n - at);
            Status st = request(pe, Op::read, off + at, k, 0, 0, {}, true);
            if (st == Status::ok && rx_.size() != k) fail(pe, "a read answered with the wrong length"), st = Status::transport_error;
            if (st == Status::ok) st = copy_out(static_cast<char*>(dst) + at, rx_.data(), k);
            if (st != Status::ok) return st;
        }
        return Status::ok;
    }
    Status fetch_add(int pe, std::size_t off, uint64_t add, uint64_t* old) override {
        Status st = request(pe, Op::fetch_add, off, 8, add, 0, {}, true);
        if (st == Status::ok) *old = old_;
        return st;
    }
    Status compare_swap(int pe, std::size_t off, uint64_t compare, uint64_t swap, uint64_t* old) override {
        Status st = request(pe, Op::compare_swap, off, 8, swap, compare, {}, true);
        if (st == Status::ok) *old = old_;
        return st;
    }
    Status atomic_set(int pe, std::size_t off, uint64_t value) override {
        return request(pe, Op::set, off, 8, value, 0, {}, true);
    }
    Status flush() override {
        std::unique_lock<std::mutex> g(s_->mu);
        return wait_all(g, -1);
    }
    std::string last_error() const override { return error_; }

    // Called by the reply handler (mu held).
    void answered(const Rep& r, const void* data, std::size_t n, int from) {
        auto it = pending_.find({from, r.seq});
        if (it == pending_.end()) {  // answered before: a resent request's second answer
            s_->repeated.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        pending_bytes_ -= it->second.data->size();
        pending_.erase(it);
        last_answer_ = Clock::now();
        if (from == want_pe_ && r.seq == want_seq_) {  // the answer a read or an atomic waits for, not an earlier write's
            old_ = r.old;
            rx_.assign(static_cast<const char*>(data), static_cast<const char*>(data) + n);
        }
        if (r.status != static_cast<uint32_t>(Status::ok) && status_ == Status::ok)
            fail(from, std::string("PE ") + std::to_string(from) + " could not apply the operation to its heap (" +
                           status_name(static_cast<Status>(r.status)) + ")");
    }

private:
    using Clock = std::chrono::steady_clock;
    // The first resending after this long without any answer; each further one waits twice as
    // long, up to kResendMost (UCX is reliable: a resending means a message went missing).
    static constexpr double kResendAfter = 1.0, kResendMost = 8.0;
    // Write bytes kept for resending: past this, a write first waits for the answers it has.
    static constexpr std::size_t kPendingBytesMost = 64u << 20;
    // A request until its answer; its bytes shared with a sending under way (an answer may come,
    // and erase the entry, while send() progresses the worker).
    struct Pending {
        Req req;
        std::shared_ptr<const std::vector<char>> data;  // a write's bytes
    };

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
    // Every request of this client to pe below this sequence number is answered.
    uint64_t acked(int pe) const {
        auto it = pending_.lower_bound({pe, 0});
        return it != pending_.end() && it->first.first == pe ? it->first.second : seq_[pe];
    }
    // One request; with `wait`, returns once every request of this client is answered.
    Status request(int pe, Op op, uint64_t off, uint64_t n, uint64_t operand, uint64_t compare, std::vector<char> data,
                   bool wait) {
        std::unique_lock<std::mutex> g(s_->mu);
        if (status_ != Status::ok) return status_;
        if (pending_bytes_ + data.size() > kPendingBytesMost) {
            Status st = wait_all(g, pe);
            if (st != Status::ok) return st;
        }
        std::string why;
        if (pe < 0 || pe >= s_->npes || !s_->ep(pe, &why)) {
            fail(pe, why.empty() ? "no such PE" : why);
            return status_;
        }
        const Pending p{Req{op, s_->me, id_, 0, seq_[pe], acked(pe), off, n, operand, compare},
                        std::make_shared<const std::vector<char>>(std::move(data))};
        if (pending_.empty()) last_answer_ = Clock::now();
        if (wait) want_pe_ = pe, want_seq_ = seq_[pe];  // before sending: send() progresses the worker
        pending_.emplace(std::make_pair(pe, seq_[pe]), p);  // before sending: its answer may come in send()
        pending_bytes_ += p.data->size();
        ++seq_[pe];
        if (s_->send_first(pe, kReqId, &p.req, sizeof p.req, p.data->data(), p.data->size(), &why) != Status::ok) {
            fail(pe, why);
            return status_;
        }
        s_->sent.fetch_add(1, std::memory_order_relaxed);
        s_->bytes.fetch_add(n * (op == Op::write), std::memory_order_relaxed);
        return wait ? wait_all(g, pe) : Status::ok;
    }
    // Sends every unanswered request again, in order (mu held).
    void resend() {
        const double waited = std::chrono::duration<double>(Clock::now() - last_answer_).count();
        const int first_pe = pending_.begin()->first.first;
        const uint64_t first_seq = pending_.begin()->first.second;
        const std::size_t count = pending_.size();
        std::vector<std::pair<int, Pending>> again;  // a copy: answers may erase entries while send() progresses
        for (auto& [key, p] : pending_) {
            p.req.resent += 1;
            p.req.acked = acked(key.first);
            again.emplace_back(key.first, p);
        }
        // A target that answered nothing through two resendings: its endpoint is made anew (the
        // target does so for its answers at the third).
        for (std::size_t i = 0; i < again.size(); ++i)
            if (again[i].second.req.resent == 2 && (i == 0 || again[i - 1].first != again[i].first))
                s_->reconnect(again[i].first, "requests to it went missing");
        for (const auto& [pe, p] : again) {
            std::string why;
            if (s_->send(pe, kReqId, &p.req, sizeof p.req, p.data->data(), p.data->size(), &why) != Status::ok) {
                fail(pe, why);
                return;
            }
            s_->resent.fetch_add(1, std::memory_order_relaxed);
        }
        if (!warned_resend_) {
            warned_resend_ = true;
            warn("UCX active messages", "PE %d: no answer for %.1f s to %zu request(s) (the first: PE %d, number %" PRIu64
                 "): sent again (a request or its answer went missing; each is applied once)", s_->me, waited,
                 count, first_pe, first_seq);
        }
        resend_after_ = std::min(resend_after_ * 2, kResendMost);
        last_answer_ = Clock::now();
    }
    // The oldest unanswered request, in words, for the hang messages.
    static void describe_oldest(const void* arg, char* out, unsigned long n) {
        auto* c = static_cast<const UcxAmClient*>(arg);
        std::lock_guard<std::mutex> g(c->s_->mu);
        if (c->pending_.empty()) return void(std::snprintf(out, n, "none left"));
        const Pending& p = c->pending_.begin()->second;
        std::snprintf(out, n, "the oldest: a %s of %" PRIu64 " bytes at heap offset 0x%" PRIx64 " of PE %d (request %" PRIu64
                      ", sent %u time(s))", op_name(p.req.op), p.req.n, p.req.off, c->pending_.begin()->first.first,
                      p.req.seq, p.req.resent + 1);
    }
    // Until every request of this client is answered (pe: the one just sent, for messages).
    // Bounded like every wait (KISHMEM_HANG_WARN / _ABORT name it): answers that never come end
    // the job with words naming the oldest request instead of spinning.
    Status wait_all(std::unique_lock<std::mutex>& g, int pe) {
        Waiter w("UCX active messages", "%lld of this PE's requests to be answered (the last to PE %lld)",
                 static_cast<long long>(pending_.size()), pe);
        w.set_detail(describe_oldest, this);
        resend_after_ = kResendAfter;
        while (!pending_.empty() && status_ == Status::ok) {
            if (s_->pass() != 0) continue;
            if (std::chrono::duration<double>(Clock::now() - last_answer_).count() > resend_after_) {
                resend();
                continue;
            }
            g.unlock();  // let the service thread and the application in
            sched_yield();
            w.spin();
            g.lock();
        }
        return status_;
    }

    UcxAm::Impl* s_;
    uint32_t id_;
    LocalCopy copy_;
    std::vector<uint64_t> seq_;  // next sequence number per target
    std::map<std::pair<int, uint64_t>, Pending> pending_;  // unanswered, by (target, sequence number)
    std::size_t pending_bytes_ = 0;
    Clock::time_point last_answer_{};
    double resend_after_ = kResendAfter;
    bool warned_resend_ = false;
    int want_pe_ = -1;           // the request a waiting call needs the answer of (target, sequence)
    uint64_t want_seq_ = 0;
    uint64_t old_ = 0;           // that answer's old value
    std::vector<char> rx_;       // that answer's bytes
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
    if (pe == broken_pe && ep_gen[pe] == broken_gen) return Status::ok;  // KISHMEM_SIM_AM_FAULT=break_endpoint
    ucp_request_param_t p;
    std::memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    const ucp_ep_h e = ep(pe, why);  // made anew after reconnect()
    if (!e) return Status::unreachable;
    const ucs_status_t st = finish(ucp_am_send_nbx(e, id, hdr, hlen, data, n, &p), id == kReqId ? "a request" : "an answer", pe);
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

Status UcxAm::Impl::send_first(int pe, unsigned id, const void* hdr, std::size_t hlen, const void* data, std::size_t n,
                               std::string* why) {
    const bool request = id == kReqId;
    const uint64_t nth = ++(request ? requests_out : answers_out);
    using F = env::AmFault;
    if (fault.here(me) && fault.kind == F::break_endpoint && request && fault.nth == nth) {
        debug("KISHMEM_SIM_AM_FAULT: the endpoint of PE %d to PE %d is broken on purpose from request %" PRIu64 " on", me, pe, nth);
        broken_pe = pe, broken_gen = ep_gen[pe];
    }
    const bool due = fault.here(me) && fault.nth == nth &&
                     (request ? fault.kind == F::drop_request || fault.kind == F::dup_request || fault.kind == F::delay_request
                              : fault.kind == F::drop_answer || fault.kind == F::dup_answer);
    if (!due) {
        Status st = send(pe, id, hdr, hlen, data, n, why);
        if (st == Status::ok && !held.empty()) release_held();  // what was held back comes after this
        return st;
    }
    debug("KISHMEM_SIM_AM_FAULT: %s %" PRIu64 " of PE %d to PE %d %s on purpose", request ? "request" : "answer", nth, me, pe,
          fault.kind == F::drop_request || fault.kind == F::drop_answer ? "dropped"
          : fault.kind == F::delay_request                            ? "held back"
                                                                      : "sent twice");
    if (fault.kind == F::drop_request || fault.kind == F::drop_answer) return Status::ok;
    if (fault.kind == F::delay_request) {
        const char* h = static_cast<const char*>(hdr);
        const char* d = static_cast<const char*>(data);
        held.push_back(Held{pe, id, std::vector<char>(h, h + hlen), std::vector<char>(d, d + n)});
        return Status::ok;
    }
    Status st = send(pe, id, hdr, hlen, data, n, why);
    return st == Status::ok ? send(pe, id, hdr, hlen, data, n, why) : st;
}

void UcxAm::Impl::release_held() {
    std::vector<Held> out;
    out.swap(held);
    for (const Held& h : out) {
        std::string why;
        if (send(h.pe, h.id, h.hdr.data(), h.hdr.size(), h.data.data(), h.data.size(), &why) != Status::ok)
            warn("UCX active message", "PE %d: a message held back on purpose could not be sent: %s", me, why.c_str());
    }
}

std::size_t UcxAm::Impl::serve() {
    if (incoming.empty()) return 0;
    struct Out {
        int pe;
        bool first;  // a first answer (not one given again)
        Answer a;
    };
    struct Applied {
        Stream* st;
        uint64_t seq;
        int src;
    };
    std::vector<Out> out;
    std::vector<Applied> applied;  // new answers
    std::vector<Incoming> arrived;
    arrived.swap(incoming);
    // Per (source, client): a sequence number already applied is answered again from what was
    // kept (never applied twice); one ahead of its turn waits in `early`; the stream's answers
    // below the source's `acked` are dropped (the source has them).
    bool wrote = false;
    for (Incoming& in : arrived) {
        Stream& st = streams[(static_cast<uint64_t>(static_cast<uint32_t>(in.req.src)) << 32) | in.req.client];
        st.answers.erase(st.answers.begin(), st.answers.lower_bound(in.req.acked));
        if (in.req.seq < st.expect) {
            // Sent a third time although answered: the answers do not get through.
            if (in.req.resent == 3) reconnect(in.req.src, "answers to it went missing");
            auto it = st.answers.find(in.req.seq);
            if (it != st.answers.end()) out.push_back(Out{in.req.src, false, it->second});
            repeated.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        const uint64_t seq = in.req.seq;
        if (!st.early.emplace(seq, std::move(in)).second) repeated.fetch_add(1, std::memory_order_relaxed);
        for (auto it = st.early.begin(); it != st.early.end() && it->first == st.expect; it = st.early.erase(it)) {
            const Req& r = it->second.req;
            Answer a{Rep{me, r.client, 0, r.seq, 0}, {}};
            const Status s = r.off > heap_bytes || r.n > heap_bytes - r.off ? Status::invalid
                                                                            : apply(r, it->second.data, &a.rep.old, &a.data);
            a.rep.status = static_cast<uint32_t>(s);
            wrote |= r.op == Op::write;
            st.answers[r.seq] = std::move(a);
            applied.push_back(Applied{&st, r.seq, r.src});
            ++st.expect;
        }
    }
    // The writes are in the heap before anyone hears they are.
    const Status flushed = wrote ? local->flush() : Status::ok;
    for (const Applied& ap : applied) {  // (kept for answering again until the source acknowledges them)
        auto it = ap.st->answers.find(ap.seq);
        if (it == ap.st->answers.end()) continue;
        if (flushed != Status::ok && it->second.rep.status == 0) it->second.rep.status = static_cast<uint32_t>(flushed);
        out.push_back(Out{ap.src, true, it->second});
    }
    // Counted before the answers go: a source that has its answer may go on through a barrier to
    // a PE that then reads this count (shmemx_nic_stats' checks), and must find its requests there.
    served.fetch_add(applied.size(), std::memory_order_relaxed);
    for (Out& o : out) {
        Answer& a = o.a;
        std::string why;
        if (o.pe < 0 || o.pe >= npes || !ep(o.pe, &why)) {
            warn("UCX active message", "PE %d cannot answer PE %d: %s", me, o.pe, why.c_str());
            continue;
        }
        const Status s = o.first ? send_first(o.pe, kRepId, &a.rep, sizeof a.rep, a.data.data(), a.data.size(), &why)
                                 : send(o.pe, kRepId, &a.rep, sizeof a.rep, a.data.data(), a.data.size(), &why);
        if (s != Status::ok)
            warn("UCX active message", "PE %d cannot answer PE %d: %s (that PE's operation waits)", me, o.pe, why.c_str());
        bytes.fetch_add(a.data.size(), std::memory_order_relaxed);
    }
    return arrived.size();
}

UcxAm::Impl::~Impl() {
    thread.stop();
    for (std::size_t i = 0; i < eps.size() + retired.size(); ++i) {
        ucp_ep_h& ep = i < eps.size() ? eps[i] : retired[i - eps.size()];
        if (!ep) continue;
        ucp_request_param_t p;
        std::memset(&p, 0, sizeof p);
        p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        p.flags = UCP_EP_CLOSE_FLAG_FORCE;
        finish(ucp_ep_close_nbx(ep, &p), "closing an endpoint", i < eps.size() ? static_cast<int>(i) : -1);
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
    s->ep_gen.assign(npes, 0);
    if (const auto f = env::sim_am_fault(); f.here(me)) s->fault = f;  // tests
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucx_config::read(&config);
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

void UcxAm::Impl::reconnect(int pe, const char* why) {
    // The old endpoint is set aside, not closed: closing it by force would break the peer's side
    // of the connection (UCX ends a process whose endpoint fails without an error handler).
    if (eps[pe]) retired.push_back(eps[pe]);
    eps[pe] = nullptr;
    ++ep_gen[pe];
    reconnects.fetch_add(1, std::memory_order_relaxed);
    warn("UCX active messages", "PE %d: the endpoint to PE %d is made anew (%s)", me, pe, why);
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
        st = finish(ucp_ep_flush_nbx(eps[pe], &fp), "connecting (flushing a new endpoint)", pe);
    }
    if (st == UCS_OK) return eps[pe];
    eps[pe] = nullptr;
    *why = "UCX endpoint (active messages) to PE " + std::to_string(pe) + ": " + ucs_status_string(st);
    return nullptr;
}

Status UcxAm::connect(const std::vector<Blob>& blobs, const std::vector<bool>& want, std::string* why,
                      const std::function<void()>& barrier) {
    Impl& s = *impl_;
    // With a barrier, no two PEs connect to each other at once: the higher PEs first, then the
    // barrier (outside the lock, so that the service's thread or the barrier's progress serves
    // the peers meanwhile), then the lower ones and the barrier again (UcxTransport::wire_up
    // says why).
    auto connect_to = [&](bool higher) {
        std::lock_guard<std::mutex> g(s.mu);
        s.addrs = blobs;
        for (int pe = 0; pe < s.npes && pe < static_cast<int>(blobs.size()); ++pe)
            if (want[pe] && pe != s.me && (!barrier || (pe > s.me) == higher) && !s.ep(pe, why)) return Status::unreachable;
        return Status::ok;
    };
    Status st = connect_to(true);
    if (!barrier) return st;
    barrier();  // also after a failure: the others are in it
    if (st == Status::ok) st = connect_to(false);
    barrier();  // serving the lower PEs until every PE is connected
    return st;
}

void UcxAm::progress() {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->pass();
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
                 impl_->bytes.load(std::memory_order_relaxed), impl_->resent.load(std::memory_order_relaxed),
                 impl_->repeated.load(std::memory_order_relaxed), impl_->reconnects.load(std::memory_order_relaxed)};
}

}  // namespace kishmem
