// IBGDA availability: the NIC choice (nic_select.h) and the one-line status for kishmem-info.
#include "kishmem/config.h"
#include "kishmem/env.h"
#include "kishmem/ibgda_info.h"
#include "nic_select.h"
#if KISHMEM_HAVE_VERBS_BUILD
#include "devx.h"
#endif

namespace kishmem::ibgda {

// Probes once per process: opening a device is not free, and the answer does not change.
static bool hw_usable(std::string* what) {
    static const struct Probe {
        bool ok = false;
        std::string text;
        Probe() {
#if KISHMEM_HAVE_VERBS_BUILD
            std::string why, found;
            ok = ibgda_probe(&why, &found);
            text = ok ? found : why;
#else
            text = "this library was built without rdma-core (libibverbs-dev with mlx5)";
#endif
        }
    } probe;
    *what = probe.text;
    return probe.ok;
}

Status choose_nic(NicKind* kind, std::string* why) {
    // kishmem-info asks without shmem_init, which checks every variable: check this one here.
    if (!env::check(*env::find("KISHMEM_IBGDA_NIC"), why)) return Status::invalid;
    const env::IbgdaNic want = env::ibgda_nic();
    if (want == env::IbgdaNic::sim) {
        *kind = NicKind::sim;
        *why = "software NIC (KISHMEM_IBGDA_NIC=sim)";
        return Status::ok;
    }
    std::string what;
    const bool hw = hw_usable(&what);
    if (hw) {
        *kind = NicKind::hw;
        *why = "mlx5 " + what;
        return Status::ok;
    }
    if (want == env::IbgdaNic::hw) {
        *why = "KISHMEM_IBGDA_NIC=hw, and no mlx5 device is usable: " + what;
        return Status::unreachable;
    }
    *kind = NicKind::sim;
    *why = "software NIC (no usable mlx5 device: " + what + ")";
    return Status::ok;
}

}  // namespace kishmem::ibgda

namespace kishmem {

std::string ibgda_status() {
    std::string what;
    const bool hw = ibgda::hw_usable(&what);
    std::string line = hw ? "mlx5 NIC: " + what : "mlx5 NIC unavailable: " + what;
    ibgda::NicKind kind;
    std::string why;
    const Status chosen = ibgda::choose_nic(&kind, &why);
    if (chosen != Status::ok) {
        // KISHMEM_IBGDA_NIC=hw without a usable device: the reason is already on the line.
        if (chosen == Status::unreachable) return line + "; IBGDA unavailable: KISHMEM_IBGDA_NIC=hw and no usable mlx5 NIC";
        return line + "; IBGDA unavailable: " + why;
    }
    return line + "; IBGDA runs on the " + (kind == ibgda::NicKind::hw ? "mlx5 NIC" : "software NIC") +
           " (KISHMEM_IBGDA_NIC=" + env::word(env::ibgda_nic()) + ")";
}

}  // namespace kishmem
