# gitmemory daemon image.
#   docker build -t gitmemory .
#   docker run -d -p 127.0.0.1:7411:7411 -e GITMEMORY_TOKEN=... \
#     -v gitmemory-data:/data -v ~/src:/repos:ro gitmemory
# Needs BuildKit (the default builder since Docker 23): cache mounts and a heredoc.

# --- build: cgo is required (tree-sitter), so the glibc toolchain image ---
FROM golang:1.26-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=1
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build cache survives between builds: the tree-sitter grammars are slow to compile.
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags='-s -w' -o /out/gitmemory ./cmd/gitmemory

# --- runtime: same Debian release as the build stage (glibc) ---
FROM debian:bookworm-slim
# git: the CLI shells out to it. safe.directory: the repositories are mounted
# read-only and owned by a host user, which git otherwise refuses ("dubious ownership").
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system safe.directory '*' \
 && groupadd --system --gid 10001 gitmemory \
 && useradd --system --uid 10001 --gid gitmemory --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin gitmemory \
 && mkdir -p /data /repos \
 && chown gitmemory:gitmemory /data
COPY --from=build /out/gitmemory /usr/local/bin/gitmemory
# The word-vector table compiled into the binary carries its sources' notices.
COPY --from=build /src/vectors/wordvec/README.md /usr/share/doc/gitmemory/wordvec.md
# The licences: Apache-2.0 for gitmemory, LGPL-2.1 for its line diff, and
# the list of third-party code and data with theirs.
COPY --from=build /src/LICENSE /src/docs/third-party.md /usr/share/doc/gitmemory/
COPY --from=build /src/LICENSES/ /usr/share/doc/gitmemory/LICENSES/
# Health probe without curl: GET /v1/health over bash's /dev/tcp, healthy on 200.
# GITMEMORY_HEALTH_PORT if --listen uses another port; sends GITMEMORY_TOKEN when set.
COPY --chmod=0755 <<'EOF' /usr/local/bin/gitmemory-healthcheck
#!/bin/bash
set -eu
exec 3<>"/dev/tcp/127.0.0.1/${GITMEMORY_HEALTH_PORT:-7411}"
{
  printf 'GET /v1/health HTTP/1.0\r\nHost: 127.0.0.1\r\n'
  if [ -n "${GITMEMORY_TOKEN:-}" ]; then
    printf 'Authorization: Bearer %s\r\n' "$GITMEMORY_TOKEN"
  fi
  printf '\r\n'
} >&3
read -r -t 5 _ code _ <&3
[ "$code" = 200 ]
EOF
ENV GITMEMORY_HOME=/data
USER 10001:10001
VOLUME /data
EXPOSE 7411
HEALTHCHECK --interval=30s --timeout=5s --start-period=1m --retries=3 \
    CMD ["gitmemory-healthcheck"]
ENTRYPOINT ["gitmemory"]
# Exec form: "/repos/*" reaches gitmemory unexpanded, and gitmemory expands it.
# Listening on all interfaces needs a token (GITMEMORY_TOKEN or --token-file).
CMD ["daemon", "--listen", "0.0.0.0:7411", "--add", "/repos/*"]
