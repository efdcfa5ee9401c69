/* The Rallyman exact solvers' compiled kernel: GT's the par time's dynamic programme
 * (sheetgen/games/rallyman/solve.py, `par`) and the safe route's search (`safe_route`) over
 * flat arrays, for sheetgen.games.rallyman.accel, which builds its inputs and reads its
 * answers. It is the reference's arithmetic, not an approximation of it: the same float
 * operations in the same order (build with -O2 -ffp-contract=off, never -ffast-math), the
 * same sort order of candidates (the vector, then the dice, then the order found), the same
 * epsilon tests, the same first plan chosen. tests/test_rallyman_kernel.py compares the two
 * with `==`.
 *
 * The structural partial-plan graph is built here, as the solve asks for it: a node is a
 * partial plan (cell and finish crossings, gear, dice used), an edge a die that may follow
 * (a move of the engine's, asked of Python once per cell and gear through a callback). A
 * node's Pareto fronts (flat out for each token count, one at a time for each count the
 * turn began with) live in a pool per (cell, crossings), addressed by offset and count, and
 * are dropped with it once the solve is a turn's window behind, as the reference drops its
 * dictionaries; a front asked for again is computed again, the same. Then the policy's
 * forward pass (solve._forward: the losses of control by cell, the expected turns, the turns
 * by mode), from the tables while they are here.
 *
 * DIRT's par (sheetgen/games/rallyman/solve_dirt.py, `_dp`) is the last part, `dirt_par`:
 * the same kind of graph over DIRT's states, its fronts kept for the whole solve.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef KERNEL_SOURCE_SHA256
#define KERNEL_SOURCE_SHA256 "unknown"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define POPCOUNT(x) __builtin_popcountll(x)
#else
#define PREFETCH(p) ((void)0)
static int POPCOUNT(unsigned long long x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}
#endif

#define BIG 1000000000.0 /* 10.0 ** 9: a state no plan leaves */
#define EPS 1e-12
#define ONE_EPS 1e-9    /* a tie between the modes goes to flat out */
#define MAXTOT 12

/* ------------------------------------------------------------------ growable arrays */

static int grow_to(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*ptr, n * elem);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *ptr = p;
    *cap = n;
    return 0;
}

#define GROW(arr, capv, need) ((size_t)(need) <= (capv) ? 0 : grow_to((void **)&(arr), &(capv), (size_t)(need), sizeof(*(arr))))

/* ------------------------------------------------------------------ a hash map u64 x u64 -> i64 */

typedef struct {
    uint64_t k1, k2; /* k1 stored + 1: 0 marks an empty slot */
    int64_t val;
} MapSlot;

typedef struct {
    MapSlot *s;
    size_t cap, n;
} Map;

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    return h;
}

static void map_free(Map *m)
{
    free(m->s);
    memset(m, 0, sizeof(*m));
}

static int map_init(Map *m, size_t cap)
{
    m->n = 0;
    m->cap = cap;
    m->s = calloc(cap, sizeof(MapSlot));
    if (m->s == NULL) {
        m->cap = 0;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* the value kept under (a, b), or -1 */
static inline int64_t map_get(const Map *m, uint64_t a, uint64_t b)
{
    size_t mask = m->cap - 1, i = (size_t)mix(a, b) & mask;
    while (m->s[i].k1) {
        if (m->s[i].k1 == a + 1 && m->s[i].k2 == b)
            return m->s[i].val;
        i = (i + 1) & mask;
    }
    return -1;
}

static int map_put(Map *m, uint64_t a, uint64_t b, int64_t v);

static int map_rehash(Map *m)
{
    Map bigger;
    if (map_init(&bigger, m->cap * 2) < 0)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->s[i].k1)
            map_put(&bigger, m->s[i].k1 - 1, m->s[i].k2, m->s[i].val);
    map_free(m);
    *m = bigger;
    return 0;
}

static int map_put(Map *m, uint64_t a, uint64_t b, int64_t v)
{
    if ((m->n + 1) * 2 > m->cap && map_rehash(m) < 0)
        return -1;
    size_t mask = m->cap - 1, i = (size_t)mix(a, b) & mask;
    while (m->s[i].k1) {
        if (m->s[i].k1 == a + 1 && m->s[i].k2 == b) {
            m->s[i].val = v;
            return 0;
        }
        i = (i + 1) & mask;
    }
    m->s[i].k1 = a + 1;
    m->s[i].k2 = b;
    m->s[i].val = v;
    m->n++;
    return 0;
}

/* ------------------------------------------------------------------ a set of u64 x u64, emptied in O(1) */

/* a slot counts only when stamped with the set's current generation: emptying it is a new
 * generation (the safe route's searches, one per cell and gear, each begin with empty sets) */
typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
} GenSlot;

typedef struct {
    GenSlot *s;
    size_t cap, n;
    uint32_t gen;
} GenSet;

static void genset_free(GenSet *m)
{
    free(m->s);
    memset(m, 0, sizeof(*m));
}

static int genset_init(GenSet *m, size_t cap)
{
    m->s = calloc(cap, sizeof(GenSlot));
    if (m->s == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    m->cap = cap;
    m->n = 0;
    m->gen = 1;
    return 0;
}

static void genset_clear(GenSet *m)
{
    m->n = 0;
    if (++m->gen == 0) { /* (wrapped round: every stamp wiped) */
        memset(m->s, 0, m->cap * sizeof(GenSlot));
        m->gen = 1;
    }
}

/* adds (a, b): 1 if it was there already, 0 if added, -1 on an error */
static int genset_add(GenSet *m, uint64_t a, uint64_t b)
{
    if ((m->n + 1) * 2 > m->cap) {
        GenSet bigger;
        if (genset_init(&bigger, m->cap * 2) < 0)
            return -1;
        bigger.gen = 1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->s[i].gen == m->gen) {
                size_t mask = bigger.cap - 1, j = (size_t)mix(m->s[i].k1, m->s[i].k2) & mask;
                while (bigger.s[j].gen == bigger.gen)
                    j = (j + 1) & mask;
                bigger.s[j] = m->s[i];
                bigger.s[j].gen = bigger.gen;
                bigger.n++;
            }
        genset_free(m);
        *m = bigger;
    }
    size_t mask = m->cap - 1, i = (size_t)mix(a, b) & mask;
    while (m->s[i].gen == m->gen) {
        if (m->s[i].k1 == a && m->s[i].k2 == b)
            return 1;
        i = (i + 1) & mask;
    }
    m->s[i].k1 = a;
    m->s[i].k2 = b;
    m->s[i].gen = m->gen;
    m->n++;
    return 0;
}

/* ------------------------------------------------------------------ reading Python sequences */

static int read_ints(PyObject *seq, Py_ssize_t n, long long *out, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int read_doubles(PyObject *seq, Py_ssize_t n, double *out, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyFloat_Check(item)) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_TypeError, "%s: floats expected", what);
            return -1;
        }
        out[i] = PyFloat_AS_DOUBLE(item);
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *get_item(PyObject *dict, const char *key)
{
    PyObject *v = PyDict_GetItemString(dict, key); /* borrowed */
    if (v == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_KeyError, "%s", key);
    return v;
}

static int get_int(PyObject *dict, const char *key, long long *out)
{
    PyObject *v = get_item(dict, key);
    if (v == NULL)
        return -1;
    *out = PyLong_AsLongLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int get_ints(PyObject *dict, const char *key, Py_ssize_t n, long long *out)
{
    PyObject *v = get_item(dict, key);
    return v == NULL ? -1 : read_ints(v, n, out, key);
}

static int get_doubles(PyObject *dict, const char *key, Py_ssize_t n, double *out)
{
    PyObject *v = get_item(dict, key);
    return v == NULL ? -1 : read_doubles(v, n, out, key);
}

/* ------------------------------------------------------------------ the track and the dice (both solvers) */

#define MAXDICE 24
#define MAXGEARS 16

typedef struct {
    /* the track */
    int ncells, laps, top, G; /* laps: the finish-line crossings that finish (Stage.laps_needed); G: gears 0..top */
    PyObject *moves_cb; /* (cell, gear) -> ((to, die, gear after, marks, finish line crossed), ...) */
    /* the dice (solve._Dice): a gear die's bit, or another kind's shift and cap */
    int ndice, gear_free, canon_on;
    uint64_t bit[MAXDICE];
    int shift[MAXDICE], dcap[MAXDICE];
    uint64_t whole;
    int die_gear[MAXDICE * MAXGEARS]; /* the gear after die d from gear g, or -1 (rules.die_gear, kept within 1..top) */
    /* the engine's moves of each (cell, gear), fetched once */
    int *mv_off, *mv_cnt; /* [ncells * G], -1: not fetched yet */
    int *mv_to, *mv_die, *mv_gear, *mv_marks, *mv_inc, *mv_local;
    size_t mv_n, mv_cap_to, mv_cap_die, mv_cap_gear, mv_cap_marks, mv_cap_inc, mv_cap_local;
    /* solve._canonical's memo */
    Map canon;
} Track;

static void track_free(Track *T)
{
    free(T->mv_off);
    free(T->mv_cnt);
    free(T->mv_to);
    free(T->mv_die);
    free(T->mv_gear);
    free(T->mv_marks);
    free(T->mv_inc);
    free(T->mv_local);
    map_free(&T->canon);
}

static int track_init(Track *T, PyObject *spec, PyObject *moves_cb)
{
    long long v, tmp[MAXDICE * MAXGEARS];
    memset(T, 0, sizeof(*T));
    T->moves_cb = moves_cb;
    if (get_int(spec, "ncells", &v) < 0)
        return -1;
    T->ncells = (int)v;
    if (get_int(spec, "laps", &v) < 0)
        return -1;
    T->laps = (int)v;
    if (get_int(spec, "top", &v) < 0)
        return -1;
    T->top = (int)v;
    T->G = T->top + 1;
    if (get_int(spec, "ndice", &v) < 0)
        return -1;
    T->ndice = (int)v;
    if (T->ncells < 1 || T->laps < 1 || T->top < 1 || T->G > MAXGEARS || T->ndice < 1 || T->ndice > MAXDICE) {
        PyErr_SetString(PyExc_ValueError, "the kernel does not take this track or ruleset");
        return -1;
    }
    if (get_int(spec, "gear_free", &v) < 0)
        return -1;
    T->gear_free = (int)v;
    if (get_int(spec, "canonical", &v) < 0)
        return -1;
    T->canon_on = (int)v;
    T->mv_off = malloc(sizeof(int) * (size_t)T->ncells * (size_t)T->G);
    T->mv_cnt = malloc(sizeof(int) * (size_t)T->ncells * (size_t)T->G);
    if (!T->mv_off || !T->mv_cnt) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < T->ncells * T->G; i++)
        T->mv_cnt[i] = -1;
    if (get_ints(spec, "bit", T->ndice, tmp) < 0)
        return -1;
    T->whole = 0;
    for (int d = 0; d < T->ndice; d++) {
        T->bit[d] = (uint64_t)tmp[d];
        T->whole |= T->bit[d];
    }
    if (get_ints(spec, "shift", T->ndice, tmp) < 0)
        return -1;
    for (int d = 0; d < T->ndice; d++) {
        T->shift[d] = (int)tmp[d];
        if (T->shift[d] < 0 || T->shift[d] > 59) {
            PyErr_SetString(PyExc_ValueError, "the kernel does not take this ruleset's dice");
            return -1;
        }
    }
    if (get_ints(spec, "die_cap", T->ndice, tmp) < 0)
        return -1;
    for (int d = 0; d < T->ndice; d++)
        T->dcap[d] = (int)tmp[d];
    if (get_ints(spec, "die_gear", (Py_ssize_t)T->ndice * T->G, tmp) < 0)
        return -1;
    for (int i = 0; i < T->ndice * T->G; i++)
        T->die_gear[i] = (int)tmp[i];
    if (map_init(&T->canon, 1024) < 0)
        return -1;
    return 0;
}

/* `used` with die d too, or -1 when the dashboard has none left (solve._Dice.add) */
static inline int64_t dice_add(const Track *T, uint64_t used, int d)
{
    uint64_t b = T->bit[d];
    if (b) {
        if ((used & b) || POPCOUNT(used & 0xFFFULL) >= T->gear_free)
            return -1;
        return (int64_t)(used | b);
    }
    if ((int)((used >> T->shift[d]) & 15) >= T->dcap[d])
        return -1;
    return (int64_t)(used + (1ULL << T->shift[d]));
}

/* solve._canonical: the dice used with the gear dice no plan from (gear, used) can reach
 * marked used too */
static int64_t canonical(Track *T, int gear, uint64_t used)
{
    if (!T->canon_on)
        return (int64_t)used;
    int64_t hit = map_get(&T->canon, (uint64_t)gear, used);
    if (hit >= 0)
        return hit;
    Map seen;
    if (map_init(&seen, 256) < 0)
        return -1;
    uint64_t *stack = NULL;
    size_t sn = 0, scap = 0;
    uint64_t relevant = 0;
    if (GROW(stack, scap, 2) < 0)
        goto fail;
    stack[sn++] = (uint64_t)gear;
    stack[sn++] = used;
    while (sn) {
        uint64_t u = stack[--sn];
        int g = (int)stack[--sn];
        if (map_get(&seen, (uint64_t)g, u) >= 0)
            continue;
        if (map_put(&seen, (uint64_t)g, u, 1) < 0)
            goto fail;
        for (int d = 0; d < T->ndice; d++) {
            int64_t nu = dice_add(T, u, d);
            if (nu < 0)
                continue;
            int g2 = T->die_gear[d * T->G + g];
            if (g2 < 0)
                continue;
            relevant |= T->bit[d];
            if (GROW(stack, scap, sn + 2) < 0)
                goto fail;
            stack[sn++] = (uint64_t)g2;
            stack[sn++] = (uint64_t)nu;
        }
    }
    free(stack);
    map_free(&seen);
    int64_t out = (int64_t)(used | (T->whole & ~relevant));
    if (map_put(&T->canon, (uint64_t)gear, used, out) < 0)
        return -1;
    return out;
fail:
    free(stack);
    map_free(&seen);
    return -1;
}

