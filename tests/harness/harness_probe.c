/* harness_probe MODE: a program that ends the way MODE says, for the self-tests of the test
 * harness (tests/launch.sh with --pass/--fail/--status; tests/harness/CMakeLists.txt).
 *   pass              PE 0 prints the pass line; every PE exits 0
 *   exit_after_pass   PE 0 prints the pass line; then the last PE exits 3 (after shmem_finalize)
 *   abort_after_pass  PE 0 prints the pass line; then the last PE calls abort()
 *   no_pass_line      every PE exits 0 and nobody prints the pass line
 *   fail_line         PE 0 prints the pass line, the last PE a "FAIL: " line; every PE exits 0
 *   error             PE 0 prints the error message and exits 1 (a bad-input test's shape)
 *   error_exit0       PE 0 prints the error message; every PE exits 0
 *   error_silent      PE 0 exits 1 without the message
 *   hang              PE 0 prints the pass line, then every PE sleeps far past any timeout
 * The pass line is "PASS harness_probe on N PEs"; the error message "harness_probe: bad input". */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    const int says_pass = strcmp(mode, "pass") == 0 || strcmp(mode, "exit_after_pass") == 0 ||
                          strcmp(mode, "abort_after_pass") == 0 || strcmp(mode, "fail_line") == 0 ||
                          strcmp(mode, "hang") == 0;
    const int error = strncmp(mode, "error", 5) == 0;
    if (!says_pass && !error && strcmp(mode, "no_pass_line") != 0) {
        if (me == 0) fprintf(stderr, "harness_probe: unknown mode '%s'\n", mode);
        shmem_finalize();
        return 2;
    }
    shmem_barrier_all();
    if (me == 0 && says_pass) printf("PASS harness_probe on %d PEs\n", npes);
    if (me == 0 && (strcmp(mode, "error") == 0 || strcmp(mode, "error_exit0") == 0))
        printf("harness_probe: bad input\n");
    if (me == last && strcmp(mode, "fail_line") == 0) printf("FAIL: harness_probe: PE %d saw a wrong value\n", me);
    fflush(stdout);
    shmem_barrier_all();
    if (strcmp(mode, "hang") == 0) sleep(3600);
    shmem_finalize();
    if (me == last && strcmp(mode, "exit_after_pass") == 0) return 3;
    if (me == last && strcmp(mode, "abort_after_pass") == 0) abort();
    if (me == 0 && (strcmp(mode, "error") == 0 || strcmp(mode, "error_silent") == 0)) return 1;
    return 0;
}
