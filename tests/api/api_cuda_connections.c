/* CUDA_DEVICE_MAX_CONNECTIONS as a program linked with kishmem sees it at main: what the
 * library asked for when it loaded (KISHMEM_CUDA_CONNECTIONS), or the program's own setting. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    const char* s = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    printf("CUDA_DEVICE_MAX_CONNECTIONS=%s\n", s ? s : "(unset)");
    shmem_init();  /* linked for real: the library is loaded */
    shmem_finalize();
    return 0;
}