/* the engine's moves from (cell, gear): fetched from Python the first time */
static int fetch_moves(Track *T, int cell, int gear)
{
    int slot = cell * T->G + gear;
    if (T->mv_cnt[slot] >= 0)
        return 0;
    PyObject *got = PyObject_CallFunction(T->moves_cb, "ii", cell, gear);
    if (got == NULL)
        return -1;
    PyObject *fast = PySequence_Fast(got, "moves");
    Py_DECREF(got);
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    size_t need = T->mv_n + (size_t)n;
    if (GROW(T->mv_to, T->mv_cap_to, need) < 0 || GROW(T->mv_die, T->mv_cap_die, need) < 0 || GROW(T->mv_gear, T->mv_cap_gear, need) < 0 ||
        GROW(T->mv_marks, T->mv_cap_marks, need) < 0 || GROW(T->mv_inc, T->mv_cap_inc, need) < 0 || GROW(T->mv_local, T->mv_cap_local, need) < 0) {
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long f[5];
        if (read_ints(PySequence_Fast_GET_ITEM(fast, i), 5, f, "move") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        if (f[0] < 0 || f[0] >= T->ncells || f[1] < 0 || f[1] >= T->ndice || f[2] < 1 || f[2] > T->top || f[3] < 0 || f[4] < 0 || f[4] > 1) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a move the kernel cannot take");
            return -1;
        }
        size_t j = T->mv_n + (size_t)i;
        T->mv_to[j] = (int)f[0];
        T->mv_die[j] = (int)f[1];
        T->mv_gear[j] = (int)f[2];
        T->mv_marks[j] = (int)f[3];
        T->mv_inc[j] = (int)f[4];
        T->mv_local[j] = (int)i;
    }
    Py_DECREF(fast);
    T->mv_off[slot] = (int)T->mv_n;
    T->mv_cnt[slot] = (int)n;
    T->mv_n = need;
    return 0;
}

/* ================================================================== the par time */

/* an entry of a front: its vector (an offset into a pool's doubles), the dice in its tail, a
 * tie-break (the order it was found), its first step (a move, or -1: the turn stops here),
 * the tokens its tail earns, and the entry it continues with: the k-th entry of the front of
 * node `next_node` (-1: none) for `next_t` tokens. (Named so, not by its place in a pool: a
 * pool may have been dropped since, and the front is then computed again, the same.) */
typedef struct {
    int64_t voff;
    int32_t dice, order, step, e;
    int32_t next_node, next_k, next_t;
} Entry;

/* an entry as a pool keeps it (its vector beside its front's others, its tie-break done with) */
typedef struct {
    int32_t dice, step, next_node, next_k;
    int16_t e, next_t;
} PEntry;

typedef struct {
    PEntry *e;
    size_t n, cap;
    double *v;
    size_t vn, vcap;
} Pool;

/* a front: its entries' offset in the pool, their vectors' offset, their count (-1: none) */
typedef struct {
    int32_t off, voff, cnt;
} Front;

/* a candidate to sort: its vector's first component kept beside it (most comparisons end there) */
typedef struct {
    double v0;
    int32_t i;
} Key;

typedef struct {
    Track T;
    int limit, cap, C1, one_at_a_time, window;
    double *p, *q;     /* [ndice] the caution chance, one minus it */
    long long *earns;  /* [ndice] */
    double *sec;       /* [G] seconds of a turn ended in gear g */
    double *losssec;   /* [G] seconds of a loss of control in gear g */
    long long *kmax_of; /* [cap + 1] */
    long long tot[MAXTOT];
    int nsc; /* (cell, crossings) slots: cross * ncells + cell */
    /* nodes: partial plans (slot, gear, dice used) */
    Map *nodes; /* [nsc] the slot's partial plans (a map each: the slots a turn spans stay in the caches) */
    int32_t *n_sc, *n_gear, *n_eoff, *n_ecnt, *n_next; /* n_next: the next node of the same slot */
    uint64_t *n_used;
    size_t nn, cap_sc, cap_gear, cap_eoff, cap_ecnt, cap_next, cap_used;
    int32_t *sc_first; /* [nsc] the slot's last node created, -1 */
    int32_t *root;     /* [nsc * G] the node (slot, gear, no dice used), -1 */
    /* edges */
    int32_t *e_move, *e_child;
    size_t ne, cap_emove, cap_echild;
    /* fronts: [node * C1 + t], in the node's slot's pool */
    Front *flat_m, *one_m;
    size_t cap_fm, cap_om;
    Pool *pools; /* [nsc] */
    /* values: [(slot * G + gear) * C1 + f] */
    double *val; /* NaN: not asked yet; BIG while being solved */
    signed char *vmode;  /* -1: no plan, 0: flat out, 1: one at a time */
    int32_t *vplan_off, *vplan_len;
    int32_t *plans, *plans_g; /* the plans' moves: indices into their (cell, gear)'s list; the moves */
    size_t plans_n, plans_cap, plans_g_cap;
    int32_t *vorder; /* the states in the order first asked */
    size_t vorder_n, vorder_cap;
    /* scratch: candidates (a stack: a solve inside a solve pushes above and pops back) */
    Entry *cand;
    size_t cn, ccap;
    double *cv;
    size_t cvn, cvcap;
    Key *keys;
    size_t keyscap;
    int32_t *front;
    size_t frontcap;
    double *fv; /* the front's vectors, side by side, while it is filtered */
    size_t fvcap;
    int32_t *fe;
    size_t fecap;
    double *top_;
    size_t topcap;
    int sort_dims;
} Par;

static void par_free(Par *P)
{
    track_free(&P->T);
    free(P->p);
    free(P->q);
    free(P->earns);
    free(P->sec);
    free(P->losssec);
    free(P->kmax_of);
    if (P->nodes) {
        for (int i = 0; i < P->nsc; i++)
            map_free(&P->nodes[i]);
        free(P->nodes);
    }
    free(P->n_sc);
    free(P->n_gear);
    free(P->n_eoff);
    free(P->n_ecnt);
    free(P->n_next);
    free(P->n_used);
    free(P->sc_first);
    free(P->root);
    free(P->e_move);
    free(P->e_child);
    free(P->flat_m);
    free(P->one_m);
    if (P->pools) {
        for (int i = 0; i < P->nsc; i++) {
            free(P->pools[i].e);
            free(P->pools[i].v);
        }
        free(P->pools);
    }
    free(P->val);
    free(P->vmode);
    free(P->vplan_off);
    free(P->vplan_len);
    free(P->plans);
    free(P->plans_g);
    free(P->vorder);
    free(P->cand);
    free(P->cv);
    free(P->keys);
    free(P->front);
    free(P->fv);
    free(P->fe);
    free(P->top_);
}

/* the node of (slot, gear, used), made if new: its id, or -1 on an error */
static int32_t node_of(Par *P, int sc, int gear, uint64_t used)
{
    uint64_t k2 = (uint64_t)gear;
    if (used == 0) {
        int32_t r = P->root[sc * P->T.G + gear];
        if (r >= 0)
            return r;
    } else {
        if (P->nodes[sc].cap == 0 && map_init(&P->nodes[sc], 64) < 0)
            return -1;
        int64_t hit = map_get(&P->nodes[sc], used, k2);
        if (hit >= 0)
            return (int32_t)hit;
    }
    size_t id = P->nn, need = id + 1;
    if (GROW(P->n_sc, P->cap_sc, need) < 0 || GROW(P->n_gear, P->cap_gear, need) < 0 || GROW(P->n_eoff, P->cap_eoff, need) < 0 ||
        GROW(P->n_ecnt, P->cap_ecnt, need) < 0 || GROW(P->n_next, P->cap_next, need) < 0 || GROW(P->n_used, P->cap_used, need) < 0 ||
        GROW(P->flat_m, P->cap_fm, need * P->C1) < 0 || GROW(P->one_m, P->cap_om, need * P->C1) < 0)
        return -1;
    if (id > 0x7FFFFFF0) {
        PyErr_SetString(PyExc_MemoryError, "too many partial plans for the kernel");
        return -1;
    }
    P->n_sc[id] = sc;
    P->n_gear[id] = gear;
    P->n_used[id] = used;
    P->n_eoff[id] = 0;
    P->n_ecnt[id] = -1;
    P->n_next[id] = P->sc_first[sc];
    P->sc_first[sc] = (int32_t)id;
    for (int t = 0; t < P->C1; t++) {
        P->flat_m[id * P->C1 + t].cnt = -1;
        P->one_m[id * P->C1 + t].cnt = -1;
    }
    P->nn = need;
    if (used == 0)
        P->root[sc * P->T.G + gear] = (int32_t)id;
    else if (map_put(&P->nodes[sc], used, k2, (int64_t)id) < 0)
        return -1;
    return (int32_t)id;
}

/* the dice a partial plan may go on with (solve.par's `follow`), listed once */
static int expand(Par *P, int32_t node)
{
    if (P->n_ecnt[node] >= 0)
        return 0;
    Track *T = &P->T;
    int sc = P->n_sc[node], gear = P->n_gear[node];
    int cell = sc % T->ncells, cross = sc / T->ncells;
    uint64_t used = P->n_used[node];
    if (fetch_moves(T, cell, gear) < 0)
        return -1;
    int off = T->mv_off[cell * T->G + gear], cnt = T->mv_cnt[cell * T->G + gear];
    size_t start = P->ne;
    for (int i = 0; i < cnt; i++) {
        int mv = off + i, d = T->mv_die[mv];
        int64_t nu = dice_add(T, used, d);
        if (nu < 0)
            continue;
        int c2 = cross + T->mv_inc[mv];
        int32_t child = -1;
        if (c2 < T->laps) {
            int g2 = T->mv_gear[mv];
            int64_t cu = canonical(T, g2, (uint64_t)nu);
            if (cu < 0)
                return -1;
            child = node_of(P, c2 * T->ncells + T->mv_to[mv], g2, (uint64_t)cu);
            if (child < 0)
                return -1;
        }
        if (GROW(P->e_move, P->cap_emove, P->ne + 1) < 0 || GROW(P->e_child, P->cap_echild, P->ne + 1) < 0)
            return -1;
        P->e_move[P->ne] = mv;
        P->e_child[P->ne] = child;
        P->ne++;
    }
    P->n_eoff[node] = (int32_t)start;
    P->n_ecnt[node] = (int32_t)(P->ne - start);
    return 0;
}

static int V(Par *P, int sc, int gear, int f, double *out);

/* V, its memo looked at first (inline: most askings find the value solved) */
static inline int Vmemo(Par *P, int sc, int gear, int f, double *out)
{
    double v = P->val[((size_t)sc * P->T.G + gear) * P->C1 + f];
    if (v == v) {
        *out = v;
        return 0;
    }
    return V(P, sc, gear, f, out);
}

/* the seconds of a loss of control in `gear` onto slot (cell, c2), tokens then held
 * (solve.par's `loss`) */
static inline int loss(Par *P, int cell, int c2, int gear, int tokens, double *out)
{
    double t = P->losssec[gear];
    if (c2 >= P->T.laps) {
        *out = t;
        return 0;
    }
    double v;
    if (Vmemo(P, c2 * P->T.ncells + cell, 0, tokens, &v) < 0)
        return -1;
    *out = t + v;
    return 0;
}

/* push a candidate with a vector of `dims` doubles (left to be filled): its index */
static inline int push_cand(Par *P, int dims, int32_t dice, int32_t order, int32_t step, int32_t e, int32_t next_node, int32_t next_k, int32_t next_t,
                     size_t *at)
{
    if (GROW(P->cand, P->ccap, P->cn + 1) < 0 || GROW(P->cv, P->cvcap, P->cvn + (size_t)dims) < 0)
        return -1;
    Entry *c = &P->cand[P->cn];
    c->voff = (int64_t)P->cvn;
    c->dice = dice;
    c->order = order;
    c->step = step;
    c->e = e;
    c->next_node = next_node;
    c->next_k = next_k;
    c->next_t = next_t;
    *at = P->cn;
    P->cn++;
    P->cvn += (size_t)dims;
    return 0;
}

/* the candidates' order: their vectors, then the dice, then the order found (Python's tuple
 * comparison; no vector holds a NaN) */
static inline int key_less(const Par *P, const Key *a, const Key *b)
{
    if (a->v0 != b->v0)
        return a->v0 < b->v0;
    const Entry *x = &P->cand[a->i], *y = &P->cand[b->i];
    const double *u = P->cv + x->voff, *w = P->cv + y->voff;
    for (int i = 1; i < P->sort_dims; i++) {
        if (u[i] != w[i])
            return u[i] < w[i];
    }
    if (x->dice != y->dice)
        return x->dice < y->dice;
    return x->order < y->order;
}

