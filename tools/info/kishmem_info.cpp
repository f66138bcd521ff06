// kishmem-info: version, build options, transports and the environment table.
#include <cstdio>
#include <cstring>
#include <string>

#include "kishmem/config.h"
#include "kishmem/env.h"
#include "kishmem/ibgda_info.h"
#include "kishmem/runtime.h"
#include "shmem.h"

static const char* yesno(int v) { return v ? "yes" : "no"; }

static void usage() {
    std::printf("usage: kishmem-info [--env] [--build] [--all] [--routes]\n"
                "  (no option) version, build options and transports\n"
                "  --env       every environment variable with its type, default, value and doc\n"
                "  --routes    start the PEs (under mpirun or srun) and print, on PE 0, which heap is used\n"
                "              and how host calls and kernels reach same-host and off-host PEs, and why\n");
}

// The route decision of a real start: one line per decision with its reason.
static int print_routes() {
    shmem_init();
    if (shmem_my_pe() == 0) {
        std::printf("Routes of PE 0 (%d PEs):\n", shmem_n_pes());
        for (const std::string& line : kishmem::rt::route_report()) std::printf("  %s\n", line.c_str());
        std::fflush(stdout);
    }
    shmem_finalize();
    return 0;
}

// The type as the listing shows it; a variable with a fixed set of words shows them.
static std::string type_name(const kishmem::env::Var& v) {
    using kishmem::env::Type;
    switch (v.type) {
        case Type::size: return "size";
        case Type::int_: return "int";
        case Type::bool_: return "bool";
        case Type::flag: return "any (set: on)";
        case Type::seconds: return "seconds";
        case Type::string: return "string";
        case Type::auto_bool: case Type::choice: {
            std::string s;
            for (const std::string& w : v.choices) s += (s.empty() ? "" : "|") + w;
            return v.type == Type::auto_bool ? s + " or a boolean" : s;
        }
        case Type::fault: {
            std::string s;
            for (const std::string& w : v.choices) s += (s.empty() ? "" : "|") + w;
            return "(" + s + "):nth[:pe]";
        }
    }
    return "?";
}

static void print_env() {
    std::printf("Environment variables (value shown is what this process sees):\n");
    std::string cat;
    for (const auto& v : kishmem::env::table()) {
        if (cat != v.category) {
            cat = v.category;
            std::printf("\n[%s]\n", cat.c_str());
        }
        const char* from = nullptr;
        std::string text = kishmem::env::text_of(v, &from);
        std::printf("  %s%s%s (%s, default %s) = %s [%s]\n      %s\n", v.name, v.alias[0] ? " or " : "", v.alias,
                    type_name(v).c_str(), v.default_text, text.c_str(), from, v.doc);
    }
}

static void print_build() {
    std::printf("kishmem %s, OpenSHMEM %d.%d API (%s)\n", KISHMEM_VERSION_STRING, SHMEM_MAJOR_VERSION,
                SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING);
    std::printf("Build options:\n");
    std::printf("  PMIx bootstrap         %s\n", yesno(KISHMEM_HAVE_PMIX_BUILD));
    std::printf("  UCX transport          %s\n", yesno(KISHMEM_HAVE_UCX_BUILD));
    std::printf("  rdma-core (mlx5)       %s\n", yesno(KISHMEM_HAVE_VERBS_BUILD));
    std::printf("  CUDA                   %s\n", yesno(KISHMEM_HAVE_CUDA_BUILD));
    std::printf("Bootstraps: singleton%s\n", KISHMEM_HAVE_PMIX_BUILD ? ", pmix" : "");
    std::printf("Transports:\n");
    std::printf("  shm    load/store on same-host peers' heaps (POSIX shared memory)\n");
    if (KISHMEM_HAVE_UCX_BUILD) std::printf("  ucx    put/get/atomics through UCX (off-host peers, or KISHMEM_REMOTE=ucx)\n");
    if (KISHMEM_HAVE_CUDA_BUILD) std::printf("  cuda_ipc  GPU heaps of same-host PEs through CUDA IPC (KISHMEM_HEAP=auto|device)\n");
    if (KISHMEM_HAVE_CUDA_BUILD && KISHMEM_HAVE_UCX_BUILD)
        std::printf("  ucx_am GPU heaps of PEs on other hosts: UCX active messages, the target writes its GPU heap\n"
                    "         (a GPU heap per host group; UCX here registers host memory only)\n");
    std::printf("IBGDA: %s\n", kishmem::ibgda_status().c_str());
}

int main(int argc, char** argv) {
    bool env = false, build = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--env")) env = true;
        else if (!std::strcmp(argv[i], "--build")) build = true;
        else if (!std::strcmp(argv[i], "--all")) env = build = true;
        else if (!std::strcmp(argv[i], "--routes")) return print_routes();
        else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) return usage(), 0;
        else return usage(), 2;
    }
    if (!env) build = true;
    if (build) print_build();
    if (build && env) std::printf("\n");
    if (env) print_env();
    return 0;
}
