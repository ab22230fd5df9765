# A stand-in for the official redis image, from Debian's redis-server 7.0: data in /data,
# reachable from the other containers (protected mode off, as the official image does when
# started without a configuration file). Built by deploy/build-base-images.sh.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["redis-entrypoint.sh"]
CMD ["redis-server"]
