"""URLs: pages at the root, the REST API under /api/v1/, its schema and docs under /api/."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from accounts import admin as accounts_admin
from accounts import api as accounts_api
from bots.api import BotVersionViewSet, BotViewSet
from kaiser_site import docs_pages, errors, health, metrics

router = DefaultRouter()
router.register("bots", BotViewSet, basename="bot")
router.register("versions", BotVersionViewSet, basename="botversion")

api_v1 = [
    path("health/", health.HealthView.as_view(), name="api-health"),
    path("auth/token/", accounts_api.TokenObtainView.as_view(), name="api-token"),
    path(
        "auth/token/regenerate/",
        accounts_api.TokenRegenerateView.as_view(),
        name="api-token-regenerate",
    ),
    path("auth/me/", accounts_api.MeView.as_view(), name="api-me"),
    path("", include("ladder.api_urls")),
    path("", include("matches.api_urls")),
    path("", include("tournaments.api_urls")),
    path("", include("fairplay.api_urls")),
    path("", include(router.urls)),
]

urlpatterns = [
    path("health/", health.health, name="health"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # The admin's pages of the models that left the tournaments app keep their old addresses.
    re_path(r"^admin/tournaments/(?P<model>match|matchattempt|playstats|ladder|ladderentry|"
            r"ratingchange)/(?P<rest>.*)$", errors.admin_moved),
    path("admin/login/", accounts_admin.admin_login),  # limited like the site's login
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("accounts/", include("accounts.urls")),
    path("bots/", include("bots.urls")),
    path("play/", include("play.urls")),
    path("docs/runner/kaiser-engine.pyz", docs_pages.runner_download, name="runner-download"),
    path("docs/<slug:page>/", docs_pages.doc_page, name="doc-page"),
    path("docs/", docs_pages.docs, name="docs"),
    path("docs/starter/<str:name>", docs_pages.starter_file, name="starter-file"),
    path("", include("ladder.urls")),
    path("", include("matches.urls")),
    path("", include("tournaments.urls")),
    path("", include("fairplay.urls")),
]

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

# Last: any URL nothing above matched gets the site's 404 page, under DEBUG (run.sh) too, where
# Django would otherwise show its technical 404 page instead of calling handler404.
urlpatterns += [re_path(r"^", errors.unknown_url, name=errors.UNKNOWN_URL)]

handler403 = "kaiser_site.errors.permission_denied"
handler404 = "kaiser_site.errors.not_found"
handler500 = "kaiser_site.errors.server_error"
