/* The Rally Risk solver's compiled kernel, for sheetgen.games.rally_risk.accel: the two
 * interpreter-bound parts of the backward sweep (sheetgen/games/rally_risk/solve.py).
 *
 * - `check_tree`: a position's check tree (`Solution._build_tree`, over the engine's
 *   `rules.check_tree` with float probabilities), from the course's factors and the Damages
 *   Table, coded as the sweep reads it.
 * - `price`: the pricing of one tree for both card states (`Solution._solve`'s "_sums, for
 *   both" and "_pick, for both"): the expected cost gathered along every step, then the best
 *   leaf of each gear, first of ties.
 *
 * It is the reference's arithmetic, not an approximation of it: the same float operations in
 * the same order (build with -O2 -ffp-contract=off, never -ffast-math): the chance of getting
 * through a check is the sum of the table's "no damage" probabilities, lightest first, from
 * 0; a damage's probability and the chance of going on are the chance of getting there times
 * the table's probability. Steps are numbered in the order the moves first make their checks,
 * leaves keep the first move of each (step, probability, end): the reference's tuples, equal
 * with `==`; a pricing adds the same terms in the same order and breaks ties by the same
 * TIE (tests/test_rally_risk_kernel.py).
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
            PyObject *spaces_obj = PyObject_GetAttrString(move, "spaces");
            if (spaces_obj == NULL)
                goto done;
            long spaces = as_long(spaces_obj, &bad);
            Py_DECREF(spaces_obj);
            PyObject *brakes = PyObject_GetAttrString(move, "brakes");
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
            PyObject *leaf = Py_BuildValue("(ldll)", leaf_step[j], leaf_p[j], leaf_q[j], leaf_i[j]);
            if (leaf == NULL)
                goto done;
            PyTuple_SET_ITEM(mine, j, leaf);
        }
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
        PyObject *entry = Py_BuildValue("(lNN)", st->parent, probs, slots);
        if (entry == NULL)
            goto done;
        PyTuple_SET_ITEM(coded, s - 1, entry);
    }
    result = PyTuple_Pack(2, coded, leaves);
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

/* Adds x to the float at list[i] (a new float in its place), as `list[i] += x` does. */
static int add_to(PyObject *list, Py_ssize_t i, double x)
{
    int bad = 0;
    double v = item(list, i, &bad);
    if (bad) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_IndexError, "price: a gear past the totals");
        return -1;
    }
    PyObject *f = PyFloat_FromDouble(v + x);
    if (f == NULL)
        return -1;
    return PyList_SetItem(list, i, f); /* takes f, lets the old float go */
}

/* price(tree, gears, ends, ri, nr, base, d0, d1, m0, m1, total0, total1) -> None
 *
 * One tree of the sweep priced for both card states, as Solution._solve's reference loop
 * does it: tree = (steps, leaves, moves per gear), steps ((parent, (probability, ...),
 * (damage slot, ...)), ...), leaves per gear ((step, probability, q, move index), ...);
 * gears ((gear, probability of this risk), ...); ends per gear (END list of card state 0,
 * of card state 1); d0, d1 the values after each damage slot. For each gear the best move
 * (first of ties) goes to m0[k], m1[k] with k = (base + gear) * nr + ri, and probability *
 * its value is added to total0[gear], total1[gear]. */
static PyObject *kernel_price(PyObject *self, PyObject *args)
{
    PyObject *tree, *gears, *ends, *d0, *d1, *m0, *m1, *total0, *total1;
    Py_ssize_t ri, nr, base;
    if (!PyArg_ParseTuple(args, "O!O!O!nnnO!O!O!O!O!O!", &PyTuple_Type, &tree, &PyTuple_Type, &gears, &PyTuple_Type,
                          &ends, &ri, &nr, &base, &PyList_Type, &d0, &PyList_Type, &d1, &PyList_Type, &m0,
                          &PyList_Type, &m1, &PyList_Type, &total0, &PyList_Type, &total1))
        return NULL;
    (void)self;
    if (PyTuple_GET_SIZE(tree) != 3 || !PyTuple_Check(PyTuple_GET_ITEM(tree, 0))
        || !PyTuple_Check(PyTuple_GET_ITEM(tree, 1)) || !PyTuple_Check(PyTuple_GET_ITEM(tree, 2))) {
        PyErr_SetString(PyExc_TypeError, "price: a tree is (steps, leaves, moves)");
        return NULL;
    }
    PyObject *steps = PyTuple_GET_ITEM(tree, 0), *leaves = PyTuple_GET_ITEM(tree, 1),
             *gear_moves = PyTuple_GET_ITEM(tree, 2);
    Py_ssize_t nsteps = PyTuple_GET_SIZE(steps) + 1, ngears = PyTuple_GET_SIZE(gears);
    if (PyTuple_GET_SIZE(ends) != ngears || PyTuple_GET_SIZE(leaves) != ngears || PyTuple_GET_SIZE(gear_moves) != ngears) {
        PyErr_SetString(PyExc_ValueError, "price: one leaf list, move list and END pair per gear");
        return NULL;
    }
    if (grow((void **)&sums0, &cap_sums0, nsteps, sizeof(double)) < 0
        || grow((void **)&sums1, &cap_sums1, nsteps, sizeof(double)) < 0)
        return NULL;
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
            PyErr_SetString(PyExc_ValueError, "price: a step out of the tree or a slot out of the values");
        return NULL;
    }
    for (Py_ssize_t g = 0; g < ngears; g++) {
        PyObject *mine = PyTuple_GET_ITEM(leaves, g), *pair = PyTuple_GET_ITEM(ends, g);
        PyObject *moves = PyTuple_GET_ITEM(gear_moves, g), *gp = PyTuple_GET_ITEM(gears, g);
        if (!PyTuple_Check(mine) || !PyTuple_Check(moves) || !PyTuple_Check(gp) || PyTuple_GET_SIZE(gp) != 2
            || !PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyList_Check(PyTuple_GET_ITEM(pair, 0))
            || !PyList_Check(PyTuple_GET_ITEM(pair, 1))) {
            PyErr_SetString(PyExc_TypeError, "price: bad gears, leaves, moves or END lists");
            return NULL;
        }
        Py_ssize_t gear = PyLong_AsSsize_t(PyTuple_GET_ITEM(gp, 0));
        double pr = PyFloat_AsDouble(PyTuple_GET_ITEM(gp, 1));
        if (PyErr_Occurred())
            return NULL;
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
                PyErr_SetString(PyExc_ValueError, "price: a leaf out of the tree, the END list or the moves");
            return NULL;
        }
        PyObject *move0 = PyTuple_GET_ITEM(moves, i0), *move1 = PyTuple_GET_ITEM(moves, i1);
        Py_INCREF(move0);
        if (PyList_SetItem(m0, k, move0) < 0)
            return NULL;
        Py_INCREF(move1);
        if (PyList_SetItem(m1, k, move1) < 0)
            return NULL;
        if (add_to(total0, gear, pr * best0) < 0 || add_to(total1, gear, pr * best1) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef kernel_methods[] = {
    {"check_tree", kernel_check_tree, METH_VARARGS,
     "check_tree(row, risk, start, last, finish, dists, outcomes, per_gear) -> (coded steps, leaves per gear): "
     "solve.Solution._build_tree's tree"},
    {"price", kernel_price, METH_VARARGS,
     "price(tree, gears, ends, ri, nr, base, d0, d1, m0, m1, total0, total1): solve.Solution._solve's pricing of a tree"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The Rally Risk solver's compiled kernel (see sheetgen.games.rally_risk.accel).", -1,
    kernel_methods,
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
