/* Team management conformance (OpenSHMEM 1.5 "Team Management Routines"): the predefined teams,
 * shmem_team_split_strided (strides that leave PEs out, stride 0, nested splits),
 * shmem_team_split_2d (also of a strided parent), my_pe / n_pes / translate_pe / get_config /
 * destroy, shmem_team_sync, and SHMEM_TEAM_INVALID everywhere the spec defines it.
 *
 * Expected memberships are computed here from the (start, stride, size) triplets; the library's
 * own answers (translate_pe, my_pe) are checked against them, never used to derive them. */
#include "api_check.h"

static int me, npes;
static long *scratch; /* symmetric: team_sync checks and a reduction per team */

/* Checks every query on `team`, whose members in world numbering are wpe[0..n-1] (n == 0: the
 * calling PE must have been given SHMEM_TEAM_INVALID). */
static void check_team(const char *what, shmem_team_t team, const int *wpe, int n) {
    int idx = -1;
    for (int i = 0; i < n; ++i)
        if (wpe[i] == me) idx = i;
    if (idx < 0) {
        CHECK(team == SHMEM_TEAM_INVALID, "%s: PE %d is not a member but did not get SHMEM_TEAM_INVALID", what, me);
        CHECK(shmem_team_my_pe(team) == -1, "%s: shmem_team_my_pe(SHMEM_TEAM_INVALID) must be -1", what);
        CHECK(shmem_team_n_pes(team) == -1, "%s: shmem_team_n_pes(SHMEM_TEAM_INVALID) must be -1", what);
        CHECK(shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD) == -1, "%s: translate_pe from SHMEM_TEAM_INVALID", what);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, team) == -1, "%s: translate_pe to SHMEM_TEAM_INVALID", what);
        return;
    }
    CHECK(team != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
    CHECK(shmem_team_my_pe(team) == idx, "%s: shmem_team_my_pe = %d, want %d", what, shmem_team_my_pe(team), idx);
    CHECK(shmem_team_n_pes(team) == n, "%s: shmem_team_n_pes = %d, want %d", what, shmem_team_n_pes(team), n);
    for (int i = 0; i < n; ++i) {
        int w = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        CHECK(w == wpe[i], "%s: translate_pe(team, %d, WORLD) = %d, want %d", what, i, w, wpe[i]);
        CHECK(shmem_team_translate_pe(team, i, team) == i, "%s: translate_pe to the same team", what);
    }
    for (int w = 0; w < npes; ++w) {
        int want = -1;
        for (int i = 0; i < n; ++i)
            if (wpe[i] == w) want = i;
        int got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, team);
        CHECK(got == want, "%s: translate_pe(WORLD, %d, team) = %d, want %d", what, w, got, want);
    }
    CHECK(shmem_team_translate_pe(team, n, SHMEM_TEAM_WORLD) == -1, "%s: translate_pe of PE %d (past the end)", what, n);
    CHECK(shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD) == -1, "%s: translate_pe of PE -1", what);

    /* the team works: a sum over it of world PE numbers, and team_sync as a barrier */
    long *src = scratch, *dst = scratch + 1;
    *src = me + 1;
    long want = 0;
    for (int i = 0; i < n; ++i) want += wpe[i] + 1;
    CHECK(shmem_long_sum_reduce(team, dst, src, 1) == 0, "%s: shmem_long_sum_reduce failed", what);
    CHECK(*dst == want, "%s: sum over the team = %ld, want %ld", what, *dst, want);

    /* team_sync: member idx sleeps, then every member increments a counter on every member and
     * quiets; after the sync every counter has all n increments */
    long *count = scratch + 2;
    CHECK(shmem_team_sync(team) == 0, "%s: shmem_team_sync failed", what); /* counters are reset */
    if (idx == n - 1) api_sleep_us(20000);
    for (int i = 0; i < n; ++i) shmem_long_atomic_inc(count, wpe[i]);
    shmem_quiet();
    CHECK(shmem_team_sync(team) == 0, "%s: shmem_team_sync failed", what);
    long seen = shmem_long_atomic_fetch(count, me);
    CHECK(seen == n, "%s: left shmem_team_sync after %ld of %d increments", what, seen, n);
    CHECK(shmem_team_sync(team) == 0, "%s: shmem_team_sync failed", what);
    *count = 0;
    CHECK(shmem_team_sync(team) == 0, "%s: shmem_team_sync failed", what);
}

