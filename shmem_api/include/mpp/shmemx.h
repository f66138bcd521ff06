/* Legacy include path of OpenSHMEM programs: <mpp/shmemx.h>. */
#include "../shmemx.h"
