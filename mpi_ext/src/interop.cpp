// shmemx_mpi.h: kishmem initialized over an MPI communicator, teams <-> communicators.
#include <mpi.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kishmem_ext.h"
#include "mpi_bootstrap.h"
#include "shmemx_mpi.h"

// The runtime is reached through the OpenSHMEM API and kishmem_ext.h only.
using namespace kishmem;

namespace {

// The communicator kishmem was initialized over (a private duplicate), or MPI_COMM_NULL when
// shmem_init started it through the launcher.  Set once, by the initializing thread.
MPI_Comm g_base = MPI_COMM_NULL;
int g_finalize_key = MPI_KEYVAL_INVALID;

// Tags of MPI_Comm_create_group: one per team slot, so that teams sharing PEs never mix.
constexpr int kTagBase = 0x6b73;

// An error this call returns: one line, as kishmem's own messages.
void say(const char* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void say(const char* call, const char* fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const int pe = kishmem_ext_log_pe();
    int up = 0, down = 0, rank = -1;
    if (pe < 0 && MPI_Initialized(&up) == MPI_SUCCESS && up && MPI_Finalized(&down) == MPI_SUCCESS && !down)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);  // (before kishmem has PEs: the process by its MPI rank)
    if (pe >= 0) std::fprintf(stderr, "kishmem: PE %d: %s: %s\n", pe, call, msg);
    else if (rank >= 0) std::fprintf(stderr, "kishmem: rank %d of MPI_COMM_WORLD: %s: %s\n", rank, call, msg);
    else std::fprintf(stderr, "kishmem: %s: %s\n", call, msg);
    std::fflush(stderr);
}

bool mpi_usable(const char* call) {
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up) say(call, "MPI is not initialized: call MPI_Init or MPI_Init_thread first");
    else if (down) say(call, "MPI is already finalized");
    return up && !down;
}

bool initialized() {
    int up = 0;
    shmem_query_initialized(&up);
    return up != 0;
}

bool finalized() {
    int down = 0;
    shmem_query_finalized(&down);
    return down != 0;
}

bool shmem_up(const char* call) {
    if (initialized()) return true;
    say(call, finalized() ? "called after shmem_finalize" : "kishmem is not initialized");
    return false;
}

// A team's members (world PE of each team PE) and this PE's index in it (-1: not a member).
std::vector<int> members_of(shmem_team_t t) {
    std::vector<int> pes(static_cast<std::size_t>(kishmem_ext_team_members(t, nullptr)));
    kishmem_ext_team_members(t, pes.data());
    return pes;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes before anything else: a kishmem started over
// a communicator is finalized there, while MPI still works, if the program did not do it first.
int on_mpi_finalize(MPI_Comm, int, void*, void*) {
    if (initialized() && g_base != MPI_COMM_NULL) shmem_finalize();
    if (g_base != MPI_COMM_NULL) MPI_Comm_free(&g_base);
    return MPI_SUCCESS;
}

// The communicator over which team communicators are made, and a check that PE numbers are its
// ranks.  Under shmem_init that is MPI_COMM_WORLD: kishmem and MPI get their ranks from the same
// PMIx namespace.  A mismatch cannot be repaired and would make MPI wait for wrong processes:
// it ends the job.
MPI_Comm base_comm(const char* call) {
    if (g_base != MPI_COMM_NULL) return g_base;
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != shmem_my_pe() || size != shmem_n_pes()) {
        char msg[512];
        std::snprintf(msg, sizeof msg,
                      "kishmem (started by shmem_init through %s) has %d PEs and this is PE %d, but MPI_COMM_WORLD "
                      "has %d ranks and this is rank %d: the two do not describe the same job; start kishmem with "
                      "shmemx_init_mpi(MPI_COMM_WORLD) instead",
                      kishmem_ext_bootstrap_name(), shmem_n_pes(), shmem_my_pe(), size, rank);
        kishmem_ext_fatal(call, msg);
    }
    return MPI_COMM_WORLD;
}

