# ispbot: the ISP's front desk on Telegram. Multi-stage: wheels are built in the first stage, the
# final image holds Python, the installed project and nothing of the build.
#   docker build -t ispbot .
#   docker run --env-file .env -p 8080:8080 ispbot          # ispbot run (migrations applied first)
FROM python:3.11-slim AS build
WORKDIR /src
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY flows ./flows
RUN python -m pip wheel --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    ISPBOT_LISTEN_HOST=0.0.0.0 ISPBOT_LISTEN_PORT=8080 ISPBOT_LOCALES_DIR=/app/locales
RUN useradd --create-home --uid 10001 ispbot
COPY --from=build /wheels /wheels
RUN python -m pip install /wheels/*.whl && rm -rf /wheels
WORKDIR /app
# What the bot says (bot/i18n.py reads ISPBOT_LOCALES_DIR): operators may mount their own edits here.
COPY locales /app/locales
USER ispbot
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status == 200 else 1)"]
# Migrations first (idempotent), then the bot; SIGTERM stops it cleanly.
ENTRYPOINT ["sh", "-c", "ispbot migrate && exec ispbot run"]
