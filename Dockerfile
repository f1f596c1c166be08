# syntax=docker/dockerfile:1
#
# reviewbot: a static binary in a distroless, non-root image.
#
#   docker build -t reviewbot .
#   docker run --rm -p 8080:8080 \
#     -e GITHUB_APP_ID=123456 -e GITHUB_WEBHOOK_SECRET=... \
#     -e GITHUB_APP_PRIVATE_KEY_FILE=/secrets/private-key.pem \
#     -v "$PWD/private-key.pem:/secrets/private-key.pem:ro" reviewbot
#
# The image has no shell and no curl, so it declares no HEALTHCHECK: probe
# GET /healthz (liveness) and GET /readyz (readiness) on port 8080 from the
# orchestrator, as deploy/kubernetes/deployment.yaml does.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
      -ldflags="-s -w" -o /out/reviewbot ./cmd/reviewbot

# distroless/static: CA certificates and tzdata, nothing else; "nonroot"
# is uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/reviewbot /usr/local/bin/reviewbot
USER 65532:65532
ENV REVIEWBOT_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/reviewbot"]
CMD ["serve"]