static void sort_keys(const Par *P, Key *a, Key *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            Key v = a[i];
            size_t j = i;
            while (j > 0 && key_less(P, &v, &a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    size_t h = n / 2;
    sort_keys(P, a, tmp, h);
    sort_keys(P, a + h, tmp, n - h);
    if (!key_less(P, &a[h], &a[h - 1]))
        return; /* (already in order) */
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = key_less(P, &a[j], &a[i]) ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    /* (the rest of the right half is in place) */
    for (size_t x = 0; x < k; x++)
        a[x] = tmp[x];
}

/* the candidates [cbase, cn) sorted and filtered to their Pareto front (a candidate is left
 * out when one kept before it is no more than it plus 1e-12 in every component and, with
 * `with_e`, earns as many tokens), stored in the slot's pool: *off, *cnt */
static int finish_front(Par *P, size_t cbase, int dims, int with_e, int sc, Front *out)
{
    size_t n = P->cn - cbase;
    if (GROW(P->keys, P->keyscap, 2 * n + 1) < 0 || GROW(P->front, P->frontcap, n + 1) < 0 || GROW(P->top_, P->topcap, (size_t)dims) < 0 ||
        GROW(P->fv, P->fvcap, (n + 1) * (size_t)dims) < 0 || GROW(P->fe, P->fecap, n + 1) < 0)
        return -1;
    Key *keys = P->keys, *tmp = P->keys + n;
    for (size_t i = 0; i < n; i++) {
        keys[i].i = (int32_t)(cbase + i);
        keys[i].v0 = P->cv[P->cand[cbase + i].voff];
    }
    P->sort_dims = dims;
    sort_keys(P, keys, tmp, n);
    size_t nf = 0, last = 0;
    double *top = P->top_, *fv = P->fv;
    int32_t *fe = P->fe;
    for (size_t i = 0; i < n; i++) {
        const Entry *c = &P->cand[keys[i].i];
        const double *a = P->cv + c->voff;
        const int32_t e = with_e ? c->e : 0;
        int beaten = 0;
        if (dims == 3) {
            const double t0 = a[0] + EPS, t1 = a[1] + EPS, t2 = a[2] + EPS;
            /* (the one that beat the last candidate first: whether any does is what counts) */
            if (last < nf) {
                const double *b = fv + 3 * last;
                beaten = fe[last] >= e && b[0] <= t0 && b[1] <= t1 && b[2] <= t2;
            }
            for (size_t o = 0; o < nf && !beaten; o++) {
                const double *b = fv + 3 * o;
                if (fe[o] >= e && b[0] <= t0 && b[1] <= t1 && b[2] <= t2) {
                    beaten = 1;
                    last = o;
                }
            }
        } else {
            for (int j = 0; j < dims; j++)
                top[j] = a[j] + EPS;
            for (size_t pass = 0; pass < 2 && !beaten; pass++) {
                size_t from = pass ? 0 : last, to = pass ? nf : (last < nf ? last + 1 : 0);
                for (size_t o = from; o < to && !beaten; o++) {
                    if (fe[o] < e)
                        continue;
                    const double *b = fv + (size_t)dims * o;
                    int j = 0;
                    while (j < dims && b[j] <= top[j])
                        j++;
                    if (j == dims) {
                        beaten = 1;
                        last = o;
                    }
                }
            }
        }
        if (!beaten) {
            double *d = fv + (size_t)dims * nf;
            if (dims == 3) {
                d[0] = a[0];
                d[1] = a[1];
                d[2] = a[2];
            } else {
                for (int j = 0; j < dims; j++)
                    d[j] = a[j];
            }
            fe[nf] = e;
            P->front[nf++] = keys[i].i;
        }
    }
    Pool *pool = &P->pools[sc];
    if (GROW(pool->e, pool->cap, pool->n + nf) < 0 || GROW(pool->v, pool->vcap, pool->vn + nf * (size_t)dims) < 0)
        return -1;
    if (pool->vn + nf * (size_t)dims > 0x7FFFFFF0) {
        PyErr_SetString(PyExc_MemoryError, "a pool too large for the kernel");
        return -1;
    }
    out->off = (int32_t)pool->n;
    out->voff = (int32_t)pool->vn;
    out->cnt = (int32_t)nf;
    memcpy(pool->v + pool->vn, fv, sizeof(double) * nf * (size_t)dims);
    for (size_t i = 0; i < nf; i++) {
        const Entry *c = &P->cand[P->front[i]];
        PEntry *d = &pool->e[pool->n + i];
        d->dice = c->dice;
        d->step = c->step;
        d->next_node = c->next_node;
        d->next_k = c->next_k;
        d->e = (int16_t)c->e;
        d->next_t = (int16_t)c->next_t;
    }
    pool->n += nf;
    pool->vn += nf * (size_t)dims;
    return 0;
}

/* flat out (solve.par's `flat`): the Pareto front of a partial plan's continuations, its
 * dice so far bringing the tokens to t */
static int flat(Par *P, int32_t node, int t, Front *out)
{
    size_t slot = (size_t)node * P->C1 + t;
    if (P->flat_m[slot].cnt >= 0) {
        *out = P->flat_m[slot];
        return 0;
    }
    Track *T = &P->T;
    const int limit = P->limit, cap = P->cap;
    const int sc = P->n_sc[node], gear = P->n_gear[node];
    const int cross = sc / T->ncells;
    const uint64_t used = P->n_used[node];
    size_t cbase = P->cn, dbase = P->cvn, at;
    int32_t ncand = 0;
    double stop = 0.0;
    if (used) {
        stop = P->sec[gear];
        if (cross >= T->laps) {
            stop = stop + 0.0;
        } else {
            double v;
            if (Vmemo(P, sc, gear, t, &v) < 0)
                return -1;
            stop = stop + v;
        }
        if (push_cand(P, limit, 0, ncand++, -1, 0, -1, -1, -1, &at) < 0)
            return -1;
        double *vec = P->cv + P->cand[at].voff;
        for (int c = 0; c < limit; c++)
            vec[c] = stop;
    }
    const int room = cap - t;
    if (expand(P, node) < 0)
        return -1;
    const int32_t eoff = P->n_eoff[node], ecnt = P->n_ecnt[node];
    /* (what the dice ask for next, asked of the memory ahead: the tails' fronts, the losses' values) */
    for (int32_t j = eoff; j < eoff + ecnt; j++) {
        const int mv = P->e_move[j];
        const int32_t child = P->e_child[j];
        const int a = (int)P->earns[T->mv_die[mv]];
        if (child >= 0)
            PREFETCH(&P->flat_m[(size_t)child * P->C1 + (t + a < cap ? t + a : cap)]);
        const int c2 = cross + T->mv_inc[mv];
        if (c2 < T->laps)
            PREFETCH(&P->val[((size_t)(c2 * T->ncells + T->mv_to[mv]) * T->G) * P->C1 + t]);
    }
    double lose_by_e[65];
    for (int32_t j = eoff; j < eoff + ecnt; j++) {
        const int mv = P->e_move[j];
        const int32_t child = P->e_child[j];
        const int d = T->mv_die[mv], m = T->mv_marks[mv], g2 = T->mv_gear[mv], to = T->mv_to[mv];
        const int c2 = cross + T->mv_inc[mv];
        const int a = (int)P->earns[d];
        const double p = P->p[d], q = P->q[d];
        int t2 = t + a < cap ? t + a : cap;
        Front tail = {0, 0, 1};
        int32_t tpool = -1;
        if (child >= 0) {
            if (flat(P, child, t2, &tail) < 0)
                return -1;
            tpool = P->n_sc[child];
        }
        for (int e = 0; e <= room; e++)
            lose_by_e[e] = Py_NAN;
        for (int32_t i = 0; i < tail.cnt; i++) {
            int te = child >= 0 ? P->pools[tpool].e[tail.off + i].e : 0;
            int e = a + te < room ? a + te : room;
            double lose = lose_by_e[e];
            if (lose != lose) { /* (asked the first time for these tokens: the solve's order of asking kept) */
                if (loss(P, to, c2, g2, t + e, &lose) < 0)
                    return -1;
                lose_by_e[e] = lose;
            }
            /* the tail's vector extended by the loss (solve.par's `ext`); the pools may have
             * moved in the loss's solve, not in push_cand's (it grows the scratch only) */
            int32_t tdice = child >= 0 ? P->pools[tpool].e[tail.off + i].dice : 0;
            if (push_cand(P, limit, tdice + 1, ncand++, mv, e, child, i, t2, &at) < 0)
                return -1;
            const double *tv = child >= 0 ? P->pools[tpool].v + tail.voff + (size_t)i * limit : NULL;
            double *vec = P->cv + P->cand[at].voff;
            const double done_sec = P->sec[g2];
            for (int c = 0; c < limit; c++) {
                int i0 = c + m, i1 = c + m + 1;
                double x0 = i0 < limit ? (tv ? tv[i0] : done_sec) : lose;
                double x1 = i1 < limit ? (tv ? tv[i1] : done_sec) : lose;
                vec[c] = q * x0 + p * x1;
            }
            /* A candidate no better than the stop in any component, and earning no token,
             * could never be kept: the stop comes before it in the order (a smaller vector,
             * or the same with fewer dice), and beats it, or is beaten by a kept one that
             * then beats it too (rounding is monotone: b <= s + eps <= c + eps). Left out
             * before the sort, it changes nothing but the work. */
            if (used && e == 0) {
                int c = 0;
                while (c < limit && stop <= vec[c])
                    c++;
                if (c == limit) {
                    P->cn--;
                    P->cvn -= (size_t)limit;
                }
            }
        }
    }
    Front front;
    if (finish_front(P, cbase, limit, 1, sc, &front) < 0)
        return -1;
    P->cn = cbase;
    P->cvn = dbase;
    P->flat_m[slot] = front;
    *out = front;
    return 0;
}

/* one at a time (solve.par's `one`): the Pareto front of a partial plan's continuations
 * from a turn begun with f tokens, vectors over (dice secured k, cautions c) */
static int one(Par *P, int32_t node, int f, Front *out)
{
    size_t slot = (size_t)node * P->C1 + f;
    if (P->one_m[slot].cnt >= 0) {
        *out = P->one_m[slot];
        return 0;
    }
    Track *T = &P->T;
    const int limit = P->limit;
    const int sc = P->n_sc[node], gear = P->n_gear[node];
    const int cross = sc / T->ncells;
    const uint64_t used = P->n_used[node];
    const int kmax = (int)P->kmax_of[f];
    const int dims = limit * (kmax + 1);
    int left[MAXTOT];
    for (int k = 0; k <= kmax; k++)
        left[k] = f - (int)P->tot[k];
    size_t cbase = P->cn, dbase = P->cvn, at;
    int32_t ncand = 0;
    int64_t stopoff = -1; /* the stop's vector, in the scratch */
    if (used) {
        if (push_cand(P, dims, 0, ncand++, -1, 0, -1, -1, -1, &at) < 0)
            return -1;
        stopoff = P->cand[at].voff;
        for (int k = 0; k <= kmax; k++) {
            /* (asked once for the limit's components of k: the first asking in the same order) */
            double v = 0.0, s;
            if (cross >= T->laps) {
                s = P->sec[gear] + 0.0;
            } else {
                if (Vmemo(P, sc, gear, left[k], &v) < 0)
                    return -1;
                s = P->sec[gear] + v;
            }
            for (int c = 0; c < limit; c++)
                P->cv[stopoff + k * limit + c] = s;
        }
    }
    if (expand(P, node) < 0)
        return -1;
    const int32_t eoff = P->n_eoff[node], ecnt = P->n_ecnt[node];
    for (int32_t j = eoff; j < eoff + ecnt; j++) {
        const int mv = P->e_move[j];
        const int32_t child = P->e_child[j];
        if (child >= 0)
            PREFETCH(&P->one_m[(size_t)child * P->C1 + f]);
        const int c2 = cross + T->mv_inc[mv];
        if (c2 < T->laps)
            PREFETCH(&P->val[((size_t)(c2 * T->ncells + T->mv_to[mv]) * T->G) * P->C1 + left[kmax]]);
    }
    double lossk[MAXTOT];
    for (int32_t j = eoff; j < eoff + ecnt; j++) {
        const int mv = P->e_move[j];
        const int32_t child = P->e_child[j];
        const int d = T->mv_die[mv], m = T->mv_marks[mv], g2 = T->mv_gear[mv], to = T->mv_to[mv];
        const int c2 = cross + T->mv_inc[mv];
        const double p = P->p[d], q = P->q[d];
        Front tail = {0, 0, 1};
        int32_t tpool = -1;
        if (child >= 0) {
            if (one(P, child, f, &tail) < 0)
                return -1;
            tpool = P->n_sc[child];
        }
        /* the losses of control for k = 0..kmax (solve.par's `ext`, then "never": BIG) */
        for (int k = 0; k <= kmax; k++)
            if (loss(P, to, c2, g2, left[k], &lossk[k]) < 0)
                return -1;
        double done_vec[64]; /* (a die that finishes: every component of its tail sec[g2]) */
        if (child < 0)
            for (int c = 0; c < dims; c++)
                done_vec[c] = P->sec[g2];
        for (int32_t i = 0; i < tail.cnt; i++) {
            int32_t tdice = child >= 0 ? P->pools[tpool].e[tail.off + i].dice : 0;
            if (push_cand(P, dims, tdice + 1, ncand++, mv, 0, child, i, f, &at) < 0)
                return -1;
            const double *tv = child >= 0 ? P->pools[tpool].v + tail.voff + (size_t)i * dims : NULL;
            double *vec = P->cv + P->cand[at].voff;
            const double *stopvec = stopoff >= 0 ? P->cv + stopoff : NULL;
            /* solve._one_program applied: component (k, c) rolls q * x[i0] + p * x[i1], or takes
             * the secured die's x[i2] when that is less; x is the tail's vector (every
             * component sec[g2] when the die finishes) extended by the losses and "never" */
            const double *x = tv != NULL ? tv : done_vec;
            for (int k = 0; k <= kmax; k++) {
                const int base = k * limit;
                for (int c = 0; c < limit; c++) {
                    const int a = c + m;
                    double x0, x1, x2;
                    if (a >= limit) {
                        x0 = x1 = lossk[k];
                        x2 = BIG;
                    } else {
                        x0 = x[base + a];
                        x1 = a + 1 >= limit ? lossk[k] : x[base + a + 1];
                        x2 = k < kmax ? x[base + limit + a] : BIG;
                    }
                    double v = q * x0 + p * x1;
                    double nv = v < x2 ? v : x2;
                    if (stopvec != NULL) {
                        double b = stopvec[base + c];
                        nv = b < nv ? b : nv;
                    }
                    vec[base + c] = nv;
                }
            }
            /* Each component is at most the stop's: one no better than it in any is the
             * stop's vector, which could never be kept (the stop, with no dice, comes before
             * it; see flat). Left out before the sort. */
            if (stopvec != NULL) {
                int c = 0;
                while (c < dims && vec[c] == stopvec[c])
                    c++;
                if (c == dims) {
                    P->cn--;
                    P->cvn -= (size_t)dims;
                }
            }
        }
    }
    Front front;
    if (finish_front(P, cbase, dims, 0, sc, &front) < 0)
        return -1;
    P->cn = cbase;
    P->cvn = dbase;
    P->one_m[slot] = front;
    *out = front;
    return 0;
}

/* the expected seconds to the finish from (slot, gear) holding f tokens (solve.par's `V`):
 * the best of the flat-out and one-at-a-time fronts' first components; the plan chosen kept */
static int V(Par *P, int sc, int gear, int f, double *out)
{
    size_t k = ((size_t)sc * P->T.G + gear) * P->C1 + f;
    if (P->val[k] == P->val[k]) {
        *out = P->val[k]; /* (BIG while being solved: a state that leads back to itself is never chosen) */
        return 0;
    }
    P->val[k] = BIG;
    if (GROW(P->vorder, P->vorder_cap, P->vorder_n + 1) < 0)
        return -1;
    P->vorder[P->vorder_n++] = (int32_t)k;
    int32_t node = node_of(P, sc, gear, 0);
    if (node < 0)
        return -1;
    double best = BIG;
    int32_t first = -1; /* the plan chosen: its place in the front of its mode */
    int mode = 0;
    Front fr;
    if (flat(P, node, f, &fr) < 0)
        return -1;
    for (int32_t i = 0; i < fr.cnt; i++) {
        double v0 = P->pools[sc].v[fr.voff + (size_t)i * P->limit];
        if (v0 < best) {
            best = v0;
            first = i;
        }
    }
    if (P->one_at_a_time) {
        if (one(P, node, f, &fr) < 0)
            return -1;
        const size_t dims = (size_t)P->limit * (size_t)(P->kmax_of[f] + 1);
        for (int32_t i = 0; i < fr.cnt; i++) {
            double v0 = P->pools[sc].v[fr.voff + (size_t)i * dims];
            if (v0 < best - ONE_EPS) {
                best = v0;
                first = i;
                mode = 1;
            }
        }
    }
    P->val[k] = best;
    P->vmode[k] = -1;
    if (first >= 0) {
        /* the plan: the steps of the entries it continues with (solve.par's `chain`) */
        P->vmode[k] = (signed char)mode;
        P->vplan_off[k] = (int32_t)P->plans_n;
        int32_t len = 0, nd = node, kk = first, tt = f;
        for (;;) {
            if ((mode ? one(P, nd, tt, &fr) : flat(P, nd, tt, &fr)) < 0)
                return -1;
            const PEntry *en = &P->pools[P->n_sc[nd]].e[fr.off + kk];
            if (en->step < 0)
                break;
            if (GROW(P->plans, P->plans_cap, P->plans_n + 1) < 0 || GROW(P->plans_g, P->plans_g_cap, P->plans_n + 1) < 0)
                return -1;
            en = &P->pools[P->n_sc[nd]].e[fr.off + kk];
            P->plans_g[P->plans_n] = en->step;
            P->plans[P->plans_n++] = P->T.mv_local[en->step];
            len++;
            if (en->next_node < 0)
                break;
            int32_t nn = en->next_node, nk = en->next_k, nt = en->next_t;
            nd = nn;
            kk = nk;
            tt = nt;
        }
        P->vplan_len[k] = len;
    }
    *out = best;
    return 0;
}

/* drop a slot's fronts (the solve is a turn's window past it) */
static void drop_slot(Par *P, int sc)
{
    Pool *pool = &P->pools[sc];
    free(pool->e);
    free(pool->v);
    memset(pool, 0, sizeof(*pool));
    for (int32_t n = P->sc_first[sc]; n >= 0; n = P->n_next[n])
        for (int t = 0; t < P->C1; t++) {
            P->flat_m[(size_t)n * P->C1 + t].cnt = -1;
            P->one_m[(size_t)n * P->C1 + t].cnt = -1;
        }
}

/* ================================================================== the policy's forward pass */

/* What solve._forward works out from the solved policy (through Par.outcomes, OneTable and
 * plan_outcomes): the chance of losing control on each cell, the expected turns and the
 * turns rolled in each mode, the same operations in the same order (the dictionaries'
 * orders of insertion kept as lists). Returns 1 when a value it needs was not solved (the
 * reference would raise: the caller runs it instead), -1 on an error. */

typedef struct {
    int64_t next; /* the next state (an index of the values), -1: the stage is over */
    double q;
    int32_t at; /* the cell where control was lost, -1 */
    int32_t turns;
} Outcome;

typedef struct {
    Outcome *o;
    size_t n, cap;
    int32_t *off, *cnt; /* per state: its outcomes, cnt -1: not worked out yet */
    /* the Python `sum` (plan_outcomes sums its chances with it: the same on every version) */
    PyObject *sum;
    double *ot_sec, *ot_losssec; /* OneTable's seconds: a turn ended in gear g, a loss in gear g */
    long long *loss_out;          /* a loss in gear g goes to gear 00 (a turn lost) */
} Fwd;

/* the value of a solved state, or NaN */
static inline double solved_value(const Par *P, int cell, int cross, int gear, int f)
{
    return P->val[((size_t)(cross * P->T.ncells + cell) * P->T.G + gear) * P->C1 + f];
}

static inline int64_t state_index(const Par *P, int cell, int cross, int gear, int f)
{
    return (int64_t)(((size_t)(cross * P->T.ncells + cell) * P->T.G + gear) * P->C1 + f);
}

static int add_outcome(Fwd *W, int64_t next, double q, int32_t at, int32_t turns)
{
    if (GROW(W->o, W->cap, W->n + 1) < 0)
        return -1;
    W->o[W->n].next = next;
    W->o[W->n].q = q;
    W->o[W->n].at = at;
    W->o[W->n].turns = turns;
    W->n++;
    return 0;
}

/* Par.outcomes(key) flat out (plan_outcomes) */
static int flat_outcomes(Par *P, Fwd *W, size_t k, int cell, int cross, int f)
{
    const Track *T = &P->T;
    const int limit = P->limit, n = P->vplan_len[k];
    const int32_t *plan = P->plans_g + P->vplan_off[k];
    double dist[64], nxt[64], losses[256];
    if (n > 256)
        return 1;
    int earned = 0;
    for (int i = 0; i < n; i++)
        earned += (int)P->earns[T->mv_die[plan[i]]];
    const int tokens = f + earned < P->cap ? f + earned : P->cap;
    dist[0] = 1.0;
    for (int c = 1; c < limit; c++)
        dist[c] = 0.0;
    for (int i = 0; i < n; i++) {
        const int mv = plan[i], marks = T->mv_marks[mv];
        const double p = P->p[T->mv_die[mv]];
        const double pr[2] = {1 - p, p};
        double lost = 0.0;
        for (int c = 0; c < limit; c++)
            nxt[c] = 0.0;
        for (int c = 0; c < limit; c++) {
            const double q = dist[c];
            if (q == 0.0)
                continue;
            for (int extra = 0; extra < 2; extra++) {
                const int a = c + marks + extra;
                if (a >= limit)
                    lost += q * pr[extra];
                else
                    nxt[a] += q * pr[extra];
            }
        }
        losses[i] = lost;
        for (int c = 0; c < limit; c++)
            dist[c] = nxt[c];
    }
    /* P(no loss): Python's sum of the chances left (its own rounding, whatever the version) */
    PyObject *list = PyList_New(limit);
    if (list == NULL)
        return -1;
    for (int c = 0; c < limit; c++) {
        PyObject *x = PyFloat_FromDouble(dist[c]);
        if (x == NULL) {
            Py_DECREF(list);
            return -1;
        }
        PyList_SET_ITEM(list, c, x);
    }
    PyObject *total = PyObject_CallFunctionObjArgs(W->sum, list, NULL);
    Py_DECREF(list);
    if (total == NULL)
        return -1;
    const double ok = PyFloat_AsDouble(total);
    Py_DECREF(total);
    if (ok == -1.0 && PyErr_Occurred())
        return -1;
    int c = cross, last_to = cell, last_gear = 0;
    for (int i = 0; i < n; i++) {
        const int mv = plan[i];
        c += T->mv_inc[mv];
        last_to = T->mv_to[mv];
        last_gear = T->mv_gear[mv];
        if (losses[i] != 0.0) {
            const int g = T->mv_gear[mv];
            /* a loss to gear 00 costs the next turn too, unless it finishes (RG-27) */
            if (add_outcome(W, c >= T->laps ? -1 : state_index(P, last_to, c, 0, tokens), losses[i], last_to,
                            W->loss_out[g] && c < T->laps ? 2 : 1) < 0)
                return -1;
        }
    }
    return add_outcome(W, c >= T->laps ? -1 : state_index(P, last_to, c, last_gear, tokens), ok, -1, 1);
}

/* a small dictionary kept in its order of insertion, (cautions, dice secured) -> mass */
typedef struct {
    int cc[512], k[512];
    double m[512];
    int n;
} MassMap;

static int mass_add(MassMap *M, int cc, int k, double x)
{
    for (int i = 0; i < M->n; i++)
        if (M->cc[i] == cc && M->k[i] == k) {
            M->m[i] = M->m[i] + x;
            return 0;
        }
    if (M->n >= 512)
        return 1;
    M->cc[M->n] = cc;
    M->k[M->n] = k;
    M->m[M->n] = 0.0 + x;
    M->n++;
    return 0;
}

/* OneTable.outcomes' dictionary: (next state, cell, turns) -> chance, in order of insertion */
typedef struct {
    int64_t next[256];
    int32_t at[256], turns[256];
    double q[256];
    int n;
} OutMap;

static int out_add(OutMap *O, int64_t next, double q, int32_t at, int32_t turns)
{
    for (int i = 0; i < O->n; i++)
        if (O->next[i] == next && O->at[i] == at && O->turns[i] == turns) {
            O->q[i] = O->q[i] + q;
            return 0;
        }
    if (O->n >= 256)
        return 1;
    O->next[O->n] = next;
    O->at[O->n] = at;
    O->turns[O->n] = turns;
    O->q[O->n] = 0.0 + q;
    O->n++;
    return 0;
}

enum { ROLL, SECURE, STOP };

/* Par.outcomes(key) one at a time (OneTable: its decisions, then its outcomes) */
static int one_outcomes(Par *P, Fwd *W, size_t k, int cross, int f)
{
    const Track *T = &P->T;
    const int limit = P->limit, n = P->vplan_len[k];
    const int32_t *plan = P->plans_g + P->vplan_off[k];
    int kmax = 0;
    while (kmax + 1 < MAXTOT && P->tot[kmax + 1] <= f)
        kmax++;
    if (kmax + 1 >= MAXTOT || n < 1 || n > 64 || limit * (kmax + 1) > 64)
        return 1; /* (beyond the kernel's sizes: the reference works it out) */
    int to[64], c2s[64], gear[64], marks[64];
    double p[64];
    int c = cross;
    for (int i = 0; i < n; i++) {
        const int mv = plan[i];
        c += T->mv_inc[mv];
        c2s[i] = c;
        to[i] = T->mv_to[mv];
        gear[i] = T->mv_gear[mv];
        marks[i] = T->mv_marks[mv];
        p[i] = P->p[T->mv_die[mv]];
    }
    const int L = T->laps;
#define STOPV(i, kk, out)                                                                       \
    do {                                                                                       \
        double v_ = 0.0;                                                                       \
        if (c2s[i] < L) {                                                                      \
            v_ = solved_value(P, to[i], c2s[i], gear[i], f - (int)P->tot[kk]);                 \
            if (v_ != v_)                                                                      \
                return 1;                                                                      \
        }                                                                                      \
        (out) = W->ot_sec[gear[i]] + v_;                                                       \
    } while (0)
    /* u[i][cc, k] before die i, and the decision there: [i][k * limit + cc] */
    static double u[65][64];
    static signed char decide[64][64];
    for (int kk = 0; kk <= kmax; kk++) {
        double st;
        STOPV(n - 1, kk, st);
        for (int cc = 0; cc < limit; cc++)
            u[n][kk * limit + cc] = st;
    }
    for (int i = n - 1; i >= 0; i--) {
        const double *after = u[i + 1];
        for (int kk = 0; kk <= kmax; kk++) {
            double lk = 0.0;
            if (c2s[i] < L) {
                lk = solved_value(P, to[i], c2s[i], 0, f - (int)P->tot[kk]);
                if (lk != lk)
                    return 1;
            }
            lk = W->ot_losssec[gear[i]] + lk;
            for (int cc = 0; cc < limit; cc++) {
                const int a = cc + marks[i];
                double best;
                int d;
                if (a >= limit) {
                    best = lk;
                    d = ROLL;
                } else {
                    best = (1 - p[i]) * after[kk * limit + a] + p[i] * (a + 1 >= limit ? lk : after[kk * limit + a + 1]);
                    d = ROLL;
                    if (kk < kmax && after[(kk + 1) * limit + a] < best - 1e-12) {
                        best = after[(kk + 1) * limit + a];
                        d = SECURE;
                    }
                }
                if (i > 0) {
                    double st;
                    STOPV(i - 1, kk, st);
                    if (st <= best + 1e-12) {
                        best = st;
                        d = STOP;
                    }
                }
                u[i][kk * limit + cc] = best;
                decide[i][kk * limit + cc] = (signed char)d;
            }
        }
    }
#undef STOPV
    /* the end of the turn over every roll the policy may see */
    static OutMap out;
    static MassMap mass, nxt;
    out.n = 0;
    mass.n = 0;
    if (mass_add(&mass, 0, 0, 1.0))
        return 1;
    mass.m[0] = 1.0;
    for (int i = 0; i < n; i++) {
        const int lost = c2s[i] < L; /* (a loss of control leads to a state) */
        const int turns = W->loss_out[gear[i]] && lost ? 2 : 1; /* (RG-27) */
        nxt.n = 0;
        for (int j = 0; j < mass.n; j++) {
            const int cc = mass.cc[j], kk = mass.k[j];
            const double m = mass.m[j];
            const int d = decide[i][kk * limit + cc];
            if (d == STOP) {
                const int e = i - 1;
                if (out_add(&out, c2s[e] >= L ? -1 : state_index(P, to[e], c2s[e], gear[e], f - (int)P->tot[kk]), m, -1, 1))
                    return 1;
                continue;
            }
            const int a = cc + marks[i];
            const int64_t lk = lost ? state_index(P, to[i], c2s[i], 0, f - (int)P->tot[kk]) : -1;
            if (a >= limit) {
                if (out_add(&out, lk, m, to[i], turns))
                    return 1;
            } else if (d == SECURE) {
                if (mass_add(&nxt, a, kk + 1, m))
                    return 1;
            } else {
                if (mass_add(&nxt, a, kk, m * (1 - p[i])))
                    return 1;
                if (a + 1 >= limit) {
                    if (out_add(&out, lk, m * p[i], to[i], turns))
                        return 1;
                } else if (mass_add(&nxt, a + 1, kk, m * p[i])) {
                    return 1;
                }
            }
        }
        mass = nxt;
    }
    for (int j = 0; j < mass.n; j++) {
        const int e = n - 1, kk = mass.k[j];
        if (out_add(&out, c2s[e] >= L ? -1 : state_index(P, to[e], c2s[e], gear[e], f - (int)P->tot[kk]), mass.m[j], -1, 1))
            return 1;
    }
    for (int j = 0; j < out.n; j++)
        if (out.q[j] != 0.0 && add_outcome(W, out.next[j], out.q[j], out.at[j], out.turns[j]) < 0)
            return -1;
    return 0;
}

/* the outcomes of state k under the policy (solve._forward's `succ`): worked out once */
static int successors(Par *P, Fwd *W, size_t k)
{
    if (W->cnt[k] >= 0)
        return 0;
    size_t start = W->n;
    if (P->vmode[k] >= 0 && P->val[k] == P->val[k]) {
        const int f = (int)(k % P->C1);
        const size_t sg = k / P->C1;
        const int sc = (int)(sg / P->T.G);
        const int cell = sc % P->T.ncells, cross = sc / P->T.ncells;
        int rc = P->vmode[k] == 0 ? flat_outcomes(P, W, k, cell, cross, f) : one_outcomes(P, W, k, cross, f);
        if (rc != 0)
            return rc;
    }
    W->off[k] = (int32_t)start;
    W->cnt[k] = (int32_t)(W->n - start);
    return 0;
}

/* solve._forward: the DFS order of policy_order, then the mass carried forward. The result:
 * (the cells' chances of losing control, in the order first met, as (cell, chance); the
 * expected turns; the turns rolled flat out; the turns rolled one at a time) */
static PyObject *forward(Par *P, PyObject *spec, int64_t start)
{
    const size_t nv = (size_t)P->nsc * P->T.G * P->C1;
    Fwd W;
    memset(&W, 0, sizeof(W));
    PyObject *result = NULL;
    int64_t *stack = NULL;
    size_t sn = 0, scap = 0;
    int64_t *order = NULL;
    size_t on = 0, ocap = 0;
    char *seen = calloc(nv, 1);
    double *mass = calloc(nv, sizeof(double));
    double *danger = calloc((size_t)P->T.ncells, sizeof(double));
    char *met = calloc((size_t)P->T.ncells, 1);
    int32_t *met_order = malloc(sizeof(int32_t) * (size_t)P->T.ncells);
    size_t nmet = 0;
    W.off = malloc(sizeof(int32_t) * nv);
    W.cnt = malloc(sizeof(int32_t) * nv);
    W.ot_sec = malloc(sizeof(double) * P->T.G);
    W.ot_losssec = malloc(sizeof(double) * P->T.G);
    W.loss_out = malloc(sizeof(long long) * P->T.G);
    if (!seen || !mass || !danger || !met || !met_order || !W.off || !W.cnt || !W.ot_sec || !W.ot_losssec || !W.loss_out) {
        PyErr_NoMemory();
        goto done;
    }
    if (get_doubles(spec, "ot_sec", P->T.G, W.ot_sec) < 0 || get_doubles(spec, "ot_losssec", P->T.G, W.ot_losssec) < 0 ||
        get_ints(spec, "loss_out", P->T.G, W.loss_out) < 0)
        goto done;
    W.sum = PyDict_GetItemString(PyEval_GetBuiltins(), "sum"); /* borrowed */
    if (W.sum == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no builtin sum");
        goto done;
    }
    for (size_t i = 0; i < nv; i++)
        W.cnt[i] = -1;
    /* policy_order: a depth-first walk, each state after every state it leads to, reversed */
    if (GROW(stack, scap, 1) < 0)
        goto done;
    stack[sn++] = start * 2;
    while (sn) {
        const int64_t top = stack[--sn];
        const int64_t k = top >> 1;
        if (top & 1) {
            if (GROW(order, ocap, on + 1) < 0)
                goto done;
            order[on++] = k;
            continue;
        }
        if (seen[k])
            continue;
        seen[k] = 1;
        if (GROW(stack, scap, sn + 1) < 0)
            goto done;
        stack[sn++] = k * 2 + 1;
        int rc = successors(P, &W, (size_t)k);
        if (rc < 0)
            goto done;
        if (rc > 0) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
        for (int32_t j = W.off[k]; j < W.off[k] + W.cnt[k]; j++) {
            const Outcome *o = &W.o[j];
            if (o->next >= 0 && o->q != 0.0 && !seen[o->next]) {
                if (GROW(stack, scap, sn + 1) < 0)
                    goto done;
                stack[sn++] = o->next * 2;
            }
        }
    }
    /* the mass carried forward in that order */
    double turns = 0.0, by_mode[2] = {0.0, 0.0};
    mass[start] = 1.0;
    for (size_t x = on; x-- > 0;) {
        const int64_t k = order[x];
        const double m = mass[k];
        if (m == 0.0 || P->vmode[k] < 0)
            continue;
        by_mode[P->vmode[k]] += m;
        for (int32_t j = W.off[k]; j < W.off[k] + W.cnt[k]; j++) {
            const Outcome *o = &W.o[j];
            turns += m * o->q * o->turns;
            if (o->at >= 0) {
                if (!met[o->at]) {
                    met[o->at] = 1;
                    met_order[nmet++] = o->at;
                    danger[o->at] = 0.0 + m * o->q;
                } else {
                    danger[o->at] = danger[o->at] + m * o->q;
                }
            }
            if (o->next >= 0)
                mass[o->next] = mass[o->next] + m * o->q;
        }
    }
    PyObject *cells = PyList_New((Py_ssize_t)nmet);
    if (cells == NULL)
        goto done;
    for (size_t i = 0; i < nmet; i++) {
        PyObject *item = Py_BuildValue("(id)", met_order[i], danger[met_order[i]]);
        if (item == NULL) {
            Py_DECREF(cells);
            goto done;
        }
        PyList_SET_ITEM(cells, (Py_ssize_t)i, item);
    }
    result = Py_BuildValue("(Nddd)", cells, turns, by_mode[0], by_mode[1]);
done:
    free(stack);
    free(order);
    free(seen);
    free(mass);
    free(danger);
    free(met);
    free(met_order);
    free(W.o);
    free(W.off);
    free(W.cnt);
    free(W.ot_sec);
    free(W.ot_losssec);
    free(W.loss_out);
    return result;
}

static PyObject *kernel_par(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *spec, *moves_cb;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &spec, &moves_cb))
        return NULL;
    Par P;
    memset(&P, 0, sizeof(P));
    PyObject *result = NULL;
    long long v;
    if (track_init(&P.T, spec, moves_cb) < 0)
        goto done;
    Track *T = &P.T;
    if (get_int(spec, "limit", &v) < 0)
        goto done;
    P.limit = (int)v;
    if (get_int(spec, "cap", &v) < 0)
        goto done;
    P.cap = (int)v;
    if (get_int(spec, "one_at_a_time", &v) < 0)
        goto done;
    P.one_at_a_time = (int)v;
    if (get_int(spec, "window", &v) < 0)
        goto done;
    P.window = (int)v;
    if (P.limit < 1 || P.limit > 32 || P.cap < 0 || P.cap > 64) {
        PyErr_SetString(PyExc_ValueError, "the kernel does not take this caution limit or token cap");
        goto done;
    }
    P.C1 = P.cap + 1;
    P.p = malloc(sizeof(double) * T->ndice);
    P.q = malloc(sizeof(double) * T->ndice);
    P.earns = malloc(sizeof(long long) * T->ndice);
    P.sec = malloc(sizeof(double) * T->G);
    P.losssec = malloc(sizeof(double) * T->G);
    P.kmax_of = malloc(sizeof(long long) * P.C1);
    if (!P.p || !P.q || !P.earns || !P.sec || !P.losssec || !P.kmax_of) {
        PyErr_NoMemory();
        goto done;
    }
    if (get_doubles(spec, "p", T->ndice, P.p) < 0 || get_doubles(spec, "q", T->ndice, P.q) < 0 || get_ints(spec, "earns", T->ndice, P.earns) < 0 ||
        get_doubles(spec, "sec", T->G, P.sec) < 0 || get_doubles(spec, "losssec", T->G, P.losssec) < 0 ||
        get_ints(spec, "kmax_of", P.C1, P.kmax_of) < 0 || get_ints(spec, "tot", MAXTOT, P.tot) < 0)
        goto done;
    for (int f = 0; f < P.C1; f++) {
        long long km = P.kmax_of[f];
        if (km < 0 || km >= MAXTOT || P.limit * (km + 1) > 64) {
            PyErr_SetString(PyExc_ValueError, "the kernel does not take this token cost");
            goto done;
        }
        for (int kk = 0; kk <= km; kk++)
            if (f - P.tot[kk] < 0 || f - P.tot[kk] > P.cap) {
                PyErr_SetString(PyExc_ValueError, "the kernel does not take this token cost");
                goto done;
            }
    }
    for (int d = 0; d < T->ndice; d++)
        if (P.earns[d] < 0 || P.earns[d] > 1) {
            PyErr_SetString(PyExc_ValueError, "the kernel does not take this ruleset's tokens");
            goto done;
        }
    P.nsc = T->ncells * T->laps;
    size_t nv = (size_t)P.nsc * T->G * P.C1;
    P.sc_first = malloc(sizeof(int32_t) * P.nsc);
    P.root = malloc(sizeof(int32_t) * (size_t)P.nsc * T->G);
    P.pools = calloc((size_t)P.nsc, sizeof(Pool));
    P.val = malloc(sizeof(double) * nv);
    P.vmode = malloc(nv);
    if (P.vmode != NULL)
        memset(P.vmode, -1, nv);
    P.vplan_off = malloc(sizeof(int32_t) * nv);
    P.vplan_len = malloc(sizeof(int32_t) * nv);
    if (!P.sc_first || !P.root || !P.pools || !P.val || !P.vmode || !P.vplan_off || !P.vplan_len) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < P.nsc; i++)
        P.sc_first[i] = -1;
    for (int i = 0; i < P.nsc * T->G; i++)
        P.root[i] = -1;
    for (size_t i = 0; i < nv; i++)
        P.val[i] = Py_NAN;
    P.nodes = calloc((size_t)P.nsc, sizeof(Map));
    if (P.nodes == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    /* the race order, furthest first: (pos, cell, crossings) */
    PyObject *order = get_item(spec, "order");
    if (order == NULL)
        goto done;
    PyObject *fast = PySequence_Fast(order, "order");
    if (fast == NULL)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    long long *ord = malloc(sizeof(long long) * 3 * (size_t)(n + 1));
    if (ord == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (read_ints(PySequence_Fast_GET_ITEM(fast, i), 3, ord + 3 * i, "order item") < 0 || ord[3 * i + 1] < 0 ||
            ord[3 * i + 1] >= T->ncells || ord[3 * i + 2] < 0 || ord[3 * i + 2] >= T->laps) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "order: a cell the kernel does not know");
            Py_DECREF(fast);
            free(ord);
            goto done;
        }
    Py_DECREF(fast);
    long long start[4];
    if (get_ints(spec, "start", 4, start) < 0 || start[0] < 0 || start[0] >= T->ncells || start[1] < 0 || start[1] >= T->laps ||
        start[2] < 0 || start[2] > T->top || start[3] < 0 || start[3] > P.cap) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "start: a state the kernel does not know");
        free(ord);
        goto done;
    }
    {
        /* the states a loss of control leads to, the furthest along first; the fronts of the
         * slots a window behind dropped (solve.par's `behind`) */
        long long *behind = malloc(sizeof(long long) * 2 * (size_t)(n + 1));
        size_t bh = 0, bt = 0;
        if (behind == NULL) {
            PyErr_NoMemory();
            free(ord);
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            long long pos = ord[3 * i];
            int sc = (int)(ord[3 * i + 2] * T->ncells + ord[3 * i + 1]);
            for (int f = 0; f <= P.cap; f++) {
                double dummy;
                if (V(&P, sc, 0, f, &dummy) < 0) {
                    free(behind);
                    free(ord);
                    goto done;
                }
            }
            behind[2 * bt] = pos;
            behind[2 * bt + 1] = sc;
            bt++;
            while (behind[2 * bh] > pos + P.window) {
                drop_slot(&P, (int)behind[2 * bh + 1]);
                bh++;
            }
        }
        free(behind);
        double dummy;
        if (V(&P, (int)(start[1] * T->ncells + start[0]), (int)start[2], (int)start[3], &dummy) < 0) {
            free(ord);
            goto done;
        }
    }
    free(ord);

    /* the answer: (cell, crossings, gear, tokens, value, mode or None, the plan's moves
     * as indices into each (cell, gear)'s list) per state, in the order first asked */
    PyObject *states = PyList_New((Py_ssize_t)P.vorder_n);
    if (states == NULL)
        goto done;
    for (size_t i = 0; i < P.vorder_n; i++) {
        size_t k = (size_t)P.vorder[i];
        int f = (int)(k % P.C1);
        size_t sg = k / P.C1;
        int gear = (int)(sg % T->G), sc = (int)(sg / T->G);
        PyObject *plan;
        if (P.vmode[k] < 0) {
            plan = Py_None;
            Py_INCREF(plan);
        } else {
            plan = PyTuple_New(P.vplan_len[k]);
            if (plan == NULL) {
                Py_DECREF(states);
                goto done;
            }
            for (int32_t j = 0; j < P.vplan_len[k]; j++) {
                PyObject *x = PyLong_FromLong(P.plans[P.vplan_off[k] + j]);
                if (x == NULL) {
                    Py_DECREF(plan);
                    Py_DECREF(states);
                    goto done;
                }
                PyTuple_SET_ITEM(plan, j, x);
            }
        }
        PyObject *item = Py_BuildValue("(iiiidiN)", sc % T->ncells, sc / T->ncells, gear, f, P.val[k], (int)P.vmode[k], plan);
        if (item == NULL) {
            Py_DECREF(states);
            goto done;
        }
        PyList_SET_ITEM(states, (Py_ssize_t)i, item);
    }
    /* the policy's forward pass (None: one the kernel leaves to the reference) */
    PyObject *fwd = forward(&P, spec, state_index(&P, (int)start[0], (int)start[1], (int)start[2], (int)start[3]));
    if (fwd == NULL) {
        Py_DECREF(states);
        goto done;
    }
    result = Py_BuildValue("(NN)", states, fwd);