// Completes an MPI request while this PE keeps serving its peers' SHMEM operations (software
// RMA needs it) and says, as kishmem's own waits do, when it takes too long.
struct Pending {
    MPI_Request* req;
    int rc;
};

int mpi_wait(MPI_Request* req, const char* call, const char* what) {
    const std::string text = std::string("MPI to complete an exchange on ") + what;
    Pending p{req, MPI_SUCCESS};
    kishmem_ext_wait(
        [](void* arg) {
            Pending* q = static_cast<Pending*>(arg);
            int done = 0;
            q->rc = MPI_Test(q->req, &done, MPI_STATUS_IGNORE);
            return q->rc != MPI_SUCCESS || done ? 1 : 0;
        },
        &p, call, text.c_str());
    return p.rc;
}

int allgather_ints(const char* call, const int* mine, int count, int* all, MPI_Comm comm, const char* what) {
    MPI_Request req;
    int rc = MPI_Iallgather(mine, count, MPI_INT, all, count, MPI_INT, comm, &req);
    if (rc == MPI_SUCCESS) rc = mpi_wait(&req, call, what);
    if (rc != MPI_SUCCESS) say(call, "MPI_Iallgather on %s failed: %s", what, mpi_ext::mpi_error_text(rc));
    return rc;
}

// Collective over `t`: a communicator of its PEs in team order (PE == rank of the base comm).
// Every member first completes its SHMEM operations and meets the others in a team barrier
// (both serve peers while they wait), so the one blocking MPI call here, among members that
// all arrived, never stands between a peer and the progress it needs from this PE.
int team_comm(const char* call, shmem_team_t t, MPI_Comm* out) {
    *out = MPI_COMM_NULL;
    MPI_Comm base = base_comm(call);
    kishmem_ext_team_quiesce(t, call);
    const std::vector<int> members = members_of(t);
    const int n = static_cast<int>(members.size());
    MPI_Group base_group, group;
    MPI_Comm_group(base, &base_group);
    int rc = MPI_Group_incl(base_group, n, members.data(), &group);
    MPI_Group_free(&base_group);
    if (rc != MPI_SUCCESS) {
        say(call, "MPI_Group_incl failed: %s", mpi_ext::mpi_error_text(rc));
        return -1;
    }
    rc = MPI_Comm_create_group(base, group, kTagBase + kishmem_ext_team_slot(t), out);
    MPI_Group_free(&group);
    if (rc != MPI_SUCCESS || *out == MPI_COMM_NULL) {
        say(call, "MPI_Comm_create_group over the team's %d PEs failed: %s", n, mpi_ext::mpi_error_text(rc));
        *out = MPI_COMM_NULL;
        return -1;
    }
    // Every member sees the same gathered list: all return alike.
    std::vector<int> pes(n);
    int me = shmem_my_pe();
    rc = allgather_ints(call, &me, 1, pes.data(), *out, "the new communicator");
    if (rc != MPI_SUCCESS || pes != members) {
        if (rc == MPI_SUCCESS) say(call, "the new communicator's ranks are not the team's PEs in team order");
        MPI_Comm_free(out);
        return -1;
    }
    return 0;
}