static void predefined(void) {
    int wpe[64];
    CHECK(npes <= 64, "test written for at most 64 PEs");
    for (int i = 0; i < npes; ++i) wpe[i] = i;
    check_team("SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, wpe, npes);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == shmem_my_pe(), "team_my_pe(WORLD) != shmem_my_pe");

    /* SHMEM_TEAM_SHARED: every member's symmetric objects are reachable with shmem_ptr */
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED), sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    CHECK(sn >= 1 && sn <= npes && sme >= 0 && sme < sn, "SHMEM_TEAM_SHARED: my_pe %d of %d", sme, sn);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD) == me, "SHARED: my own world number");
    char taken[64] = {0};
    for (int i = 0; i < sn; ++i) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(w >= 0 && w < npes && !taken[w], "SHARED member %d is world PE %d", i, w);
        taken[w] = 1;
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_SHARED) == i, "translate_pe(WORLD, %d, SHARED)", w);
        CHECK(shmem_ptr(scratch, w) != NULL, "SHMEM_TEAM_SHARED member world PE %d: shmem_ptr is NULL", w);
    }
    if (!getenv("KISHMEM_TEST_MULTIHOST")) CHECK(sn == npes, "all PEs share this host, SHARED has %d", sn);

    /* SHMEM_TEAM_INVALID */
    shmem_team_config_t cfg;
    shmem_team_t t = SHMEM_TEAM_WORLD, x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(SHMEM_TEAM_INVALID)");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(SHMEM_TEAM_INVALID)");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate_pe(INVALID, ...)");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1, "translate_pe(..., INVALID)");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config(INVALID) returned 0");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0, "split_strided of SHMEM_TEAM_INVALID returned 0");
    CHECK(t == SHMEM_TEAM_INVALID, "split_strided of SHMEM_TEAM_INVALID gave a team");
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0, "split_2d of SHMEM_TEAM_INVALID returned 0");
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d of SHMEM_TEAM_INVALID gave a team");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no operation */

    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0, "get_config(WORLD)");

    /* an invalid triplet (more PEs than the parent has): nonzero and SHMEM_TEAM_INVALID on all */
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t) != 0,
          "split_strided(WORLD, 0, 1, %d) of %d PEs returned 0", npes + 1, npes);
    CHECK(t == SHMEM_TEAM_INVALID, "split_strided with an invalid triplet gave a team");
    shmem_barrier_all();
}

/* Every strided split of the world that fits, config passed and not. */
static void strided(void) {
    api_triplet trip[16];
    int nt = api_triplets(npes, trip);
    for (int k = 0; k < nt; ++k) {
        api_triplet tr = trip[k];
        int wpe[64];
        for (int i = 0; i < tr.size; ++i) wpe[i] = api_triplet_pe(tr, i);
        shmem_team_config_t cfg = {0};
        cfg.num_contexts = 2;
        shmem_team_t t = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, tr.start, tr.stride, tr.size, (k % 2) ? &cfg : NULL,
                                          (k % 2) ? SHMEM_TEAM_NUM_CONTEXTS : 0, &t);
        char what[96];
        snprintf(what, sizeof what, "split_strided(WORLD, %d, %d, %d)", tr.start, tr.stride, tr.size);
        CHECK(rc == 0, "%s returned %d on PE %d (it must return 0 on every parent PE)", what, rc, me);
        check_team(what, t, wpe, tr.size);
        if (t != SHMEM_TEAM_INVALID && (k % 2)) {
            shmem_team_config_t got = {0};
            CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "%s: get_config", what);
            CHECK(got.num_contexts == 2, "%s: get_config num_contexts %d, created with 2", what, got.num_contexts);
        }
        shmem_team_destroy(t); /* SHMEM_TEAM_INVALID on non-members: no operation */
        shmem_barrier_all();
    }
}

