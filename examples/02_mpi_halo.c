/* 02_mpi_halo: MPI and OpenSHMEM in one program.  A periodic 1-D domain of NX cells is cut into
 * one block per PE; every step, each PE puts its edge cells into its neighbours' ghost cells
 * with shmem_double_put_signal and waits for its own ghosts with shmem_signal_wait_until, then
 * applies a 3-point diffusion stencil.  At the end MPI_Allreduce adds up the blocks and the
 * result is compared with the same stencil computed serially on the whole domain.
 *
 * kishmem is started over MPI_COMM_WORLD with shmemx_init_mpi, so PE numbers are ranks.
 * Build: link with kishmem_mpi (CMake target) or -lkishmem_mpi -lkishmem and MPI.
 * Run:   mpirun -np 4 ./02_mpi_halo      or      srun --mpi=pmix -n 4 ./02_mpi_halo */
#include <math.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 1000     /* cells in the whole domain */
#define STEPS 50    /* stencil steps */
#define ALPHA 0.25  /* diffusion number (stable below 0.5) */

static double initial(int i) { return (i % 17 == 0 ? 10.0 : 0.0) + (double)(i % 7) * 0.5; }

static double stencil(double left, double mid, double right) { return mid + ALPHA * (left - 2.0 * mid + right); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (shmemx_init_mpi(MPI_COMM_WORLD) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;

    /* This PE's block: cells [first, first + n) of the domain. */
    int n = NX / npes + (me < NX % npes ? 1 : 0);
    int first = me * (NX / npes) + (me < NX % npes ? me : NX % npes);

    /* Symmetric ghost cells and their signals.  Steps alternate between two sets, so that a
     * neighbour one step ahead never overwrites a ghost not yet read: [parity][0] comes from the
     * left neighbour, [parity][1] from the right one. */
    double *ghost = shmem_calloc(4, sizeof(double));
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    double *u = malloc((size_t)n * sizeof(double)), *next = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) u[i] = initial(first + i);
    shmem_barrier_all(); /* ghosts and signals are zero everywhere before anybody puts */

    for (int step = 0; step < STEPS; ++step) {
        int p = step % 2;
        /* My first cell is my left neighbour's right ghost; my last cell the right one's left. */
        shmem_double_put_signal(&ghost[2 * p + 1], &u[0], 1, &sig[2 * p + 1], (uint64_t)step + 1, SHMEM_SIGNAL_SET, left);
        shmem_double_put_signal(&ghost[2 * p + 0], &u[n - 1], 1, &sig[2 * p + 0], (uint64_t)step + 1, SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(&sig[2 * p + 0], SHMEM_CMP_GE, (uint64_t)step + 1);
        shmem_signal_wait_until(&sig[2 * p + 1], SHMEM_CMP_GE, (uint64_t)step + 1);
        for (int i = 0; i < n; ++i) {
            double l = i == 0 ? ghost[2 * p + 0] : u[i - 1];
            double r = i == n - 1 ? ghost[2 * p + 1] : u[i + 1];
            next[i] = stencil(l, u[i], r);
        }
        double *t = u;
        u = next;
        next = t;
    }

    /* Every put has landed and every PE is done with SHMEM before MPI takes over: where RMA is
     * done in software (UCX over TCP), a PE waiting inside MPI does not serve its peers. */
    shmem_barrier_all();

    /* The same steps on the whole domain, serially, on every rank. */
    double *all = malloc(NX * sizeof(double)), *tmp = malloc(NX * sizeof(double));
    for (int i = 0; i < NX; ++i) all[i] = initial(i);
    for (int step = 0; step < STEPS; ++step) {
        for (int i = 0; i < NX; ++i) tmp[i] = stencil(all[(i + NX - 1) % NX], all[i], all[(i + 1) % NX]);
        double *t = all;
        all = tmp;
        tmp = t;
    }

    /* Each cell is computed by the same operations in both: they agree (to rounding, should a
     * compiler contract the two copies differently).  The sums are added in different orders. */
    double local_sum = 0.0, local_err = 0.0, global_sum = 0.0, global_err = 0.0, serial_sum = 0.0;
    for (int i = 0; i < n; ++i) {
        local_sum += u[i];
        local_err = fmax(local_err, fabs(u[i] - all[first + i]));
    }
    for (int i = 0; i < NX; ++i) serial_sum += all[i];
    MPI_Allreduce(&local_sum, &global_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&local_err, &global_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = global_err <= 1e-12 && fabs(global_sum - serial_sum) <= 1e-9 * fabs(serial_sum);
    if (me == 0)
        printf("halo exchange on %d PEs, %d cells, %d steps: sum %.12g (serial %.12g), largest cell error %g: %s\n",
               npes, NX, STEPS, global_sum, serial_sum, global_err, ok ? "OK" : "WRONG");

    free(tmp);
    free(all);
    free(next);
    free(u);
    shmem_free(sig);
    shmem_free(ghost);
    shmem_finalize();
    MPI_Finalize();
    return ok ? 0 : 1;
}
