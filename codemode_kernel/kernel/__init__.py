"""The Code Mode Jupyter kernel: cells as durable passes, approvals as buttons (DESIGN §9).

Modules: ``kernel`` (ipykernel: Jupyter messages in and out), ``session`` (the notebook's
runtime, carried names and the approve/reject/rollback paths), ``widgets`` (ipywidgets:
the approval card), ``magics``, ``host`` (``%%host`` cells), ``completion``, ``display``
(MIME bundles and errors), ``markup`` (the one place HTML is built, every value escaped),
``output`` (where output goes), ``install`` (kernelspec).
Nothing is imported here, so importing the package stays cheap.
"""
