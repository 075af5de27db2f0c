"""Connectors: host-side objects that expose methods to the sandbox."""
