"""The upload rate limit, shared by the API and the upload form (one budget per user)."""

from rest_framework.throttling import UserRateThrottle


class UploadThrottle(UserRateThrottle):
    scope = "uploads"
