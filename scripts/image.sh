#!/usr/bin/env bash
# npm run image: builds the service's image from the Dockerfile, tagged vehicle-depreciation:latest
# (IMAGE_TAG to change it) and with package.json's version (vehicle-depreciation:1.0.0), with podman,
# or docker where podman is missing (IMAGE_ENGINE to choose).
#
# Where the Dockerfile's public base images can be neither found nor pulled (a machine that reaches
# Debian's and npm's package registries only, such as this project's CI), it builds stand-ins for
# them from Debian's packages, as root with debootstrap, and says so in one line:
#   - for RUNTIME_IMAGE (Debian 12 slim): `debootstrap --variant=minbase bookworm`, without package
#     lists, caches, documentation or locales, as the slim image has none;
#   - for BUILD_IMAGE (Node and npm on Debian 12): that, plus the pinned Node
#     (node_modules/node/bin/node) and the npm running this script.
# They are kept (localhost/vehicle-depreciation-stand-in/...), so a later build reuses them.
#
# Writes build/image/: sbom.cdx.json (`npm sbom`, CycloneDX: the packages the image holds, written
# in its build stage) and image.json (what was built: id, size, seconds, bases).
set -euo pipefail
cd "$(dirname "$0")/.."

TAG=${IMAGE_TAG:-vehicle-depreciation:latest}
OUT=build/image
STAND_IN=localhost/vehicle-depreciation-stand-in
CA_FILE=/etc/ssl/certs/ca-certificates.crt
mkdir -p "$OUT"

fail() {
  echo "npm run image: $*" >&2
  exit 1
}

# The Dockerfile's defaults, so that they are written in one place.
dockerfile_arg() { sed -n "s/^ARG $1=//p" Dockerfile; }
BUILD_IMAGE=${BUILD_IMAGE:-$(dockerfile_arg BUILD_IMAGE)}
RUNTIME_IMAGE=${RUNTIME_IMAGE:-$(dockerfile_arg RUNTIME_IMAGE)}

engine_name=${IMAGE_ENGINE:-$(command -v podman >/dev/null && echo podman || echo docker)}
command -v "$engine_name" >/dev/null ||
  fail "needs podman or docker (Debian: apt-get install podman runc)"
engine=("$engine_name")
if [ "$engine_name" = podman ]; then
  bash scripts/podman-host.sh
  # Debian's crun cannot run containers under cgroup v1 (no cgroup.controllers at the top).
  if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
    command -v runc >/dev/null || fail "podman needs runc under cgroup v1 (apt-get install runc)"
    engine+=(--runtime runc)
  fi
fi

has_image() { "${engine[@]}" image inspect "$1" >/dev/null 2>&1; }
# Found here, or pulled (a registry that cannot be reached fails at once).
obtain() { has_image "$1" || timeout 600 "${engine[@]}" pull -q "$1" >/dev/null 2>&1; }

