// The peer for ep's numbers: NVSHMEM's nvshmemx_alltoallmem_on_stream moving the bytes one
// dispatch (FP8 or bf16) and one combine (bf16) move per PE: tokens x topk x hidden x bytes,
// split evenly over the PEs. Median of the rounds, slowest PE. Built by gpu_run.sh against the
// NVSHMEM of the GPU machine (-rdc=true):
//   mpirun -np N nvshmem_alltoall [tokens hidden topk rounds]
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                              \
        }                                                                              \
    } while (0)

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, n, ndev = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0) nvshmemx_get_uniqueid(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    const long T = argc > 1 ? atol(argv[1]) : 128, H = argc > 2 ? atol(argv[2]) : 7168, K = argc > 3 ? atol(argv[3]) : 8;
    const int rounds = argc > 4 ? atoi(argv[4]) : 50;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int bytes : {1, 2}) {
        const size_t per_pe = (T * K * H * bytes / n + 15) / 16 * 16;
        char* src = static_cast<char*>(nvshmem_malloc(per_pe * n));
        char* dst = static_cast<char*>(nvshmem_malloc(per_pe * n));
        CK(cudaMemset(src, 1, per_pe * n));
        std::vector<float> t;
        for (int r = 0; r < rounds + 5; ++r) {
            nvshmemx_barrier_all_on_stream(s);
            CK(cudaEventRecord(e0, s));
            nvshmemx_alltoallmem_on_stream(NVSHMEM_TEAM_WORLD, dst, src, per_pe, s);
            CK(cudaEventRecord(e1, s));
            CK(cudaStreamSynchronize(s));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 5) t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        float med = t[t.size() / 2], worst;
        MPI_Allreduce(&med, &worst, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0)
            std::printf("RESULT nvshmem_alltoallmem_on_stream pes %d bytes_per_element %d bytes_per_pe %zu us %.2f\n", n, bytes,
                        per_pe * n, worst);
        nvshmem_free(src);
        nvshmem_free(dst);
    }
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
