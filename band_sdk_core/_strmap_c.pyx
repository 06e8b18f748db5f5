# cython: language_level=3
"""Compiled-only: a str-keyed hash table, the dict subset the compiled registries use.

It has no pure twin: the pure twins index ids with a dict (``_retry_py._Index`` adds the two
hash-taking calls as dict's own); the compiled twins use this class (typed, so every call is
a C call) for ``get``, ``setdefault`` and ``pop`` with dict's results. It exists because a
registry that churns (every new id evicts the oldest) spends most of a call in dict:
deleting leaves a dummy that lengthens later probes until a resize rebuilds the table.
Here each bucket holds the key's hash, key and value side by side, probing is linear and
a removal shifts the following buckets back (no dummies, no rebuilds). The load stays at
most one half, which keeps runs short: a removal's shift reads few buckets. A byte per
bucket, in its own array, holds 7 bits of the hash: a probe for an absent id (most
lookups of a registry that churns) reads only those bytes, which stay in the CPU cache
at 100,000 ids where the buckets do not.

Keys are exact ``str`` (the callers convert a subclass with ``str.__str__``): hashing and
comparing them runs no Python code, so a probe cannot be re-entered. Values are owned
references; the table is not visited by the collector, so they must not refer back to
an object holding the table (the registries' entries never do).
"""

cimport cython
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF

__all__ = ["StrMap"]

