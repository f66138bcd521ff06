/* The short names a user's file owns (KS, kd, K_ARG0, K_HD, CHECK) and the public headers once
 * used for themselves.  Included twice by user_macros.c / .cu:
 *   - before the public headers: defines them to values that break any header code using them;
 *   - after: fails the build if a header redefined or undefined one, then undefines them all so
 *     that the file can give them its own meanings next to the API. */
#ifndef USER_NAMES_SET
#define USER_NAMES_SET
#define KS (-101)
#define kd (-102)
#define K_ARG0 (-103)
#define K_HD (-104)
#define CHECK (-105)
#else
#if !defined(KS) || KS != -101 || !defined(kd) || kd != -102 || !defined(K_ARG0) || K_ARG0 != -103
#error "a public header redefined or undefined KS, kd or K_ARG0"
#endif
#if !defined(K_HD) || K_HD != -104 || !defined(CHECK) || CHECK != -105
#error "a public header redefined or undefined K_HD or CHECK"
#endif
#undef KS
#undef kd
#undef K_ARG0
#undef K_HD
#undef CHECK
#endif