done:
    par_free(&P);
    return result;
}

/* ================================================================== the safe route */

/* a partial plan of a turn's search (a tree: its parent and its last move); a root holds the
 * (cell, crossings, gear) the search began from */
typedef struct {
    int32_t parent, move;
} PlanNode;

typedef struct {
    Track T;
    int limit, kmax, focus_cap, share_laps;
    long long *risky, *earns; /* [ndice] */
    long long *secs;          /* [G] the seconds of a turn ended in gear g (ints) */
    long long total[MAXTOT];
    PlanNode *pn;
    size_t pnn, pncap;
    int32_t *root_cell, *root_cross, *root_gear; /* per turn search */
    size_t nroots, cap_rc, cap_rx, cap_rg;
    /* the turns' outcomes: (plan node, to, crossings added, gear, dice to secure, tokens earned) */
    int32_t *o_plan, *o_to, *o_added, *o_gear, *o_secure, *o_earned;
    size_t on, cap_op, cap_ot, cap_oa, cap_og, cap_os, cap_oe;
    Map memo; /* (cell, gear, lap key) -> search: its outcomes' offset << 32 | count */
    GenSet seen, outcomes; /* a search's states and outcomes met */
    /* the Dijkstra over (cell, crossings, gear, tokens) */
    Map ids;
    long long *dist;
    int32_t *back_state, *back_plan;
    signed char *back_mode;
    uint64_t *state_key;
    size_t ns, cap_d, cap_bs, cap_bp, cap_bm, cap_sk;
    /* the heap: (seconds, tick, state) */
    long long *h_t, *h_tick;
    int32_t *h_s;
    size_t hn, cap_ht, cap_htk, cap_hs;
} Safe;

