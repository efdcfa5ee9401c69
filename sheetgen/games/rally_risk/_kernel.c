/* The Rally Risk solver's compiled kernel, for sheetgen.games.rally_risk.accel: the
 * interpreter-bound backward sweep and its check trees (sheetgen/games/rally_risk/solve.py).
 *
 * - `check_tree`: a position's check tree (`Solution._build_tree`, over the engine's
 *   `rules.check_tree` with float probabilities), from the course's factors and the Damages
 *   Table, coded as the sweep reads it.
 * - `sweep`: the whole backward sweep (`Solution._solve`): each tree priced for both card
 *   states ("_sums, for both" and "_pick, for both": the expected cost gathered along every
 *   step, then the best leaf of each gear, first of ties), the gear choice, the weather's mix,
 *   the halts, and the END and OFF values with tyre changes (`Solution._post_values`).
 *
 * It is the reference's arithmetic, not an approximation of it: the same float operations in
 * the same order (build with -O2 -ffp-contract=off, never -ffast-math): the chance of getting
 * through a check is the sum of the table's "no damage" probabilities, lightest first, from
 * 0; a damage's probability and the chance of going on are the chance of getting there times
 * the table's probability. Steps are numbered in the order the moves first make their checks,
 * leaves keep the first move of each (step, probability, end): the reference's tuples, equal
 * with `==`; a pricing adds the same terms in the same order and breaks ties by the same
 * TIE (tests/test_rally_risk_kernel.py).
 *
 * A tree is tuples of numbers and of such tuples, kept as long as the course: they are made
 * untracked by the garbage collector at once (no cycle can pass through them), as CPython
 * untracks such tuples itself when a collection first meets them, so that collections while
 * the trees are made do not walk every tree made before.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define TIE 1e-12 /* solve.TIE: values closer than this are ties */

#ifndef KERNEL_SOURCE_SHA256
#define KERNEL_SOURCE_SHA256 "unknown"
#endif

/* ------------------------------------------------------------------ growable arrays */

static int grow(void **ptr, Py_ssize_t *cap, Py_ssize_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*ptr, (size_t)n * elem);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *ptr = p;
    *cap = n;
    return 0;
}

typedef struct {
    long parent;
    long space;
    long diff;        /* the difference, clamped to the table's last row */
    long first_child; /* -1: none */
    long next;        /* the parent's next child, -1: none */
    long dam;         /* first damage in the pool */
    long ndam;
    double going;     /* the chance of getting through every check up to this step */
} Step;

typedef struct {
    long code;  /* the outcome's index in the sweep's damage slots */
    double p;
} Damage;

typedef struct {
    Step *steps;
    Py_ssize_t nsteps, cap_steps;
    Damage *pool;
    Py_ssize_t npool, cap_pool;
} Tree;

/* The damage distribution of one difference: codes (-1: no damage) and probabilities. */
typedef struct {
    long n;
    long code[8];
    double p[8];
} Dist;

static PyObject *str_spaces, *str_brakes; /* a move's attributes, interned at import */

static long as_long(PyObject *o, int *bad)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        *bad = 1;
    return v;
}

/* check_tree(row, risk, start, last, finish, dists, outcomes, per_gear) -> (coded, leaves)
 *
 * row: the factor of every space (index 0 unused); dists[d] for d = 1 .. rows: ((code or -1
 * for no damage, probability), ...) of the Damages Table at difference d, lightest first
 * (dists[0] unused); outcomes: the damage slots per space; per_gear: the moves of each gear
 * (objects with `spaces` and `brakes`). */
