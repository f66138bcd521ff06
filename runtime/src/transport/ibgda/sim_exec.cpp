// Software NIC: consuming one QP's WQEs, checking and executing them, writing CQEs.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "kishmem/device/ibgda/mlx5_cqe.h"
#include "kishmem/device/ibgda/mlx5_defs.h"
#include "sim_nic.h"
#include "wqe_decode.h"

namespace kishmem::ibgda {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

bool is_atomic(uint8_t op) { return op == mlx5::kOpAtomicCs || op == mlx5::kOpAtomicFa; }

// [addr, addr + n) inside [base, base + bytes), without overflow.
bool inside(uint64_t addr, uint64_t n, uint64_t base, uint64_t bytes) {
    return addr >= base && addr - base <= bytes && n <= bytes - (addr - base);
}

}  // namespace

// Consumes up to max_wqes_per_pass WQEs of q; returns how many.
std::size_t SimNic::service(Qp& q) {
    uint8_t* base = static_cast<uint8_t*>(q.mem.ptr);
    uint32_t* dbrec = reinterpret_cast<uint32_t*>(base + (std::size_t{mlx5::kSendWqeBB} << q.log_bbs));
    uint64_t* db = reinterpret_cast<uint64_t*>(static_cast<uint8_t*>(q.uar.ptr) + kUarDoorbellOffset);
    const uint64_t ring = __atomic_load_n(db, __ATOMIC_RELAXED);
    if (ring != q.last_doorbell) {
        q.last_doorbell = ring;
        n_.doorbells.fetch_add(1, std::memory_order_relaxed);
    }
    // The doorbell record is the producer index the NIC trusts (16 bits, big-endian); the
    // acquire pairs with the poster's fence between its WQE stores and this word.
    const uint32_t pi = mlx5::be32(__atomic_load_n(&dbrec[mlx5::kSndDbr], __ATOMIC_ACQUIRE)) & 0xffffu;
    uint32_t avail = (pi - q.ci) & 0xffffu;
    if (avail == 0) return 0;
    std::size_t done = 0;
    if (avail > (1u << q.log_bbs)) {
        // More posted than the ring holds: the producer index is garbage. One error (none if
        // the QP already failed), and the NIC resynchronizes on that index.
        if (q.state == QpState::rts) {
            if (!cq_has_room(*q.cq)) return 0;
            fail(q, 0, static_cast<uint16_t>(q.ci), mlx5::kSyndLocalQpOpErr,
                 format("doorbell record producer index %u is %u BBs ahead of the consumer; the ring holds %u", pi,
                        avail, 1u << q.log_bbs));
        }
        q.ci += avail;
        return 1;
    }
    while (avail != 0 && done < opt_.max_wqes_per_pass) {
        const uint32_t before = q.ci;
        const Step s = q.state == QpState::error ? flush_one(q, avail) : step(q, avail);
        if (s != Step::done) break;
        ++done;
        avail -= q.ci - before;
    }
    if (dirty_) {  // unsignaled writes still reach their target without a later CQE
        heap_->flush();
        dirty_ = false;
    }
    return done;
}

