# Declarations of the compiled str-keyed table (cimported by _retry_c and _ordered_c).
cimport cython


cdef struct _Bucket:
    Py_hash_t hash
    void *key  # an owned exact str, or NULL for an empty bucket
    void *value  # an owned object (set exactly when key is)


@cython.final
cdef class StrMap:
    cdef _Bucket *_table
    cdef unsigned char *_tags  # per bucket: 0 when empty, else 0x80 | the hash's top 7 bits
    cdef size_t _mask  # the bucket count (a power of two) minus one
    cdef Py_ssize_t _used

    cdef Py_ssize_t _find(self, object key, Py_hash_t hash) noexcept
    cdef int _resize(self, size_t buckets) except -1
    cdef void _drop(self, size_t index) noexcept
    cdef void prefetch(self, Py_hash_t hash) noexcept
    cpdef object get(self, object key)
    cpdef object setdefault(self, object key, object value)
    cpdef object pop(self, object key)
    cdef object pop_known(self, object key, Py_hash_t hash)
    cpdef clear(self)
