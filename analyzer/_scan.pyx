# cython: language_level=3, boundscheck=False, wraparound=False
"""Scans of C/CUDA text as C loops (compiled at install by setup.py; optional). Each has a
regular-expression twin in the module that uses it, which stays the reference (tests compare
the two) and what runs without a compiler.

- `register_words`: the static register estimate's word counts (resources.estimate_registers
  counted declarations, vector and double words with four regular expressions that may only match
  at the start of a word; each scan stopped at every letter that could begin one of its words --
  i, f, d, ... are everywhere in CUDA -- and they were ~3% of a reward call).
- `strip_comments`: comments blanked and string literals emptied (the reward's anti-hacking gates
  and name checks, analyzer.rules.names.strip_comments).

Word and space characters are `re`'s for str patterns: a word character is alphanumeric
(Unicode) or `_`; a space is what str.isspace() accepts.
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISSPACE


cdef extern from "Python.h":
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)


# the words looked for, and what each is: a declaration's type (_DECL, 1), a local array's element
# type (_LOCAL_ARRAY, 2), a vector type (_VECTOR, 4), `double` (_DOUBLE, 8)
cdef extern from *:
    """
    static const char* const SCAN_WORDS[13] = {"int", "unsigned", "float", "size_t", "long", "double", "half",
                                               "float2", "float4", "int4", "auto", "bool", "double2"};
    static const int SCAN_KINDS[13] = {1 | 2, 1, 1 | 2, 1, 1, 1 | 2 | 8, 1 | 2, 1, 1 | 4, 1 | 4, 1, 1, 4};
    """
    const char* const SCAN_WORDS[13]
    const int SCAN_KINDS[13]

cdef enum:
    DECL = 1
    ARRAY = 2
    VECTOR = 4
    DOUBLE = 8


cdef inline bint _word(Py_UCS4 c) noexcept:
    if c < 128:     # ASCII without Unicode's tables (four lookups for a character that is not a letter)
        return (u"a" <= c <= u"z") or (u"A" <= c <= u"Z") or (u"0" <= c <= u"9") or c == u"_"
    return Py_UNICODE_ISALNUM(c)


cdef int _kind(int kind, void* data, Py_ssize_t i, Py_ssize_t j) noexcept:
    """What text[i:j] is among the words looked for (0: none of them)."""
    cdef int w
    cdef Py_ssize_t k
    cdef const char* s
    if j - i < 3 or j - i > 8:
        return 0
    for w in range(13):
        s = SCAN_WORDS[w]
        k = 0
        while i + k < j and s[k] != 0 and PyUnicode_READ(kind, data, i + k) == <Py_UCS4>s[k]:
            k += 1
        if i + k == j and s[k] == 0:
            return SCAN_KINDS[w]
    return 0


cdef bint _array_name_at(int kind, void* data, Py_ssize_t k, Py_ssize_t n) noexcept:
    """Whether a name and then `[` (spaces between allowed) begin at k: _LOCAL_ARRAY's `\\w+\\s*\\[`."""
    if k >= n or not _word(PyUnicode_READ(kind, data, k)):
        return False
    while k < n and _word(PyUnicode_READ(kind, data, k)):
        k += 1
    while k < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, k)):
        k += 1
    return k < n and PyUnicode_READ(kind, data, k) == u"["


def register_words(str text):
    """(declarations, vector words, double words, local-array candidates) in `text`: the numbers of
    matches `resources._word_matches` gives for _DECL, _VECTOR and _DOUBLE, and the word starts where
    _LOCAL_ARRAY may match (a float/int/double/half word, spaces, a name and `[`), in order.

    A _DECL match (`int  x`) ends just after the next word's first letter, so that word cannot begin
    the next match: it is skipped here too."""
    cdef Py_ssize_t n = len(text), i = 0, j, k, skip = 0
    cdef Py_ssize_t decl = 0, vector = 0, double = 0
    cdef int kind = PyUnicode_KIND(text), what
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    candidates = []
    while i < n:
        if not _word(PyUnicode_READ(kind, data, i)):
            i += 1
            continue
        j = i + 1
        while j < n and _word(PyUnicode_READ(kind, data, j)):
            j += 1
        what = _kind(kind, data, i, j)
        if what:
            k = j
            while k < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, k)):
                k += 1
            if what & ARRAY and k > j and _array_name_at(kind, data, k, n):
                candidates.append(i)
            if what & DECL and i >= skip and k > j and k < n:
                c = PyUnicode_READ(kind, data, k)
                if c == u"_" or (u"a" <= c <= u"z") or (u"A" <= c <= u"Z"):
                    decl += 1
                    skip = k + 1
            if what & VECTOR:
                vector += 1
            if what & DOUBLE:
                double += 1
        i = j
    return decl, vector, double, candidates


cdef Py_ssize_t _comment_end(int kind, void* data, Py_ssize_t p, Py_ssize_t n) noexcept:
    """Where a comment or string literal starting at p ends (-1: none starts there), as
    `//[^\\n]*|/\\*.*?\\*/|"(?:\\\\.|[^"\\\\\\n])*"` (re.S) matches at p."""
    cdef Py_UCS4 c = PyUnicode_READ(kind, data, p), d
    cdef Py_ssize_t q
    if c == u"/" and p + 1 < n:
        d = PyUnicode_READ(kind, data, p + 1)
        if d == u"/":
            q = p + 2
            while q < n and PyUnicode_READ(kind, data, q) != u"\n":
                q += 1
            return q
        if d == u"*":
            q = p + 2
            while q + 1 < n:
                if PyUnicode_READ(kind, data, q) == u"*" and PyUnicode_READ(kind, data, q + 1) == u"/":
                    return q + 2
                q += 1
        return -1
    if c == u"\"":
        q = p + 1
        while q < n:
            d = PyUnicode_READ(kind, data, q)
            if d == u"\\":
                if q + 1 >= n:
                    return -1
                q += 2
            elif d == u"\"":
                return q + 1
            elif d == u"\n":
                return -1
            else:
                q += 1
    return -1


def strip_comments(str text):
    """`text` with each comment blanked to spaces of its length and each string literal made `""`:
    what analyzer.rules.names.strip_comments does with a regular expression (its reference)."""
    cdef Py_ssize_t n = len(text), p = 0, e, o = 0, q
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    cdef Py_UCS4* out
    if n == 0:
        return text
    out = <Py_UCS4*>PyMem_Malloc(n * sizeof(Py_UCS4))
    if out == NULL:
        raise MemoryError()
    try:
        while p < n:
            c = PyUnicode_READ(kind, data, p)
            e = _comment_end(kind, data, p, n) if c == u"/" or c == u"\"" else -1
            if e < 0:
                out[o] = c
                o += 1
                p += 1
            elif c == u"\"":
                out[o] = c
                out[o + 1] = c
                o += 2
                p = e
            else:
                for q in range(p, e):
                    out[o] = u" "
                    o += 1
                p = e
        return PyUnicode_FromKindAndData(4, out, o)
    finally:
        PyMem_Free(out)
