"""Helpers shared by every test folder (importable as ``bandtest``)."""
