// kishmem._kishmem_mpi: start kishmem over an MPI communicator (shmemx_init_mpi) and make teams
// from communicators. The communicator arrives as its C handle (an integer: mpi4py's
// MPI._handleof(comm)); MPI itself is initialized by the caller (mpi4py).
#include <mpi.h>
#include <pybind11/pybind11.h>
#include <shmemx_mpi.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace py = pybind11;

namespace {

// An MPI_Comm from its handle value: a pointer in Open MPI, an integer in MPICH.
MPI_Comm to_comm(uintptr_t h) {
    static_assert(sizeof(MPI_Comm) <= sizeof(uintptr_t), "an MPI_Comm handle fits in an integer");
    MPI_Comm c;
    if constexpr (sizeof(MPI_Comm) == sizeof(uintptr_t)) {
        std::memcpy(&c, &h, sizeof c);
    } else {  // an integer handle narrower than a pointer (MPICH's int)
        const auto v = static_cast<std::make_unsigned_t<int>>(h);
        std::memcpy(&c, &v, sizeof c);
    }
    return c;
}

}  // namespace

PYBIND11_MODULE(_kishmem_mpi, m) {
    m.doc() = "kishmem over an MPI communicator (shmemx_mpi.h), for kishmem.init(comm=...)";
    m.def("init_mpi", [](uintptr_t comm) {
        int rc;
        {
            py::gil_scoped_release nogil;
            rc = shmemx_init_mpi(to_comm(comm));
        }
        if (rc != 0) throw std::runtime_error("shmemx_init_mpi failed (message on stderr)");
    });
    m.def("team_from_mpi_comm", [](uintptr_t comm, uintptr_t parent) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        int rc;
        {
            py::gil_scoped_release nogil;
            rc = shmemx_team_from_mpi_comm(to_comm(comm), reinterpret_cast<shmem_team_t>(parent), &t);
        }
        if (rc != 0) throw std::runtime_error("shmemx_team_from_mpi_comm failed (message on stderr)");
        return reinterpret_cast<uintptr_t>(t);
    });
}
