/**
 * Whether this process exports traces, read from the standard OpenTelemetry variables: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER=otlp. Unset (or OTEL_TRACES_EXPORTER=none, OTEL_SDK_DISABLED=true), no SDK is loaded and
 * every span below is the API's no-op.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return exporters.includes('otlp') || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
