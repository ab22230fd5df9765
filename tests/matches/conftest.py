"""Matches played for real (built-in bots, in this process) and an S3-compatible server."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from ladder.models import Ladder
from matches import services
from matches.models import Match
from tests.tournaments.conftest import (  # noqa: F401 (fixtures the moved match tests use)
    builtin_version,
    ladder,
    match_made,
    play_queued,
)


@pytest.fixture
def play_match(make_builtin: Callable[..., Any], db: None) -> Callable[[], Match]:
    """play(): one more ladder match between a greedy and a random bot, played and stored."""
    store = Ladder.objects.create(name="Store", slug="store", games_per_match=2)
    sides = (make_builtin("store-greedy", own=True),
             make_builtin("store-random", "builtin:random", own=True))

    def play() -> Match:
        match = services.match_create(versions=[sides[0], sides[1]],
                                      kind=Match.Kind.LADDER, conditions=store, ladder=store,
                                      rated=True)
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
        return Match.objects.get(pk=match.pk)

    return play


@dataclass
class S3Server:
    endpoint: str
    client: Any

    def storage_settings(self, bucket: str, prefix: str = "replays") -> dict[str, Any]:
        return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
            "bucket_name": bucket, "location": prefix, "endpoint_url": self.endpoint,
            "region_name": "us-east-1", "access_key": "test", "secret_key": "test",
            "addressing_style": "path", "default_acl": None, "querystring_auth": False,
            "file_overwrite": True}}

    def keys(self, bucket: str) -> list[str]:
        listed = self.client.list_objects_v2(Bucket=bucket)
        return sorted(item["Key"] for item in listed.get("Contents", []))


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """moto's S3 server on 127.0.0.1 (a free port), a real HTTP server speaking S3."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")
    try:
        yield S3Server(endpoint, client)
    finally:
        server.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> str:
    """A new, empty bucket on the S3 server."""
    name = f"replays-{uuid.uuid4().hex[:12]}"
    s3_server.client.create_bucket(Bucket=name)
    return name