SimNic::Step SimNic::step(Qp& q, uint32_t avail) {
    const uint8_t* ring = static_cast<const uint8_t*>(q.mem.ptr);
    const uint16_t idx = static_cast<uint16_t>(q.ci);
    WqeBytes bytes;
    DecodedWqe d;
    std::string why;
    uint8_t synd = 0;
    const bool inject = fault_due();
    if (inject && opt_.fault.kind == NicFaultKind::malformed) {
        // As if the poster had written it so: a nonzero opmod, which the decoder refuses.
        uint8_t* ctrl = const_cast<uint8_t*>(detail::slot(ring, q.log_bbs, q.ci));
        __atomic_store_n(&ctrl[0], static_cast<uint8_t>(ctrl[0] | 0x80), __ATOMIC_RELAXED);
    }
    if (!decode_wqe(ring, q.log_bbs, q.ci, avail, q.qpn, &bytes, &d)) {
        synd = d.fault == WqeFault::too_long ? mlx5::kSyndLocalLengthErr : mlx5::kSyndLocalQpOpErr;
        why = format("malformed WQE (%s): opcode 0x%02x opmod 0x%02x ds %u wqe_index %u qpn 0x%x", wqe_fault_name(d.fault),
                     d.opcode, d.opmod, d.ds, d.wqe_idx, d.qpn);
    } else {
        synd = check(q, d, &why);
    }
    if (inject && synd == 0 && opt_.fault.kind != NicFaultKind::malformed) {
        const bool access = opt_.fault.kind == NicFaultKind::remote_access;
        synd = access ? mlx5::kSyndRemoteAccessErr : mlx5::kSyndTransportRetryExcErr;
        why = format("work request %" PRIu64 " failed on purpose (KISHMEM_SIM_NIC_FAIL=%s:%" PRIu64 ")", wrs_ + 1,
                     access ? "remote_access" : "retry_exceeded", opt_.fault.nth);
    } else if (inject && opt_.fault.kind == NicFaultKind::malformed) {
        why += format(" (work request %" PRIu64 " corrupted on purpose: KISHMEM_SIM_NIC_FAIL=malformed:%" PRIu64 ")",
                      wrs_ + 1, opt_.fault.nth);
    }
    const bool need_cqe = synd != 0 || d.signaled();
    if (need_cqe && !cq_has_room(*q.cq)) {
        n_.cq_full_stalls.fetch_add(1, std::memory_order_relaxed);
        return Step::stalled;  // nothing consumed; the same WQE is read again next pass
    }
    uint32_t byte_cnt = 0;
    if (synd == 0) synd = execute(q, d, &byte_cnt, &why);
    q.ci += d.bbs;
    ++wrs_;
    if (synd != 0) {
        fail(q, d.opcode, idx, synd, why, d.raddr, d.length);
        return Step::done;
    }
    // A CQE says every earlier write of the QP has landed: a write that did not fails this WQE.
    if (d.signaled() && (synd = land(q, &why)) != 0) {
        fail(q, d.opcode, idx, synd, why, d.raddr, d.length);
        return Step::done;
    }
    n_.wqes.fetch_add(1, std::memory_order_relaxed);
    if (d.signaled()) complete(q, mlx5::kCqeReq, d.opcode, idx, byte_cnt, 0);
    return Step::done;
}

// In the error state every posted WQE completes with a flush error, signaled or not.
SimNic::Step SimNic::flush_one(Qp& q, uint32_t avail) {
    const uint8_t* ring = static_cast<const uint8_t*>(q.mem.ptr);
    uint8_t ctrl[16];
    std::memcpy(ctrl, detail::slot(ring, q.log_bbs, q.ci), sizeof ctrl);
    DecodedWqe d;
    decode_ctrl(ctrl, &d);
    uint32_t bbs = (d.ds + mlx5::kDsPerBB - 1) / mlx5::kDsPerBB;
    if (d.ds == 0 || d.ds > kMaxDs || bbs > avail) bbs = 1;
    if (!cq_has_room(*q.cq)) {
        n_.cq_full_stalls.fetch_add(1, std::memory_order_relaxed);
        return Step::stalled;
    }
    complete(q, mlx5::kCqeReqErr, d.opcode, static_cast<uint16_t>(q.ci), 0, mlx5::kSyndWrFlushErr);
    n_.flushed.fetch_add(1, std::memory_order_relaxed);
    q.ci += bbs;
    return Step::done;
}

