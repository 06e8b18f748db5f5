"""Bridges between Band and other agent protocols."""