cdef extern from "Python.h":
    # compares the two strings' characters: no Python code runs, and it cannot fail on str
    int PyUnicode_Compare(object left, object right) noexcept

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define BAND_PREFETCH(address) __builtin_prefetch(address)
    #else
    #define BAND_PREFETCH(address) ((void)0)
    #endif
    """
    # a hint to load an address's cache line now (GCC and Clang; nothing elsewhere)
    void BAND_PREFETCH(const void *address) noexcept

cdef size_t _MIN_BUCKETS = 8
# the tag of a full bucket: its hash's top 7 bits with the high bit set (0 marks an empty one)
cdef int _TAG_SHIFT = sizeof(size_t) * 8 - 7


cdef inline unsigned char _tag(Py_hash_t hash) noexcept:
    return <unsigned char>(0x80 | (<size_t>hash >> _TAG_SHIFT))
cdef str _NOT_STR = "StrMap keys are exact str, not '{}'"


cdef inline Py_hash_t _hash(object key) except -1:
    """The hash of an exact str key (TypeError for anything else)."""
    if type(key) is not str:
        raise TypeError(_NOT_STR.format(type(key).__name__))
    return hash(key)


@cython.final
cdef class StrMap:
    """A str -> object hash table with dict's ``get``, ``setdefault`` and ``pop(key, None)``."""

    def __cinit__(self):
        self._table = <_Bucket *>PyMem_Calloc(_MIN_BUCKETS, sizeof(_Bucket))
        self._tags = <unsigned char *>PyMem_Calloc(_MIN_BUCKETS, 1)
        if self._table is NULL or self._tags is NULL:
            raise MemoryError()
        self._mask = _MIN_BUCKETS - 1
        self._used = 0

    def __dealloc__(self):
        cdef size_t i
        if self._table is not NULL and self._tags is not NULL:
            for i in range(self._mask + 1):
                if self._tags[i] != 0:
                    self._drop(i)
        PyMem_Free(self._table)
        PyMem_Free(self._tags)
        self._table = NULL
        self._tags = NULL

    def __len__(self):
        return self._used

    def __contains__(self, key):
        return self._find(key, _hash(key)) >= 0

    cdef Py_ssize_t _find(self, object key, Py_hash_t hash) noexcept:
        """The index of the bucket holding ``key``, or -1 - the empty one ending its probe."""
        cdef size_t mask = self._mask
        cdef size_t i = <size_t>hash & mask
        cdef unsigned char tag = _tag(hash)
        cdef unsigned char *tags = self._tags
        cdef _Bucket *bucket
        while True:
            if tags[i] == 0:
                return -1 - <Py_ssize_t>i
            if tags[i] == tag:  # 1 in 128 other ids gets this far
                bucket = &self._table[i]
                if bucket.key == <void *>key or (
                    bucket.hash == hash and PyUnicode_Compare(<object>bucket.key, key) == 0
                ):
                    return <Py_ssize_t>i
            i = (i + 1) & mask

    cdef int _resize(self, size_t buckets) except -1:
        """Move every entry into a new table of ``buckets`` buckets (a power of two)."""
        cdef _Bucket *old = self._table
        cdef unsigned char *old_tags = self._tags
        cdef size_t old_count = self._mask + 1
        cdef _Bucket *table = <_Bucket *>PyMem_Calloc(buckets, sizeof(_Bucket))
        cdef unsigned char *tags = <unsigned char *>PyMem_Calloc(buckets, 1)
        cdef size_t i, j, mask = buckets - 1
        if table is NULL or tags is NULL:
            PyMem_Free(table)
            PyMem_Free(tags)
            raise MemoryError()
        for i in range(old_count):
            if old_tags[i] != 0:
                j = <size_t>old[i].hash & mask
                while tags[j] != 0:
                    j = (j + 1) & mask
                table[j] = old[i]  # the references move with the bucket
                tags[j] = old_tags[i]
        self._table = table
        self._tags = tags
        self._mask = mask
        PyMem_Free(old)
        PyMem_Free(old_tags)
        return 0

    cdef void _drop(self, size_t index) noexcept:
        """Release a full bucket's references and mark it empty (no shifting)."""
        cdef _Bucket *bucket = &self._table[index]
        cdef void *key = bucket.key
        cdef void *value = bucket.value
        bucket.key = bucket.value = NULL
        self._tags[index] = 0
        Py_XDECREF(<PyObject *>key)
        Py_XDECREF(<PyObject *>value)

    cdef void prefetch(self, Py_hash_t hash) noexcept:
        """Start loading the tag and bucket where a key of ``hash`` is probed first."""
        # a registry that evicts its oldest id next call prefetches that id's bucket now:
        # at 100,000 ids the bucket is otherwise a cache miss in the middle of the call
        cdef size_t i = <size_t>hash & self._mask
        BAND_PREFETCH(&self._tags[i])
        BAND_PREFETCH(&self._table[i])

    cpdef object get(self, object key):
        """The value of ``key``, or None."""
        cdef Py_ssize_t index = self._find(key, _hash(key))
        if index < 0:
            return None
        return <object>self._table[index].value

    cpdef object setdefault(self, object key, object value):
        """The value of ``key``; when absent, store ``value`` and return it."""
        cdef Py_hash_t hash = _hash(key)
        cdef Py_ssize_t index = self._find(key, hash)
        cdef _Bucket *bucket
        if index >= 0:
            return <object>self._table[index].value
        if <size_t>(self._used + 1) * 2 > self._mask + 1:  # keep the load at most one half
            self._resize((self._mask + 1) * 2)
            index = self._find(key, hash)
        index = -1 - index
        Py_INCREF(key)
        Py_INCREF(value)
        bucket = &self._table[index]
        bucket.hash = hash
        bucket.key = <void *>key
        bucket.value = <void *>value
        self._tags[index] = _tag(hash)
        self._used += 1
        return value

    cpdef object pop(self, object key):
        """Remove ``key`` and return its value, or None when absent (dict's ``pop(key, None)``)."""
        return self.pop_known(key, _hash(key))

    cdef object pop_known(self, object key, Py_hash_t hash):
        """``pop`` of an exact str whose hash the caller kept (its object is not read)."""
        cdef _Bucket *table = self._table
        cdef unsigned char *tags = self._tags
        cdef Py_ssize_t index = self._find(key, hash)
        cdef size_t mask = self._mask
        cdef size_t hole, j, home
        if index < 0:
            return None
        value = <object>table[index].value  # a new reference, kept past the drop
        self._drop(<size_t>index)
        self._used -= 1
        # backward shift: pull each later bucket of the run whose home is not in (hole, j]
        hole = <size_t>index
        j = hole
        while True:
            j = (j + 1) & mask
            if tags[j] == 0:
                break
            home = <size_t>table[j].hash & mask
            if (j - home) & mask >= (j - hole) & mask:  # its home is at or before the hole
                table[hole] = table[j]
                tags[hole] = tags[j]
                table[j].key = table[j].value = NULL
                tags[j] = 0
                hole = j
        if self._used * 8 < <Py_ssize_t>(mask + 1) and mask + 1 > _MIN_BUCKETS:
            try:  # shrinking is optional: without memory for it, the larger table stays
                self._resize((mask + 1) // 2)
            except MemoryError:
                pass
        return value

    cpdef clear(self):
        """Remove every entry."""
        cdef size_t i
        for i in range(self._mask + 1):
            if self._tags[i] != 0:
                self._drop(i)
        self._used = 0
        if self._mask + 1 > _MIN_BUCKETS:
            self._resize(_MIN_BUCKETS)

    def keys_list(self):
        """The keys, in table order (for tests and debugging)."""
        cdef size_t i
        return [<object>self._table[i].key for i in range(self._mask + 1)
                if self._table[i].key is not NULL]
