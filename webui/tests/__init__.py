"""The website's tests (Django test client); ``tests/test_webui.py`` runs them under pytest."""
