// The UCX configuration every UCX context of kishmem is made with (the ucx transport's, the
// active-message service's): UCX's environment as the user set it, except that UCX may make no
// shared-memory object that another user can open.
//   - System V segments (UCX's sysv transport: its FIFOs and receive buffers) are created with
//     mode 0660, so a member of the owner's group can attach them by id: the sysv transport is
//     left out of UCX_TLS (`sysv` and the `mm` alias become `posix`, the `shm`/`sm` aliases
//     posix and cma, and xpmem/knem where this host has them; an exclusion list gets `sysv`
//     added; `all` becomes `^sysv`).
//   - The posix transport's files are 0600 and, with UCX_POSIX_USE_PROC_LINK=y (UCX's default),
//     unlinked as soon as they are made (peers open them as /proc/PID/fd/N): another value is
//     replaced by y, with a warning.
#pragma once
#include <ucp/api/ucp.h>

#include <string>

namespace kishmem::ucx_config {

// UCX_TLS as kishmem passes it to UCX, from the user's value (nullptr or "": UCX's default).
std::string transports(const char* user_tls);

// Whether UCX, configured as transports() says, has a transport that maps a same-host peer's
// memory (posix, sysv, xpmem: UCX reaches such memory by load/store through ucp_rkey_ptr when it
// allocated it).  Memory UCX only registers it reaches through cma (a system call per
// operation) or in software at the target, so the ucx transport then reaches same-host heaps
// through kishmem's own mappings instead (UcxTransport::map_peers).
bool maps_same_host(const char* user_tls);

// ucp_config_read with the settings above applied; the caller releases *out.
ucs_status_t read(ucp_config_t** out);

}  // namespace kishmem::ucx_config
