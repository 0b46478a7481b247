# SPDX-License-Identifier: Apache-2.0
# authsh's server in a container: the files of the Debian package (scripts/package), on Debian
# 12, as a user of its own. Not built by the tests (no container engine runs where they run):
# it holds nothing the .deb does not, and scripts/package --check checks the .deb.
#
#   scripts/package
#   docker build -t authsh .
#   docker run -p 9090:9090 -v authsh-data:/var/lib/authsh authsh
#
# The config is /etc/authsh/config.json (mount your own over it); options go after the image
# name (`docker run authsh --public-url https://auth.example.com`); secrets the config names
# with {"env": ...} come from `docker run -e`.

FROM debian:12-slim AS unpack
COPY .build/dist/authsh_*_amd64.deb /tmp/
RUN dpkg-deb -x /tmp/authsh_*_amd64.deb /unpacked

FROM debian:12-slim
# The libraries the binaries load (the .deb's Depends) and nothing else.
RUN apt-get update \
    && apt-get install -y --no-install-recommends liblua5.4-0 libreadline8 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=unpack /unpacked/usr/ /usr/
COPY --from=unpack /unpacked/etc/authsh/ /etc/authsh/
RUN useradd --system --home-dir /var/lib/authsh --create-home --shell /usr/sbin/nologin authsh \
    && chmod 0700 /var/lib/authsh
USER authsh
VOLUME /var/lib/authsh
EXPOSE 9090
# authsh itself is the probe (the image has no curl): exit 0 when /healthz answers 200.
HEALTHCHECK --interval=30s --timeout=5s CMD ["authsh", "--data", "/tmp/healthcheck", "-e", "os.exit(auth.http{url = 'http://127.0.0.1:9090/healthz'} == 200 and 0 or 1)"]
ENTRYPOINT ["authsh-server", "serve", "--host", "0.0.0.0", "--config", "/etc/authsh/config.json", "--data", "/var/lib/authsh", "--plugins", "/etc/authsh/plugins"]