static PyObject *kernel_check_tree(PyObject *self, PyObject *args)
{
    PyObject *row_obj, *dists_obj, *per_gear;
    long risk, start, last, finish, outcomes;
    if (!PyArg_ParseTuple(args, "O!llllO!lO!", &PyTuple_Type, &row_obj, &risk, &start, &last, &finish,
                          &PyTuple_Type, &dists_obj, &outcomes, &PyTuple_Type, &per_gear))
        return NULL;
    (void)self;
    int bad = 0;
    Py_ssize_t nrow = PyTuple_GET_SIZE(row_obj);
    long rows = (long)PyTuple_GET_SIZE(dists_obj) - 1;
    if (rows < 1 || nrow < 1 || last >= nrow || start < 0) {
        PyErr_SetString(PyExc_ValueError, "check_tree: bad sizes");
        return NULL;
    }
    long *row = malloc((size_t)nrow * sizeof(long));
    Dist *dist = malloc((size_t)(rows + 1) * sizeof(Dist));
    Tree tree = {NULL, 0, 0, NULL, 0, 0};
    long *leaf_step = NULL, *leaf_q = NULL, *leaf_i = NULL;
    double *leaf_p = NULL;
    Py_ssize_t cap_leaf = 0, cap_leaf_q = 0, cap_leaf_i = 0, cap_leaf_p = 0;
    PyObject *coded = NULL, *leaves = NULL, *result = NULL;
    if (row == NULL || dist == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0; s < nrow; s++)
        row[s] = as_long(PyTuple_GET_ITEM(row_obj, s), &bad);
    for (long d = 1; d <= rows && !bad; d++) {
        PyObject *dd = PyTuple_GET_ITEM(dists_obj, d);
        if (!PyTuple_Check(dd) || PyTuple_GET_SIZE(dd) > 8) {
            PyErr_SetString(PyExc_ValueError, "check_tree: bad damage distribution");
            goto done;
        }
        dist[d].n = (long)PyTuple_GET_SIZE(dd);
        for (long k = 0; k < dist[d].n; k++) {
            PyObject *pair = PyTuple_GET_ITEM(dd, k);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_SetString(PyExc_ValueError, "check_tree: bad damage distribution");
                goto done;
            }
            dist[d].code[k] = as_long(PyTuple_GET_ITEM(pair, 0), &bad);
            dist[d].p[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(pair, 1));
            if (dist[d].p[k] == -1.0 && PyErr_Occurred())
                bad = 1;
        }
    }
    if (bad)
        goto done;
    if (grow((void **)&tree.steps, &tree.cap_steps, 1, sizeof(Step)) < 0)
        goto done;
    tree.steps[0] = (Step){-1, 0, 0, -1, -1, 0, 0, 1.0};
    tree.nsteps = 1;
    Py_ssize_t ngears = PyTuple_GET_SIZE(per_gear);
    leaves = PyTuple_New(ngears);
    if (leaves == NULL)
        goto done;
    for (Py_ssize_t g = 0; g < ngears; g++) {
        PyObject *moves = PyTuple_GET_ITEM(per_gear, g);
        if (!PyTuple_Check(moves)) {
            PyErr_SetString(PyExc_TypeError, "check_tree: the moves of a gear are a tuple");
            goto done;
        }
        Py_ssize_t nmoves = PyTuple_GET_SIZE(moves), nleaves = 0;
        if (grow((void **)&leaf_step, &cap_leaf, nmoves, sizeof(long)) < 0
            || grow((void **)&leaf_q, &cap_leaf_q, nmoves, sizeof(long)) < 0
            || grow((void **)&leaf_i, &cap_leaf_i, nmoves, sizeof(long)) < 0
            || grow((void **)&leaf_p, &cap_leaf_p, nmoves, sizeof(double)) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < nmoves; i++) {
            PyObject *move = PyTuple_GET_ITEM(moves, i);
            PyObject *spaces_obj = PyObject_GetAttr(move, str_spaces);
            if (spaces_obj == NULL)
                goto done;
            long spaces = as_long(spaces_obj, &bad);
            Py_DECREF(spaces_obj);
            PyObject *brakes = PyObject_GetAttr(move, str_brakes);
            if (brakes == NULL)
                goto done;
            if (bad || !PyTuple_Check(brakes)) {
                Py_DECREF(brakes);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "check_tree: a move's brakes are a tuple");
                goto done;
            }
            Py_ssize_t nbrakes = PyTuple_GET_SIZE(brakes);
            long step = 0;
            double going = 1.0;
            long end = start + spaces;
            long stop = end < last ? end : last;
            for (long space = start + 1; space <= stop; space++) {
                long factor = row[space];
                if (nbrakes) {
                    if (space - start - 1 >= nbrakes) {
                        Py_DECREF(brakes);
                        PyErr_SetString(PyExc_ValueError, "check_tree: a move brakes on fewer spaces than it enters");
                        goto done;
                    }
                    factor += as_long(PyTuple_GET_ITEM(brakes, space - start - 1), &bad);
                    if (bad) {
                        Py_DECREF(brakes);
                        goto done;
                    }
                }
                if (factor <= risk)
                    continue;
                long difference = factor - risk;
                long clamped = difference < rows ? difference : rows;
                long nxt = -1;
                for (long c = tree.steps[step].first_child; c >= 0; c = tree.steps[c].next) {
                    if (tree.steps[c].space == space && tree.steps[c].diff == clamped) {
                        nxt = c;
                        break;
                    }
                }
                if (nxt < 0) {
                    const Dist *dd = &dist[clamped];
                    if (grow((void **)&tree.steps, &tree.cap_steps, tree.nsteps + 1, sizeof(Step)) < 0
                        || grow((void **)&tree.pool, &tree.cap_pool, tree.npool + dd->n, sizeof(Damage)) < 0) {
                        Py_DECREF(brakes);
                        goto done;
                    }
                    double stay = 0.0;
                    long dam = (long)tree.npool, ndam = 0;
                    for (long k = 0; k < dd->n; k++) {
                        if (dd->code[k] < 0) {
                            stay += dd->p[k];
                        } else {
                            tree.pool[tree.npool].code = space * outcomes + dd->code[k];
                            tree.pool[tree.npool].p = going * dd->p[k];
                            tree.npool++;
                            ndam++;
                        }
                    }
                    nxt = (long)tree.nsteps;
                    Step *parent = &tree.steps[step];
                    tree.steps[nxt] = (Step){step, space, clamped, -1, parent->first_child, dam, ndam, going * stay};
                    parent->first_child = nxt;
                    tree.nsteps++;
                }
                step = nxt;
                going = tree.steps[nxt].going;
                if (going == 0.0)
                    break;
            }
            Py_DECREF(brakes);
            double prob;
            long q;
            if (going != 0.0) {
                prob = going;
                q = end < finish ? end : finish;
            } else {
                prob = 0.0;
                q = finish;
            }
            Py_ssize_t j = 0;
            for (; j < nleaves; j++)
                if (leaf_step[j] == step && leaf_p[j] == prob && leaf_q[j] == q)
                    break;
            if (j == nleaves) {
                leaf_step[nleaves] = step;
                leaf_p[nleaves] = prob;
                leaf_q[nleaves] = q;
                leaf_i[nleaves] = (long)i;
                nleaves++;
            }
        }
        PyObject *mine = PyTuple_New(nleaves);
        if (mine == NULL)
            goto done;
        PyTuple_SET_ITEM(leaves, g, mine);
        for (Py_ssize_t j = 0; j < nleaves; j++) {
            PyObject *leaf = PyTuple_New(4);
            if (leaf == NULL)
                goto done;
            PyObject *a = PyLong_FromLong(leaf_step[j]), *b = PyFloat_FromDouble(leaf_p[j]), *c = PyLong_FromLong(leaf_q[j]),
                     *d = PyLong_FromLong(leaf_i[j]);
            if (a == NULL || b == NULL || c == NULL || d == NULL) {
                Py_XDECREF(a);
                Py_XDECREF(b);
                Py_XDECREF(c);
                Py_XDECREF(d);
                Py_DECREF(leaf);
                goto done;
            }
            PyTuple_SET_ITEM(leaf, 0, a);
            PyTuple_SET_ITEM(leaf, 1, b);
            PyTuple_SET_ITEM(leaf, 2, c);
            PyTuple_SET_ITEM(leaf, 3, d);
            PyObject_GC_UnTrack(leaf);
            PyTuple_SET_ITEM(mine, j, leaf);
        }
        PyObject_GC_UnTrack(mine);
    }
    coded = PyTuple_New(tree.nsteps - 1);
    if (coded == NULL)
        goto done;
    for (Py_ssize_t s = 1; s < tree.nsteps; s++) {
        const Step *st = &tree.steps[s];
        PyObject *probs = PyTuple_New(st->ndam), *slots = PyTuple_New(st->ndam);
        if (probs == NULL || slots == NULL) {
            Py_XDECREF(probs);
            Py_XDECREF(slots);
            goto done;
        }
        for (long k = 0; k < st->ndam; k++) {
            PyObject *p = PyFloat_FromDouble(tree.pool[st->dam + k].p);
            PyObject *c = PyLong_FromLong(tree.pool[st->dam + k].code);
            if (p == NULL || c == NULL) {
                Py_XDECREF(p);
                Py_XDECREF(c);
                Py_DECREF(probs);
                Py_DECREF(slots);
                goto done;
            }
            PyTuple_SET_ITEM(probs, k, p);
            PyTuple_SET_ITEM(slots, k, c);
        }
        PyObject *entry = PyTuple_New(3), *parent = PyLong_FromLong(st->parent);
        if (entry == NULL || parent == NULL) {
            Py_XDECREF(entry);
            Py_XDECREF(parent);
            Py_DECREF(probs);
            Py_DECREF(slots);
            goto done;
        }
        PyTuple_SET_ITEM(entry, 0, parent);
        PyTuple_SET_ITEM(entry, 1, probs);
        PyTuple_SET_ITEM(entry, 2, slots);
        PyObject_GC_UnTrack(probs);
        PyObject_GC_UnTrack(slots);
        PyObject_GC_UnTrack(entry);
        PyTuple_SET_ITEM(coded, s - 1, entry);
    }
    PyObject_GC_UnTrack(coded);
    PyObject_GC_UnTrack(leaves);
    result = PyTuple_Pack(2, coded, leaves);
    if (result != NULL)
        PyObject_GC_UnTrack(result);
