# A stand-in for the official postgres image, from Debian's PostgreSQL 15: the same data
# folder, the same POSTGRES_DB / POSTGRES_USER / POSTGRES_PASSWORD on first start, and
# pg_isready for the healthcheck. Built by deploy/build-base-images.sh.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["postgres-entrypoint.sh"]
CMD ["postgres"]
