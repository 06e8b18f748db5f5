# cython: annotation_typing=False
"""Link and Chain: the doubly linked list in insertion order that the registries queue in.

The pure implementation and, compiled with _linked_c.pxd, the compiled twin _linked_c.
A twin derives its entries from its own build's Link and its queue from Chain by
importing this module under the name its .pxd cimports (``_linked``), so the list is
written once for DecisionRegistry, RetryTracker and the compiled OrderedMap.
"""

from __future__ import annotations

__all__ = ["Chain", "Link"]


class Link:
    """One element of a Chain: its neighbours, oldest side first (subclasses add the payload)."""

    __slots__ = ("next", "prev")

    prev: Link | None
    next: Link | None


class Chain:
    """A doubly linked list of Links, oldest first: O(1) append and unlink at any size."""

    __slots__ = ("first", "last", "size")

    first: Link | None
    last: Link | None
    size: int

    def __init__(self) -> None:
        """Start empty."""
        self.first = self.last = None
        self.size = 0

    def __dealloc__(self) -> None:
        """Run by the compiled twin only (plain Python never calls it): break the links."""
        self.release()

    def append(self, link: Link) -> None:
        """Link ``link`` (in no chain) at the back."""
        last = self.last
        link.prev = last
        link.next = None
        if last is None:
            self.first = link
        else:
            last.next = link
        self.last = link
        self.size += 1

    def unlink(self, link: Link) -> None:
        """Take ``link`` out of this chain."""
        before = link.prev
        after = link.next
        if before is None:
            self.first = after
        else:
            before.next = after
        if after is None:
            self.last = before
        else:
            after.prev = before
        link.prev = link.next = None
        self.size -= 1

    def release(self) -> None:
        """Empty the chain, breaking every link iteratively (a long chain would recurse)."""
        link = self.first
        while link is not None:
            after = link.next
            link.prev = link.next = None
            link = after
        self.first = self.last = None
        self.size = 0