static void safe_free(Safe *S)
{
    track_free(&S->T);
    free(S->risky);
    free(S->earns);
    free(S->secs);
    free(S->pn);
    free(S->root_cell);
    free(S->root_cross);
    free(S->root_gear);
    free(S->o_plan);
    free(S->o_to);
    free(S->o_added);
    free(S->o_gear);
    free(S->o_secure);
    free(S->o_earned);
    map_free(&S->memo);
    genset_free(&S->seen);
    genset_free(&S->outcomes);
    map_free(&S->ids);
    free(S->dist);
    free(S->back_state);
    free(S->back_plan);
    free(S->back_mode);
    free(S->state_key);
    free(S->h_t);
    free(S->h_tick);
    free(S->h_s);
}

static int push_plan(Safe *S, int32_t parent, int32_t move, int32_t *out)
{
    if (GROW(S->pn, S->pncap, S->pnn + 1) < 0)
        return -1;
    if (S->pnn > 0x7FFFFFF0) {
        PyErr_SetString(PyExc_MemoryError, "too many partial plans for the kernel");
        return -1;
    }
    S->pn[S->pnn].parent = parent;
    S->pn[S->pnn].move = move;
    *out = (int32_t)S->pnn++;
    return 0;
}

typedef struct {
    int32_t plan, at, c, g, r, m, e;
    uint64_t used;
} Partial;

