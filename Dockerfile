# One image for both processes; docker-compose picks the command.
FROM node:26-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY libs ./libs
COPY apps ./apps
# Only the apps (and the libs they reference): the benchmarks are not in the image.
RUN npm ci --no-audit --no-fund && npx tsc -b apps/coordinator apps/subagents apps/cli && npm prune --omit=dev
ENV NODE_ENV=production
# glibc gives each thread (the store's, the topic profile's) malloc arenas of its own; two keep a worker ~20 MB smaller.
ENV MALLOC_ARENA_MAX=2
EXPOSE 3000
CMD ["node", "apps/coordinator/dist/main.js"]
