#include "config.h"

#include "kishmem/log.h"

#include <strings.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace kishmem::ucx_config {

namespace {
std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        std::size_t comma = s.find(',', at);
        if (comma == std::string::npos) comma = s.size();
        if (comma > at) out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

void add(std::vector<std::string>* list, const std::string& tl) {
    for (const std::string& have : *list)
        if (have == tl) return;
    list->push_back(tl);
}
}  // namespace

std::string transports(const char* user_tls) {
    const std::string tls = user_tls ? user_tls : "";
    if (tls.empty() || tls == "all") return "^sysv";
    if (tls[0] == '^') {  // an exclusion list: sysv excluded as well
        std::vector<std::string> out = split(tls.substr(1));
        add(&out, "sysv");
        std::string s = "^";
        for (const std::string& tl : out) s += (s.size() > 1 ? "," : "") + tl;
        return s;
    }
    std::vector<std::string> out;
    for (const std::string& tl : split(tls)) {
        if (tl == "sysv" || tl == "mm") {
            add(&out, "posix");
        } else if (tl == "shm" || tl == "sm") {  // UCX's aliases for every shared-memory transport
            add(&out, "posix");
            add(&out, "cma");
            if (access("/dev/xpmem", F_OK) == 0) add(&out, "xpmem");
            if (access("/dev/knem", F_OK) == 0) add(&out, "knem");
        } else {
            add(&out, tl);
        }
    }
    std::string s;
    for (const std::string& tl : out) s += (s.empty() ? "" : ",") + tl;
    return s;
}

bool maps_same_host(const char* user_tls) {
    const std::string tls = transports(user_tls);
    const auto maps = [](const std::string& tl) { return tl == "posix" || tl == "xpmem"; };
    if (tls[0] == '^') {  // every transport but those listed (sysv among them)
        for (const std::string& tl : split(tls.substr(1)))
            if (tl == "posix" || tl == "mm" || tl == "shm" || tl == "sm") return false;
        return true;
    }
    for (const std::string& tl : split(tls))
        if (maps(tl)) return true;
    return false;
}

ucs_status_t read(ucp_config_t** out) {
    *out = nullptr;
    // The posix memory domain reads its settings from the environment when UCX opens it (a
    // ucp_config_modify of them is reported as unused), so the setting goes there.
    const char* link = std::getenv("UCX_POSIX_USE_PROC_LINK");
    if (link && !(std::strcmp(link, "y") == 0 || strcasecmp(link, "yes") == 0 || std::strcmp(link, "1") == 0 ||
                  strcasecmp(link, "on") == 0)) {
        warn("shmem_init", "UCX_POSIX_USE_PROC_LINK=%s is replaced by y: UCX's shared-memory files must not keep a "
             "name in %s", link, "/dev/shm");
        setenv("UCX_POSIX_USE_PROC_LINK", "y", 1);
    }
    ucp_config_t* config = nullptr;
    ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
    if (st != UCS_OK) return st;
    st = ucp_config_modify(config, "TLS", transports(std::getenv("UCX_TLS")).c_str());
    if (st != UCS_OK) {
        ucp_config_release(config);
        return st;
    }
    *out = config;
    return UCS_OK;
}

}  // namespace kishmem::ucx_config
