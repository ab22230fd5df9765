#!/usr/bin/env python
"""Run a site process (uvicorn, a Celery worker) with every database query it makes counted:
`python bench/query_count.py KEY MODULE ARGS...` runs `python -m MODULE ARGS...` and adds the
process's count to the Redis key KEY (BENCH_COUNT_REDIS_URL) twice a second. For benches only:
the site itself counts nothing.
"""

from __future__ import annotations

import itertools
import os
import runpy
import sys
import threading
from typing import Any

import redis
from django.db.backends.signals import connection_created

counted = itertools.count()  # next() is atomic under the GIL: threads share it safely


def _count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    next(counted)
    return execute(sql, params, many, context)


def _on_connection(sender: Any, connection: Any, **kwargs: Any) -> None:
    # Fired for each new connection of a thread's wrapper; the wrapper keeps its wrappers.
    if _count not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count)


def _flush(key: str) -> None:
    client = redis.Redis.from_url(os.environ["BENCH_COUNT_REDIS_URL"])
    reads = sent = 0
    while True:
        threading.Event().wait(0.5)
        queries = next(counted) - reads  # each read takes a number too: not a query
        reads += 1
        if queries > sent:
            client.incrby(key, queries - sent)
            sent = queries


def main() -> None:
    key, module, *args = sys.argv[1:]
    connection_created.connect(_on_connection, weak=False)
    threading.Thread(target=_flush, args=(key,), daemon=True).start()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
