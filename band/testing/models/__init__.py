"""The wire shapes ScriptedModel speaks, one module per provider API (internal)."""
