"""Behaviour shared by the runtime classes: final and unpicklable."""

from __future__ import annotations

from typing import Any, NoReturn


def refuse_subclass(cls: type) -> NoReturn:
    """Raise the error for subclassing a final runtime class."""
    raise TypeError(f"type 'band_sdk_core.{cls.__name__}' is not an acceptable base type")


def refuse_pickle(obj: object) -> NoReturn:
    """Raise the error for pickling or copying a runtime object."""
    raise TypeError(f"cannot pickle 'band_sdk_core.{type(obj).__name__}' object")


def refuse_create(cls: type) -> NoReturn:
    """Raise the error for constructing a result class from Python."""
    raise TypeError(f"cannot create 'band_sdk_core.{cls.__name__}' instances")


def read_only(obj: object, name: str) -> NoReturn:
    """Raise the error for assigning a read-only property."""
    raise AttributeError(
        f"attribute '{name}' of 'band_sdk_core.{type(obj).__name__}' objects is not writable"
    )


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