/* Nested: T1 = world PEs 1..N-1, T2 = every other PE of T1, T3 = the last PE of T2.
 * Translations between the levels and between sibling teams. */
static void nested(void) {
    if (npes < 2) return;
    shmem_team_t t1, t2 = SHMEM_TEAM_INVALID, t3 = SHMEM_TEAM_INVALID, ev;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &t1) == 0, "nested: split T1");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &ev) == 0, "nested: split evens");
    int n1 = npes - 1, n2 = (n1 + 1) / 2, w1[64], w2[64];
    for (int i = 0; i < n1; ++i) w1[i] = 1 + i;
    for (int i = 0; i < n2; ++i) w2[i] = 1 + 2 * i;
    if (t1 != SHMEM_TEAM_INVALID) { /* only T1's members take part in splitting T1 */
        CHECK(shmem_team_split_strided(t1, 0, 2, n2, NULL, 0, &t2) == 0, "nested: split T2 from T1");
        check_team("T2 = split(T1, 0, 2)", t2, w2, n2);
        if (t2 != SHMEM_TEAM_INVALID) {
            for (int i = 0; i < n2; ++i)
                CHECK(shmem_team_translate_pe(t2, i, t1) == 2 * i, "translate_pe(T2, %d, T1) = %d", i, shmem_team_translate_pe(t2, i, t1));
            for (int i = 0; i < n1; ++i)
                CHECK(shmem_team_translate_pe(t1, i, t2) == (i % 2 ? -1 : i / 2), "translate_pe(T1, %d, T2)", i);
            CHECK(shmem_team_split_strided(t2, n2 - 1, 0, 1, NULL, 0, &t3) == 0, "nested: split T3 from T2");
            int w3 = w2[n2 - 1];
            check_team("T3 = last of T2", t3, &w3, 1);
            if (t3 != SHMEM_TEAM_INVALID) CHECK(shmem_team_translate_pe(t3, 0, t1) == 2 * (n2 - 1), "translate_pe(T3, 0, T1)");
            /* translate between T2 (odd world PEs) and the evens: no common member */
            for (int i = 0; i < n2; ++i)
                CHECK(shmem_team_translate_pe(t2, i, ev) == -1, "translate_pe(T2, %d, evens) must be -1", i);
        }
    }
    shmem_barrier_all(); /* check_team reuses its buffers: one team at a time */
    check_team("T1 = split(WORLD, 1, 1)", t1, w1, n1);
    shmem_team_destroy(t3);
    shmem_team_destroy(t2);
    shmem_team_destroy(t1);
    shmem_team_destroy(ev);
    shmem_barrier_all();
}

/* 2D splits of the world for several xrange values, and of a strided parent. */
static void split2d_of(const char *pname, shmem_team_t parent, const int *pw, int pn) {
    int pme = -1;
    for (int i = 0; i < pn; ++i)
        if (pw[i] == me) pme = i;
    if (pme < 0) return;
    int xr[4] = {1, 2, 3, pn}, nx = 4;
    for (int k = 0; k < nx; ++k) {
        int xrange = xr[k];
        if (xrange > pn || (k == 3 && pn <= 3)) continue;
        shmem_team_t xt, yt;
        shmem_team_config_t cfg = {0};
        cfg.num_contexts = 1;
        int rc = shmem_team_split_2d(parent, xrange, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &xt, NULL, 0, &yt);
        char what[96];
        snprintf(what, sizeof what, "split_2d(%s, xrange %d)", pname, xrange);
        CHECK(rc == 0, "%s returned %d", what, rc);
        int x = pme % xrange, y = pme / xrange, xw[64], yw[64], xn = 0, yn = 0;
        for (int q = y * xrange; q < (y + 1) * xrange && q < pn; ++q) xw[xn++] = pw[q];
        for (int q = x; q < pn; q += xrange) yw[yn++] = pw[q];
        CHECK(shmem_team_my_pe(xt) == x && shmem_team_my_pe(yt) == y, "%s: (x, y) = (%d, %d), want (%d, %d)", what,
              shmem_team_my_pe(xt), shmem_team_my_pe(yt), x, y);
        /* x-teams and y-teams are created collectively per resulting team; check them in turn */
        char wx[112], wy[112];
        snprintf(wx, sizeof wx, "%s x-team", what);
        snprintf(wy, sizeof wy, "%s y-team", what);
        check_team(wx, xt, xw, xn);
        shmem_team_sync(parent); /* check_team reuses its buffers: one team at a time */
        check_team(wy, yt, yw, yn);
        shmem_team_config_t got = {0};
        CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 1, "%s: x-team config", what);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
        shmem_team_sync(parent);
    }
}

