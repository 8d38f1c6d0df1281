# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The few-row tree walk of surrogate._Forest as one C loop (compiled at install by setup.py;
optional). The numpy walk in surrogate.py is the reference and what runs without a compiler:
it makes ~30 numpy calls on arrays of a thousand trees for one row, whose fixed cost (and the
passes over cold model data between two reward calls) is most of a prediction's time.

The arithmetic is the numpy walk's: float32 comparisons, and each output's float32 sum taken in
its order row's sequence, so the results are the same bits (and XGBoost's).
"""
from libc.math cimport INFINITY, copysign, isnan
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc


cdef class Walk:
    """One forest's arrays (surrogate._Forest's), held as typed views: a reward call passes only
    its row and output, as taking a view of each of eleven arrays per call cost more than the walk."""

    cdef const uint8_t[:] feat
    cdef const float[:] thr
    cdef const int64_t[:] rowbase
    cdef const int64_t[:] child_base
    cdef const float[:] leaf
    cdef const int64_t[:] leafshift
    cdef int depth
    cdef const int64_t[:, :] order
    cdef const float[:] bases

    def __init__(self, const uint8_t[:] feat, const float[:] thr, const int64_t[:] rowbase,
                 const int64_t[:] child_base, const float[:] leaf, const int64_t[:] leafshift, int depth,
                 const int64_t[:, :] order, const float[:] bases):
        if bases.shape[0] < order.shape[0]:
            raise ValueError("fewer base scores than outputs")
        self.feat, self.thr, self.rowbase, self.child_base = feat, thr, rowbase, child_base
        self.leaf, self.leafshift, self.depth, self.order, self.bases = leaf, leafshift, depth, order, bases

    def __call__(self, const float[:, :] X, float[:, :] out):
        """out[r, o]: output o of row r of X."""
        cdef Py_ssize_t rows = X.shape[0], nf = X.shape[1], trees = self.rowbase.shape[0]
        cdef Py_ssize_t outputs = self.order.shape[0], width = self.order.shape[1]
        cdef Py_ssize_t r, k, t, o, j
        cdef int64_t f
        cdef int d, depth = self.depth
        cdef float x, s
        cdef float* row
        cdef float* seq
        cdef const uint8_t[:] feat = self.feat
        cdef const float[:] thr = self.thr
        cdef const int64_t[:] rowbase = self.rowbase
        cdef const int64_t[:] child_base = self.child_base
        cdef const float[:] leaf = self.leaf
        cdef const int64_t[:] leafshift = self.leafshift
        cdef const int64_t[:, :] order = self.order
        cdef const float[:] bases = self.bases
        if out.shape[0] < rows or out.shape[1] < outputs:
            raise ValueError("output array too small")
        row = <float*>malloc((2 * nf + trees + outputs + 1) * sizeof(float))
        if row == NULL:
            raise MemoryError()
        seq = row + 2 * nf     # trees' leaf values, then the base scores, then the pad
        try:
            with nogil:
                for r in range(rows):
                    # a missing value goes to each split's default side: columns nf.. hold it as -inf
                    # (default left), columns ..nf as +inf (default right); `feat` picks the column
                    for k in range(nf):
                        x = X[r, k]
                        if isnan(x):
                            row[k] = INFINITY
                            row[nf + k] = -INFINITY
                        else:
                            row[k] = x
                            row[nf + k] = x
                    for t in range(trees):
                        f = rowbase[t]
                        for d in range(depth):
                            # not (x < split): right
                            f = 2 * f + child_base[t] + (1 if row[feat[f]] >= thr[f] else 0)
                        seq[t] = leaf[f + leafshift[t]]
                    for o in range(outputs):
                        seq[trees + o] = bases[o]
                    seq[trees + outputs] = copysign(0.0, -1.0)   # the pad: -0.0 + x is x for every x
                    for o in range(outputs):
                        s = seq[order[o, 0]]
                        for j in range(1, width):
                            s = s + seq[order[o, j]]
                        out[r, o] = s
        finally:
            free(row)
