// The one table of device backends: adding one is a row here and a file in this folder.
#include "backend.h"

namespace kishmem {

namespace {
struct Entry {
    routes::DeviceBackendKind kind;
    std::unique_ptr<DeviceBackend> (*make)();
};
constexpr Entry kBackends[] = {
    {routes::DeviceBackendKind::ibgda, make_ibgda_backend},
    {routes::DeviceBackendKind::proxy, make_proxy_backend},
};
}  // namespace

std::unique_ptr<DeviceBackend> make_device_backend(routes::DeviceBackendKind kind) {
    for (const Entry& e : kBackends)
        if (e.kind == kind) return e.make();
    return nullptr;
}

}  // namespace kishmem
