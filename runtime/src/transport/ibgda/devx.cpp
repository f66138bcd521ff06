// DEVX setup, part 1: the probe, device and port selection, PD, EQ number, UARs and queue
// memory registered as umem.
#include "devx.h"

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kishmem/env.h"

namespace kishmem::ibgda {

namespace {

constexpr std::size_t kPage = 4096;  // queue memory page size given to the NIC (qpc/cqc log_page_size 0)

std::string errno_text(int e) { return std::strerror(e ? e : EIO); }

struct DeviceList {
    ibv_device** list = nullptr;
    int n = 0;
    ~DeviceList() {
        if (list) ibv_free_device_list(list);
    }
};

// "NAME[:PORT]" -> name, port (0: any).
bool parse_device_spec(const std::string& spec, std::string* name, int* port, std::string* why) {
    *port = 0;
    const std::size_t colon = spec.find(':');
    *name = spec.substr(0, colon);
    if (colon == std::string::npos) return true;
    const std::string p = spec.substr(colon + 1);
    char* end = nullptr;
    const long v = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end || v < 1 || v > 255) {
        *why = "KISHMEM_IBGDA_DEVICE='" + spec + "': the port after ':' must be a number from 1";
        return false;
    }
    *port = static_cast<int>(v);
    return true;
}

const char* port_state_name(int s) {
    switch (s) {
        case IBV_PORT_DOWN: return "DOWN";
        case IBV_PORT_INIT: return "INIT";
        case IBV_PORT_ARMED: return "ARMED";
        case IBV_PORT_ACTIVE: return "ACTIVE";
        case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
        default: return "NOP";
    }
}

// RoCE: the first RoCE v2 GID holding an IPv4-mapped address, else the first RoCE v2 GID.
bool pick_roce_gid(ibv_context* ctx, uint8_t port, int table_len, PortInfo* out) {
    int fallback = -1;
    ibv_gid_entry e;
    for (int i = 0; i < table_len && i < 256; ++i) {
        if (ibv_query_gid_ex(ctx, port, i, &e, 0) != 0 || e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
        const uint8_t* g = e.gid.raw;
        static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (std::memcmp(g, v4_prefix, sizeof v4_prefix) == 0) {
            fallback = i;
            break;
        }
        if (fallback < 0) fallback = i;
    }
    if (fallback < 0) return false;
    if (ibv_query_gid_ex(ctx, port, fallback, &e, 0) != 0) return false;
    std::memcpy(out->gid, e.gid.raw, 16);
    out->gid_index = static_cast<uint8_t>(fallback);
    return true;
}

// Opens `dev` with DEVX and finds a usable port (`want` or the first active one).
ibv_context* open_with_port(ibv_device* dev, int want, PortInfo* port, std::string* why) {
    const std::string name = ibv_get_device_name(dev);
    mlx5dv_context_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
    errno = 0;
    ibv_context* ctx = mlx5dv_open_device(dev, &attr);
    if (!ctx) {
        *why = "DEVX not permitted on " + name + ": mlx5dv_open_device with DEVX failed: " + errno_text(errno);
        return nullptr;
    }
    ibv_device_attr da;
    if (ibv_query_device(ctx, &da) != 0) {
        *why = name + ": ibv_query_device failed: " + errno_text(errno);
        ibv_close_device(ctx);
        return nullptr;
    }
    if (want > da.phys_port_cnt) {
        *why = name + " has " + std::to_string(da.phys_port_cnt) + " port(s), not port " + std::to_string(want);
        ibv_close_device(ctx);
        return nullptr;
    }
    for (int p = want ? want : 1; p <= (want ? want : da.phys_port_cnt); ++p) {
        ibv_port_attr pa;
        if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa) != 0) {
            *why = name + " port " + std::to_string(p) + ": ibv_query_port failed: " + errno_text(errno);
            continue;
        }
        if (pa.state != IBV_PORT_ACTIVE) {
            *why = "port " + std::to_string(p) + " of " + name + " is not active (state " + port_state_name(pa.state) + ")";
            continue;
        }
        PortInfo info;
        info.num = static_cast<uint8_t>(p);
        info.roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
        info.lid = pa.lid;
        info.active_mtu = static_cast<uint8_t>(pa.active_mtu);
        if (info.roce && !pick_roce_gid(ctx, info.num, pa.gid_tbl_len, &info)) {
            *why = name + " port " + std::to_string(p) + " is Ethernet and has no RoCE v2 GID (no IP address on its netdev?)";
            continue;
        }
        *port = info;
        return ctx;
    }
    ibv_close_device(ctx);
    return nullptr;
}

