# One image for both processes; docker-compose picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY libs ./libs
COPY apps ./apps
# Only the apps (and the libs they reference): the benchmarks are not in the image.
RUN npm ci --no-audit --no-fund && npx tsc -b apps/coordinator apps/subagents apps/cli && npm prune --omit=dev
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "apps/coordinator/dist/main.js"]
