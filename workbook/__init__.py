"""The zvmplan template workbook: built by code (``python -m zvmplan_workbook.build``)."""