// shmemx_init_thread_mpi and shmemx_init_mpi, in the words of the call the program made.
int init_over(const char* call, MPI_Comm comm, int requested, int* provided) {
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        say(call, "requested thread level %d is not one of SHMEM_THREAD_*", requested);
        return -1;
    }
    if (!mpi_usable(call)) return -1;
    if (comm == MPI_COMM_NULL) {
        say(call, "the communicator is MPI_COMM_NULL: only the processes of a communicator call this");
        return -1;
    }
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter) {
        say(call, "an inter-communicator cannot be a SHMEM world");
        return -1;
    }
    if (initialized()) {
        int same = MPI_UNEQUAL;
        if (g_base != MPI_COMM_NULL) MPI_Comm_compare(comm, g_base, &same);
        if (same == MPI_IDENT || same == MPI_CONGRUENT) {
            if (provided) shmem_query_thread(provided);
            return 0;
        }
        say(call, "kishmem is already initialized (%s, %d PEs) over other processes", kishmem_ext_bootstrap_name(),
            shmem_n_pes());
        return -1;
    }
    if (finalized()) {
        say(call, "called after shmem_finalize; OpenSHMEM allows one init per program");
        return -1;
    }
    // The first collective over `comm`: a rank that comes late (or never) is waited for with the
    // hang messages, not inside a blocking MPI call.
    MPI_Comm boot = MPI_COMM_NULL, base = MPI_COMM_NULL;
    MPI_Request dup;
    int ranks = 0;
    MPI_Comm_size(comm, &ranks);
    int rc = MPI_Comm_idup(comm, &boot, &dup);
    if (rc == MPI_SUCCESS) rc = mpi_ext::wait_request(&dup, nullptr, nullptr, "every rank's shmemx_init_mpi", ranks);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(comm, &base);
    if (rc != MPI_SUCCESS) {
        say(call, "MPI_Comm_dup failed: %s", mpi_ext::mpi_error_text(rc));
        if (boot != MPI_COMM_NULL) MPI_Comm_free(&boot);
        return -1;
    }
    g_base = base;
    if (g_finalize_key == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_finalize, &g_finalize_key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, g_finalize_key, nullptr);
    kishmem_ext_bootstrap bootstrap;
    mpi_ext::bootstrap_mpi(boot, &bootstrap);
    int level = kishmem_ext_init(&bootstrap, requested);
    if (provided) *provided = level;
    return 0;
}

}  // namespace

