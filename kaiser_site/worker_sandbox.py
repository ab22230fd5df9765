"""A worker proves it can sandbox a bot before it takes one, and says so to /health/.

Each worker runs the engine's real sandbox probe (engine.sandbox.probe_sandbox: a tiny program
in a real seat) when it is ready, then every KAISER_SANDBOX_PROBE_SECONDS from a thread of its
main process. A worker whose probe fails stops consuming the queues that carry matches and
upload checks (a cancel_consumer addressed to itself) and consumes them again after a probe
succeeds. A task that reached such a worker anyway (delivered before the first probe ended,
or prefetched) checks its own process's probe first and is put back unchanged: the match is
never claimed, so none of its attempts is spent, and the upload check keeps its retry count.

/health/ asks the workers for their latest report with the `sandbox` inspect command (the
reply is the worker's liveness and its sandbox at once; kaiser_site.health caches it).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from typing import Any

from celery import signals
from celery.worker.control import inspect_command

logger = logging.getLogger(__name__)

DEFER_SECONDS = 10  # a task put back by a worker that cannot sandbox waits this long
_lock = threading.Lock()
_latest: dict[str, Any] = {}  # this process's last report, with "at" (time.monotonic())


def probe_seconds() -> int:
    from engine.sandbox.config import config

    return config().probe_seconds


def sandbox_probe() -> dict[str, Any]:
    """Run the real probe now, remember its report in this process and return it."""
    from engine.sandbox import probe_sandbox

    try:
        report = dict(probe_sandbox().to_dict())
        report["config"] = _config_shown()
    except Exception as error:  # noqa: BLE001 - a probe that cannot run is a broken sandbox
        logger.exception("sandbox probe failed")
        report = {"mode": "broken", "ok": False, "seccomp": False,
                  "reason": f"the probe failed: {type(error).__name__}: {error}"[:300]}
    report["ok"] = bool(report.get("ok"))
    report.setdefault("seccomp", False)
    report.setdefault("kernel", None)
    report["checked"] = datetime.now(UTC).isoformat(timespec="seconds")
    with _lock:
        _latest.clear()
        _latest.update(report, at=time.monotonic())
    return report


def _config_shown() -> dict[str, Any] | str:
    """The sandbox's settings, for /health/; an invalid one as its one-line error."""
    from engine.faults import InfrastructureError
    from engine.sandbox.config import config

    try:
        return config().to_dict()
    except InfrastructureError as error:
        return str(error)


def sandbox_report() -> dict[str, Any] | None:
    """This process's last report (None before its first probe); never probes."""
    with _lock:
        return {k: v for k, v in _latest.items() if k != "at"} if _latest else None


def sandbox_can_play() -> bool:
    """Whether this process may play bots now: its last probe passed and is recent, else a
    fresh probe decides (a pool child's first task, or a report older than the period)."""
    with _lock:
        fresh = bool(_latest) and time.monotonic() - _latest["at"] < probe_seconds()
        ok = bool(_latest.get("ok"))
    return ok if fresh else bool(sandbox_probe()["ok"])


def defer_unless_sandboxed(task: Any) -> bool:
    """For a task that runs bots: True (and the task's message sent again, unchanged: same
    id, same retry count, same queue) when this worker cannot sandbox now. The caller then
    returns without touching its match or version. Tasks run eagerly (in the caller's
    process, not a worker's) are never deferred: they would only run again at once."""
    if task.request.is_eager or sandbox_can_play():
        return False
    report = sandbox_report() or {}
    logger.warning("%s[%s] put back: this worker cannot sandbox (%s: %s)", task.name,
                   task.request.id, report.get("mode"), report.get("reason"))
    task.signature_from_request(countdown=DEFER_SECONDS).apply_async()
    return True


# --- The worker's main process ---------------------------------------------------------------


def gated_queues(app: Any, consumed: list[str]) -> list[str]:
    """The queues of this worker that carry matches (strict ones too) or upload checks (the
    default queue)."""
    from django.conf import settings

    default = app.conf.task_default_queue
    wanted = {getattr(settings, "KAISER_MATCH_QUEUE", None) or default, default,
              getattr(settings, "KAISER_STRICT_QUEUE", None) or default}
    return [name for name in consumed if name in wanted]


class _Gate:
    """Opens and closes this worker's bot queues as its probes pass and fail."""

    def __init__(self, app: Any, hostname: str, queues: list[str]) -> None:
        self.app, self.hostname, self.queues = app, hostname, queues
        self.closed = False
        self.last: tuple[Any, ...] = ()

    def update(self, report: dict[str, Any]) -> None:
        seen, self.last = self.last, (report["ok"], report["mode"], report["reason"])
        if not report["ok"] and not self.closed:
            logger.error("sandbox %s: %s; %s stops taking matches and upload checks (%s)",
                         report["mode"], report["reason"], self.hostname, ", ".join(self.queues))
            self._send("cancel_consumer")
            self.closed = True
        elif report["ok"] and self.closed:
            logger.warning("sandbox %s works again: %s takes matches again", report["mode"],
                           self.hostname)
            self._send("add_consumer")
            self.closed = False
        elif seen and self.last != seen:  # still broken (or still working), for another reason now
            logger.warning("sandbox %s: %s", report["mode"], report["reason"])

    def _send(self, command: str) -> None:
        for queue in self.queues:
            getattr(self.app.control, command)(queue, destination=[self.hostname])


def _watch(gate: _Gate, period: float) -> None:
    while True:
        time.sleep(period)
        try:
            gate.update(sandbox_probe())
        except Exception:  # the next round tries again; the thread must not die
            logger.exception("sandbox watch of %s", gate.hostname)


@signals.worker_ready.connect
def _probe_when_ready(sender: Any = None, **kwargs: Any) -> None:
    """The first probe, before the worker's tasks get far; then one every period."""
    consumer = sender
    consumed = [queue.name for queue in consumer.task_consumer.queues]
    gate = _Gate(consumer.app, consumer.hostname, gated_queues(consumer.app, consumed))
    report = sandbox_probe()
    logger.info("sandbox probe of %s: %s (%s), seccomp %s", consumer.hostname, report["mode"],
                report["reason"], "on" if report["seccomp"] else "off")
    gate.update(report)
    threading.Thread(target=_watch, args=(gate, probe_seconds()), name="sandbox-watch",
                     daemon=True).start()


@signals.worker_process_init.connect
def _forget_parent_report(**kwargs: Any) -> None:
    """A pool child probes for itself: the parent's report (and lock) stay behind."""
    global _lock
    _lock = threading.Lock()
    _latest.clear()


@inspect_command()
def sandbox(state: Any) -> dict[str, Any]:
    """The worker's last sandbox report, for /health/ (pending before its first probe)."""
    return sandbox_report() or {"mode": "pending", "ok": False, "seccomp": False, "kernel": None,
                                "reason": "the first probe has not finished", "checked": None,
                                "config": None}
