# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The lane models' per-warp counts as C loops (compiled at install by setup.py; optional).

`models.global_sectors` and `models.shared_wavefronts` count, for each warp of a batch, the
sectors or wavefronts its active lanes touch. With numpy each count is ~15 calls on arrays of a
few hundred lanes, and those calls' fixed cost is most of the time; here it is one pass per
warp. The numpy versions in models.py stay the reference (tests compare the two) and what runs
without a compiler.

Inputs are whole warps: `addr` (int64) and `active` (bool viewed as uint8) of length 32 * warps;
the three outputs (float64, one per warp) are filled in place.
"""
from libc.math cimport ceil
from libc.stdint cimport int64_t, uint8_t


cdef int _distinct(int64_t* v, int n) noexcept nogil:
    """The number of distinct values among v[:n] (n is at most 64), which it leaves in v[:count],
    sorted."""
    cdef int i, j, d, rest
    cdef int64_t x
    if n == 0:
        return 0
    # Most warps' lanes come in ascending order (coalesced and strided accesses, broadcasts):
    # drop repeats in one pass while the order holds, and sort only what follows a step down.
    d = 1
    for i in range(1, n):
        x = v[i]
        if x > v[d - 1]:
            v[d] = x
            d += 1
        elif x < v[d - 1]:
            break
    else:
        return d
    # v[:d] is sorted and distinct; v[i:n] is not looked at yet: move it up, then sort it all
    rest = n - i
    for j in range(rest):
        v[d + j] = v[i + j]
    n = d + rest
    for i in range(d, n):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x
    d = 1
    for i in range(1, n):
        if v[i] != v[d - 1]:
            v[d] = v[i]
            d += 1
    return d


def global_sectors(const int64_t[:] addr, const uint8_t[:] active, int64_t size,
                   double[:] requests, double[:] sectors, double[:] ideal):
    """Per warp: a request if any lane is active, the 32-byte sectors the active lanes' elements
    cover, and the sectors their distinct elements need at least. Elements of at most 32 bytes
    (a wider one goes to the numpy version)."""
    cdef Py_ssize_t warps = addr.shape[0] // 32, w, l, base
    cdef int64_t elems[32]
    cdef int64_t secs[64]
    cdef int64_t a, first, last
    cdef int n, ns
    if size < 1 or size > 32:
        raise ValueError(f"element size {size} outside 1..32")
    with nogil:
        for w in range(warps):
            base = w * 32
            n = 0
            ns = 0
            for l in range(32):
                if active[base + l]:
                    a = addr[base + l]
                    elems[n] = a
                    n += 1
                    # floor division by 32 (Python's and numpy's, addresses may be negative) as an
                    # arithmetic shift: Cython's `//` on C integers checks the sign after dividing
                    first = a >> 5
                    last = (a + size - 1) >> 5
                    secs[ns] = first
                    ns += 1
                    if last != first:       # at most one more: the element is no wider than a sector
                        secs[ns] = last
                        ns += 1
            if n == 0:
                requests[w] = 0.0
                sectors[w] = 0.0
                ideal[w] = 0.0
                continue
            requests[w] = 1.0
            sectors[w] = _distinct(secs, ns)
            ideal[w] = ceil(<double>(_distinct(elems, n) * size) / 32.0)


cdef int _bank_max(int64_t* words, int n) noexcept nogil:
    """The most words among words[:n] (distinct) that fall in one of the 32 banks."""
    cdef int counts[32]
    cdef int b, i, most = 0
    for b in range(32):
        counts[b] = 0
    for i in range(n):
        b = <int>(words[i] & 31)
        counts[b] += 1
        if counts[b] > most:
            most = counts[b]
    return most


cdef int _lane_words(const int64_t[:] addr, const uint8_t[:] active, Py_ssize_t start, Py_ssize_t stop,
                     int64_t size, int64_t* words) noexcept nogil:
    """The distinct words (4 bytes) that lanes start..stop-1 touch where active, into words (at
    most 64); their count. Elements of 4 bytes or more at multiples of their size coincide or do
    not overlap: their distinct addresses are found first (few, in a broadcast), then spelled out."""
    cdef Py_ssize_t l
    cdef int n = 0, d, i, j, per_lane = 1 if size <= 4 else <int>(size // 4)
    cdef bint aligned = size >= 4
    cdef int64_t lane_addr[32]
    cdef int64_t word0
    for l in range(start, stop):
        if active[l]:
            lane_addr[n] = addr[l]
            if addr[l] & (size - 1):
                aligned = False
            n += 1
    if n == 0:
        return 0
    if aligned:
        d = _distinct(lane_addr, n)
        for i in range(d):
            word0 = lane_addr[i] >> 2
            for j in range(per_lane):
                words[i * per_lane + j] = word0 + j
        return d * per_lane
    n = 0
    for l in range(start, stop):
        if active[l]:
            word0 = addr[l] >> 2    # floor division by 4, as above
            for j in range(per_lane):
                words[n] = word0 + j
                n += 1
    return _distinct(words, n)


def shared_wavefronts(const int64_t[:] addr, const uint8_t[:] active, int64_t size,
                      double[:] requests, double[:] wavefronts, double[:] ideal):
    """Per warp: a request if any lane is active, the wavefronts and the conflict-free count.
    Accesses of 1, 2, 4, 8 or 16 bytes. Up to 4 bytes: one phase of 32 lanes, as many wavefronts
    as the most distinct words in one bank. 8 and 16 bytes run in phases of 128 bytes (16 or 8
    lanes), each counted the same, conflict-free once; but the phases of a unit (the warp for 8
    bytes, each half-warp for 16) go in one pass, conflict-free once, where the distinct bytes of
    its groups of 8 lanes add up to at most 128 (a broadcast, a few chunks). Measured on the H200
    (corpus bank_sweep `wide` kernels and register-tiled matmuls' LDS.128)."""
    cdef Py_ssize_t warps = addr.shape[0] // 32, w, base, u0
    cdef int64_t words[64]
    cdef int lanes, unit, p, n, total, busy, spread, g, u
    cdef bint any_active
    if size not in (1, 2, 4, 8, 16):
        raise ValueError(f"access size {size} is not 1, 2, 4, 8 or 16 bytes")
    lanes = 32 if size <= 4 else <int>(128 // size)
    unit = 32 if size <= 8 else 16          # lanes whose phases may go in one pass
    with nogil:
        for w in range(warps):
            base = w * 32
            total = 0
            busy = 0
            any_active = False
            for u in range(32 // unit):
                u0 = base + u * unit
                if lanes < unit:
                    spread = 0      # the distinct bytes of each group of 8 lanes, added up
                    for g in range(unit // 8):
                        spread += _lane_words(addr, active, u0 + g * 8, u0 + g * 8 + 8, size, words) * 4
                        if spread > 128:
                            break
                    if spread == 0:
                        continue
                    if spread <= 128:
                        n = _lane_words(addr, active, u0, u0 + unit, size, words)
                        any_active = True
                        total += _bank_max(words, n)
                        busy += 1
                        continue
                for p in range(unit // lanes):
                    n = _lane_words(addr, active, u0 + p * lanes, u0 + (p + 1) * lanes, size, words)
                    if n == 0:
                        continue
                    any_active = True
                    total += _bank_max(words, n)
                    busy += 1
            requests[w] = 1.0 if any_active else 0.0
            wavefronts[w] = total
            ideal[w] = busy


def split_warp(const uint8_t[:, :] values, const uint8_t[:, :] active):
    """Whether some warp has an active lane where `values` holds and another where it does not
    (`models.is_divergent`'s test). active: (points, threads), threads a whole number of warps;
    values: the same shape, or one row that every point shares. The numpy version in
    models.is_divergent is the reference (~9 calls on whole arrays)."""
    cdef Py_ssize_t points = active.shape[0], threads = active.shape[1], p, l, r, start
    cdef bint saw_true, saw_false, split = False
    if threads % 32 or values.shape[1] != threads or values.shape[0] not in (1, points):
        raise ValueError(f"values {values.shape[0]}x{values.shape[1]} do not match the lanes {points}x{threads}")
    with nogil:
        for p in range(points):
            r = p if values.shape[0] > 1 else 0
            for start in range(0, threads, 32):
                saw_true = False
                saw_false = False
                for l in range(start, start + 32):
                    if active[p, l]:
                        if values[r, l]:
                            saw_true = True
                        else:
                            saw_false = True
                if saw_true and saw_false:
                    split = True
                    break
            if split:
                break
    return split
