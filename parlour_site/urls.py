"""The site's root URLs: the admin, and the website's pages (``webui.urls``)."""
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("webui.urls")),
]
