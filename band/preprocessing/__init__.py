"""Preprocessors: how a room message becomes the adapter's ``AgentInput``."""

from .default import DefaultPreprocessor

__all__ = ["DefaultPreprocessor"]