/* every safe outcome of a turn from (cell, crossings, gear) (safe_route's `turns`): breadth
 * first over partial plans, each outcome with the first plan that gives it; its offset and
 * count in the outcomes */
static int turns(Safe *S, int cell, int cross, int gear, size_t *off_out, size_t *cnt_out)
{
    Track *T = &S->T;
    uint64_t lapkey = S->share_laps ? (uint64_t)(cross >= T->laps - 1) : (uint64_t)cross;
    uint64_t k1 = ((uint64_t)cell << 8) | (uint64_t)gear;
    int64_t hit = map_get(&S->memo, k1, lapkey);
    if (hit >= 0) {
        *off_out = (size_t)(hit >> 32);
        *cnt_out = (size_t)(hit & 0xFFFFFFFF);
        return 0;
    }
    int32_t rootplan;
    if (push_plan(S, -1, (int32_t)S->nroots, &rootplan) < 0)
        return -1;
    if (GROW(S->root_cell, S->cap_rc, S->nroots + 1) < 0 || GROW(S->root_cross, S->cap_rx, S->nroots + 1) < 0 ||
        GROW(S->root_gear, S->cap_rg, S->nroots + 1) < 0)
        return -1;
    S->root_cell[S->nroots] = cell;
    S->root_cross[S->nroots] = cross;
    S->root_gear[S->nroots] = gear;
    S->nroots++;
    Partial *front = NULL, *next = NULL;
    size_t fnum = 0, fcap = 0, nnum = 0, ncap = 0;
    int rc = -1;
    size_t off = S->on;
    genset_clear(&S->seen);
    genset_clear(&S->outcomes);
    if (GROW(front, fcap, 1) < 0)
        goto out;
    front[0].plan = rootplan;
    front[0].at = cell;
    front[0].c = cross;
    front[0].g = gear;
    front[0].r = 0;
    front[0].m = 0;
    front[0].e = 0;
    front[0].used = 0;
    fnum = 1;
    while (fnum) {
        nnum = 0;
        for (size_t i = 0; i < fnum; i++) {
            Partial x = front[i];
            if (fetch_moves(T, x.at, x.g) < 0)
                goto out;
            int moff = T->mv_off[x.at * T->G + x.g], mcnt = T->mv_cnt[x.at * T->G + x.g];
            for (int j = 0; j < mcnt; j++) {
                int mv = moff + j, d = T->mv_die[mv];
                int m2 = x.m + T->mv_marks[mv];
                if (m2 >= S->limit)
                    continue;
                int r2 = x.r + (int)S->risky[d];
                int secure = r2 + m2 - (S->limit - 1);
                if (secure > 0 && (secure > S->kmax || secure > r2))
                    continue;
                int64_t nu = dice_add(T, x.used, d);
                if (nu < 0)
                    continue;
                if (secure < 0)
                    secure = 0;
                int e2 = x.e + (int)S->earns[d];
                int to = T->mv_to[mv], g2 = T->mv_gear[mv], c2 = x.c + T->mv_inc[mv];
                int done = c2 >= T->laps;
                int64_t cu = canonical(T, g2, (uint64_t)nu);
                if (cu < 0)
                    goto out;
                if (c2 > 255 || m2 > 255 || r2 > 255 || e2 > 255) {
                    PyErr_SetString(PyExc_ValueError, "a turn the kernel cannot take");
                    goto out;
                }
                uint64_t sk = (uint64_t)to | ((uint64_t)c2 << 24) | ((uint64_t)g2 << 32) | ((uint64_t)m2 << 40) | ((uint64_t)r2 << 48) |
                              ((uint64_t)e2 << 56);
                int met = genset_add(&S->seen, (uint64_t)cu, sk);
                if (met < 0)
                    goto out;
                if (met)
                    continue;
                int32_t p2;
                if (push_plan(S, x.plan, mv, &p2) < 0)
                    goto out;
                uint64_t ok = (uint64_t)to | ((uint64_t)c2 << 24) | ((uint64_t)g2 << 32) | ((uint64_t)secure << 40) | ((uint64_t)e2 << 48);
                int known = genset_add(&S->outcomes, ok, 0);
                if (known < 0)
                    goto out;
                if (!known) {
                    size_t n1 = S->on + 1;
                    if (GROW(S->o_plan, S->cap_op, n1) < 0 || GROW(S->o_to, S->cap_ot, n1) < 0 || GROW(S->o_added, S->cap_oa, n1) < 0 ||
                        GROW(S->o_gear, S->cap_og, n1) < 0 || GROW(S->o_secure, S->cap_os, n1) < 0 || GROW(S->o_earned, S->cap_oe, n1) < 0)
                        goto out;
                    S->o_plan[S->on] = p2;
                    S->o_to[S->on] = to;
                    S->o_added[S->on] = c2 - cross;
                    S->o_gear[S->on] = g2;
                    S->o_secure[S->on] = secure;
                    S->o_earned[S->on] = e2;
                    S->on = n1;
                }
                if (!done) {
                    if (GROW(next, ncap, nnum + 1) < 0)
                        goto out;
                    Partial *y = &next[nnum++];
                    y->plan = p2;
                    y->at = to;
                    y->c = c2;
                    y->g = g2;
                    y->used = (uint64_t)nu;
                    y->r = r2;
                    y->m = m2;
                    y->e = e2;
                }
            }
        }
        Partial *tmp = front;
        size_t tcap = fcap;
        front = next;
        fcap = ncap;
        next = tmp;
        ncap = tcap;
        fnum = nnum;
    }
    if (S->on - off > 0xFFFFFFFF) {
        PyErr_SetString(PyExc_MemoryError, "too many outcomes for the kernel");
        goto out;
    }
    if (map_put(&S->memo, k1, lapkey, (int64_t)((off << 32) | (S->on - off))) < 0)
        goto out;
    *off_out = off;
    *cnt_out = S->on - off;
    rc = 0;
out:
    free(front);
    free(next);
    return rc;
}

/* the state id of (cell, crossings, gear, tokens), made if new (its seconds 10**9) */
static int32_t safe_state(Safe *S, int cell, int cross, int gear, int f)
{
    uint64_t key = (uint64_t)cell | ((uint64_t)cross << 24) | ((uint64_t)gear << 40) | ((uint64_t)f << 48);
    int64_t hit = map_get(&S->ids, key, 0);
    if (hit >= 0)
        return (int32_t)hit;
    size_t id = S->ns, n1 = id + 1;
    if (GROW(S->dist, S->cap_d, n1) < 0 || GROW(S->back_state, S->cap_bs, n1) < 0 || GROW(S->back_plan, S->cap_bp, n1) < 0 ||
        GROW(S->back_mode, S->cap_bm, n1) < 0 || GROW(S->state_key, S->cap_sk, n1) < 0)
        return -1;
    S->dist[id] = 1000000000LL;
    S->back_state[id] = -1;
    S->back_plan[id] = -1;
    S->back_mode[id] = -1;
    S->state_key[id] = key;
    S->ns = n1;
    if (map_put(&S->ids, key, 0, (int64_t)id) < 0)
        return -1;
    return (int32_t)id;
}

static inline int heap_less(const Safe *S, size_t a, size_t b)
{
    return S->h_t[a] < S->h_t[b] || (S->h_t[a] == S->h_t[b] && S->h_tick[a] < S->h_tick[b]);
}

static void heap_swap(Safe *S, size_t a, size_t b)
{
    long long t = S->h_t[a], k = S->h_tick[a];
    int32_t s = S->h_s[a];
    S->h_t[a] = S->h_t[b];
    S->h_tick[a] = S->h_tick[b];
    S->h_s[a] = S->h_s[b];
    S->h_t[b] = t;
    S->h_tick[b] = k;
    S->h_s[b] = s;
}

static int heap_push(Safe *S, long long t, long long tick, int32_t s)
{
    size_t n1 = S->hn + 1;
    if (GROW(S->h_t, S->cap_ht, n1) < 0 || GROW(S->h_tick, S->cap_htk, n1) < 0 || GROW(S->h_s, S->cap_hs, n1) < 0)
        return -1;
    size_t i = S->hn;
    S->h_t[i] = t;
    S->h_tick[i] = tick;
    S->h_s[i] = s;
    S->hn = n1;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_less(S, i, up))
            break;
        heap_swap(S, i, up);
        i = up;
    }
    return 0;
}

static void heap_pop(Safe *S, long long *t, int32_t *s)
{
    *t = S->h_t[0];
    *s = S->h_s[0];
    S->hn--;
    if (S->hn == 0)
        return;
    S->h_t[0] = S->h_t[S->hn];
    S->h_tick[0] = S->h_tick[S->hn];
    S->h_s[0] = S->h_s[S->hn];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < S->hn && heap_less(S, l, best))
            best = l;
        if (r < S->hn && heap_less(S, r, best))
            best = r;
        if (best == i)
            break;
        heap_swap(S, i, best);
        i = best;
    }
}

/* a plan node's turn: (mode, cell, crossings, gear, the moves as indices into each (cell,
 * gear)'s list) */
static PyObject *plan_tuple(Safe *S, int mode, int32_t node)
{
    int32_t len = 0;
    for (int32_t n = node; S->pn[n].parent >= 0; n = S->pn[n].parent)
        len++;
    PyObject *moves = PyTuple_New(len);
    if (moves == NULL)
        return NULL;
    int32_t n = node;
    for (int32_t i = len - 1; i >= 0; i--) {
        PyObject *x = PyLong_FromLong(S->T.mv_local[S->pn[n].move]);
        if (x == NULL) {
            Py_DECREF(moves);
            return NULL;
        }
        PyTuple_SET_ITEM(moves, i, x);
        n = S->pn[n].parent;
    }
    int32_t r = S->pn[n].move; /* the root: its search */
    return Py_BuildValue("(iiiiN)", mode, S->root_cell[r], S->root_cross[r], S->root_gear[r], moves);
}

static PyObject *kernel_safe_route(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *spec, *moves_cb;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &spec, &moves_cb))
        return NULL;
    Safe S;
    memset(&S, 0, sizeof(S));
    PyObject *result = NULL;
    long long v;
    if (track_init(&S.T, spec, moves_cb) < 0)
        goto done;
    Track *T = &S.T;
    if (get_int(spec, "limit", &v) < 0)
        goto done;
    S.limit = (int)v;
    if (get_int(spec, "kmax", &v) < 0)
        goto done;
    S.kmax = (int)v;
    if (get_int(spec, "focus_cap", &v) < 0)
        goto done;
    S.focus_cap = (int)v;
    if (get_int(spec, "share_laps", &v) < 0)
        goto done;
    S.share_laps = (int)v;
    if (S.limit < 1 || S.limit > 200 || S.kmax < 0 || S.kmax >= MAXTOT || S.focus_cap < 0 || S.focus_cap > 200) {
        PyErr_SetString(PyExc_ValueError, "the kernel does not take this caution limit or token cap");
        goto done;
    }
    S.risky = malloc(sizeof(long long) * T->ndice);
    S.earns = malloc(sizeof(long long) * T->ndice);
    S.secs = malloc(sizeof(long long) * T->G);
    if (!S.risky || !S.earns || !S.secs) {
        PyErr_NoMemory();
        goto done;
    }
    if (get_ints(spec, "risky", T->ndice, S.risky) < 0 || get_ints(spec, "earns", T->ndice, S.earns) < 0 ||
        get_ints(spec, "secs", T->G, S.secs) < 0 || get_ints(spec, "total", S.kmax + 1, S.total) < 0)
        goto done;
    for (int d = 0; d < T->ndice; d++)
        if (S.risky[d] < 0 || S.risky[d] > 1 || S.earns[d] < 0 || S.earns[d] > 1) {
            PyErr_SetString(PyExc_ValueError, "the kernel does not take this ruleset's dice");
            goto done;
        }
    long long start[2];
    if (get_ints(spec, "start", 2, start) < 0)
        goto done;
    if (start[0] < 0 || start[0] >= T->ncells || T->laps > 200 || T->ncells >= (1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "start: a cell the kernel does not know");
        goto done;
    }
    if (map_init(&S.memo, 1024) < 0 || map_init(&S.ids, 4096) < 0 || genset_init(&S.seen, 1024) < 0 || genset_init(&S.outcomes, 256) < 0)
        goto done;
    {
        int32_t s0 = safe_state(&S, (int)start[0], 0, 0, 0);
        if (s0 < 0)
            goto done;
        S.dist[s0] = 0;
        long long tick = 0;
        if (heap_push(&S, 0, 0, s0) < 0)
            goto done;
        while (S.hn) {
            long long t;
            int32_t k;
            heap_pop(&S, &t, &k);
            if (t > S.dist[k])
                continue;
            uint64_t key = S.state_key[k];
            int cell = (int)(key & 0xFFFFFF), cross = (int)((key >> 24) & 0xFFFF), gear = (int)((key >> 40) & 0xFF),
                f = (int)(key >> 48);
            if (cross >= T->laps) {
                /* the route: (seconds, [(mode, cell, crossings, gear, moves), ...] from the start) */
                int32_t len = 0;
                for (int32_t x = k; S.back_state[x] >= 0; x = S.back_state[x])
                    len++;
                PyObject *plans = PyList_New(len);
                if (plans == NULL)
                    goto done;
                int32_t x = k;
                for (int32_t i = len - 1; i >= 0; i--) {
                    PyObject *item = plan_tuple(&S, S.back_mode[x], S.back_plan[x]);
                    if (item == NULL) {
                        Py_DECREF(plans);
                        goto done;
                    }
                    PyList_SET_ITEM(plans, i, item);
                    x = S.back_state[x];
                }
                result = Py_BuildValue("(LN)", t, plans);
                goto done;
            }
            size_t off, cnt;
            if (turns(&S, cell, cross, gear, &off, &cnt) < 0)
                goto done;
            for (size_t i = off; i < off + cnt; i++) {
                int c2 = cross + S.o_added[i], g2 = S.o_gear[i], secure = S.o_secure[i], mode, f2;
                if (secure == 0) {
                    mode = 0;
                    f2 = f + S.o_earned[i] < S.focus_cap ? f + S.o_earned[i] : S.focus_cap;
                } else if (S.total[secure] <= f) {
                    mode = 1;
                    f2 = f - (int)S.total[secure];
                } else {
                    continue;
                }
                int32_t nk = safe_state(&S, S.o_to[i], c2, g2, f2);
                if (nk < 0)
                    goto done;
                long long nt = t + S.secs[g2];
                if (nt < S.dist[nk]) {
                    S.dist[nk] = nt;
                    S.back_state[nk] = k;
                    S.back_mode[nk] = (signed char)mode;
                    S.back_plan[nk] = S.o_plan[i];
                    tick++;
                    if (heap_push(&S, nt, tick, nk) < 0)
                        goto done;
                }
            }
        }
        result = Py_None; /* the finish cannot be reached so */
        Py_INCREF(result);
    }
