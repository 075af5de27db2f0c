"""Discovery: search, describe and JSON Schema → Python declarations."""
