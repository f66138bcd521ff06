// DEVX setup, part 3: RC QPs on our own umem, their state transitions and their connection
// through the caller's allgather.
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "devx.h"
#include "devx_prm.h"
#include "kishmem/device/ibgda/mlx5_defs.h"

namespace kishmem::ibgda {

namespace {

constexpr std::size_t kDbrBytes = 64;
constexpr uint32_t kMaxLogBbs = 15;       // qpc.log_sq_size is 4 bits
constexpr uint32_t kLogMsgMax = 30;       // 1 GiB per message; the device path never sends more
constexpr uint32_t kLogOutstanding = 4;   // 16 reads/atomics in flight per QP, each direction
constexpr uint32_t kMinRnrNak = 12;       // 0.64 ms (IB encoding)
constexpr uint32_t kAckTimeout = 20;      // 4.096 us * 2^20 = ~4.3 s
constexpr uint32_t kRetries = 7;
constexpr uint32_t kHopLimit = 255;

// What a PE tells the others about its port.
struct PortAddr {
    bool roce = false;
    uint8_t port = 0;
    uint8_t mtu = 0;
    uint16_t lid = 0;
    uint8_t gid[16] = {};
};

// What a PE tells the others about one of its QPs.
struct QpAddr {
    uint64_t peer, slot, qpn, psn;
};

Status modify_qp(DevxQp& qp, uint32_t opcode, const char* name, uint8_t* in, std::string* why) {
    uint8_t out[prm::kOutBytes] = {};
    prm::set(in, prm::kOpcode, opcode);
    prm::set(in, prm::kQpnIn, qp.qpn);
    errno = 0;
    if (mlx5dv_devx_obj_modify(qp.obj, in, prm::kModifyQpInBytes, out, sizeof out) != 0) {
        *why = "QP " + std::to_string(qp.qpn) + " to PE " + std::to_string(qp.peer) + ": " + devx_cmd_error(name, out);
        return Status::transport_error;
    }
    return Status::ok;
}

Status rst2init(DevxDevice& dev, DevxQp& qp, std::string* why) {
    uint8_t in[prm::kModifyQpInBytes] = {};
    prm::set(in, prm::kQpcRre, 1);
    prm::set(in, prm::kQpcRwe, 1);
    prm::set(in, prm::kQpcRae, 1);
    prm::set(in, prm::kQpcAtomicMode, prm::kQpcAtomicUpTo8B);
    prm::set(in, prm::kAdsVhcaPortNum, dev.port().num);
    prm::set(in, prm::kAdsPkeyIndex, 0);
    Status s = modify_qp(qp, prm::kRst2InitQp, "RST2INIT_QP", in, why);
    if (s == Status::ok) qp.state = DevxQpState::init;
    return s;
}

// RoCE: the destination MAC, resolved by the kernel through an address handle for the GID.
Status resolve_rmac(DevxDevice& dev, const uint8_t* gid, uint8_t mac[6], std::string* why) {
    ibv_ah_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.is_global = 1;
    std::memcpy(attr.grh.dgid.raw, gid, 16);
    attr.grh.sgid_index = dev.port().gid_index;
    attr.grh.hop_limit = kHopLimit;
    attr.port_num = dev.port().num;
    errno = 0;
    ibv_ah* ah = ibv_create_ah(dev.pd(), &attr);
    if (!ah) {
        *why = dev.name() + ": ibv_create_ah for a peer GID failed: " + std::strerror(errno ? errno : EIO);
        return Status::unreachable;
    }
    mlx5dv_ah dvah;
    mlx5dv_obj obj;
    std::memset(&obj, 0, sizeof obj);
    obj.ah.in = ah;
    obj.ah.out = &dvah;
    const int rc = mlx5dv_init_obj(&obj, MLX5DV_OBJ_AH);
    if (rc == 0) std::memcpy(mac, dvah.av->rmac, 6);
    ibv_destroy_ah(ah);
    if (rc != 0) {
        *why = dev.name() + ": mlx5dv_init_obj(AH) failed";
        return Status::transport_error;
    }
    return Status::ok;
}

Status init2rtr(DevxDevice& dev, DevxQp& qp, const PortAddr& peer, const QpAddr& remote, std::string* why) {
    uint8_t in[prm::kModifyQpInBytes] = {};
    const PortInfo& me = dev.port();
    prm::set(in, prm::kQpcMtu, me.active_mtu < peer.mtu ? me.active_mtu : peer.mtu);
    prm::set(in, prm::kQpcLogMsgMax, kLogMsgMax);
    prm::set(in, prm::kQpcRemoteQpn, static_cast<uint32_t>(remote.qpn));
    prm::set(in, prm::kQpcNextRcvPsn, static_cast<uint32_t>(remote.psn) & 0xffffffu);
    prm::set(in, prm::kQpcLogRraMax, kLogOutstanding);
    prm::set(in, prm::kQpcMinRnrNak, kMinRnrNak);
    prm::set(in, prm::kAdsVhcaPortNum, me.num);
    prm::set(in, prm::kAdsPkeyIndex, 0);
    if (me.roce) {
        uint8_t mac[6];
        if (Status s = resolve_rmac(dev, peer.gid, mac, why); s != Status::ok) return s;
        prm::set(in, prm::kAdsGrh, 1);
        prm::set_bytes(in, prm::kAdsRgid, peer.gid, 16);
        prm::set(in, prm::kAdsHopLimit, kHopLimit);
        prm::set(in, prm::kAdsSrcAddrIndex, me.gid_index);
        // Spread QPs over ECMP paths: a source port per QP pair, in the RoCE v2 dynamic range.
        prm::set(in, prm::kAdsUdpSport, 0xc000u | ((qp.qpn ^ static_cast<uint32_t>(remote.qpn)) & 0x3fffu));
        prm::set(in, prm::kAdsRmac47_32, static_cast<uint32_t>(mac[0]) << 8 | mac[1]);
        prm::set(in, prm::kAdsRmac31_0,
                 static_cast<uint32_t>(mac[2]) << 24 | static_cast<uint32_t>(mac[3]) << 16 |
                     static_cast<uint32_t>(mac[4]) << 8 | mac[5]);
    } else {
        prm::set(in, prm::kAdsRlid, peer.lid);
        prm::set(in, prm::kAdsSl, 0);
    }
    Status s = modify_qp(qp, prm::kInit2RtrQp, "INIT2RTR_QP", in, why);
    if (s == Status::ok) qp.state = DevxQpState::rtr;
    return s;
}

Status rtr2rts(DevxQp& qp, std::string* why) {
    uint8_t in[prm::kModifyQpInBytes] = {};
    prm::set(in, prm::kQpcNextSendPsn, qp.psn & 0xffffffu);
    prm::set(in, prm::kQpcRetryCount, kRetries);
    prm::set(in, prm::kQpcRnrRetry, kRetries);
    prm::set(in, prm::kQpcLogSraMax, kLogOutstanding);
    prm::set(in, prm::kAdsAckTimeout, kAckTimeout);
    Status s = modify_qp(qp, prm::kRtr2RtsQp, "RTR2RTS_QP", in, why);
    if (s == Status::ok) qp.state = DevxQpState::rts;
    return s;
}

}  // namespace

Status devx_create_qp(DevxDevice& dev, const DevxCq& cq, uint32_t log_bbs, int peer, int slot, DevxQp* out,
                      std::string* why) {
    if (log_bbs < 1 || log_bbs > kMaxLogBbs) {
        *why = "send queue of 2^" + std::to_string(log_bbs) + " BBs: log size must be 1..15";
        return Status::invalid;
    }
    DevxQp qp;
    qp.log_bbs = log_bbs;
    qp.peer = peer;
    qp.slot = slot;
    qp.cqn = cq.cqn;
    const std::size_t sq_bytes = std::size_t{mlx5::kSendWqeBB} << log_bbs;
    if (Status s = dev.alloc_queue(sq_bytes + kDbrBytes, &qp.mem, &qp.umem, why); s != Status::ok) return s;
    if (Status s = dev.alloc_uar(&qp.uar, why); s != Status::ok) {
        dev.free_queue(&qp.mem, qp.umem);
        return s;
    }
    uint8_t in[prm::kCreateQpInBytes] = {};
    uint8_t outbuf[prm::kOutBytes] = {};
    prm::set(in, prm::kOpcode, prm::kCreateQp);
    prm::set(in, prm::kQpcSt, prm::kQpcStRc);
    prm::set(in, prm::kQpcPmState, prm::kQpcPmMigrated);
    prm::set(in, prm::kQpcPd, dev.pdn());
    prm::set(in, prm::kQpcUarPage, qp.uar->page_id);
    prm::set(in, prm::kQpcLogPageSize, 0);  // 4 KiB umem pages
    prm::set(in, prm::kQpcCqnSnd, cq.cqn);
    prm::set(in, prm::kQpcCqnRcv, cq.cqn);
    prm::set(in, prm::kQpcLogSqSize, log_bbs);
    prm::set(in, prm::kQpcNoSq, 0);
    prm::set(in, prm::kQpcRqType, prm::kQpcRqZeroSize);  // send-only: writes, reads, atomics
    prm::set(in, prm::kQpcLogRqSize, 0);
    prm::set(in, prm::kQpcDbrUmemValid, 1);
    prm::set(in, prm::kQpcDbrUmemId, qp.umem->umem_id);
    prm::set64(in, prm::kQpcDbrAddr, sq_bytes);  // doorbell record right after the ring
    prm::set(in, prm::kQpWqUmemValid, 1);
    prm::set(in, prm::kQpWqUmemId, qp.umem->umem_id);
    prm::set64(in, prm::kQpWqUmemOffset, 0);
    // ts_format 0 (free running) is what older devices accept; devices that only offer the
    // default format reject it, and get 1.
    for (uint32_t ts : {0u, 1u}) {
        prm::set(in, prm::kQpcTsFormat, ts);
        errno = 0;
        qp.obj = mlx5dv_devx_obj_create(dev.context(), in, sizeof in, outbuf, sizeof outbuf);
        if (qp.obj) break;
    }
    if (!qp.obj) {
        *why = dev.name() + ": " + devx_cmd_error("CREATE_QP", outbuf);
        mlx5dv_devx_free_uar(qp.uar);
        dev.free_queue(&qp.mem, qp.umem);
        return Status::transport_error;
    }
    qp.qpn = prm::get(outbuf, prm::kOutObjId);
    std::random_device rd;
    qp.psn = rd() & 0xffffffu;
    qp.sq = static_cast<uint8_t*>(qp.mem.addr);
    qp.dbrec = reinterpret_cast<volatile uint32_t*>(qp.sq + sq_bytes);
    qp.doorbell = static_cast<volatile uint64_t*>(qp.uar->reg_addr);
    qp.state = DevxQpState::reset;
    *out = qp;
    return Status::ok;
}

void devx_destroy_qp(DevxDevice& dev, DevxQp* qp) {
    if (qp->obj) mlx5dv_devx_obj_destroy(qp->obj);
    if (qp->uar) mlx5dv_devx_free_uar(qp->uar);
    dev.free_queue(&qp->mem, qp->umem);
    *qp = DevxQp{};
}

Status devx_qp_to_error(DevxQp& qp, std::string* why) {
    uint8_t in[prm::kQp2ErrInBytes] = {};
    uint8_t out[prm::kOutBytes] = {};
    prm::set(in, prm::kOpcode, prm::k2ErrQp);
    prm::set(in, prm::kQpnIn, qp.qpn);
    errno = 0;
    if (mlx5dv_devx_obj_modify(qp.obj, in, sizeof in, out, sizeof out) != 0) {
        *why = devx_cmd_error("2ERR_QP", out);
        return Status::transport_error;
    }
    qp.state = DevxQpState::error;
    return Status::ok;
}

// Blob: u64 port word (roce | port << 8 | mtu << 16 | lid << 32), the 16-byte GID, u64 count,
// then per QP: peer, slot, qpn, psn (u64 each).
Status devx_connect(DevxDevice& dev, int my_pe, int n_pes, std::vector<DevxQp>& qps, const Allgather& allgather,
                    std::string* why) {
    const PortInfo& me = dev.port();
    BlobWriter w;
    w.u64(static_cast<uint64_t>(me.roce) | static_cast<uint64_t>(me.num) << 8 | static_cast<uint64_t>(me.active_mtu) << 16 |
          static_cast<uint64_t>(me.lid) << 32);
    w.bytes(me.gid, 16);
    w.u64(qps.size());
    for (const DevxQp& q : qps) w.u64(static_cast<uint64_t>(q.peer)).u64(static_cast<uint64_t>(q.slot)).u64(q.qpn).u64(q.psn);
    std::vector<Blob> all;
    if (Status s = allgather(w.take(), &all); s != Status::ok) {
        *why = "exchanging QP numbers failed";
        return s;
    }
    if (static_cast<int>(all.size()) != n_pes) {
        *why = "the allgather returned " + std::to_string(all.size()) + " blobs for " + std::to_string(n_pes) + " PEs";
        return Status::invalid;
    }
    std::vector<PortAddr> ports(n_pes);
    std::vector<std::vector<QpAddr>> remote(n_pes);
    for (int pe = 0; pe < n_pes; ++pe) {
        BlobReader r(all[pe]);
        const uint64_t word = r.u64();
        const Blob gid = r.bytes();
        const uint64_t n = r.u64();
        ports[pe].roce = (word & 0xff) != 0;
        ports[pe].port = static_cast<uint8_t>(word >> 8);
        ports[pe].mtu = static_cast<uint8_t>(word >> 16);
        ports[pe].lid = static_cast<uint16_t>(word >> 32);
        if (gid.size() == 16) std::memcpy(ports[pe].gid, gid.data(), 16);
        for (uint64_t i = 0; i < n && r.ok(); ++i) {
            QpAddr a;
            a.peer = r.u64();
            a.slot = r.u64();
            a.qpn = r.u64();
            a.psn = r.u64();
            remote[pe].push_back(a);
        }
        if (!r.ok() || !r.at_end() || gid.size() != 16) {
            *why = "malformed QP connection data from PE " + std::to_string(pe);
            return Status::invalid;
        }
        if (ports[pe].roce != me.roce) {
            *why = "PE " + std::to_string(pe) + " uses " + (ports[pe].roce ? "RoCE" : "InfiniBand") + " and this PE " +
                   (me.roce ? "RoCE" : "InfiniBand");
            return Status::unreachable;
        }
    }
    for (DevxQp& q : qps) {
        if (q.peer < 0 || q.peer >= n_pes) {
            *why = "QP towards PE " + std::to_string(q.peer) + ": no such PE";
            return Status::invalid;
        }
        const QpAddr* match = nullptr;
        for (const QpAddr& a : remote[q.peer])
            if (a.peer == static_cast<uint64_t>(my_pe) && a.slot == static_cast<uint64_t>(q.slot)) match = &a;
        if (!match) {
            *why = "PE " + std::to_string(q.peer) + " has no QP slot " + std::to_string(q.slot) + " towards PE " +
                   std::to_string(my_pe);
            return Status::unreachable;
        }
        Status s = rst2init(dev, q, why);
        if (s == Status::ok) s = init2rtr(dev, q, ports[q.peer], *match, why);
        if (s == Status::ok) s = rtr2rts(q, why);
        if (s != Status::ok) return s;
    }
    return Status::ok;
}

}  // namespace kishmem::ibgda
