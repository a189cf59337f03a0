"""URLs of contests, mounted at the site root."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
