/**
 * How a coordinator or worker process is started so its memory stays bounded. Uncapped, V8 sizes the heap by the
 * machine's memory and lets a question's garbage grow it to several times what is live before collecting; capped,
 * it collects sooner at no measurable cost (100k passages: worker 457 -> 378 MB, questions as fast). A 4 MB young
 * generation (V8's default is 16) holds a question's short-lived garbage in less (1M passages: worker 421 -> 389 MB,
 * coordinator 506 -> 450 MB, ingest and questions as fast). Two malloc arenas: each thread (the store's, the topic
 * profile's) would otherwise get arenas of its own. All act only when a process starts, so a launcher sets them for
 * its children; the Dockerfile and docker-compose.yml set the same.
 */
export const SERVICE_PROCESS_DEFAULTS = { NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=4', MALLOC_ARENA_MAX: '2' } as const;

/** A service process's environment: `env` with the defaults above for what it leaves unset (an empty value is a choice). */
export function serviceProcessEnv<E extends Record<string, string | undefined>>(env: E): E & Record<keyof typeof SERVICE_PROCESS_DEFAULTS, string> {
  const out: Record<string, string | undefined> = { ...env };
  for (const [key, value] of Object.entries(SERVICE_PROCESS_DEFAULTS)) out[key] ??= value;
  return out as E & Record<keyof typeof SERVICE_PROCESS_DEFAULTS, string>;
}