done:
    free(row);
    free(dist);
    free(tree.steps);
    free(tree.pool);
    free(leaf_step);
    free(leaf_q);
    free(leaf_i);
    free(leaf_p);
    Py_XDECREF(coded);
    Py_XDECREF(leaves);
    return result;
}

/* A float of a list of the sweep's (a float, or a whole number such as a penalty of 50). */
static inline double item(PyObject *list, Py_ssize_t i, int *bad)
{
    if (i < 0 || i >= PyList_GET_SIZE(list)) {
        *bad = 1;
        return 0.0;
    }
    PyObject *o = PyList_GET_ITEM(list, i);
    if (PyFloat_CheckExact(o))
        return PyFloat_AS_DOUBLE(o);
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred())
        *bad = 1;
    return v;
}

static double *sums0, *sums1;
static Py_ssize_t cap_sums0, cap_sums1;

/* One tree of the sweep priced for both card states, as Solution._solve's reference loop
 * does it: tree = (steps, leaves, moves per gear), steps ((parent, (probability, ...),
 * (damage slot, ...)), ...), leaves per gear ((step, probability, q, move index), ...);
 * gears ((gear, probability of this risk), ...); ends per gear (END list of card state 0,
 * of card state 1); d0, d1 the values after each damage slot. For each gear the best move
 * (first of ties) goes to m0[k], m1[k] with k = (base + gear) * nr + ri, and probability *
 * its value is added to total0[gear], total1[gear]. */
