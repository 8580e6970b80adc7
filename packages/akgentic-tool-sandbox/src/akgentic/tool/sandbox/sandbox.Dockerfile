# Image of the `docker` sandbox backend (tag: akgentic-sandbox:latest).
# Built on first use by DockerSandboxActor._ensure_image(); set AKGENTIC_SANDBOX_IMAGE to
# use a pre-built image instead. The container runs `sleep infinity` and every command
# is a `docker exec` into it, with the team workspace mounted at /workspace.
FROM python:3.12-slim

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1

# Tools on the ExecTool allowlist that the slim image lacks, plus coreutils' `timeout`
# (each command runs under it) and Node.js 18 for node/npm/npx.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
        ca-certificates coreutils curl findutils git grep gnupg make wget \
 && curl -fsSL https://deb.nodesource.com/setup_18.x | bash - \
 && apt-get install -y --no-install-recommends nodejs \
 && rm -rf /var/lib/apt/lists/*

RUN pip install --no-cache-dir pytest ruff mypy uv

WORKDIR /workspace
CMD ["sleep", "infinity"]
