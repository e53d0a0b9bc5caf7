# syntax=docker/dockerfile:1
# ispbot: the ISP's front desk on Telegram. The entry point is the `ispbot` command, so arguments work:
#   docker build -t ispbot .
#   docker run --rm --env-file .env ispbot migrate                  # once per upgrade, before the bot
#   docker run -d --env-file .env -p 127.0.0.1:8080:8080 ispbot      # ispbot run (the default command)
#   docker run --rm --env-file .env ispbot doctor
# compose.yaml does the same with a one-shot `migrate` service the bot waits for.
#
# The base is pinned to a Python release and a Debian release; pin its digest too where your registry
# mirror lets you (`FROM python:3.11.14-slim-bookworm@sha256:...`).
FROM python:3.11.14-slim-bookworm AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

# The dependencies, exactly as requirements.lock pins and hashes them: this layer is rebuilt only
# when the lock changes, not at every change of the code.
FROM base AS dependencies
RUN python -m venv /opt/ispbot
COPY requirements.lock /tmp/requirements.lock
RUN /opt/ispbot/bin/pip install --no-cache-dir --require-hashes -r /tmp/requirements.lock

# The project's wheel (its code, locales and migrations), without dependencies, built by the pinned
# build backend of requirements-build.lock.
FROM base AS wheel
WORKDIR /src
COPY requirements-build.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements-build.lock
COPY pyproject.toml README.md ./
COPY locales ./locales
COPY bot ./bot
COPY flows ./flows
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels .

FROM base
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="ispbot" \
      org.opencontainers.image.description="The front desk of an internet-service provider on Telegram" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="LicenseRef-Proprietary"
RUN groupadd --gid 10001 ispbot \
    && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /app --shell /usr/sbin/nologin ispbot \
    && install --directory --owner 10001 --group 10001 /app
COPY --from=dependencies /opt/ispbot /opt/ispbot
RUN --mount=type=bind,from=wheel,source=/wheels,target=/wheels \
    /opt/ispbot/bin/pip install --no-cache-dir --no-deps /wheels/ispbot-*.whl
ENV PATH=/opt/ispbot/bin:$PATH ISPBOT_LISTEN_HOST=0.0.0.0 ISPBOT_LISTEN_PORT=8080
# The working folder is the user's: the default SQLite file (a single process, no compose) lives here.
WORKDIR /app
USER 10001:10001
EXPOSE 8080
# Liveness only (/livez never asks the ISP, Telegram or the database): an ISP outage must not get the
# bot restarted, since that is when subscribers write in. The port is the one the bot listens on.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as r; r.urlopen('http://127.0.0.1:%s/livez' % os.environ.get('ISPBOT_LISTEN_PORT', '8080'), timeout=4)"]
ENTRYPOINT ["ispbot"]
CMD ["run"]
