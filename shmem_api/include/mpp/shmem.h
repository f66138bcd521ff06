/* Legacy include path of OpenSHMEM programs: <mpp/shmem.h>. */
#include "../shmem.h"