// The device per `spec` (or KISHMEM_IBGDA_DEVICE, or the first usable mlx5 device).
ibv_context* select_device(const std::string& spec_in, std::string* name, PortInfo* port, std::string* why) {
    DeviceList dl;
    errno = 0;
    dl.list = ibv_get_device_list(&dl.n);
    if (!dl.list) {
        *why = "no RDMA devices: ibv_get_device_list failed: " + errno_text(errno);
        return nullptr;
    }
    if (dl.n == 0) {
        *why = "no RDMA devices: ibv_get_device_list found none";
        return nullptr;
    }
    std::vector<ibv_device*> mlx5;
    std::string all, mlx5_names;
    for (int i = 0; i < dl.n; ++i) {
        const std::string n = ibv_get_device_name(dl.list[i]);
        all += (all.empty() ? "" : ", ") + n;
        if (mlx5dv_is_supported(dl.list[i])) {
            mlx5.push_back(dl.list[i]);
            mlx5_names += (mlx5_names.empty() ? "" : ", ") + n;
        }
    }
    if (mlx5.empty()) {
        *why = "no mlx5 device (RDMA devices here: " + all + ")";
        return nullptr;
    }
    const std::string spec = spec_in.empty() ? env::ibgda_device() : spec_in;
    std::string want_name;
    int want_port = 0;
    if (!parse_device_spec(spec, &want_name, &want_port, why)) return nullptr;
    std::string reasons;
    bool named_found = false;
    for (ibv_device* dev : mlx5) {
        const std::string n = ibv_get_device_name(dev);
        if (!want_name.empty() && n != want_name) continue;
        named_found = true;
        std::string r;
        if (ibv_context* ctx = open_with_port(dev, want_port, port, &r)) {
            *name = n;
            return ctx;
        }
        reasons += (reasons.empty() ? "" : "; ") + r;
    }
    if (!named_found) {
        *why = "KISHMEM_IBGDA_DEVICE='" + spec + "': no mlx5 device named " + want_name + " (mlx5 devices: " + mlx5_names + ")";
        return nullptr;
    }
    *why = mlx5.size() == 1 || !want_name.empty() ? reasons : "no usable mlx5 device: " + reasons;
    return nullptr;
}

}  // namespace

bool ibgda_probe(std::string* why, std::string* found) {
    std::unique_ptr<DevxDevice> dev;
    std::string w;
    if (DevxDevice::open(DevxOptions{}, &dev, &w) != Status::ok) {
        if (why) *why = w;
        return false;
    }
    mlx5dv_devx_uar* uar = nullptr;
    if (dev->alloc_uar(&uar, &w) != Status::ok) {
        if (why) *why = w;
        return false;
    }
    mlx5dv_devx_free_uar(uar);
    if (found) {
        const PortInfo& p = dev->port();
        *found = dev->name() + " port " + std::to_string(p.num) +
                 (p.roce ? " (RoCE v2, GID index " + std::to_string(p.gid_index) + ")"
                         : " (InfiniBand, LID " + std::to_string(p.lid) + ")");
    }
    return true;
}

DevxDevice::~DevxDevice() {
    if (cq_uar_) mlx5dv_devx_free_uar(cq_uar_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (ctx_) ibv_close_device(ctx_);
}

Status DevxDevice::open(const DevxOptions& opt, std::unique_ptr<DevxDevice>* out, std::string* why) {
    std::unique_ptr<DevxDevice> d(new DevxDevice());
    d->gpu_ = opt.gpu_queues;
    d->ctx_ = select_device(opt.device, &d->name_, &d->port_, why);
    if (!d->ctx_) return Status::unreachable;
    d->pd_ = ibv_alloc_pd(d->ctx_);
    if (!d->pd_) {
        *why = d->name_ + ": ibv_alloc_pd failed: " + errno_text(errno);
        return Status::transport_error;
    }
    mlx5dv_pd dvpd;
    mlx5dv_obj obj;
    std::memset(&obj, 0, sizeof obj);
    obj.pd.in = d->pd_;
    obj.pd.out = &dvpd;
    if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD) != 0) {
        *why = d->name_ + ": mlx5dv_init_obj(PD) failed: " + errno_text(errno);
        return Status::transport_error;
    }
    d->pdn_ = dvpd.pdn;
    if (int e = mlx5dv_devx_query_eqn(d->ctx_, 0, &d->eqn_)) {
        *why = d->name_ + ": mlx5dv_devx_query_eqn failed: " + errno_text(e > 0 ? e : errno);
        return Status::transport_error;
    }
    if (Status s = d->alloc_uar(&d->cq_uar_, why); s != Status::ok) return s;
    *out = std::move(d);
    return Status::ok;
}

