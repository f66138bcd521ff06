// The hand-written PRM field table of the DEVX setup (runtime/src/transport/ibgda/devx_prm.h):
// its bit-field writer against rdma-core's DEVX_SET/DEVX_GET on a layout of the same shape, and
// every offset it names against offsets recomputed here from the PRM layouts written as
// ordered (field, width) lists.
#include <infiniband/mlx5dv.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "transport/ibgda/devx_prm.h"

namespace {

namespace prm = kishmem::ibgda::prm;

// ---- the writer against DEVX_SET ------------------------------------------------------------------
typedef uint8_t u8;
struct mlx5_ifc_kish_probe_bits {
    u8 a[0x4];
    u8 b[0x3];
    u8 c[0x19];
    u8 d[0x1];
    u8 e[0x1f];
    u8 f[0x20];
    u8 pad[0x20];
    u8 g[0x40];
    u8 h[0x8];
    u8 i[0x18];
};

TEST(ibgda_devx_prm, WriterMatchesDevxSet) {
    std::mt19937 gen(7);
    auto rng = [&gen] { return static_cast<uint32_t>(gen()); };
    const prm::Field fa{0x0, 4}, fb{0x4, 3}, fc{0x7, 0x19}, fd{0x20, 1}, fe{0x21, 0x1f}, ff{0x40, 0x20}, fh{0xc0, 8},
        fi{0xc8, 0x18};
    for (int round = 0; round < 200; ++round) {
        uint8_t ours[DEVX_ST_SZ_BYTES(kish_probe)], theirs[DEVX_ST_SZ_BYTES(kish_probe)];
        for (std::size_t k = 0; k < sizeof ours; ++k) ours[k] = theirs[k] = static_cast<uint8_t>(rng());
        const uint32_t v[8] = {rng(), rng(), rng(), rng(), rng(), rng(), rng(), rng()};
        const uint64_t g = (static_cast<uint64_t>(rng()) << 32) | rng();
        DEVX_SET(kish_probe, theirs, a, v[0]);
        DEVX_SET(kish_probe, theirs, b, v[1]);
        DEVX_SET(kish_probe, theirs, c, v[2]);
        DEVX_SET(kish_probe, theirs, d, v[3]);
        DEVX_SET(kish_probe, theirs, e, v[4]);
        DEVX_SET(kish_probe, theirs, f, v[5]);
        DEVX_SET64(kish_probe, theirs, g, g);
        DEVX_SET(kish_probe, theirs, h, v[6]);
        DEVX_SET(kish_probe, theirs, i, v[7]);
        prm::set(ours, fa, v[0]);
        prm::set(ours, fb, v[1]);
        prm::set(ours, fc, v[2]);
        prm::set(ours, fd, v[3]);
        prm::set(ours, fe, v[4]);
        prm::set(ours, ff, v[5]);
        prm::set64(ours, 0x80, g);
        prm::set(ours, fh, v[6]);
        prm::set(ours, fi, v[7]);
        ASSERT_EQ(std::memcmp(ours, theirs, sizeof ours), 0) << "round " << round;
        EXPECT_EQ(prm::get(ours, fc), DEVX_GET(kish_probe, theirs, c));
        EXPECT_EQ(prm::get(ours, fi), DEVX_GET(kish_probe, theirs, i));
        EXPECT_EQ(prm::get(ours, ff), v[5]);
    }
}

// ---- offsets against the PRM layouts --------------------------------------------------------------
// Each layout: "name width" pairs in order, widths in bits (hex); "-" names reserved bits; a
// width "@name" embeds another layout.
const std::map<std::string, std::string> kLayouts = {
    {"ads",
     "fl 1,free_ar 1,- e,pkey_index 10,- 8,grh 1,mlid 7,rlid 10,ack_timeout 5,- 3,src_addr_index 8,- 4,stat_rate 4,"
     "hop_limit 8,- 4,tclass 8,flow_label 14,rgid_rip 80,- 4,f_dscp 1,f_ecn 1,- 1,f_eth_prio 1,ecn 2,dscp 6,"
     "udp_sport 10,dei_cfi 1,eth_prio 3,sl 4,vhca_port_num 8,rmac_47_32 10,rmac_31_0 20"},
    {"qpc",
     "state 4,lag_tx_port_affinity 4,st 8,- 2,isolate_vl_tc 1,pm_state 2,- 1,req_e2e_credit_mode 2,offload_type 4,"
     "end_padding_mode 2,- 2,wq_signature 1,block_lb_mc 1,atomic_like_write_en 1,latency_sensitive 1,- 1,"
     "drain_sigerr 1,- 2,pd 18,mtu 3,log_msg_max 5,- 1,log_rq_size 4,log_rq_stride 3,no_sq 1,log_sq_size 4,- 3,"
     "ts_format 2,data_in_order 1,rlky 1,ulp_stateless_offload_mode 4,counter_set_id 8,uar_page 18,"
     "send_dbr_mode 2,- 6,user_index 18,- 3,log_page_size 5,remote_qpn 18,primary_address_path @ads,"
     "secondary_address_path @ads,log_ack_req_freq 4,- 4,log_sra_max 3,- 2,retry_count 3,rnr_retry 3,- 1,fre 1,"
     "cur_rnr_retry 3,cur_retry_count 3,- 5,- 20,- 8,next_send_psn 18,- 8,cqn_snd 18,- 8,deth_sqpn 18,- 20,- 8,"
     "last_acked_psn 18,- 8,ssn 18,- 8,log_rra_max 3,- 1,atomic_mode 4,rre 1,rwe 1,rae 1,- 1,page_offset 6,- 3,"
     "cd_slave_receive 1,cd_slave_send 1,cd_master 1,- 3,min_rnr_nak 5,next_rcv_psn 18,- 8,xrcd 18,- 8,cqn_rcv 18,"
     "dbr_addr 40,q_key 20,- 5,rq_type 3,srqn_rmpn_xrqn 18,- 8,rmsn 18,hw_sq_wqebb_counter 10,"
     "sw_sq_wqebb_counter 10,hw_rq_counter 20,sw_rq_counter 20,- 20,- f,cgs 1,cs_req 8,cs_res 8,dc_access_key 40,"
     "- 3,dbr_umem_valid 1,- 9c,dbr_umem_id 20"},
    {"create_qp_in",
     "opcode 10,uid 10,- 10,op_mod 10,- 40,opt_param_mask 20,- 20,qpc @qpc,wq_umem_offset 40,wq_umem_id 20,"
     "wq_umem_valid 1,- 1f"},
    {"modify_qp_in", "opcode 10,uid 10,- 10,op_mod 10,- 8,qpn 18,- 20,opt_param_mask 20,- 20,qpc @qpc,- 80"},
    {"cqc",
     "status 4,as_notify 1,initiator_src_dct 1,dbr_umem_valid 1,- 1,cqe_sz 3,cc 1,- 1,scqe_break_moderation_en 1,oi 1,"
     "cq_period_mode 2,cqe_comp_en 1,mini_cqe_res_format 2,st 4,- 1,cqe_comp_layout 7,dbr_umem_id 20,- 14,"
     "page_offset 6,- 2,mini_cqe_res_format_ext 2,cq_timestamp_format 2,- 3,log_cq_size 5,uar_page 18,- 4,"
     "cq_period c,cq_max_count 10,- 18,c_eqn 8,- 3,log_page_size 5,- 18,- 20,- 8,last_notified_index 18,- 8,"
     "last_solicit_index 18,- 8,consumer_counter 18,- 8,producer_counter 18,local_partition_id c,process_id 14,- 20,"
     "dbr_addr 40"},
    {"create_cq_in",
     "opcode 10,uid 10,- 10,op_mod 10,- 40,cq_context @cqc,cq_umem_offset 40,cq_umem_id 20,cq_umem_valid 1,- 1f,"
     "- 580"},
    {"out", "status 8,- 18,syndrome 20,- 8,obj_id 18,- 20"},
};

struct Flat {
    std::map<std::string, prm::Field> fields;  // "qpc.primary_address_path.rlid" -> offset, width
    uint32_t bits = 0;
};

Flat flatten(const std::string& layout, const std::string& prefix = "", uint32_t base = 0) {
    Flat out;
    std::stringstream ss(kLayouts.at(layout));
    std::string item;
    uint32_t at = base;
    while (std::getline(ss, item, ',')) {
        const std::size_t sp = item.find(' ');
        const std::string name = item.substr(0, sp), width = item.substr(sp + 1);
        if (width[0] == '@') {
            Flat sub = flatten(width.substr(1), prefix + name + ".", at);
            out.fields.insert(sub.fields.begin(), sub.fields.end());
            at += sub.bits;
            continue;
        }
        const uint32_t w = static_cast<uint32_t>(std::stoul(width, nullptr, 16));
        if (name != "-") out.fields[prefix + name] = prm::Field{at, w};
        at += w;
    }
    out.bits = at - base;
    return out;
}

void expect_field(const Flat& f, const std::string& name, prm::Field ours) {
    auto it = f.fields.find(name);
    ASSERT_NE(it, f.fields.end()) << name;
    EXPECT_EQ(it->second.bit, ours.bit) << name;
    EXPECT_EQ(it->second.bits, ours.bits) << name;
}

TEST(ibgda_devx_prm, LayoutSizes) {
    EXPECT_EQ(flatten("ads").bits, 0x160u);
    EXPECT_EQ(flatten("qpc").bits, 0x740u);
    EXPECT_EQ(flatten("cqc").bits, 0x200u);
    EXPECT_EQ(flatten("create_qp_in").bits / 8, prm::kCreateQpInBytes);
    EXPECT_EQ(flatten("modify_qp_in").bits / 8, prm::kModifyQpInBytes);
    EXPECT_EQ(flatten("create_cq_in").bits / 8, prm::kCreateCqInBytes);
    EXPECT_EQ(flatten("out").bits / 8, prm::kOutBytes);
}

TEST(ibgda_devx_prm, CreateCqFields) {
    const Flat f = flatten("create_cq_in");
    expect_field(f, "opcode", prm::kOpcode);
    expect_field(f, "op_mod", prm::kOpMod);
    expect_field(f, "cq_context.dbr_umem_valid", prm::kCqcDbrUmemValid);
    expect_field(f, "cq_context.cqe_sz", prm::kCqcCqeSz);
    expect_field(f, "cq_context.oi", prm::kCqcOi);
    expect_field(f, "cq_context.dbr_umem_id", prm::kCqcDbrUmemId);
    expect_field(f, "cq_context.log_cq_size", prm::kCqcLogCqSize);
    expect_field(f, "cq_context.uar_page", prm::kCqcUarPage);
    expect_field(f, "cq_context.c_eqn", prm::kCqcCEqn);
    expect_field(f, "cq_context.log_page_size", prm::kCqcLogPageSize);
    expect_field(f, "cq_context.dbr_addr", prm::Field{prm::kCqcDbrAddr, 0x40});
    expect_field(f, "cq_umem_offset", prm::Field{prm::kCqUmemOffset, 0x40});
    expect_field(f, "cq_umem_id", prm::kCqUmemId);
    expect_field(f, "cq_umem_valid", prm::kCqUmemValid);
}

void expect_qpc_fields(const Flat& f) {
    expect_field(f, "qpc.st", prm::kQpcSt);
    expect_field(f, "qpc.pm_state", prm::kQpcPmState);
    expect_field(f, "qpc.pd", prm::kQpcPd);
    expect_field(f, "qpc.mtu", prm::kQpcMtu);
    expect_field(f, "qpc.log_msg_max", prm::kQpcLogMsgMax);
    expect_field(f, "qpc.log_rq_size", prm::kQpcLogRqSize);
    expect_field(f, "qpc.no_sq", prm::kQpcNoSq);
    expect_field(f, "qpc.log_sq_size", prm::kQpcLogSqSize);
    expect_field(f, "qpc.ts_format", prm::kQpcTsFormat);
    expect_field(f, "qpc.uar_page", prm::kQpcUarPage);
    expect_field(f, "qpc.log_page_size", prm::kQpcLogPageSize);
    expect_field(f, "qpc.remote_qpn", prm::kQpcRemoteQpn);
    expect_field(f, "qpc.primary_address_path.pkey_index", prm::kAdsPkeyIndex);
    expect_field(f, "qpc.primary_address_path.grh", prm::kAdsGrh);
    expect_field(f, "qpc.primary_address_path.rlid", prm::kAdsRlid);
    expect_field(f, "qpc.primary_address_path.ack_timeout", prm::kAdsAckTimeout);
    expect_field(f, "qpc.primary_address_path.src_addr_index", prm::kAdsSrcAddrIndex);
    expect_field(f, "qpc.primary_address_path.hop_limit", prm::kAdsHopLimit);
    expect_field(f, "qpc.primary_address_path.tclass", prm::kAdsTclass);
    expect_field(f, "qpc.primary_address_path.rgid_rip", prm::Field{prm::kAdsRgid, 0x80});
    expect_field(f, "qpc.primary_address_path.udp_sport", prm::kAdsUdpSport);
    expect_field(f, "qpc.primary_address_path.sl", prm::kAdsSl);
    expect_field(f, "qpc.primary_address_path.vhca_port_num", prm::kAdsVhcaPortNum);
    expect_field(f, "qpc.primary_address_path.rmac_47_32", prm::kAdsRmac47_32);
    expect_field(f, "qpc.primary_address_path.rmac_31_0", prm::kAdsRmac31_0);
    expect_field(f, "qpc.log_sra_max", prm::kQpcLogSraMax);
    expect_field(f, "qpc.retry_count", prm::kQpcRetryCount);
    expect_field(f, "qpc.rnr_retry", prm::kQpcRnrRetry);
    expect_field(f, "qpc.next_send_psn", prm::kQpcNextSendPsn);
    expect_field(f, "qpc.cqn_snd", prm::kQpcCqnSnd);
    expect_field(f, "qpc.log_rra_max", prm::kQpcLogRraMax);
    expect_field(f, "qpc.atomic_mode", prm::kQpcAtomicMode);
    expect_field(f, "qpc.rre", prm::kQpcRre);
    expect_field(f, "qpc.rwe", prm::kQpcRwe);
    expect_field(f, "qpc.rae", prm::kQpcRae);
    expect_field(f, "qpc.min_rnr_nak", prm::kQpcMinRnrNak);
    expect_field(f, "qpc.next_rcv_psn", prm::kQpcNextRcvPsn);
    expect_field(f, "qpc.cqn_rcv", prm::kQpcCqnRcv);
    expect_field(f, "qpc.dbr_addr", prm::Field{prm::kQpcDbrAddr, 0x40});
    expect_field(f, "qpc.rq_type", prm::kQpcRqType);
    expect_field(f, "qpc.dbr_umem_valid", prm::kQpcDbrUmemValid);
    expect_field(f, "qpc.dbr_umem_id", prm::kQpcDbrUmemId);
}

TEST(ibgda_devx_prm, CreateQpFields) {
    const Flat f = flatten("create_qp_in");
    expect_qpc_fields(f);
    expect_field(f, "wq_umem_offset", prm::Field{prm::kQpWqUmemOffset, 0x40});
    expect_field(f, "wq_umem_id", prm::kQpWqUmemId);
    expect_field(f, "wq_umem_valid", prm::kQpWqUmemValid);
}

TEST(ibgda_devx_prm, ModifyQpFields) {
    const Flat f = flatten("modify_qp_in");
    expect_field(f, "qpn", prm::kQpnIn);
    expect_qpc_fields(f);  // the same context at the same place as in CREATE_QP
}

TEST(ibgda_devx_prm, OutputFields) {
    const Flat f = flatten("out");
    expect_field(f, "status", prm::kOutStatus);
    expect_field(f, "syndrome", prm::kOutSyndrome);
    expect_field(f, "obj_id", prm::kOutObjId);
}

}  // namespace
