# cython: language_level=3
"""Compiled-only: an insertion-ordered map, the OrderedDict subset the bounded registries use.

It has no pure twin: the pure twins use ``collections.OrderedDict``; the compiled twins
use this class (typed, so every call is a C call) for the same operations in the same order:
FIFO eviction by ``popitem(False)`` and LRU refresh by ``move_to_end`` in O(1) at
any size and history. A StrMap (_strmap_c) maps each key to its node in a Chain (the
doubly linked list of _linked_py, compiled as _linked_c); a node keeps its key's hash,
so evicting the oldest reads neither its key's str object nor a dict's dummies. Keys
are str, kept as exact str (a subclass is converted, as the reference reads only the
characters); values must not refer back to the map (the table is not traversed by the
collector; the registries store None). Hand-written Cython: the pure twins have no
counterpart to compile (they use OrderedDict itself).
"""

cimport cython

__all__ = ["OrderedMap"]


cdef inline str _exact(object key):
    """``key`` as an exact str (a str subclass converted; anything else is a TypeError)."""
    if type(key) is str:
        return <str>key
    if not isinstance(key, str):
        raise TypeError(f"OrderedMap keys are str, not '{type(key).__name__}'")
    return str.__str__(key)


@cython.final
cdef class _Node(Link):
    """One entry: key and value (its neighbours in insertion order are the Link's)."""


@cython.final
@cython.no_gc_clear  # the Chain's __dealloc__ breaks the links; the collector must not clear first
cdef class OrderedMap(Chain):
    """A dict whose order is insertion order, with O(1) oldest-pop and move-to-end."""

    def __cinit__(self):
        self._index = StrMap()

    def __len__(self):
        return self.size

    def __contains__(self, key):
        return self._index.get(_exact(key)) is not None

    def __iter__(self):
        return iter(self.keys_list())

    def __getitem__(self, key):
        cdef object found = self._index.get(_exact(key))
        if found is None:
            raise KeyError(key)
        return (<_Node>found).value

    def __setitem__(self, key, value):
        cdef str text = _exact(key)
        cdef object found = self._index.get(text)
        if found is not None:
            (<_Node>found).value = value
            return
        self._add(text, value)

    def __delitem__(self, key):
        cdef object found = self._index.pop(_exact(key))
        if found is None:
            raise KeyError(key)
        self.unlink(<_Node>found)

    cdef _Node _add(self, str key, object value):
        """Link a new node for ``key`` (absent) at the back and index it."""
        return self._place(_Node.__new__(_Node), key, value)

    cdef _Node _place(self, _Node node, str key, object value):
        """Give ``node`` (in no chain, unindexed) ``key`` and ``value``; link it at the back."""
        node.key = key
        node.hash = hash(key)
        node.value = value
        self._index.setdefault(key, node)
        self.append(node)
        return node

    cdef void _forget(self, _Node node) noexcept:
        """Unindex and unlink ``node`` (indexed and linked)."""
        self._index.pop_known(node.key, node.hash)
        self.unlink(node)

    cpdef object get(self, object key, object default=None):
        """The value of ``key``, or ``default``."""
        cdef object found = self._index.get(_exact(key))
        if found is None:
            return default
        return (<_Node>found).value

    cpdef object pop(self, object key, object default):
        """Remove ``key`` and return its value, or ``default`` when absent."""
        cdef object found = self._index.pop(_exact(key))
        if found is None:
            return default
        self.unlink(<_Node>found)
        return (<_Node>found).value

    cpdef tuple popitem(self, bint last=True):
        """Remove and return the newest (``last``) or oldest ``(key, value)``."""
        cdef _Node node = <_Node>(self.last if last else self.first)
        if node is None:
            raise KeyError("dictionary is empty")
        self._forget(node)
        return (node.key, node.value)

    cpdef move_to_end(self, object key):
        """Move ``key`` to the back (KeyError when absent)."""
        if not self.refresh(key):
            raise KeyError(key)

    cpdef push(self, object key, long long bound):
        """Move ``key`` to the back, or add it there and drop the oldest beyond ``bound``."""
        cdef str text = _exact(key)
        cdef _Node node
        if self.refresh(text):
            return
        if self.size >= bound and self.first is not None:
            # full: the oldest entry's node carries the new key (no allocation, no free)
            node = <_Node>self.first
            self._forget(node)
            if self.first is not None:  # the next eviction's index bucket loads meanwhile
                self._index.prefetch((<_Node>self.first).hash)
            self._place(node, text, None)
        else:
            self._add(text, None)

    cpdef bint refresh(self, object key) except -1:
        """Move ``key`` to the back if present; return whether it was."""
        cdef object found = self._index.get(_exact(key))
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

    cpdef list keys_list(self):
        """The keys, oldest first."""
        cdef list keys = []
        cdef Link link = self.first
        while link is not None:
            keys.append((<_Node>link).key)
            link = link.next
        return keys
