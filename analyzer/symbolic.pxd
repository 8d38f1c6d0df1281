# C declarations for symbolic.py, read by Cython when setup.py compiles it (symbolic.py is the
# source either way). The recursive helpers called per expression node become C functions that
# call each other directly, without a Python call each.
import cython

cpdef tuple binop(str op, tuple a, tuple b)

@cython.locals(t=type)
cpdef Py_ssize_t ndim(object x) except -1

@cython.locals(t=str, v=Py_ssize_t)
cpdef Py_ssize_t size(tuple e) except -1

cpdef bint larger_than(tuple e, Py_ssize_t limit) except -1

@cython.locals(t=str, n=Py_ssize_t, i=Py_ssize_t)
cdef Py_ssize_t _count(tuple e, Py_ssize_t budget) except -1

@cython.locals(t=str)
cpdef frozenset symbols(tuple e)

@cython.locals(t=str)
cpdef bint has_load(tuple e) except -1

@cython.locals(t=str)
cpdef bint is_unknown(tuple e) except -1

@cython.locals(t=str)
cpdef bint evaluable(tuple e) except -1

@cython.locals(t=str)
cdef object _ev(tuple e, object env, dict memo)