static void split2d(void) {
    int w[64];
    for (int i = 0; i < npes; ++i) w[i] = i;
    split2d_of("WORLD", SHMEM_TEAM_WORLD, w, npes);
    shmem_barrier_all();
    if (npes >= 2) { /* a strided parent: world PEs 1, 2, ..., N-1 */
        shmem_team_t p;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &p) == 0, "split for 2D parent");
        for (int i = 0; i < npes - 1; ++i) w[i] = i + 1;
        if (p != SHMEM_TEAM_INVALID) split2d_of("world PEs 1..N-1", p, w, npes - 1);
        shmem_team_destroy(p);
    }
    shmem_barrier_all();
}

/* Create and destroy many teams: resources are given back. */
static void churn(void) {
    for (int r = 0; r < 100; ++r) {
        shmem_team_t t;
        int stride = 1 + r % 2, size = (npes + stride - 1) / stride;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, stride, size, NULL, 0, &t) == 0, "churn round %d", r);
        if (t != SHMEM_TEAM_INVALID) CHECK(shmem_team_n_pes(t) == size, "churn round %d: size", r);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
}

/* When no team can be made any more (every team slot taken): shmem_team_split_strided returns
 * nonzero with SHMEM_TEAM_INVALID on every PE; shmem_team_split_2d, if any of its teams cannot be
 * made, returns nonzero with both handles SHMEM_TEAM_INVALID on every PE and keeps none of the
 * teams it made (the spec's words for both). */
static void limit(void) {
    enum { kMost = 200 };
    static shmem_team_t made[kMost];
    int n = 0, rc = 0;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    while (n < kMost) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        if (rc != 0) break;
        CHECK(t != SHMEM_TEAM_INVALID, "limit: split %d returned 0 without a team", n);
        made[n++] = t;
    }
    CHECK(rc != 0 && n > 0 && n < kMost, "limit: %d splits before one failed (rc %d)", n, rc);
    CHECK(t == SHMEM_TEAM_INVALID, "limit: the failed split gave a team");
    shmem_team_destroy(made[--n]); /* one slot free: split_2d needs more than one team */
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    if (npes > 1) {
        rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y);
        CHECK(rc != 0 && x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
              "limit: split_2d with one free slot: rc %d, x %s, y %s", rc, x == SHMEM_TEAM_INVALID ? "invalid" : "a team",
              y == SHMEM_TEAM_INVALID ? "invalid" : "a team");
    }
    /* the slot is free again (split_2d kept nothing): one more world team fits */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0 && t != SHMEM_TEAM_INVALID,
          "limit: no team after split_2d gave its teams back");
    made[n++] = t;
    while (n > 0) shmem_team_destroy(made[--n]);
    shmem_team_config_t *none = NULL;
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, none) == 0, "get_config(WORLD, mask 0, NULL) must be 0");
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64, "test written for at most 64 PEs");
    scratch = shmem_calloc(8, sizeof(long));

    predefined();
    strided();
    nested();
    split2d();
    churn();
    limit();

    shmem_free(scratch);
    mp_pass("api_teams");
    shmem_finalize();
    return 0;
}
