from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Running the service: backup and restore commands (docs/operations.md). No models."""

    name = "operations"
