# syntax=docker/dockerfile:1
#
# reviewbot: a static binary in a distroless, non-root image.
#
#   docker build --build-arg VERSION=v1.2.0 -t reviewbot .
#   docker run --rm -p 8080:8080 \
#     -e GITHUB_APP_ID=123456 -e GITHUB_WEBHOOK_SECRET=... \
#     -e GITHUB_APP_PRIVATE_KEY_FILE=/secrets/private-key.pem \
#     -v "$PWD/private-key.pem:/secrets/private-key.pem:ro" reviewbot
#
# The image has no shell and no curl, so it declares no HEALTHCHECK: probe
# GET /healthz (liveness) and GET /readyz (readiness) on port 8080 from the
# orchestrator, as deploy/kubernetes/deployment.yaml does.

# The base images. A release build pins both by digest: the release
# workflow (.github/workflows/release.yml) resolves each tag to the digest
# it points at when it builds, passes name@sha256:... here and records it in
# the image's labels. A local build uses the tags unless given pinned
# references the same way, e.g.
#   --build-arg GO_IMAGE=golang:1.26-bookworm@sha256:<digest>
# (docker buildx imagetools inspect golang:1.26-bookworm prints the digest).
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

# The build runs on the builder's platform and cross-compiles for the
# image's (a multi-platform build needs no emulation).
FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
ARG TARGETOS TARGETARCH
# The version `reviewbot version` reports (the build has no .git to read
# it from): the release tag in a release build.
ARG VERSION=devel
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X main.buildVersion=${VERSION}" -o /out/reviewbot ./cmd/reviewbot

# distroless/static: CA certificates and tzdata, nothing else; "nonroot"
# is uid 65532.
FROM ${RUNTIME_IMAGE}
ARG VERSION=devel
LABEL org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/reviewbot /usr/local/bin/reviewbot
USER 65532:65532
ENV REVIEWBOT_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/reviewbot"]
CMD ["serve"]
