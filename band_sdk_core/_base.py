"""Behaviour shared by the runtime classes: final and unpicklable."""

from __future__ import annotations

from types import GetSetDescriptorType
from typing import Any, NoReturn


def refuse_subclass(cls: type) -> NoReturn:
    """Raise the error for subclassing a final runtime class."""
    raise TypeError(f"type 'band_sdk_core.{cls.__name__}' is not an acceptable base type")


_BASETYPE = 1 << 10  # Py_TPFLAGS_BASETYPE: unset on a final compiled class


def make_final(cls: type) -> None:
    """Make a pure-Python class refuse subclasses, as its compiled (final) twin does.

    Cython accepts no ``__init_subclass__`` in an extension class body, so the one shared
    source cannot declare it; a compiled class is final already and is left alone.
    """
    if not cls.__flags__ & _BASETYPE:
        return

    def refuse(subclass: type, /, **kwargs: object) -> NoReturn:
        refuse_subclass(cls)

    cls.__init_subclass__ = classmethod(refuse)  # type: ignore[assignment, method-assign]


def refuse_pickle(obj: object) -> NoReturn:
    """Raise the error for pickling or copying a runtime object."""
    raise TypeError(f"cannot pickle 'band_sdk_core.{type(obj).__name__}' object")


def refuse_copy(obj: object, *args: object) -> NoReturn:
    """Refuse pickling or copying; bound as every reduce and copy hook of a runtime class."""
    refuse_pickle(obj)


def refuse_create(cls: type) -> NoReturn:
    """Raise the error for constructing a result class from Python."""
    raise TypeError(f"cannot create 'band_sdk_core.{cls.__name__}' instances")


def read_only(obj: object, name: str) -> NoReturn:
    """Raise the error for assigning a read-only property."""
    raise AttributeError(
        f"attribute '{name}' of 'band_sdk_core.{type(obj).__name__}' objects is not writable"
    )


def no_attribute(obj: object, name: str) -> NoReturn:
    """Raise the error for a missing attribute, with the qualified class name."""
    raise AttributeError(f"'band_sdk_core.{type(obj).__name__}' object has no attribute '{name}'")


def refuse_setattr(obj: object, name: str, value: object = None) -> NoReturn:
    """Refuse every attribute assignment or deletion with the reference wording."""
    cls = type(obj)
    attr = getattr(cls, name, None)
    if isinstance(attr, (property, GetSetDescriptorType)):  # compiled properties are getsets
        read_only(obj, name)
    if attr is not None:
        raise AttributeError(
            f"'band_sdk_core.{cls.__name__}' object attribute '{name}' is read-only"
        )
    no_attribute(obj, name)


def check_str(value: Any, what: str = "str") -> None:
    """Reject a non-str argument with the reference wording."""
    if not isinstance(value, str):
        from ._enums import not_instance_message

        raise TypeError(not_instance_message(value, what))


def check_bool(value: Any) -> None:
    """Reject anything that is not exactly a bool."""
    if value is not True and value is not False:
        from ._enums import not_instance_message

        raise TypeError(not_instance_message(value, "bool"))