done:
    safe_free(&S);
    return result;
}

/* ================================================================== the DIRT par (solve_dirt._dp) */

/* solve_dirt._dp over flat arrays: a state is (cell, gear, coast dice lost, slide space),
 * a node of the partial-plan graph is a state with the dice used so far this turn and the
 * shortcut entries made, and a node's front (the Pareto set of its continuations as vectors
 * over the cautions so far) is kept in one pool for the whole solve, as the reference keeps
 * its dictionary. The engine's dice from a state (rules_dirt.dirt_steps, the bans applied)
 * are asked of Python once per state; the loss outcomes, the seconds, the dice pools and the
 * shortcut draw are small tables. The same float operations in the same order as the
 * reference, the same sort of candidates (the vector, then the plan's length, then the order
 * found), the same 1e-12 test, the same plan chosen. */

#define DMAXL 16  /* cautions before a loss of control (stage.limit) */
#define DMAXICON 8
#define DMAXDEPTH 200000

typedef struct {
    int32_t to, die, gear, marks, fin, entry, slide, over, last, always, on_caution;
} DMove;

typedef struct {
    int32_t plen, step, next_node, next_k;
} DEntry;

typedef struct {
    int32_t si;        /* its state */
    int32_t off, cnt;  /* its front in the pool; cnt -1: not solved yet */
} DNode;

typedef struct {
    int ncells, top, G, nlost, limit, ndice, depth;
    double p_coast;
    PyObject *moves_cb;
    /* the dice: kind 0 a gear die (its bit), 1 coast, 2 leader, 3 brake, 4 boost */
    int kind[MAXDICE], gbit[MAXDICE];
    double chance[MAXDICE];
    /* per coast dice lost: the usable gear dice and each kind's count */
    long long pool[8][5];
    /* per gear 0..top: the seconds of its card; per gear 1..top its loss outcomes */
    double sec[MAXGEARS];
    int nicons[MAXGEARS];
    double icon_q[MAXGEARS][DMAXICON], icon_sec[MAXGEARS][DMAXICON];
    int icon_gear[MAXGEARS][DMAXICON];
    /* the states: [ncells * G * nlost * 3] */
    double *value;
    signed char *status; /* 0 not met, 1 being solved, 2 solved, 3 taken from `known` */
    double *known;
    signed char *has_known, *reaching; /* reaching: per cell */
    int32_t *root;       /* the node of the state's turn start, or -1 */
    int32_t *mv_off, *mv_cnt; /* [states * 2]: without and with a brake die placed before in the turn */
    DMove *mv;
    size_t mv_n, mv_cap;
    int32_t *order;      /* the states in the order first met (the reference's dict order) */
    size_t order_n, order_cap;
    /* the nodes and their fronts */
    Map ids;
    DNode *node;
    size_t node_n, node_cap;
    DEntry *ent;
    double *ev;          /* the entries' vectors, limit doubles each */
    size_t ent_n, ent_cap, ev_cap;
    /* candidates being gathered (a stack: a nested node's are above, gone when it is done) */
    DEntry *cand;
    double *cv;
    size_t cand_n, cand_cap, cv_cap;
    int32_t *idx, *tmp;
    size_t idx_cap, tmp_cap;
} DPar;

static void dpar_free(DPar *P)
{
    free(P->value); free(P->status); free(P->known); free(P->has_known); free(P->reaching);
    free(P->root); free(P->mv_off); free(P->mv_cnt); free(P->mv); free(P->order);
    map_free(&P->ids);
    free(P->node); free(P->ent); free(P->ev); free(P->cand); free(P->cv); free(P->idx); free(P->tmp);
}

static inline int32_t dstate(const DPar *P, int cell, int gear, int lost, int slide)
{
    return ((cell * P->G + gear) * P->nlost + lost) * 3 + slide;
}

/* the engine's dice from state si, a brake die placed before in the turn or not (RD-20) */
static int dfetch(DPar *P, int32_t si, int braked)
{
    int32_t slot = si * 2 + braked;
    if (P->mv_cnt[slot] >= 0)
        return 0;
    int slide = si % 3, lost = (si / 3) % P->nlost, gear = (si / 3 / P->nlost) % P->G, cell = si / 3 / P->nlost / P->G;
    PyObject *got = PyObject_CallFunction(P->moves_cb, "iiiii", cell, gear, lost, slide, braked);
    if (got == NULL)
        return -1;
    PyObject *fast = PySequence_Fast(got, "moves");
    Py_DECREF(got);
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (GROW(P->mv, P->mv_cap, P->mv_n + (size_t)n) < 0) {
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long f[11];
        if (read_ints(PySequence_Fast_GET_ITEM(fast, i), 11, f, "move") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        if (f[0] < 0 || f[0] >= P->ncells || f[1] < 0 || f[1] >= P->ndice || f[2] < 0 || f[2] > P->top || f[3] < 0 ||
            f[3] > 64 || f[6] < 0 || f[6] > 2) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a move the kernel cannot take");
            return -1;
        }
        DMove *m = &P->mv[P->mv_n + (size_t)i];
        m->to = (int32_t)f[0];
        m->die = (int32_t)f[1];
        m->gear = (int32_t)f[2];
        m->marks = (int32_t)f[3];
        m->fin = (int32_t)f[4];
        m->entry = (int32_t)f[5];
        m->slide = (int32_t)f[6];
        m->over = (int32_t)f[7];
        m->last = (int32_t)f[8];
        m->always = (int32_t)f[9];
        m->on_caution = (int32_t)f[10];
    }
    Py_DECREF(fast);
    P->mv_off[slot] = (int32_t)P->mv_n;
    P->mv_cnt[slot] = (int32_t)n;
    P->mv_n += (size_t)n;
    return 0;
}

/* the dice used so far: the gear dice's bits (16), then coast, leader, brake, boost (8 each) */
#define U_MASK(u) ((u) & 0xFFFFULL)
#define U_CNT(u, k) (((u) >> (16 + 8 * ((k) - 1))) & 0xFFULL)

/* solve_dirt._key_used and fits: the dice with `die` added, or 0 when it cannot be (a used
 * value is never 0 once a die is in it) */
static inline uint64_t dused(const DPar *P, uint64_t used, int die, int lost)
{
    uint64_t nu;
    int k = P->kind[die];
    if (k == 0) {
        uint64_t bit = 1ULL << P->gbit[die];
        if (used & bit)
            return 0;
        nu = used | bit;
    } else {
        if (U_CNT(used, k) >= 0xFF)
            return 0;
        nu = used + (1ULL << (16 + 8 * (k - 1)));
    }
    const long long *pool = P->pool[lost];
    if (POPCOUNT(U_MASK(nu)) > pool[0])
        return 0;
    for (int j = 1; j <= 4; j++)
        if ((long long)U_CNT(nu, j) > pool[j])
            return 0;
    return nu;
}

static int dV(DPar *P, int cell, int gear, int lost, int slide, double *out);

/* solve_dirt's `after`: the rest of the stage after the shortcut draws of `entries` entries */
static int dafter(DPar *P, int cell, int gear, int lost, int slide, int entries, double *out)
{
    if (entries == 0 || P->p_coast == 0)
        return dV(P, cell, gear, lost, slide, out);
    double total = 0.0;
    double comb = 1.0; /* math.comb(entries, k), exact in a double at these sizes */
    long long c = 1;
    for (int k = 0; k <= entries; k++) {
        if (k > 0)
            c = c * (entries - k + 1) / k;
        comb = (double)c;
        double q = comb * pow(P->p_coast, (double)k) * pow(1 - P->p_coast, (double)(entries - k));
        int l2 = lost + k < P->nlost - 1 ? lost + k : P->nlost - 1;
        double v;
        if (dV(P, cell, gear, l2, slide, &v) < 0)
            return -1;
        total += q * v;
    }
    *out = total;
    return 0;
}

static inline int dend(DPar *P, int cell, int gear, int lost, int slide, int entries, int finished, double *out)
{
    double rest = 0.0;
    if (!finished && dafter(P, cell, gear, lost, slide, entries, &rest) < 0)
        return -1;
    *out = P->sec[gear] + rest;
    return 0;
}

/* solve_dirt's `lose`: the expected rest after losing control on move m */
static int dlose(DPar *P, const DMove *m0, int lost, int entries, double *out)
{
    DMove m = *m0; /* (the moves' array may grow meanwhile) */
    double total = 0.0;
    for (int i = 0; i < P->nicons[m.gear]; i++) {
        double rest = 0.0;
        if (!m.fin && dafter(P, m.to, P->icon_gear[m.gear][i], lost, m.slide, entries, &rest) < 0)
            return -1;
        total += P->icon_q[m.gear][i] * (P->icon_sec[m.gear][i] + rest);
    }
    *out = total;
    return 0;
}

static int dpush(DPar *P, int32_t plen, int32_t step, int32_t next_node, int32_t next_k, const double *vec)
{
    size_t L = (size_t)P->limit;
    if (GROW(P->cand, P->cand_cap, P->cand_n + 1) < 0 || GROW(P->cv, P->cv_cap, (P->cand_n + 1) * L) < 0)
        return -1;
    DEntry *c = &P->cand[P->cand_n];
    c->plen = plen;
    c->step = step;
    c->next_node = next_node;
    c->next_k = next_k;
    memcpy(P->cv + P->cand_n * L, vec, L * sizeof(double));
    P->cand_n++;
    return 0;
}

/* the sort key of solve._pareto: the vector, then the plan's length, then the order found */
static inline int dless(const DPar *P, int32_t a, int32_t b)
{
    const double *x = P->cv + (size_t)a * P->limit, *y = P->cv + (size_t)b * P->limit;
    for (int i = 0; i < P->limit; i++) {
        if (x[i] < y[i])
            return 1;
        if (y[i] < x[i])
            return 0;
    }
    if (P->cand[a].plen != P->cand[b].plen)
        return P->cand[a].plen < P->cand[b].plen;
    return a < b;
}

