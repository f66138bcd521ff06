/* KISHMEM_BEGIN_DECLS / KISHMEM_END_DECLS: around the declarations of every public header, so that
 * what they declare is exported whatever -fvisibility the library is built with, and has C
 * linkage from C++. */
#ifndef KISHMEM_C_DECLS_H
#define KISHMEM_C_DECLS_H

#if defined(__GNUC__)
#define KISHMEM_VISIBILITY_PUSH_ _Pragma("GCC visibility push(default)")
#define KISHMEM_VISIBILITY_POP_ _Pragma("GCC visibility pop")
#else
#define KISHMEM_VISIBILITY_PUSH_
#define KISHMEM_VISIBILITY_POP_
#endif

#ifdef __cplusplus
#define KISHMEM_BEGIN_DECLS KISHMEM_VISIBILITY_PUSH_ extern "C" {
#define KISHMEM_END_DECLS } KISHMEM_VISIBILITY_POP_
#else
#define KISHMEM_BEGIN_DECLS KISHMEM_VISIBILITY_PUSH_
#define KISHMEM_END_DECLS KISHMEM_VISIBILITY_POP_
#endif

#endif
