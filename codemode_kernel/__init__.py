"""Code Mode for Python: durable code-mode passes over connectors, as a library and a Jupyter kernel."""