static int price_tree(PyObject *tree, PyObject *gears, PyObject *ends, Py_ssize_t ri, Py_ssize_t nr, Py_ssize_t base,
                      PyObject *d0, PyObject *d1, PyObject *m0, PyObject *m1, double *total0, double *total1,
                      Py_ssize_t ntotal)
{
    if (!PyTuple_Check(tree) || PyTuple_GET_SIZE(tree) != 3 || !PyTuple_Check(PyTuple_GET_ITEM(tree, 0))
        || !PyTuple_Check(PyTuple_GET_ITEM(tree, 1)) || !PyTuple_Check(PyTuple_GET_ITEM(tree, 2))
        || !PyTuple_Check(gears) || !PyTuple_Check(ends)) {
        PyErr_SetString(PyExc_TypeError, "sweep: a tree is (steps, leaves, moves), with gears and END pairs");
        return -1;
    }
    PyObject *steps = PyTuple_GET_ITEM(tree, 0), *leaves = PyTuple_GET_ITEM(tree, 1),
             *gear_moves = PyTuple_GET_ITEM(tree, 2);
    Py_ssize_t nsteps = PyTuple_GET_SIZE(steps) + 1, ngears = PyTuple_GET_SIZE(gears);
    if (PyTuple_GET_SIZE(ends) != ngears || PyTuple_GET_SIZE(leaves) != ngears || PyTuple_GET_SIZE(gear_moves) != ngears) {
        PyErr_SetString(PyExc_ValueError, "sweep: one leaf list, move list and END pair per gear");
        return -1;
    }
    if (grow((void **)&sums0, &cap_sums0, nsteps, sizeof(double)) < 0
        || grow((void **)&sums1, &cap_sums1, nsteps, sizeof(double)) < 0)
        return -1;
    int bad = 0;
    sums0[0] = sums1[0] = 0.0;
    for (Py_ssize_t i = 1; i < nsteps && !bad; i++) {
        PyObject *step = PyTuple_GET_ITEM(steps, i - 1);
        if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 3) {
            bad = 1;
            break;
        }
        Py_ssize_t parent = PyLong_AsSsize_t(PyTuple_GET_ITEM(step, 0));
        PyObject *probs = PyTuple_GET_ITEM(step, 1), *slots = PyTuple_GET_ITEM(step, 2);
        if (parent < 0 || parent >= i || !PyTuple_Check(probs) || !PyTuple_Check(slots)
            || PyTuple_GET_SIZE(probs) != PyTuple_GET_SIZE(slots)) {
            bad = 1;
            break;
        }
        double s0 = sums0[parent], s1 = sums1[parent];
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(probs); k++) {
            double prob = PyFloat_AsDouble(PyTuple_GET_ITEM(probs, k));
            Py_ssize_t slot = PyLong_AsSsize_t(PyTuple_GET_ITEM(slots, k));
            s0 += prob * item(d0, slot, &bad);
            s1 += prob * item(d1, slot, &bad);
        }
        sums0[i] = s0;
        sums1[i] = s1;
    }
    if (bad || PyErr_Occurred()) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "sweep: a step out of the tree or a slot out of the values");
        return -1;
    }
    for (Py_ssize_t g = 0; g < ngears; g++) {
        PyObject *mine = PyTuple_GET_ITEM(leaves, g), *pair = PyTuple_GET_ITEM(ends, g);
        PyObject *moves = PyTuple_GET_ITEM(gear_moves, g), *gp = PyTuple_GET_ITEM(gears, g);
        if (!PyTuple_Check(mine) || !PyTuple_Check(moves) || !PyTuple_Check(gp) || PyTuple_GET_SIZE(gp) != 2
            || !PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyList_Check(PyTuple_GET_ITEM(pair, 0))
            || !PyList_Check(PyTuple_GET_ITEM(pair, 1))) {
            PyErr_SetString(PyExc_TypeError, "sweep: bad gears, leaves, moves or END lists");
            return -1;
        }
        Py_ssize_t gear = PyLong_AsSsize_t(PyTuple_GET_ITEM(gp, 0));
        double pr = PyFloat_AsDouble(PyTuple_GET_ITEM(gp, 1));
        if (PyErr_Occurred())
            return -1;
        if (gear < 0 || gear >= ntotal) {
            PyErr_SetString(PyExc_ValueError, "sweep: a gear past the totals");
            return -1;
        }
        PyObject *e0 = PyTuple_GET_ITEM(pair, 0), *e1 = PyTuple_GET_ITEM(pair, 1);
        double best0 = Py_HUGE_VAL, bar0 = Py_HUGE_VAL, best1 = Py_HUGE_VAL, bar1 = Py_HUGE_VAL;
        Py_ssize_t i0 = -1, i1 = -1;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(mine); j++) {
            PyObject *leaf = PyTuple_GET_ITEM(mine, j);
            if (!PyTuple_Check(leaf) || PyTuple_GET_SIZE(leaf) != 4) {
                bad = 1;
                break;
            }
            Py_ssize_t step = PyLong_AsSsize_t(PyTuple_GET_ITEM(leaf, 0));
            double prob = PyFloat_AsDouble(PyTuple_GET_ITEM(leaf, 1));
            Py_ssize_t q = PyLong_AsSsize_t(PyTuple_GET_ITEM(leaf, 2));
            Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(leaf, 3));
            if (step < 0 || step >= nsteps) {
                bad = 1;
                break;
            }
            double v = sums0[step] + prob * item(e0, q, &bad);
            if (v < bar0) {
                best0 = v;
                i0 = i;
                bar0 = v - TIE;
            }
            v = sums1[step] + prob * item(e1, q, &bad);
            if (v < bar1) {
                best1 = v;
                i1 = i;
                bar1 = v - TIE;
            }
        }
        Py_ssize_t nm = PyTuple_GET_SIZE(moves);
        /* moves[-1] when nothing was picked, as the reference's moves[i] reads it */
        if (i0 < 0)
            i0 += nm;
        if (i1 < 0)
            i1 += nm;
        Py_ssize_t k = (base + gear) * nr + ri;
        if (bad || PyErr_Occurred() || i0 < 0 || i0 >= nm || i1 < 0 || i1 >= nm || k < 0
            || k >= PyList_GET_SIZE(m0) || k >= PyList_GET_SIZE(m1)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "sweep: a leaf out of the tree, the END list or the moves");
            return -1;
        }
        PyObject *move0 = PyTuple_GET_ITEM(moves, i0), *move1 = PyTuple_GET_ITEM(moves, i1);
        Py_INCREF(move0);
        if (PyList_SetItem(m0, k, move0) < 0)
            return -1;
        Py_INCREF(move1);
        if (PyList_SetItem(m1, k, move1) < 0)
            return -1;
        /* risks come in increasing order, as the reference adds them */
        total0[gear] += pr * best0;
        total1[gear] += pr * best1;
    }
    return 0;
}

