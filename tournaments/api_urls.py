"""Stub made by the site engineer so kaiser_site.urls can include it; the tournaments app owns
and replaces this file."""

urlpatterns: list = []
