# Kaiser Arena: one image for the web server, the Celery worker and Celery beat.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DEBUG=0 \
    KAISER_VAR_DIR=/data/var \
    MEDIA_ROOT=/data/media \
    STATIC_ROOT=/app/staticfiles

# bubblewrap: the bot sandbox. nodejs: bots whose bot.json runs "node". Bots see the image's
# /usr read-only, so what is installed here is what bots can run.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap nodejs \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 1000 --home-dir /app kaiser \
 && mkdir -p /data/var /data/media && chown -R kaiser:kaiser /data

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN SECRET_KEY=collectstatic-only KAISER_VAR_DIR=/tmp/build-var \
    python manage.py collectstatic --noinput -v 0 \
 && rm -rf /tmp/build-var

USER kaiser
EXPOSE 8000
CMD ["gunicorn", "kaiser_site.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", \
     "--timeout", "60", "--access-logfile", "-"]
