# Kaiser Arena: one image for the web server, the Celery workers and Celery beat.
#
# Debian's own Python 3.11 (not the python:3.11 image) so that Debian's libseccomp bindings
# (python3-seccomp, used for the sandbox's system-call filter) import in the virtualenv, which
# sees the system's packages. BASE_IMAGE is any Debian 12 image: the default from Docker Hub,
# or the stand-in deploy/build-base-images.sh makes from Debian's packages where no registry
# is reachable.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBUG=0 \
    KAISER_VAR_DIR=/data/var \
    MEDIA_ROOT=/data/media \
    KAISER_REPLAY_DIR=/data/replays \
    STATIC_ROOT=/app/staticfiles

# runsc: gVisor, every seat its own kernel (KAISER_SANDBOX_KERNEL=gvisor, the default where it
# is installed); bubblewrap: the sandbox on the host's kernel (KAISER_SANDBOX_KERNEL=host);
# util-linux: setpriv (each seat's own uid); nodejs: bots whose bot.json runs "node". Bots see
# the image's /usr read-only, so what is installed here is what bots can run. Nothing is
# fetched at run time: runsc is Debian's package, and the seats' root is built from this /usr.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 python3-venv python3-seccomp bubblewrap runsc util-linux nodejs ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv --system-site-packages /opt/venv \
 && useradd --system --uid 1000 --home-dir /app kaiser \
 && mkdir -p /data/var /data/media /data/replays && chown -R kaiser:kaiser /data

WORKDIR /app
COPY requirements.txt .
# The package index: pip's default, or PIP_INDEX_URL / PIP_EXTRA_INDEX_URL passed as build
# arguments (deploy/smoke.sh --offline passes the host's own pip configuration).
ARG PIP_INDEX_URL=""
ARG PIP_EXTRA_INDEX_URL=""
RUN [ -n "$PIP_INDEX_URL" ] || unset PIP_INDEX_URL; \
    [ -n "$PIP_EXTRA_INDEX_URL" ] || unset PIP_EXTRA_INDEX_URL; \
    pip install --no-cache-dir --disable-pip-version-check -r requirements.txt \
 && python -c "import seccomp, django, celery, psycopg"
COPY . .
RUN SECRET_KEY=collectstatic-only KAISER_VAR_DIR=/tmp/build-var \
    python manage.py collectstatic --noinput -v 0 \
 && rm -rf /tmp/build-var

USER kaiser
EXPOSE 8000
CMD ["gunicorn", "kaiser_site.asgi:application", "-k", "uvicorn_worker.UvicornWorker", \
     "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--access-logfile", "-"]
