"""band-sdk's import path, an alias of :mod:`band.runtime.rooms.preprocess`."""

from band.runtime.rooms.preprocess import DefaultPreprocessor

__all__ = ["DefaultPreprocessor"]