static void dsort(const DPar *P, int32_t *a, int32_t *tmp, size_t n)
{
    if (n < 16) {
        for (size_t i = 1; i < n; i++) {
            int32_t x = a[i];
            size_t j = i;
            while (j > 0 && dless(P, x, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    dsort(P, a, tmp, h);
    dsort(P, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = dless(P, a[j], a[i]) ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof(int32_t));
}

/* solve._pareto of the candidates from `cbase` up, stored as node's front; the candidates popped */
static int dfront(DPar *P, size_t cbase, int32_t node)
{
    size_t n = P->cand_n - cbase, L = (size_t)P->limit;
    if (GROW(P->idx, P->idx_cap, n) < 0 || GROW(P->tmp, P->tmp_cap, n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        P->idx[i] = (int32_t)(cbase + i);
    dsort(P, P->idx, P->tmp, n);
    size_t off = P->ent_n;
    for (size_t i = 0; i < n; i++) {
        const double *v = P->cv + (size_t)P->idx[i] * L;
        double top[DMAXL];
        for (size_t c = 0; c < L; c++)
            top[c] = v[c] + EPS;
        int beaten = 0;
        for (size_t o = off; o < P->ent_n && !beaten; o++) {
            const double *w = P->ev + o * L;
            size_t c = 0;
            while (c < L && w[c] <= top[c])
                c++;
            beaten = c == L;
        }
        if (beaten)
            continue;
        if (GROW(P->ent, P->ent_cap, P->ent_n + 1) < 0 || GROW(P->ev, P->ev_cap, (P->ent_n + 1) * L) < 0)
            return -1;
        P->ent[P->ent_n] = P->cand[P->idx[i]];
        memcpy(P->ev + P->ent_n * L, v, L * sizeof(double));
        P->ent_n++;
    }
    P->node[node].off = (int32_t)off;
    P->node[node].cnt = (int32_t)(P->ent_n - off);
    P->cand_n = cbase;
    return 0;
}

/* solve_dirt's W: the node of (state, dice used, entries) with its front solved, or -1 */
static int32_t dW(DPar *P, int cell, int gear, int lost, int slide, uint64_t used, int entries)
{
    int32_t si = dstate(P, cell, gear, lost, slide);
    uint64_t b = used | ((uint64_t)entries << 48);
    int64_t got = map_get(&P->ids, (uint64_t)si, b);
    if (got >= 0 && P->node[got].cnt >= 0)
        return (int32_t)got;
    int32_t node;
    if (got >= 0) {
        node = (int32_t)got;
    } else {
        if (entries > 0xFF) {
            PyErr_SetString(PyExc_ValueError, "too many shortcut entries in a turn for the kernel");
            return -1;
        }
        if (GROW(P->node, P->node_cap, P->node_n + 1) < 0)
            return -1;
        node = (int32_t)P->node_n++;
        P->node[node].si = si;
        P->node[node].cnt = -1;
        if (map_put(&P->ids, (uint64_t)si, b, node) < 0)
            return -1;
    }
    if (++P->depth > DMAXDEPTH) {
        PyErr_SetString(PyExc_ValueError, "a solve too deep for the kernel");
        return -1;
    }
    size_t cbase = P->cand_n;
    double vec[DMAXL];
    int L = P->limit;
    if (used != 0) {
        double e;
        if (dend(P, cell, gear, lost, slide, entries, 0, &e) < 0)
            return -1;
        for (int c = 0; c < L; c++)
            vec[c] = e;
        if (dpush(P, 0, -1, -1, -1, vec) < 0)
            return -1;
    }
    int braked = U_CNT(used, 3) > 0; /* a brake die placed: the gear-1 die stops on water (RD-20) */
    if (dfetch(P, si, braked) < 0)
        return -1;
    int32_t moff = P->mv_off[si * 2 + braked], mcnt = P->mv_cnt[si * 2 + braked];
    for (int32_t i = 0; i < mcnt; i++) {
        DMove s = P->mv[moff + i];
        if (s.over && used != 0)
            continue; /* over a limit only as a turn's first die (RD-17) */
        uint64_t nu = dused(P, used, s.die, lost);
        if (nu == 0)
            continue;
        int e2 = entries + (s.entry ? 1 : 0);
        double p = P->chance[s.die];
        double lost_v;
        if (dlose(P, &s, lost, e2, &lost_v) < 0)
            return -1;
        int32_t tnode = -1, toff = 0, tcnt = 1;
        double endv = 0.0;
        if (s.last) {
            if (dend(P, s.to, s.gear, lost, s.slide, e2, s.fin, &endv) < 0)
                return -1;
        } else {
            tnode = dW(P, s.to, s.gear, lost, s.slide, nu, e2);
            if (tnode < 0)
                return -1;
            toff = P->node[tnode].off;
            tcnt = P->node[tnode].cnt;
        }
        if (s.always) {
            for (int c = 0; c < L; c++)
                vec[c] = lost_v;
            for (int32_t k = 0; k < tcnt; k++) {
                int32_t tl = tnode < 0 ? 0 : P->ent[toff + k].plen;
                if (dpush(P, 1 + tl, i, tnode, tnode < 0 ? -1 : k, vec) < 0)
                    return -1;
            }
            continue;
        }
        double q = 1 - p;
        for (int32_t k = 0; k < tcnt; k++) {
            double tv[DMAXL];
            int32_t tl = 0;
            if (tnode < 0) {
                for (int c = 0; c < L; c++)
                    tv[c] = endv;
            } else {
                memcpy(tv, P->ev + (size_t)(toff + k) * L, (size_t)L * sizeof(double));
                tl = P->ent[toff + k].plen;
            }
            /* cautions so far c: no caution on this die (c + marks), or one more (c + marks + 1),
             * each the loss's seconds past the limit */
            for (int c = 0; c < L; c++) {
                int a = c + s.marks;
                int bb = (s.on_caution || a + 1 >= L) ? -1 : a + 1;
                if (a >= L)
                    a = -1;
                vec[c] = q * (a < 0 ? lost_v : tv[a]) + p * (bb < 0 ? lost_v : tv[bb]);
            }
            if (dpush(P, 1 + tl, i, tnode, tnode < 0 ? -1 : k, vec) < 0)
                return -1;
        }
    }
    if (dfront(P, cbase, node) < 0)
        return -1;
    P->depth--;
    return node;
}

static int dV(DPar *P, int cell, int gear, int lost, int slide, double *out)
{
    int32_t si = dstate(P, cell, gear, lost, slide);
    if (P->status[si]) {
        *out = P->value[si];
        return 0;
    }
    if (GROW(P->order, P->order_cap, P->order_n + 1) < 0)
        return -1;
    P->order[P->order_n++] = si;
    if (P->has_known[si] && !P->reaching[cell]) {
        P->status[si] = 3;
        *out = P->value[si] = P->known[si];
        return 0;
    }
    P->status[si] = 1;
    P->value[si] = BIG;
    int32_t node = dW(P, cell, gear, lost, slide, 0, 0);
    if (node < 0)
        return -1;
    P->root[si] = node;
    double best = BIG;
    int first = 1;
    for (int32_t k = 0; k < P->node[node].cnt; k++) {
        double v = P->ev[(size_t)(P->node[node].off + k) * P->limit];
        if (first || v < best)
            best = v;
        first = 0;
    }
    P->status[si] = 2;
    *out = P->value[si] = best;
    return 0;
}

static PyObject *kernel_dirt_par(PyObject *self, PyObject *args)
{
    PyObject *spec, *moves_cb, *result = NULL;
    if (!PyArg_ParseTuple(args, "OO", &spec, &moves_cb))
        return NULL;
    DPar P;
    memset(&P, 0, sizeof(P));
    P.moves_cb = moves_cb;
    long long v;
    if (get_int(spec, "ncells", &v) < 0)
        goto done;
    P.ncells = (int)v;
    if (get_int(spec, "top", &v) < 0)
        goto done;
    P.top = (int)v;
    P.G = P.top + 1;
    if (get_int(spec, "coast_dice", &v) < 0)
        goto done;
    P.nlost = (int)v + 1;
    if (get_int(spec, "limit", &v) < 0)
        goto done;
    P.limit = (int)v;
    if (get_int(spec, "ndice", &v) < 0)
        goto done;
    P.ndice = (int)v;
    if (P.ncells < 1 || P.ncells >= (1 << 20) || P.top < 1 || P.top >= MAXGEARS || P.nlost < 1 || P.nlost > 8 || P.limit < 1 ||
        P.limit > DMAXL || P.ndice < 1 || P.ndice > MAXDICE) {
        PyErr_SetString(PyExc_ValueError, "a stage beyond the kernel's sizes");
        goto done;
    }
    {
        PyObject *pc = get_item(spec, "p_coast");
        if (pc == NULL)
            goto done;
        P.p_coast = PyFloat_AsDouble(pc);
        if (P.p_coast == -1.0 && PyErr_Occurred())
            goto done;
        long long kind[MAXDICE], gbit[MAXDICE], pool[8 * 5];
        if (get_ints(spec, "kind", P.ndice, kind) < 0 || get_ints(spec, "gbit", P.ndice, gbit) < 0 ||
            get_doubles(spec, "chance", P.ndice, P.chance) < 0 || get_ints(spec, "pool", (Py_ssize_t)P.nlost * 5, pool) < 0 ||
            get_doubles(spec, "sec", P.G, P.sec) < 0)
            goto done;
        for (int d = 0; d < P.ndice; d++) {
            if (kind[d] < 0 || kind[d] > 4 || gbit[d] < 0 || gbit[d] > 15) {
                PyErr_SetString(PyExc_ValueError, "a die the kernel cannot take");
                goto done;
            }
            P.kind[d] = (int)kind[d];
            P.gbit[d] = (int)gbit[d];
        }
        for (int l = 0; l < P.nlost; l++)
            for (int j = 0; j < 5; j++)
                P.pool[l][j] = pool[l * 5 + j];
        PyObject *icons = get_item(spec, "icons"); /* per gear 0..top: ((q, seconds, gear after), ...) */
        if (icons == NULL)
            goto done;
        PyObject *fi = PySequence_Fast(icons, "icons");
        if (fi == NULL)
            goto done;
        if (PySequence_Fast_GET_SIZE(fi) != P.G) {
            Py_DECREF(fi);
            PyErr_SetString(PyExc_ValueError, "icons: one list a gear");
            goto done;
        }
        for (int g = 0; g < P.G; g++) {
            PyObject *fg = PySequence_Fast(PySequence_Fast_GET_ITEM(fi, g), "icons");
            if (fg == NULL) {
                Py_DECREF(fi);
                goto done;
            }
            Py_ssize_t n = PySequence_Fast_GET_SIZE(fg);
            if (n > DMAXICON) {
                Py_DECREF(fg);
                Py_DECREF(fi);
                PyErr_SetString(PyExc_ValueError, "too many loss outcomes for the kernel");
                goto done;
            }
            P.nicons[g] = (int)n;
            for (Py_ssize_t i = 0; i < n; i++) {
                double t[2];
                long long g2;
                PyObject *item = PySequence_Fast_GET_ITEM(fg, i);
                PyObject *fo = PySequence_Fast(item, "icon");
                if (fo == NULL || PySequence_Fast_GET_SIZE(fo) != 3) {
                    Py_XDECREF(fo);
                    Py_DECREF(fg);
                    Py_DECREF(fi);
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_ValueError, "icon: (q, seconds, gear after)");
                    goto done;
                }
                t[0] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fo, 0));
                t[1] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fo, 1));
                g2 = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fo, 2));
                Py_DECREF(fo);
                if (PyErr_Occurred() || g2 < 0 || g2 > P.top) {
                    Py_DECREF(fg);
                    Py_DECREF(fi);
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_ValueError, "icon: a gear the kernel does not know");
                    goto done;
                }
                P.icon_q[g][i] = t[0];
                P.icon_sec[g][i] = t[1];
                P.icon_gear[g][i] = (int)g2;
            }
            Py_DECREF(fg);
        }
        Py_DECREF(fi);
    }
    {
        size_t ns = (size_t)P.ncells * P.G * P.nlost * 3;
        P.value = calloc(ns, sizeof(double));
        P.status = calloc(ns, 1);
        P.known = calloc(ns, sizeof(double));
        P.has_known = calloc(ns, 1);
        P.reaching = calloc((size_t)P.ncells, 1);
        P.root = malloc(ns * sizeof(int32_t));
        P.mv_off = malloc(2 * ns * sizeof(int32_t));
        P.mv_cnt = malloc(2 * ns * sizeof(int32_t));
        if (!P.value || !P.status || !P.known || !P.has_known || !P.reaching || !P.root || !P.mv_off || !P.mv_cnt) {
            PyErr_NoMemory();
            goto done;
        }
        for (size_t i = 0; i < ns; i++)
            P.root[i] = -1;
        for (size_t i = 0; i < 2 * ns; i++)
            P.mv_cnt[i] = -1;
        if (map_init(&P.ids, 4096) < 0)
            goto done;
        /* known: ((cell, gear, lost, slide, value), ...) and reaching: (cell, ...) */
        PyObject *known = get_item(spec, "known"), *reaching = get_item(spec, "reaching");
        if (known == NULL || reaching == NULL)
            goto done;
        PyObject *fk = PySequence_Fast(known, "known");
        if (fk == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fk); i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(fk, i);
            long long c, g, l, s;
            double x;
            if (!PyArg_ParseTuple(item, "LLLLd", &c, &g, &l, &s, &x)) {
                Py_DECREF(fk);
                goto done;
            }
            if (c < 0 || c >= P.ncells || g < 0 || g > P.top || l < 0 || l >= P.nlost || s < 0 || s > 2) {
                Py_DECREF(fk);
                PyErr_SetString(PyExc_ValueError, "known: a state the kernel does not know");
                goto done;
            }
            int32_t si = dstate(&P, (int)c, (int)g, (int)l, (int)s);
            P.known[si] = x;
            P.has_known[si] = 1;
        }
        Py_DECREF(fk);
        PyObject *fr = PySequence_Fast(reaching, "reaching");
        if (fr == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fr); i++) {
            long long c = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fr, i));
            if ((c == -1 && PyErr_Occurred()) || c < 0 || c >= P.ncells) {
                Py_DECREF(fr);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "reaching: a cell the kernel does not know");
                goto done;
            }
            P.reaching[c] = 1;
        }
        Py_DECREF(fr);
    }
    {
        long long start[4];
        if (get_ints(spec, "start", 4, start) < 0)
            goto done;
        if (start[0] < 0 || start[0] >= P.ncells || start[1] < 0 || start[1] > P.top || start[2] < 0 || start[2] >= P.nlost ||
            start[3] < 0 || start[3] > 2) {
            PyErr_SetString(PyExc_ValueError, "start: a state the kernel does not know");
            goto done;
        }
        double x;
        if (dV(&P, (int)start[0], (int)start[1], (int)start[2], (int)start[3], &x) < 0)
            goto done;
    }
    {
        /* [(cell, gear, lost, slide, value, plan or None), ...] in the order first met; the plan:
         * the moves' places in their states' lists, the first entry of least (time, length) */
        PyObject *out = PyList_New((Py_ssize_t)P.order_n);
        if (out == NULL)
            goto done;
        for (size_t i = 0; i < P.order_n; i++) {
            int32_t si = P.order[i];
            int slide = si % 3, lost = (si / 3) % P.nlost, gear = (si / 3 / P.nlost) % P.G, cell = si / 3 / P.nlost / P.G;
            PyObject *plan;
            int32_t node = P.root[si];
            if (P.status[si] == 2 && node >= 0 && P.node[node].cnt > 0) {
                int32_t best = P.node[node].off;
                for (int32_t k = P.node[node].off + 1; k < P.node[node].off + P.node[node].cnt; k++) {
                    double a = P.ev[(size_t)k * P.limit], b = P.ev[(size_t)best * P.limit];
                    if (a < b || (a == b && P.ent[k].plen < P.ent[best].plen))
                        best = k;
                }
                plan = PyTuple_New(P.ent[best].plen);
                if (plan == NULL) {
                    Py_DECREF(out);
                    goto done;
                }
                int32_t e = best;
                for (int32_t j = 0; j < P.ent[best].plen; j++) {
                    PyObject *step = PyLong_FromLong(P.ent[e].step);
                    if (step == NULL) {
                        Py_DECREF(plan);
                        Py_DECREF(out);
                        goto done;
                    }
                    PyTuple_SET_ITEM(plan, j, step);
                    int32_t nn = P.ent[e].next_node;
                    if (nn >= 0)
                        e = P.node[nn].off + P.ent[e].next_k;
                }
            } else {
                plan = Py_None;
                Py_INCREF(plan);
            }
            PyObject *row = Py_BuildValue("(iiiidN)", cell, gear, lost, slide, P.value[si], plan);
            if (row == NULL) {
                Py_DECREF(out);
                goto done;
            }
            PyList_SET_ITEM(out, (Py_ssize_t)i, row);
        }
        result = out;
    }
done:
    dpar_free(&P);
    return result;
}

/* ================================================================== the module */

static PyMethodDef kernel_methods[] = {
    {"par", kernel_par, METH_VARARGS,
     "par(spec, moves) -> [(cell, crossings, gear, tokens, seconds, mode, plan), ...]: solve.par's values and plans"},
    {"safe_route", kernel_safe_route, METH_VARARGS,
     "safe_route(spec, moves) -> (seconds, [(mode, cell, crossings, gear, plan), ...]) or None: solve.safe_route's route"},
    {"dirt_par", kernel_dirt_par, METH_VARARGS,
     "dirt_par(spec, moves) -> [(cell, gear, coast lost, slide, seconds, plan or None), ...]: solve_dirt._dp's values and plans"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The Rallyman GT and DIRT exact solvers' compiled kernel (see sheetgen.games.rallyman.accel).", -1, kernel_methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    PyObject *m = PyModule_Create(&kernel_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_SHA256", KERNEL_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
