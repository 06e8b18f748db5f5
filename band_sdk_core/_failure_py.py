"""AgentFailure: a provider failure carried to the platform (§15)."""

from __future__ import annotations

from typing import Any

from ._base import check_str, refuse_copy, refuse_setattr, refuse_subclasses
from ._json_py import to_json

__all__ = ["AgentFailure"]


class AgentFailure:
    """An immutable description of why an agent turn failed."""

    __slots__ = ("_code", "_detail", "_message", "_provider")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    _provider: str
    _message: str
    _code: str | None
    _detail: Any

    def __init__(
        self, provider: str, message: str, code: str | None = None, detail: Any | None = None
    ) -> None:
        check_str(provider)
        check_str(message)
        if code is not None:
            check_str(code)
        converted = to_json(detail)
        setter = object.__setattr__
        setter(self, "_provider", str.__str__(provider))
        setter(self, "_message", str.__str__(message))
        setter(self, "_code", None if code is None else str.__str__(code))
        setter(self, "_detail", converted)

    __setattr__ = __delattr__ = refuse_setattr
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    @property
    def provider(self) -> str:
        """The provider that failed."""
        return self._provider

    @property
    def message(self) -> str:
        """A human-readable failure message."""
        return self._message

    @property
    def code(self) -> str | None:
        """The provider's error code, if any."""
        return self._code

    @property
    def detail(self) -> Any:
        """A fresh copy of the JSON-shaped failure detail."""
        return to_json(self._detail)

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"provider", "code", "message", "detail"}``."""
        return {
            "provider": self._provider,
            "code": self._code,
            "message": self._message,
            "detail": to_json(self._detail),
        }

    def to_extension_data(self) -> dict[str, Any]:
        """Return the failure wrapped under the ``band.ai/failure`` extension key."""
        return {"band.ai/failure": self.to_dict()}