// Non-cached UAR first: a GPU (or any writer without write combining) rings it with one
// 8-byte store. BlueFlame (write-combining) pages as the fallback.
Status DevxDevice::alloc_uar(mlx5dv_devx_uar** out, std::string* why) {
    errno = 0;
    mlx5dv_devx_uar* u = mlx5dv_devx_alloc_uar(ctx_, MLX5DV_UAR_ALLOC_TYPE_NC);
    const int nc_errno = errno;
    if (!u) u = mlx5dv_devx_alloc_uar(ctx_, MLX5DV_UAR_ALLOC_TYPE_BF);
    if (!u) {
        *why = name_ + ": UAR allocation failed: mlx5dv_devx_alloc_uar: " + errno_text(nc_errno);
        return Status::transport_error;
    }
    *out = u;
    return Status::ok;
}

Status DevxDevice::alloc_queue(std::size_t bytes, QueueBuffer* out, mlx5dv_devx_umem** umem, std::string* why) {
    bytes = (bytes + kPage - 1) / kPage * kPage;
    QueueBuffer b;
    if (gpu_) {
        if (Status s = gpu_->alloc(bytes, &b); s != Status::ok) {
            *why = "GPU queue memory of " + std::to_string(bytes) + " bytes: allocation failed";
            return s;
        }
        std::vector<uint8_t> zeros(bytes, 0);
        if (Status s = gpu_->fill(b, 0, zeros.data(), bytes); s != Status::ok) {
            gpu_->release(&b);
            *why = "GPU queue memory: clearing it failed";
            return s;
        }
    } else {
        void* p = nullptr;
        if (posix_memalign(&p, kPage, bytes) != 0) {
            *why = "queue memory: out of host memory";
            return Status::no_memory;
        }
        std::memset(p, 0, bytes);
        b.addr = p;
        b.bytes = bytes;
    }
    mlx5dv_devx_umem_in in;
    std::memset(&in, 0, sizeof in);
    in.size = bytes;
    in.access = IBV_ACCESS_LOCAL_WRITE;
    in.pgsz_bitmap = kPage;  // the NIC addresses it in 4 KiB pages (qpc/cqc log_page_size 0)
    if (b.dmabuf_fd >= 0) {
        // The kernel takes addr as the offset into the dma-buf (ib_umem_dmabuf_get_pinned).
        in.addr = reinterpret_cast<void*>(static_cast<uintptr_t>(b.dmabuf_offset));
        in.comp_mask = MLX5DV_UMEM_MASK_DMABUF;
        in.dmabuf_fd = b.dmabuf_fd;
    } else {
        in.addr = b.addr;
    }
    errno = 0;
    *umem = mlx5dv_devx_umem_reg_ex(ctx_, &in);
    if (!*umem) {
        *why = name_ + ": registering " + std::to_string(bytes) + " bytes of " + (gpu_ ? "GPU" : "host") +
               " queue memory as umem failed: " + errno_text(errno);
        if (gpu_) gpu_->release(&b);
        else std::free(b.addr);
        return Status::transport_error;
    }
    *out = b;
    return Status::ok;
}

Status DevxDevice::fill_queue(const QueueBuffer& b, std::size_t off, const void* src, std::size_t n) {
    if (off > b.bytes || n > b.bytes - off) return Status::invalid;
    if (gpu_) return gpu_->fill(b, off, src, n);
    std::memcpy(static_cast<uint8_t*>(b.addr) + off, src, n);
    return Status::ok;
}

void DevxDevice::free_queue(QueueBuffer* b, mlx5dv_devx_umem* umem) {
    if (umem) mlx5dv_devx_umem_dereg(umem);
    if (!b->addr) return;
    if (gpu_) gpu_->release(b);
    else std::free(b->addr);
    *b = QueueBuffer{};
}

}  // namespace kishmem::ibgda
