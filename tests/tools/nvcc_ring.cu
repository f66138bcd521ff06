// A user's CUDA program, as tests/tools/wrapper_nvcc.sh builds it: the same shmem_* names in a
// kernel and in host code, one .cu file, no -rdc. Each PE gives its right neighbour a number
// from the host, then another from a kernel, and checks what its left neighbour gave it.
// Without a usable GPU the kernel is not launched: the program says so and checks the host part.
#include <shmem.h>

#include <cuda_runtime.h>

#include <cstdio>

__global__ void pass_right(int* box, int value) {
    const int right = (shmem_my_pe() + 1) % shmem_n_pes();
    shmem_int_p(box, value, right);
    shmem_quiet();
}

int main() {
    shmem_init();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    const int right = (me + 1) % np, left = (me + np - 1) % np;
    int* box = static_cast<int*>(shmem_calloc(2, sizeof(int)));
    int bad = 0;

    shmem_int_p(box + 1, 100 + me, right);   // the host half of shmem_int_p
    shmem_barrier_all();
    const int host_got = shmem_int_g(box + 1, me);
    if (host_got != 100 + left) {
        std::printf("nvcc_ring: PE %d: host put from PE %d gave %d, want %d\n", me, left, host_got, 100 + left);
        bad = 1;
    }

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("nvcc_ring: PE %d of %d: host part OK; no usable GPU, kernel not launched\n", me, np);
    } else {
        pass_right<<<1, 1>>>(box, 200 + me);   // the device half, same name
        const cudaError_t err = cudaDeviceSynchronize();
        shmem_barrier_all();
        const int dev_got = shmem_int_g(box, me);
        if (err != cudaSuccess || dev_got != 200 + left) {
            std::printf("nvcc_ring: PE %d: kernel put from PE %d gave %d, want %d (%s)\n", me, left, dev_got,
                        200 + left, cudaGetErrorString(err));
            bad = 1;
        } else {
            std::printf("nvcc_ring: PE %d of %d: host part OK; kernel part OK\n", me, np);
        }
    }
    shmem_free(box);
    shmem_finalize();
    return bad;
}
