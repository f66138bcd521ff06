// See limits.h.
#include "limits.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kishmem::limits {

namespace {

std::size_t meminfo(const char* key) {
    std::ifstream f("/proc/meminfo");
    std::string k;
    std::size_t kib = 0;
    std::string unit;
    while (f >> k >> kib) {
        std::getline(f, unit);
        if (k == key) return kib * 1024;
    }
    return 0;
}

// The limit in one cgroup file: a number of bytes, or "max" (none); 0 when unreadable.
std::size_t read_limit(const std::string& path) {
    std::ifstream f(path);
    std::string v;
    if (!(f >> v) || v == "max") return 0;
    unsigned long long n = 0;
    return std::sscanf(v.c_str(), "%llu", &n) == 1 ? static_cast<std::size_t>(n) : 0;
}

// The smallest limit from the cgroup `dir` (under `root`) up to the root: `file` in each.
void cgroup_limit(const std::string& root, std::string dir, const char* file, Limit* best) {
    for (;;) {
        const std::size_t n = read_limit(root + dir + "/" + file);
        // v1 says "no limit" with a huge page-rounded number
        if (n != 0 && n < (std::size_t{1} << 60) && (best->bytes == 0 || n < best->bytes))
            *best = Limit{n, "the memory cgroup " + (dir.empty() ? std::string("/") : dir) + " (" + file + ")"};
        if (dir.empty() || dir == "/") return;
        const std::size_t cut = dir.rfind('/');
        dir = cut == std::string::npos || cut == 0 ? std::string() : dir.substr(0, cut);
    }
}

}  // namespace

Limit host_memory() {
    Limit best{meminfo("MemTotal:"), "this host's memory (MemTotal)"};
    std::ifstream f("/proc/self/cgroup");
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string id, controllers, path;
        if (!std::getline(in, id, ':') || !std::getline(in, controllers, ':') || !std::getline(in, path)) continue;
        if (path == "/") path.clear();
        if (controllers.empty()) cgroup_limit("/sys/fs/cgroup", path, "memory.max", &best);  // v2
        std::istringstream list(controllers);
        for (std::string c; std::getline(list, c, ',');)
            if (c == "memory") cgroup_limit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", &best);  // v1
    }
    return best;
}

std::string bytes_text(std::size_t bytes) {
    char out[32];
    std::snprintf(out, sizeof out, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
    return out;
}

}  // namespace kishmem::limits