/* list[i] = value (a new reference taken), checked. */
static int put(PyObject *list, Py_ssize_t i, PyObject *value)
{
    if (!PyList_Check(list) || i < 0 || i >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "sweep: a slot past its table");
        return -1;
    }
    Py_INCREF(value);
    return PyList_SetItem(list, i, value);
}

static int put_float(PyObject *list, Py_ssize_t i, double v)
{
    PyObject *f = PyFloat_FromDouble(v);
    if (f == NULL)
        return -1;
    int r = put(list, i, f);
    Py_DECREF(f);
    return r;
}

/* list[i], borrowed, checked. */
static PyObject *at_(PyObject *list, Py_ssize_t i)
{
    if (!PyList_Check(list) || i < 0 || i >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "sweep: a slot past its table");
        return NULL;
    }
    return PyList_GET_ITEM(list, i);
}

static int as_double(PyObject *o, double *v)
{
    *v = PyFloat_AsDouble(o);
    return (*v == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* A stop for other tyres after the move, as Solution._post_values weighs it: the value at
 * `slot` of each other tyres' context (card c, sector w), in the tyres' order, replaces `best`
 * (and names its tyres in `choice`) when it is lower by more than TIE. */
static int tyre_change(PyObject *const *vf, Py_ssize_t nt, Py_ssize_t nw, Py_ssize_t ti, int c, Py_ssize_t w,
                       Py_ssize_t slot, PyObject *tyres, PyObject **best, PyObject **choice)
{
    double b;
    if (as_double(*best, &b) < 0)
        return -1;
    for (Py_ssize_t i2 = 0; i2 < nt; i2++) {
        if (i2 == ti)
            continue;
        PyObject *vo = at_(vf[(i2 * 2 + c) * nw + w], slot);
        double v;
        if (vo == NULL || as_double(vo, &v) < 0)
            return -1;
        if (v < b - TIE) {
            *best = vo;
            b = v;
            *choice = PyTuple_GET_ITEM(tyres, i2);
        }
    }
    return 0;
}

/* Solution._post_values(q): the END and OFF values of position q, stop for tyres or not, and
 * the choice; then the values after each damage. The values are the same float objects the
 * reference stores (a value is copied, never computed, here). */
static int post_values(Py_ssize_t q, Py_ssize_t nw, Py_ssize_t nt, Py_ssize_t maxgear, Py_ssize_t slots, int reach,
                       PyObject *const *vf, PyObject *endf, PyObject *end_tyres, PyObject *const *offf,
                       PyObject *const *off_tyres, PyObject *const *damagef, PyObject *damages, PyObject *choices,
                       PyObject *tyres)
{
    Py_ssize_t at = q * slots;
    for (Py_ssize_t ti = 0; ti < nt; ti++) {
        for (int c = 0; c < 2; c++) {
            for (Py_ssize_t w = 0; w < nw; w++) {
                Py_ssize_t ci = (ti * 2 + c) * nw + w;
                PyObject *mine = vf[ci];
                for (Py_ssize_t g2 = 1; g2 <= maxgear; g2++) {
                    PyObject *best = at_(mine, at + g2), *choice = Py_None;
                    if (best == NULL)
                        return -1;
                    if (g2 <= 2 && reach && tyre_change(vf, nt, nw, ti, c, w, at, tyres, &best, &choice) < 0)
                        return -1;
                    PyObject *e = PyList_GET_ITEM(endf, g2), *et = PyList_GET_ITEM(end_tyres, g2);
                    PyObject *ec = at_(e, ci), *etc = at_(et, ci);
                    if (ec == NULL || etc == NULL || put(ec, q, best) < 0 || put(etc, q, choice) < 0)
                        return -1;
                }
                PyObject *off = offf[ci], *offt = off_tyres[ci];
                Py_ssize_t k = q * 8;
                for (Py_ssize_t halt = 0; halt <= 3; halt++) {
                    for (Py_ssize_t repaired = 0; repaired <= 1; repaired++, k++) {
                        Py_ssize_t slot = at + (halt == 0 ? 0 : maxgear + halt);
                        PyObject *best = at_(mine, slot), *choice = Py_None;
                        if (best == NULL)
                            return -1;
                        if (reach && halt + repaired <= 3) {
                            Py_ssize_t h2 = halt + repaired;
                            Py_ssize_t stop_slot = at + (h2 == 0 ? 0 : maxgear + h2);
                            if (tyre_change(vf, nt, nw, ti, c, w, stop_slot, tyres, &best, &choice) < 0)
                                return -1;
                        }
                        if (put(off, k, best) < 0 || put(offt, k, choice) < 0)
                            return -1;
                    }
                }
                PyObject *damage = damagef[ci];
                for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(damages); j++) {
                    PyObject *pair = PyTuple_GET_ITEM(damages, j);
                    Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
                    Py_ssize_t o = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1));
                    PyObject *v = at_(off, o);
                    if (v == NULL || put(damage, d, v) < 0)
                        return -1;
                }
                for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(choices); j++) {
                    PyObject *pair = PyTuple_GET_ITEM(choices, j);
                    Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
                    PyObject *os = PyTuple_GET_ITEM(pair, 1);
                    PyObject *least = NULL;
                    double lv = 0.0;
                    for (Py_ssize_t m = 0; m < PyTuple_GET_SIZE(os); m++) {
                        PyObject *v = at_(off, PyLong_AsSsize_t(PyTuple_GET_ITEM(os, m)));
                        double x;
                        if (v == NULL || as_double(v, &x) < 0)
                            return -1;
                        if (least == NULL || x < lv) { /* min(): the first of the least */
                            least = v;
                            lv = x;
                        }
                    }
                    if (least == NULL || put(damage, d, least) < 0) {
                        if (!PyErr_Occurred())
                            PyErr_SetString(PyExc_ValueError, "sweep: a damage with no OFF slot to choose");
                        return -1;
                    }
                }
            }
        }
    }
    return 0;
}

