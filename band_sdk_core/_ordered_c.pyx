# cython: language_level=3
"""Compiled insertion-ordered map: the OrderedDict subset the bounded registries use.

The pure twins use ``collections.OrderedDict``; the compiled twins use this class
(typed, so every call is a C call) for the same operations with the same order:
FIFO eviction by ``popitem(False)`` and LRU refresh by ``move_to_end`` in O(1) at
any size and history. A dict maps each key to its node in a Chain (the doubly linked
list of _linked_py, compiled as _linked_c). The one hand-written Cython source of the
package: the pure twins have no counterpart to compile (they use OrderedDict itself).
"""

cimport cython

__all__ = ["OrderedMap"]

# One non-str key kept in every index (never reported): CPython then stores each entry's
# hash in the table, so probes compare hashes instead of reading other keys' objects.
cdef object _GENERAL = object()


@cython.final
cdef class _Node(Link):
    """One entry: key and value (its neighbours in insertion order are the Link's)."""


@cython.final
@cython.no_gc_clear  # the Chain's __dealloc__ breaks the links; the collector must not clear first
cdef class OrderedMap(Chain):
    """A dict whose order is insertion order, with O(1) oldest-pop and move-to-end."""

    def __cinit__(self):
        self._index = {_GENERAL: None}

    def __len__(self):
        return len(self._index) - 1

    def __contains__(self, key):
        return key in self._index

    def __iter__(self):
        return iter(self.keys_list())

    def __getitem__(self, key):
        return (<_Node>self._index[key]).value

    def __setitem__(self, key, value):
        cdef object found = self._index.get(key)
        cdef _Node node
        if found is not None:
            (<_Node>found).value = value
            return
        node = _Node.__new__(_Node)
        node.key = key
        node.value = value
        self._index[key] = node
        self.append(node)

    def __delitem__(self, key):
        self.unlink(<_Node>self._index.pop(key))

    cpdef object get(self, object key, object default=None):
        """The value of ``key``, or ``default``."""
        cdef object found = self._index.get(key)
        if found is None:
            return default
        return (<_Node>found).value

    cpdef object pop(self, object key, object default):
        """Remove ``key`` and return its value, or ``default`` when absent."""
        cdef object found = self._index.pop(key, None)
        if found is None:
            return default
        self.unlink(<_Node>found)
        return (<_Node>found).value

    cpdef tuple popitem(self, bint last=True):
        """Remove and return the newest (``last``) or oldest ``(key, value)``."""
        cdef _Node node = <_Node>(self.last if last else self.first)
        if node is None:
            raise KeyError("dictionary is empty")
        del self._index[node.key]
        self.unlink(node)
        return (node.key, node.value)

    cpdef move_to_end(self, object key):
        """Move ``key`` to the back (KeyError when absent)."""
        cdef _Node node = <_Node>self._index[key]
        if node is not self.last:
            self.unlink(node)
            self.append(node)

    cpdef push(self, object key, Py_ssize_t bound):
        """Move ``key`` to the back, or add it there and drop the oldest beyond ``bound``."""
        cdef object found = self._index.get(key)
        cdef _Node node
        if found is not None:
            node = <_Node>found
            if node is not self.last:
                self.unlink(node)
                self.append(node)
            return
        if len(self._index) > bound and self.first is not None:
            # full: the oldest entry's node carries the new key (no allocation, no free)
            node = <_Node>self.first
            del self._index[node.key]
            self.unlink(node)
        else:
            node = _Node.__new__(_Node)
        node.key = key
        node.value = None
        self._index[key] = node
        self.append(node)

    cpdef bint refresh(self, object key) except -1:
        """Move ``key`` to the back if present; return whether it was."""
        cdef object found = self._index.get(key)
        cdef _Node node
        if found is None:
            return False
        node = <_Node>found
        if node is not self.last:
            self.unlink(node)
            self.append(node)
        return True

    cpdef clear(self):
        """Remove every entry."""
        self.release()
        self._index.clear()
        self._index[_GENERAL] = None

    cpdef list keys_list(self):
        """The keys, oldest first."""
        cdef list keys = []
        cdef Link link = self.first
        while link is not None:
            keys.append((<_Node>link).key)
            link = link.next
        return keys
