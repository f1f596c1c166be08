#!/usr/bin/env bash
# Builds the release archives of reviewbot, one per platform, each holding
# the static binary with the version stamped in, and checksums.txt (SHA-256,
# the sha256sum format) beside them. The release workflow
# (.github/workflows/release.yml) runs it; the GitHub Action (action.yml)
# downloads these names and checks them against checksums.txt.
#
#   deploy/release/build.sh VERSION OUTDIR [GOOS/GOARCH ...]
#
# VERSION is the release tag (v1.2.0); the platforms default to linux and
# darwin on amd64 and arm64. The archives are byte-for-byte reproducible
# from the same source and toolchain.
set -euo pipefail

version=${1:?usage: build.sh VERSION OUTDIR [GOOS/GOARCH ...]}
out=${2:?usage: build.sh VERSION OUTDIR [GOOS/GOARCH ...]}
shift 2
platforms=("$@")
if [ ${#platforms[@]} -eq 0 ]; then
  platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
fi
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "build.sh: version \"$version\" is not a release tag (vMAJOR.MINOR.PATCH)" >&2
  exit 2
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in "${platforms[@]}"; do
  goos=${p%/*}
  goarch=${p#*/}
  name="reviewbot_${version#v}_${goos}_${goarch}"
  mkdir -p "$work/$name"
  (cd "$root" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X main.buildVersion=$version" -o "$work/$name/reviewbot" ./cmd/reviewbot)
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/$name" -cf - reviewbot |
    gzip -9n > "$out/$name.tar.gz"
  echo "built $name.tar.gz"
done
(cd "$out" && sha256sum reviewbot_*.tar.gz > checksums.txt)
