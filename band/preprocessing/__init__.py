"""Preprocessors: how a room message becomes the adapter's ``AgentInput``.

The default one works inside the delivery pipeline (``band.runtime.rooms.preprocess``); this
package is its public import path (band-sdk's).
"""

from .default import DefaultPreprocessor

__all__ = ["DefaultPreprocessor"]