# Debian 12 from Debian's packages, trimmed as the slim image is, imported as $1.
debian_stand_in() {
  [ "$(id -u)" = 0 ] || fail "building a stand-in base needs root (debootstrap); or make $RUNTIME_IMAGE pullable"
  command -v debootstrap >/dev/null || fail "building a stand-in base needs debootstrap (apt-get install debootstrap)"
  local root
  root=$(mktemp -d /var/tmp/vehicle-depreciation-rootfs.XXXXXX)
  if ! debootstrap --variant=minbase bookworm "$root" >"$OUT/debootstrap.log" 2>&1; then
    rm -rf "$root"
    fail "debootstrap failed: see $OUT/debootstrap.log"
  fi
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/{doc,man,info,locale}/*
  tar -C "$root" -c . | "${engine[@]}" import --quiet --change 'CMD ["bash"]' - "$1" >/dev/null
  rm -rf "$root"
}

# $2 plus the pinned Node and this script's npm, laid out as the official Node images lay them out.
node_stand_in() {
  local context npm_dir
  npm_dir=$(cd "$(dirname "$(readlink -f "${npm_execpath:-$(command -v npm)}")")/.." && pwd -P)
  [ -f "$npm_dir/package.json" ] || fail "cannot find npm's own folder (from $npm_dir)"
  context=$(mktemp -d)
  mkdir -p "$context/usr/local/bin" "$context/usr/local/lib/node_modules"
  cp node_modules/node/bin/node "$context/usr/local/bin/node"
  # Node 26 links libatomic (Debian's libatomic1), which the official Node images carry.
  local atomic
  atomic=$(readlink -f "$(ldconfig -p | sed -n 's/^\tlibatomic.so.1 .* => //p' | head -1)")
  [ -f "$atomic" ] || fail "the stand-in build base needs libatomic.so.1 (apt-get install libatomic1)"
  case "$atomic" in /usr/*) ;; *) fail "libatomic.so.1 is not under /usr ($atomic)" ;; esac
  mkdir -p "$context$(dirname "$atomic")"
  cp "$atomic" "$context$(dirname "$atomic")/libatomic.so.1"
  cp -a "$npm_dir" "$context/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$context/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$context/usr/local/bin/npx"
  printf 'FROM %s\nCOPY usr /usr\nCMD ["node"]\n' "$2" >"$context/Containerfile"
  "${engine[@]}" build -q -t "$1" -f "$context/Containerfile" "$context" >/dev/null
  rm -rf "$context"
}

build_base=$BUILD_IMAGE
runtime_base=$RUNTIME_IMAGE
stand_ins=false
if ! obtain "$RUNTIME_IMAGE" || ! obtain "$BUILD_IMAGE"; then
  [ -x node_modules/node/bin/node ] || fail "the stand-in build base needs the pinned Node: run npm ci first"
  pinned=$(node_modules/node/bin/node --version)
  runtime_base=$STAND_IN/debian:bookworm-slim
  build_base=$STAND_IN/node:${pinned#v}-bookworm-slim
  stand_ins=true
  missing=()
  has_image "$runtime_base" || missing+=("$runtime_base")
  has_image "$build_base" || missing+=("$build_base")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Cannot pull $BUILD_IMAGE or $RUNTIME_IMAGE: building stand-in bases from Debian's packages (debootstrap --variant=minbase bookworm, about a minute): ${missing[*]}"
  else
    echo "Cannot pull $BUILD_IMAGE or $RUNTIME_IMAGE: building on the stand-in bases built from Debian's packages before ($runtime_base, $build_base)"
  fi
  has_image "$runtime_base" || debian_stand_in "$runtime_base"
  has_image "$build_base" || node_stand_in "$build_base" "$runtime_base"
fi

build=(build --tag "$TAG" --file Dockerfile
  --build-arg "BUILD_IMAGE=$build_base" --build-arg "RUNTIME_IMAGE=$runtime_base")
if [ "$engine_name" = podman ]; then
  # The docker format keeps HEALTHCHECK (OCI images have no field for it).
  build+=(--format docker)
  # npm in the build trusts this machine's CAs (a network that intercepts TLS), from a read-only
  # mount that is never part of an image.
  [ -f "$CA_FILE" ] && build+=(--volume /etc/ssl/certs:/etc/ssl/certs:ro --build-arg "NPM_CAFILE=$CA_FILE")
  # This machine's npm cache: what `npm ci` here fetched is not fetched again. Mounted, not copied.
  cache=$(npm config get cache)
  [ -d "$cache" ] && build+=(--volume "$cache:/npm-cache" --build-arg NPM_CACHE=/npm-cache)
fi
# Each line of the log after the seconds since the start, to see where a slow build spends them.
if ! "${engine[@]}" "${build[@]}" . 2>&1 |
  while IFS= read -r line; do printf '%4ss %s\n' "$SECONDS" "$line"; done >"$OUT/build.log"; then
  tail -n 30 "$OUT/build.log" >&2
  fail "the build failed: see $OUT/build.log"
fi
# Also tagged with package.json's version, the tag deploy/kubernetes/deployment.yaml names.
"${engine[@]}" tag "$TAG" "${TAG%:*}:$(node -p "require('./package.json').version")"
seconds=$SECONDS

# The image's own SBOM, written in its build stage (Dockerfile), copied out beside the build.
container=$("${engine[@]}" create "$TAG")
"${engine[@]}" cp "$container:/app/sbom.cdx.json" "$OUT/sbom.cdx.json"
"${engine[@]}" rm "$container" >/dev/null 2>&1
id=$("${engine[@]}" image inspect --format '{{.Id}}' "$TAG")
size=$("${engine[@]}" image inspect --format '{{.Size}}' "$TAG")
cat >"$OUT/image.json" <<JSON
{
  "tag": "$TAG",
  "id": "$id",
  "sizeBytes": $size,
  "buildSeconds": $seconds,
  "engine": "$engine_name",
  "buildImage": "$build_base",
  "runtimeImage": "$runtime_base",
  "standInBases": $stand_ins
}
JSON
echo "Built $TAG in $seconds s: $((size / 1000000)) MB (SBOM: $OUT/sbom.cdx.json)"