#define MAXG 16

/* sweep(length, nw, maxgear, nr, vf, endf, end_tyres, offf, off_tyres, damagef, gear, move,
 *       priced, tree_at, gear_options, mix, reach, damages, choices, tyres) -> None
 *
 * Solution._solve's backward sweep over positions length .. 0, filling the solution's lists
 * in place as the reference does: priced[ti * nw + w] the plans ((risk, risk index, gears,
 * trees by position, END pairs), ...); tree_at(p, ti, w, j) builds the tree of plan j where
 * its dict has none; gear_options[g * 2 + c] ((gear, card after), ...); mix[w] (wa, pa, wb,
 * pb); reach[q]; damages[q] ((slot, OFF slot), ...); choices[q] ((slot, (OFF slot, ...)),
 * ...); tyres the tyres in order. */
static PyObject *kernel_sweep(PyObject *self, PyObject *args)
{
    Py_ssize_t length, nw, maxgear, nr;
    PyObject *vf_l, *endf, *end_tyres, *offf_l, *off_tyres_l, *damagef_l, *gear_l, *move_l, *priced, *tree_at,
        *gear_options, *mix, *reach, *damages, *choices, *tyres;
    if (!PyArg_ParseTuple(args, "nnnnO!O!O!O!O!O!O!O!O!OO!O!O!O!O!O!", &length, &nw, &maxgear, &nr, &PyList_Type, &vf_l,
                          &PyList_Type, &endf, &PyList_Type, &end_tyres, &PyList_Type, &offf_l, &PyList_Type,
                          &off_tyres_l, &PyList_Type, &damagef_l, &PyList_Type, &gear_l, &PyList_Type, &move_l,
                          &PyList_Type, &priced, &tree_at, &PyTuple_Type, &gear_options, &PyTuple_Type, &mix,
                          &PyTuple_Type, &reach, &PyList_Type, &damages, &PyList_Type, &choices, &PyTuple_Type, &tyres))
        return NULL;
    (void)self;
    Py_ssize_t nt = PyTuple_GET_SIZE(tyres), contexts = nt * 2 * nw, slots = maxgear + 1 + 3;
    if (nw < 1 || maxgear < 1 || maxgear >= MAXG || PyList_GET_SIZE(vf_l) != contexts
        || PyList_GET_SIZE(offf_l) != contexts || PyList_GET_SIZE(off_tyres_l) != contexts
        || PyList_GET_SIZE(damagef_l) != contexts || PyList_GET_SIZE(gear_l) != contexts
        || PyList_GET_SIZE(move_l) != contexts || PyList_GET_SIZE(priced) != nt * nw
        || PyList_GET_SIZE(endf) != maxgear + 1 || PyList_GET_SIZE(end_tyres) != maxgear + 1
        || PyTuple_GET_SIZE(gear_options) != (maxgear + 1) * 2 || PyTuple_GET_SIZE(mix) != nw
        || PyTuple_GET_SIZE(reach) < length + 1 || PyList_GET_SIZE(damages) < length + 1
        || PyList_GET_SIZE(choices) < length + 1 || !PyCallable_Check(tree_at)) {
        PyErr_SetString(PyExc_ValueError, "sweep: tables of the wrong sizes");
        return NULL;
    }
    PyObject **vf = PySequence_Fast_ITEMS(vf_l), **offf = PySequence_Fast_ITEMS(offf_l),
             **off_tyres = PySequence_Fast_ITEMS(off_tyres_l), **damagef = PySequence_Fast_ITEMS(damagef_l),
             **gear = PySequence_Fast_ITEMS(gear_l), **move = PySequence_Fast_ITEMS(move_l);
    long *wa = malloc((size_t)nw * sizeof(long)), *wb = malloc((size_t)nw * sizeof(long));
    double *pa = malloc((size_t)nw * sizeof(double)), *pb = malloc((size_t)nw * sizeof(double));
    double *qbar = malloc((size_t)(maxgear + 1) * (size_t)contexts * sizeof(double)); /* [g2][ci] */
    double *u = malloc((size_t)nw * sizeof(double));
    PyObject *result = NULL;
    if (wa == NULL || wb == NULL || pa == NULL || pb == NULL || qbar == NULL || u == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int bad = 0;
    for (Py_ssize_t w = 0; w < nw; w++) {
        PyObject *m = PyTuple_GET_ITEM(mix, w);
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 4) {
            PyErr_SetString(PyExc_TypeError, "sweep: a weather mix is (wa, pa, wb, pb)");
            goto done;
        }
        wa[w] = as_long(PyTuple_GET_ITEM(m, 0), &bad);
        wb[w] = as_long(PyTuple_GET_ITEM(m, 2), &bad);
        if (bad || as_double(PyTuple_GET_ITEM(m, 1), &pa[w]) < 0 || as_double(PyTuple_GET_ITEM(m, 3), &pb[w]) < 0)
            goto done;
        if (wa[w] < 0 || wa[w] >= nw || wb[w] < 0 || wb[w] >= nw) {
            PyErr_SetString(PyExc_ValueError, "sweep: a weather mix names no sector");
            goto done;
        }
    }
    for (Py_ssize_t p = length; p >= 0; p--) {
        for (Py_ssize_t i = 0; i < (maxgear + 1) * contexts; i++)
            qbar[i] = 0.0;
        PyObject *pkey = PyLong_FromSsize_t(p);
        if (pkey == NULL)
            goto done;
        for (Py_ssize_t ti = 0; ti < nt; ti++) {
            for (Py_ssize_t w = 0; w < nw; w++) {
                Py_ssize_t c0 = ti * 2 * nw + w, c1 = (ti * 2 + 1) * nw + w;
                double total0[MAXG] = {0.0}, total1[MAXG] = {0.0};
                PyObject *plans = PyList_GET_ITEM(priced, ti * nw + w);
                if (!PyTuple_Check(plans)) {
                    Py_DECREF(pkey);
                    PyErr_SetString(PyExc_TypeError, "sweep: plans are a tuple");
                    goto done;
                }
                for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(plans); j++) {
                    PyObject *plan = PyTuple_GET_ITEM(plans, j);
                    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != 5 || !PyDict_Check(PyTuple_GET_ITEM(plan, 3))) {
                        Py_DECREF(pkey);
                        PyErr_SetString(PyExc_TypeError, "sweep: a plan is (risk, risk index, gears, trees, ends)");
                        goto done;
                    }
                    Py_ssize_t ri = PyLong_AsSsize_t(PyTuple_GET_ITEM(plan, 1));
                    PyObject *tree = PyDict_GetItemWithError(PyTuple_GET_ITEM(plan, 3), pkey); /* borrowed */
                    PyObject *owned = NULL;
                    if (tree == NULL) {
                        if (PyErr_Occurred()) {
                            Py_DECREF(pkey);
                            goto done;
                        }
                        owned = tree = PyObject_CallFunction(tree_at, "nnnn", p, ti, w, j);
                        if (tree == NULL) {
                            Py_DECREF(pkey);
                            goto done;
                        }
                    }
                    int r = price_tree(tree, PyTuple_GET_ITEM(plan, 2), PyTuple_GET_ITEM(plan, 4), ri, nr,
                                       p * (maxgear + 1), damagef[c0], damagef[c1], move[c0], move[c1], total0, total1,
                                       maxgear + 1);
                    Py_XDECREF(owned);
                    if (r < 0) {
                        Py_DECREF(pkey);
                        goto done;
                    }
                }
                for (Py_ssize_t g2 = 1; g2 <= maxgear; g2++) {
                    qbar[g2 * contexts + c0] = total0[g2];
                    qbar[g2 * contexts + c1] = total1[g2];
                }
            }
        }
        Py_DECREF(pkey);
        Py_ssize_t at = p * slots;
        for (Py_ssize_t ti = 0; ti < nt; ti++) {
            for (int c = 0; c < 2; c++) {
                Py_ssize_t base = (ti * 2 + c) * nw;
                for (Py_ssize_t g = 0; g <= maxgear; g++) {
                    PyObject *options = PyTuple_GET_ITEM(gear_options, g * 2 + c);
                    Py_ssize_t k = p * (maxgear + 1) + g;
                    for (Py_ssize_t w = 0; w < nw; w++) {
                        double best_v = Py_HUGE_VAL, bar = Py_HUGE_VAL;
                        long best_g = -1;
                        for (Py_ssize_t o = 0; o < PyTuple_GET_SIZE(options); o++) {
                            PyObject *opt = PyTuple_GET_ITEM(options, o);
                            long g2 = as_long(PyTuple_GET_ITEM(opt, 0), &bad);
                            long c2 = as_long(PyTuple_GET_ITEM(opt, 1), &bad);
                            if (bad || g2 < 1 || g2 > maxgear || c2 < 0 || c2 > 1) {
                                if (!PyErr_Occurred())
                                    PyErr_SetString(PyExc_ValueError, "sweep: a gear option out of range");
                                goto done;
                            }
                            double v = qbar[g2 * contexts + (ti * 2 + c2) * nw + w];
                            if (v < bar) {
                                best_v = v;
                                best_g = g2;
                                bar = v - TIE;
                            }
                        }
                        u[w] = best_v;
                        PyObject *bg = best_g < 0 ? Py_None : PyLong_FromLong(best_g);
                        if (bg == NULL)
                            goto done;
                        int r = put(gear[base + w], k, bg);
                        if (best_g >= 0)
                            Py_DECREF(bg);
                        if (r < 0)
                            goto done;
                    }
                    for (Py_ssize_t w = 0; w < nw; w++)
                        if (put_float(vf[base + w], at + g, 1.0 + (pa[w] * u[wa[w]] + pb[w] * u[wb[w]])) < 0)
                            goto done;
                }
                for (Py_ssize_t h = 1; h <= 3; h++) {
                    Py_ssize_t below = at + (h - 1 == 0 ? 0 : maxgear + h - 1), slot = at + maxgear + h;
                    for (Py_ssize_t w = 0; w < nw; w++) {
                        PyObject *xa = at_(vf[base + wa[w]], below), *xb = at_(vf[base + wb[w]], below);
                        double a, b;
                        if (xa == NULL || xb == NULL || as_double(xa, &a) < 0 || as_double(xb, &b) < 0)
                            goto done;
                        if (put_float(vf[base + w], slot, 1.0 + (pa[w] * a + pb[w] * b)) < 0)
                            goto done;
                    }
                }
            }
        }
        PyObject *dq = PyList_GET_ITEM(damages, p), *cq = PyList_GET_ITEM(choices, p);
        if (!PyTuple_Check(dq) || !PyTuple_Check(cq)) {
            PyErr_SetString(PyExc_TypeError, "sweep: the damages and choices of a position are tuples");
            goto done;
        }
        int r = PyObject_IsTrue(PyTuple_GET_ITEM(reach, p));
        if (r < 0 || post_values(p, nw, nt, maxgear, slots, r, vf, endf, end_tyres, offf, off_tyres, damagef, dq, cq,
                                 tyres) < 0)
            goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    free(wa);
    free(wb);
    free(pa);
    free(pb);
    free(qbar);
    free(u);
    return result;
}

static PyMethodDef kernel_methods[] = {
    {"check_tree", kernel_check_tree, METH_VARARGS,
     "check_tree(row, risk, start, last, finish, dists, outcomes, per_gear) -> (coded steps, leaves per gear): "
     "solve.Solution._build_tree's tree"},
    {"sweep", kernel_sweep, METH_VARARGS,
     "sweep(length, nw, maxgear, nr, vf, endf, end_tyres, offf, off_tyres, damagef, gear, move, priced, tree_at, "
     "gear_options, mix, reach, damages, choices, tyres): solve.Solution._solve's backward sweep"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The Rally Risk solver's compiled kernel (see sheetgen.games.rally_risk.accel).", -1,
    kernel_methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    str_spaces = PyUnicode_InternFromString("spaces");
    str_brakes = PyUnicode_InternFromString("brakes");
    if (str_spaces == NULL || str_brakes == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_SHA256", KERNEL_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
