# cronql's container image (docs/operations.md, "Containers and Kubernetes").
#
#   docker build -t cronql .
#   docker run --init -p 4000:4000 -v cronql-data:/data cronql          # embedded PostgreSQL
#   docker run -p 4000:4000 -e DATABASE_URL=postgres://… cronql          # your PostgreSQL
#
# A glibc base: the embedded PostgreSQL's binaries are built for glibc and do not run on musl
# (Alpine). BASE_IMAGE may name another Debian-like base that has Node on its PATH.
ARG BASE_IMAGE=node:24-bookworm-slim

# --- build: the whole toolchain, then the package exactly as `npm pack` makes it -------------
FROM ${BASE_IMAGE} AS build
WORKDIR /src
# Dependencies first, so that a source change reuses this layer. --ignore-scripts: the sources
# are not here yet, so the package's own lifecycle scripts cannot run.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build \
 && mkdir /pack \
 && npm pack --ignore-scripts --pack-destination /pack \
 && mv /pack/cronql-*.tgz /pack/cronql.tgz \
 && cp package-lock.json /pack/package-lock.json

# --- runtime: the packed package and its production dependencies, nothing else -------------
FROM ${BASE_IMAGE}
# A user of its own, by number, so that Kubernetes' runAsNonRoot can check it.
RUN groupadd --system --gid 10001 cronql \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin cronql \
 && mkdir -p /app /data \
 && chown 10001:10001 /app /data
WORKDIR /app
COPY --from=build --chown=10001:10001 /pack/ /tmp/pack/
USER 10001:10001
# The tarball's files plus the lock file (npm never packs it), then the locked production
# dependencies: the versions the tests ran with. --ignore-scripts, then `npm rebuild`: the
# dependencies' install scripts run (the embedded PostgreSQL's links its shared libraries; without
# it initdb cannot load libpq), the package's own do not (`prepare` builds from sources it does not ship).
# npm's cache in /tmp, removed: not in the user's HOME (/data, a volume's initial content).
RUN tar -xzf /tmp/pack/cronql.tgz --strip-components=1 -C /app \
 && cp /tmp/pack/package-lock.json /app/ \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --cache /tmp/npm-cache \
 && npm rebuild --cache /tmp/npm-cache \
 && rm -rf /tmp/npm-cache /tmp/pack

# Listen on every interface of the container (the default, 127.0.0.1, is unreachable from
# outside it); the embedded database and the generated admin token go to /data (mount a volume).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    CRONQL_DATA_DIR=/data
EXPOSE 4000

# Ready = the database answers and the runtime is armed (src/http/health.ts). Slim images have
# no curl: Node's own fetch, bounded, exits 1 on anything but a 2xx.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/readyz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Exec form: node is PID 1 and receives SIGTERM itself; src/main.ts handles it (stop firing,
# stop serving, drain the runs in flight within CRONQL_SHUTDOWN_GRACE_MS, exit 0). Give the
# container at least that grace plus 15 s to stop (its last-resort exit) before a SIGKILL.
# With the embedded PostgreSQL, run with --init (or compose's `init: true`): its server
# processes then have a reaper when they exit.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
