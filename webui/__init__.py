"""The Parlour website: its pages, forms, templates and static files (a Django app of ``parlour_site``)."""
