"""zvmplan worksheet functions: the thin layer between Excel (or the headless engine) and the model.

Importing :mod:`zvmplan_addin.functions` registers every function in
:data:`zvmplan_addin.registry.REGISTRY` and, on Windows, with xlwings.
"""
