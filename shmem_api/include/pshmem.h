/* kishmem: the OpenSHMEM profiling interface (OpenSHMEM 1.5 "Profiling Interface").  Every
 * routine of shmem.h also exists as pshmem_NAME, the same code under another name, so a tool
 * can define shmem_NAME itself and call pshmem_NAME from it.  The names come from the one
 * declaration list (kishmem/shmem_decl.h); the C11 generic selections and C++ overloads have no
 * pshmem_ forms (the spec: they are macros).  The library's own calls between routines go
 * through the shmem_ names: a tool that counts nested routines counts them as well. */
#ifndef KISHMEM_PSHMEM_H
#define KISHMEM_PSHMEM_H

#include "shmem.h"

#define KISHMEM_DECL_PSHMEM 1
#include "kishmem/shmem_decl.h"
#undef KISHMEM_DECL_PSHMEM

#endif /* KISHMEM_PSHMEM_H */
