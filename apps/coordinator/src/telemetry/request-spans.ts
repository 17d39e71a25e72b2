import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

/**
 * A server span per HTTP request, the parent of what the request starts (a run's first job among them). A caller's
 * `traceparent` header is honoured, so a client's own trace continues here. Mounted only while tracing is on.
 */
export function requestSpans(): (req: Request, res: Response, next: NextFunction) => void {
  const tracer = trace.getTracer('orrery');
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } }, parent);
    res.once('close', () => {
      // The route is known once a handler matched it: `POST /runs`, not the path with its ids.
      const route = (req.route as { path?: string } | undefined)?.path;
      if (typeof route === 'string') {
        span.updateName(`${req.method} ${req.baseUrl}${route}`);
        span.setAttribute('http.route', `${req.baseUrl}${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