extern "C" {

int shmemx_init_thread_mpi(MPI_Comm comm, int requested, int* provided) {
    return init_over("shmemx_init_thread_mpi", comm, requested, provided);
}

int shmemx_init_mpi(MPI_Comm comm) { return init_over("shmemx_init_mpi", comm, SHMEM_THREAD_SINGLE, nullptr); }

int shmemx_team_get_mpi_comm(shmem_team_t team, MPI_Comm* comm) {
    const char* call = "shmemx_team_get_mpi_comm";
    if (!comm) {
        say(call, "comm is NULL");
        return -1;
    }
    *comm = MPI_COMM_NULL;
    if (!shmem_up(call)) return -1;
    if (!kishmem_ext_team_valid(team)) {
        say(call, "team %p is not a valid team", static_cast<void*>(team));
        return -1;
    }
    if (!mpi_usable(call)) return -1;
    return team_comm(call, team, comm);
}

int shmemx_team_from_mpi_comm(MPI_Comm comm, shmem_team_t parent, shmem_team_t* team) {
    const char* call = "shmemx_team_from_mpi_comm";
    if (!team) {
        say(call, "team is NULL");
        return -1;
    }
    *team = SHMEM_TEAM_INVALID;
    if (!shmem_up(call)) return -1;
    if (!kishmem_ext_team_valid(parent)) {
        say(call, "parent team %p is not a valid team", static_cast<void*>(parent));
        return -1;
    }
    if (!mpi_usable(call)) return -1;
    // Every PE of the parent is here (and has completed its SHMEM operations) before any MPI
    // call: see team_comm.
    kishmem_ext_team_quiesce(parent, call);
    const std::vector<int> parent_members = members_of(parent);
    const int np = static_cast<int>(parent_members.size());
    std::vector<int> index_of(static_cast<std::size_t>(shmem_n_pes()), -1);  // parent index of each world PE
    for (int i = 0; i < np; ++i) index_of[parent_members[i]] = i;
    const int my_index = index_of[shmem_my_pe()];

    // 1. Within each communicator: its members as parent PE numbers, in rank order.  A group is
    //    named by its lowest parent PE number (-1: no communicator, -2: not usable).  Worked out
    //    here alone (PE numbers are the ranks of the base communicator: the groups translate
    //    them), not by a collective over `comm`: a member that passed another communicator, or
    //    a process of `comm` outside the parent, would leave such a collective waiting for ever;
    //    step 2 finds both and every PE returns non-zero.
    int info[3] = {-1, -1, 0};  // group, rank in it, its size
    if (comm != MPI_COMM_NULL) {
        int inter = 0, rank = 0, size = 0;
        MPI_Comm_test_inter(comm, &inter);
        info[0] = -2;
        if (inter) {
            say(call, "an inter-communicator cannot be a team");
        } else {
            MPI_Comm_rank(comm, &rank);
            MPI_Comm_size(comm, &size);
            std::vector<int> ranks(size), pes(size, MPI_UNDEFINED);
            for (int r = 0; r < size; ++r) ranks[r] = r;
            MPI_Group cg = MPI_GROUP_NULL, bg = MPI_GROUP_NULL;
            int rc = MPI_Comm_group(comm, &cg);
            if (rc == MPI_SUCCESS) rc = MPI_Comm_group(base_comm(call), &bg);
            if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(cg, size, ranks.data(), bg, pes.data());
            for (MPI_Group* g : {&cg, &bg})
                if (*g != MPI_GROUP_NULL) MPI_Group_free(g);
            if (rc != MPI_SUCCESS) {
                say(call, "the communicator's processes could not be matched with PEs: %s", mpi_ext::mpi_error_text(rc));
            } else {
                int low = np;
                bool ok = true;
                for (int pe : pes) {
                    int idx = pe >= 0 && pe < shmem_n_pes() ? index_of[pe] : -1;  // (MPI_UNDEFINED: not a PE at all)
                    if (idx < 0) ok = false;
                    else low = std::min(low, idx);
                }
                if (!ok) say(call, "a process of the communicator is not a PE of the parent team");
                else info[0] = low;
                info[1] = rank;
                info[2] = size;
            }
        }
    }

    // 2. Across the parent: everybody learns every group; all check the same data, so all
    //    return alike.
    MPI_Comm pcomm;
    if (team_comm(call, parent, &pcomm) != 0) return -1;
    std::vector<int> all(3 * static_cast<std::size_t>(np));
    int rc = allgather_ints(call, info, 3, all.data(), pcomm, "the parent team's communicator");
    MPI_Comm_free(&pcomm);
    if (rc != MPI_SUCCESS) return -1;
    std::map<int, std::vector<int>> groups;  // lowest parent PE -> parent PEs in rank order
    const char* bad = nullptr;
    for (int p = 0; p < np && !bad; ++p) {
        int key = all[3 * p], rank = all[3 * p + 1], size = all[3 * p + 2];
        if (key == -1) continue;
        if (key < 0) {
            bad = "some PE could not use its communicator";
            break;
        }
        std::vector<int>& g = groups[key];
        if (g.empty()) g.assign(size, -1);
        if (static_cast<int>(g.size()) != size || rank < 0 || rank >= size || g[rank] != -1)
            bad = "the communicators of the PEs overlap without being the same";
        else g[rank] = p;
    }
    for (auto it = groups.begin(); !bad && it != groups.end(); ++it)
        if (std::find(it->second.begin(), it->second.end(), -1) != it->second.end() ||
            *std::min_element(it->second.begin(), it->second.end()) != it->first)
            bad = "a member of some communicator did not pass it (it passed another one or MPI_COMM_NULL)";
    if (bad) {  // every PE of the parent returns non-zero; one says why
        if (my_index == 0)
            say(call, "%s: every PE of the parent team passes the communicator it belongs to, or MPI_COMM_NULL", bad);
        return -1;
    }

    // 3. Every PE makes every team in the same order, so the parent's agreements pair up; each
    //    keeps its own. When some team could not be made (no slot left: the runtime said so, and
    //    every PE of the parent knows), none is kept and every PE returns non-zero, as a split does.
    int full = 0;
    for (auto& [key, members] : groups) {
        shmem_team_t t = kishmem_ext_team_from_list(parent, members.data(), static_cast<int>(members.size()), call, &full);
        if (key == info[0]) *team = t;
    }
    if (!full) return 0;
    if (*team != SHMEM_TEAM_INVALID) shmem_team_destroy(*team);  // (by all of its members, which all get here)
    *team = SHMEM_TEAM_INVALID;
    return -1;
}

}  // extern "C"