// Keys and bounds, in the order the hardware meets them: a write gathers its local data
// before anything goes out (local protection first); a read or atomic is checked by the
// responder first (remote access) and scatters its response afterwards. Zero-length
// transfers check no key (IBTA: no R_Key validation for a zero-length DMA).
uint8_t SimNic::check(const Qp& q, const DecodedWqe& d, std::string* why) const {
    if (d.opcode == mlx5::kOpNop) return 0;
    auto local = [&]() -> uint8_t {
        for (uint32_t i = 0; i < d.n_sge; ++i) {
            const WqeSge& s = d.sge[i];
            const Region* r = find_region(s.lkey);
            if (!r) {
                *why = format("lkey 0x%x (segment %u) is not registered with this NIC", s.lkey, i);
                return mlx5::kSyndLocalProtErr;
            }
            if (!inside(s.addr, s.length, r->addr, r->bytes)) {
                *why = format("local segment %u [0x%" PRIx64 ", +%u) is outside lkey 0x%x's region [0x%" PRIx64
                              ", +%" PRIu64 ")",
                              i, s.addr, s.length, s.lkey, r->addr, r->bytes);
                return mlx5::kSyndLocalProtErr;
            }
        }
        return 0;
    };
    auto remote = [&]() -> uint8_t {
        if (d.length == 0) return 0;
        if (d.rkey != q.target.rkey) {
            *why = format("rkey 0x%x is not PE %d's heap key 0x%x", d.rkey, q.target.pe, q.target.rkey);
            return mlx5::kSyndRemoteAccessErr;
        }
        if (!inside(d.raddr, d.length, q.target.base, q.target.bytes)) {
            *why = format("remote range [0x%" PRIx64 ", +%" PRIu64 ") is outside PE %d's heap [0x%" PRIx64 ", +%" PRIu64
                          ")",
                          d.raddr, d.length, q.target.pe, q.target.base, q.target.bytes);
            return mlx5::kSyndRemoteAccessErr;
        }
        if (is_atomic(d.opcode) && (d.raddr & 7) != 0) {
            *why = format("atomic at 0x%" PRIx64 " is not 8-byte aligned", d.raddr);
            return mlx5::kSyndRemoteInvalReqErr;
        }
        return 0;
    };
    const bool gather_first = d.opcode == mlx5::kOpRdmaWrite || d.opcode == mlx5::kOpRdmaWriteImm;
    uint8_t synd = gather_first ? local() : remote();
    if (synd == 0) synd = gather_first ? remote() : local();
    return synd;
}

uint8_t SimNic::execute(Qp& q, const DecodedWqe& d, uint32_t* byte_cnt, std::string* why) {
    const uint8_t op = d.opcode;
    *byte_cnt = op == mlx5::kOpRdmaRead ? static_cast<uint32_t>(d.length) : is_atomic(op) ? mlx5::kAtomicSize : 0;
    if (op == mlx5::kOpNop || d.length == 0 || complete_without_data_.load(std::memory_order_relaxed)) return 0;
    const int pe = q.target.pe;
    const std::size_t off = static_cast<std::size_t>(d.raddr - q.target.base);
    Status s = Status::ok;
    if (op == mlx5::kOpRdmaWrite || op == mlx5::kOpRdmaWriteImm) {
        if (d.is_inline) {
            s = heap_->write(pe, off, d.inline_data, d.inline_len);
        } else {
            std::size_t at = off;
            for (uint32_t i = 0; i < d.n_sge && s == Status::ok; at += d.sge[i].length, ++i)
                s = heap_->write(pe, at, reinterpret_cast<const void*>(d.sge[i].addr), d.sge[i].length);
        }
        dirty_ = true;
    } else {
        // A read or atomic after writes of this QP sees them (the responder executes in order).
        if (dirty_) {
            s = heap_->flush();
            dirty_ = false;
        }
        if (s == Status::ok && op == mlx5::kOpRdmaRead) {
            std::size_t at = off;
            for (uint32_t i = 0; i < d.n_sge && s == Status::ok; at += d.sge[i].length, ++i)
                s = heap_->read(pe, at, reinterpret_cast<void*>(d.sge[i].addr), d.sge[i].length);
        } else if (s == Status::ok) {
            uint64_t old = 0;
            s = op == mlx5::kOpAtomicFa ? heap_->fetch_add(pe, off, d.swap_add, &old)
                                        : heap_->compare_swap(pe, off, d.compare, d.swap_add, &old);
            if (s == Status::ok) std::memcpy(reinterpret_cast<void*>(d.sge[0].addr), &old, sizeof old);
        }
    }
    if (s != Status::ok) {
        *why = format("PE %d's heap refused the operation at offset %zu (%s)", pe, off, status_name(s));
        const std::string more = heap_->last_error();
        if (!more.empty()) *why += ": " + more;
        return mlx5::kSyndRemoteOpErr;
    }
    n_.bytes.fetch_add(d.length, std::memory_order_relaxed);
    return 0;
}

