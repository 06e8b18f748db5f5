"""Field types shared by the request models (``bodies`` and ``queries``)."""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from .inputs import PREDICATE, VERBATIM

#: SQLite integers are signed 64-bit; larger cursors could never match a row
MAX_SQL_INT = 2**63 - 1


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError(PREDICATE, "can't be blank")
    return value


_S = TypeVar("_S", bound=str)
#: a string type with at least one non-space character: ``NonBlankOf[Annotated[str,
#: Field(max_length=N)]]`` checks the length first, on the string ("String should have at most
#: N characters"; a length after the blank check is pydantic's generic "Value should have at
#: most N items after validation")
NonBlankOf = Annotated[_S, AfterValidator(_not_blank), Field(json_schema_extra={"pattern": r"\S"})]
#: a string with at least one non-space character
NonBlank = NonBlankOf[str]
#: a 1-based page number
PageNumber = Annotated[int, Field(ge=1, le=10**9)]
#: a keyset cursor (a row sequence number)
Cursor = Annotated[int, Field(ge=0, le=MAX_SQL_INT)]


def _bool_word(value: object) -> object:
    if isinstance(value, str) and value not in ("true", "false"):
        raise PydanticCustomError(PREDICATE, "must be true or false")
    return value


#: a boolean query parameter: ``true`` or ``false`` (not pydantic's "1", "yes", "on"...)
QueryBool = Annotated[bool, BeforeValidator(_bool_word)]
#: a page size / limit of at most 100 rows
Limit = Annotated[int, Field(ge=1, le=100)]
#: the memory enums' wire names (band_sdk_core's MemorySystem, MemoryType, MemorySegment)
MemorySystem = Literal["sensory", "working", "long_term"]
MemoryType = Literal["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"]
MemorySegment = Literal["user", "agent", "tool", "guideline"]


def rule(field: str, message: str) -> PydanticCustomError:
    """A cross-field rule's error: ``message`` as is, reported under ``field``."""
    return PydanticCustomError(VERBATIM, message, {"field": field})


class Obj(BaseModel):
    """A nested JSON object inside a body: strict types, unknown keys ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
