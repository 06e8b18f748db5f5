"""Behaviour shared by the runtime classes: final, unpicklable, read-only, not constructible."""

from __future__ import annotations

from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, NoReturn


def refuse_subclass(cls: type) -> NoReturn:
    """Raise the error for subclassing a final runtime class."""
    raise TypeError(f"type 'band_sdk_core.{cls.__name__}' is not an acceptable base type")


def _refuse_subclassing(subclass: type, /, **kwargs: object) -> NoReturn:
    """Refuse ``subclass``, naming the final class it derives from."""
    final = next(
        b for b in subclass.__bases__ if vars(b).get("__init_subclass__") is refuse_subclasses
    )
    refuse_subclass(final)


#: ``__init_subclass__ = refuse_subclasses`` in a class body: the pure class refuses subclasses
#: as its compiled twin does (final by ``@cython.final``, which leaves this hook unused). An
#: assignment, because Cython accepts no ``def __init_subclass__`` in an extension class.
refuse_subclasses: classmethod[Any, ..., NoReturn] = classmethod(_refuse_subclassing)


def refuse_pickle(obj: object) -> NoReturn:
    """Raise the error for pickling or copying a runtime object."""
    raise TypeError(f"cannot pickle 'band_sdk_core.{type(obj).__name__}' object")


def refuse_copy(obj: object, *args: object) -> NoReturn:
    """Refuse pickling or copying; bound as every reduce and copy hook of a runtime class."""
    refuse_pickle(obj)


def refuse_create(cls: type, /, *args: object, **kwargs: object) -> NoReturn:
    """Raise the error for constructing a result class from Python."""
    raise TypeError(f"cannot create 'band_sdk_core.{cls.__name__}' instances")


#: ``__new__ = refuse_new`` in a class body: Python code cannot construct the class (the module
#: builds its instances with ``object.__new__``, or Cython's own allocation when compiled).
refuse_new: Any = staticmethod(refuse_create)  # Any: it stands where object.__new__ is typed


def read_only(obj: object, name: str) -> NoReturn:
    """Raise the error for assigning a read-only property."""
    raise AttributeError(
        f"attribute '{name}' of 'band_sdk_core.{type(obj).__name__}' objects is not writable"
    )


def no_attribute(obj: object, name: str) -> NoReturn:
    """Raise the error for a missing attribute, with the qualified class name."""
    raise AttributeError(f"'band_sdk_core.{type(obj).__name__}' object has no attribute '{name}'")


def word_missing_attributes(cls: type) -> None:
    """Make a missing attribute of ``cls`` raise with the reference wording (no_attribute's)."""
    from ._compat import NO_EXTENSIONS  # not USING_EXTENSIONS: unset while modules load

    if not NO_EXTENSIONS:
        try:
            from ._typename_c import qualify
        except ImportError:  # a pure build
            pass
        else:
            # CPython then words the error itself, and the class keeps the generic attribute
            # lookup its method calls are specialised for (a __getattr__ would replace it)
            if qualify(cls):
                return
    type.__setattr__(cls, "__getattr__", no_attribute)


def refuse_setattr(obj: object, name: str, value: object = None) -> NoReturn:
    """Refuse every attribute assignment or deletion with the reference wording."""
    cls = type(obj)
    attr = getattr(cls, name, None)
    if isinstance(attr, (property, GetSetDescriptorType)):  # compiled properties are getsets
        read_only(obj, name)
    # a slot is the pure twin's private storage: absent from the compiled one and the reference
    if attr is not None and not isinstance(attr, MemberDescriptorType):
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
