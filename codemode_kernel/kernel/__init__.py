"""The Code Mode Jupyter kernel: cells as durable passes, approvals as buttons (DESIGN §9).

Modules: ``kernel`` (ipykernel: Jupyter messages in and out, nothing more), ``session`` (what
cells, magics, ``%%host`` and the panel talk to: runs a cell), ``notebook_runtime``
(configuration and the runtime's lifecycle), ``actions`` (approve/reject/rollback/save and the
cards that present them), ``variables`` (names carried between cells), ``widgets``
(ipywidgets: the card), ``magics`` (their arguments are in ``codemode_kernel.commands``),
``host`` (``%%host`` cells), ``panel`` and ``panel_messages`` (the side panel's comm),
``completion``, ``display`` (MIME bundles and errors), ``markup`` (the one place HTML is
built, every value escaped), ``output`` (where output goes, what a cell replies),
``install`` (kernelspec).
Nothing is imported here, so importing the package stays cheap.
"""
