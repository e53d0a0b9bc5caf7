# ispbot: the ISP's front desk on Telegram. The entry point is the `ispbot` command, so arguments work:
#   docker build -t ispbot .                                        # BuildKit: see below
#   docker run --rm --env-file .env ispbot migrate                  # once per upgrade, before the bot
#   docker run -d --env-file .env -p 127.0.0.1:8080:8080 ispbot      # ispbot run (the default command)
#   docker run --rm --env-file .env ispbot doctor
# compose.yaml does the same with a one-shot `migrate` service the bot waits for.
#
# It needs BuildKit (RUN --mount): Docker 23 or later uses it by default; Docker 20.10 with
# DOCKER_BUILDKIT=1; Podman and Buildah with --format docker (else the HEALTHCHECK is dropped). It names
# no front end to fetch (no `# syntax=` line): the builder's own Dockerfile front end reads it, so a
# builder that reaches no image registry builds it from the base image alone.
#
# Behind a proxy that inspects TLS, or with a package index of your own (both used only by the build
# stages, never kept in the image or its history):
#   docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt \
#                --build-arg PIP_INDEX_URL=https://pypi.example.net/simple -t ispbot .
# The secret `ca` is the certificate bundle pip trusts instead of its own (give the whole bundle your
# machine trusts, its proxy's authority included); PIP_INDEX_URL, an index that serves the same files
# (every one is checked against requirements.lock's hashes).
#
# The base is pinned to a Python release and a Debian release; pin its digest too where your registry
# mirror lets you (`FROM python:3.11.14-slim-bookworm@sha256:...`).
FROM python:3.11.14-slim-bookworm AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

# The dependencies, exactly as requirements.lock pins and hashes them: this layer is rebuilt only
# when the lock changes, not at every change of the code. The environment has no pip of its own
# (the base's installs into it): nothing at run time needs one.
FROM base AS dependencies
ARG PIP_INDEX_URL
RUN python -m venv --without-pip /opt/ispbot
COPY requirements.lock /tmp/requirements.lock
RUN --mount=type=secret,id=ca \
    if [ -f /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && pip --python /opt/ispbot/bin/python install --no-cache-dir --require-hashes -r /tmp/requirements.lock

# The project's wheel (its code, locales and migrations), without dependencies, built by the pinned
# build backend of requirements-build.lock.
FROM base AS wheel
ARG PIP_INDEX_URL
WORKDIR /src
COPY requirements-build.lock ./
RUN --mount=type=secret,id=ca \
    if [ -f /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && pip install --no-cache-dir --require-hashes -r requirements-build.lock
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
# Tesseract and its Portuguese model read photos of payment receipts (bot/receipts/); the English
# one (a dependency of tesseract-ocr, named so it stays) takes a second look at a PIX id or billet line.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr=5.* tesseract-ocr-por=1:4.* tesseract-ocr-eng=1:4.* \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 10001 ispbot \
    && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /app --shell /usr/sbin/nologin ispbot \
    && install --directory --owner 10001 --group 10001 /app
COPY --from=dependencies /opt/ispbot /opt/ispbot
RUN --mount=type=bind,from=wheel,source=/wheels,target=/wheels \
    pip --python /opt/ispbot/bin/python install --no-cache-dir --no-deps /wheels/ispbot-*.whl
COPY docker/healthcheck.py /opt/ispbot/healthcheck.py
ENV PATH=/opt/ispbot/bin:$PATH ISPBOT_LISTEN_HOST=0.0.0.0 ISPBOT_LISTEN_PORT=8080
# The working folder is the user's: the default SQLite file (a single process, no compose) lives here.
WORKDIR /app
USER 10001:10001
EXPOSE 8080
# Liveness of `ispbot run` only (/livez never asks the ISP, Telegram or the database): an ISP outage
# must not get the bot restarted, since that is when subscribers write in. In a container running
# another command (the sandbox, migrate, doctor) there is nothing it could ask, and it passes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "/opt/ispbot/healthcheck.py"]
ENTRYPOINT ["ispbot"]
CMD ["run"]