uint8_t SimNic::land(const Qp& q, std::string* why) {
    if (!dirty_) return 0;
    dirty_ = false;
    const Status s = heap_->flush();
    if (s == Status::ok) return 0;
    *why = format("earlier writes to PE %d did not land (%s)", q.target.pe, status_name(s));
    const std::string more = heap_->last_error();
    if (!more.empty()) *why += ": " + more;
    return mlx5::kSyndRemoteOpErr;
}

bool SimNic::cq_has_room(const Cq& c) const {
    const uint8_t* buf = static_cast<const uint8_t*>(c.mem.ptr);
    const uint32_t* dbrec = reinterpret_cast<const uint32_t*>(buf + (std::size_t{64} << c.log_size));
    const uint32_t ci = mlx5::be32(__atomic_load_n(&dbrec[mlx5::kCqSetCi], __ATOMIC_ACQUIRE)) & 0xffffffu;
    return ((c.pi - ci) & 0xffffffu) < (1u << c.log_size);
}

void SimNic::complete(Qp& q, uint8_t cqe_opcode, uint8_t wqe_opcode, uint16_t wqe_counter, uint32_t byte_cnt,
                      uint8_t syndrome) {
    if (dirty_) {  // a CQE says every earlier write of the QP has landed
        heap_->flush();
        dirty_ = false;
    }
    mlx5::CqeInfo c{};
    c.opcode = cqe_opcode;
    c.wqe_opcode = wqe_opcode;
    c.syndrome = syndrome;
    c.wqe_counter = wqe_counter;
    c.qpn = q.qpn;
    c.byte_cnt = byte_cnt;
    Cq& cq = *q.cq;
    mlx5::publish_cqe(cq.mem.ptr, cq.log_size, cq.pi, c);
    ++cq.pi;
    n_.cqes.fetch_add(1, std::memory_order_relaxed);
}

void SimNic::fail(Qp& q, uint8_t wqe_opcode, uint16_t wqe_counter, uint8_t syndrome, const std::string& why,
                  uint64_t raddr, uint64_t length) {
    complete(q, mlx5::kCqeReqErr, wqe_opcode, wqe_counter, 0, syndrome);
    q.state = QpState::error;
    q.error = format("WQE %u: syndrome 0x%02x: ", wqe_counter, syndrome) + why;
    if (!failed_.load(std::memory_order_relaxed)) {
        NicFailure& f = failure_;
        f.pe = q.target.pe;
        f.qpn = q.qpn;
        f.wqe_opcode = wqe_opcode;
        f.wqe_counter = wqe_counter;
        f.syndrome = syndrome;
        f.raddr = raddr;
        f.length = length;
        f.in_heap = raddr != 0 && inside(raddr, 0, q.target.base, q.target.bytes);
        f.heap_offset = raddr - q.target.base;
        f.why = why;
        failed_.store(true, std::memory_order_release);
    }
    n_.errors.fetch_add(1, std::memory_order_relaxed);
    debug("software NIC: QP 0x%x to PE %d moved to the error state: %s", q.qpn, q.target.pe, q.error.c_str());
}

}  // namespace kishmem::ibgda
