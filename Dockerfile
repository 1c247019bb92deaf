# PushMedia container image: `docker build -t pushmedia .`
#
# Two stages:
#   build    the official Swift image for Debian bookworm, with the -dev packages of libvips,
#            FFmpeg and dlib; builds the release binary with the Swift runtime linked statically and puts
#            it, stripped, at /build/pushmedia.
#   runtime  debian:bookworm-slim with only the shared libraries that binary loads, tini as PID 1
#            and a non-root user. It takes nothing from `build` but /build/pushmedia, so a binary
#            built elsewhere on bookworm can stand in for the build stage:
#              podman build --target runtime --build-context build=DIR .   (DIR/build/pushmedia)
#            which is what scripts/check-container does (no Swift image can be pulled in CI).
#
# scripts/check-container lints this file with hadolint, proves with ldd and dpkg -S that the
# runtime stage's `apt-get install` list (it parses it from here: keep one package per line)
# provides every library the binary loads, then builds the runtime stage and runs it on Fixtures/.
# See docs/container.md.

# Keep the Swift version the one CI builds with (swift --version), so the checked binary is the
# shipped one.
FROM swift:6.3.1-bookworm AS build

# Debian bookworm is a stable suite: packages get security fixes only, so versions are pinned by
# the suite (the image tag), not per package.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libavcodec-dev \
        libavformat-dev \
        libavutil-dev \
        libdlib-dev \
        libgif-dev \
        libimagequant-dev \
        libjpeg62-turbo-dev \
        libsqlite3-dev \
        libswresample-dev \
        libswscale-dev \
        libvips-dev \
        pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib --product pushmedia \
    && install -D -m 0755 --strip \
        "$(swift build -c release --static-swift-stdlib --product pushmedia --show-bin-path)/pushmedia" \
        /build/pushmedia


FROM debian:bookworm-slim AS runtime

# Exactly the shared libraries pushmedia loads or opens (scripts/check-container proves it), plus
# ca-certificates for HTTPS and tini to reap children and forward signals as PID 1. dlib (the face
# detector) is linked statically, without BLAS and LAPACK, so nothing at all for it: no libdlib19.1
# (nor the 97 MB libdlib-data it depends on), no liblapack3 or libblas3.
# One package per line: scripts/check-container reads this list.
# Pinned by the bookworm suite, not per package (see the build stage).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        ca-certificates \
        libavcodec59 \
        libavformat59 \
        libavutil57 \
        libgif7 \
        libimagequant0 \
        libjpeg62-turbo \
        libsqlite3-0 \
        libswresample4 \
        libswscale6 \
        libvips42 \
        tini \
    && rm -rf /var/lib/apt/lists/*

# A fixed, non-root UID/GID so that volume ownership is predictable. /out and /work belong to it
# (a named volume mounted on /out starts with this ownership); /in is read-only input.
RUN groupadd --gid 10001 pushmedia \
    && useradd --uid 10001 --gid 10001 --no-log-init --home-dir /work --no-create-home \
        --shell /usr/sbin/nologin pushmedia \
    && mkdir -p /in /out /work \
    && chown 10001:10001 /out /work

# Set at build time: --build-arg VERSION=1.2.3 --build-arg SOURCE=<repository URL>. Declared
# after the package and user layers, so a new version does not invalidate their cache.
ARG VERSION=dev
ARG SOURCE=""
LABEL org.opencontainers.image.title="pushmedia" \
      org.opencontainers.image.description="Prepares campaign media (thumbnails, expanded variants, clipping rects, manifest, payloads) for iOS rich push notifications" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="NOASSERTION" \
      org.opencontainers.image.version="${VERSION}"

COPY --from=build /build/pushmedia /usr/local/bin/pushmedia

# Defaults for the container; every PUSHMEDIA_* variable is described in docs/configuration.md.
ENV PUSHMEDIA_OUT=/out \
    PUSHMEDIA_ROOT=/in \
    PUSHMEDIA_METRICS_PORT=9464

VOLUME ["/in", "/out"]
WORKDIR /work
USER 10001:10001
EXPOSE 9464

# Worker mode: healthy while the worker's metrics endpoint answers on localhost.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["pushmedia", "healthcheck"]

ENTRYPOINT ["/usr/bin/tini", "--", "pushmedia"]
CMD ["--help"]
