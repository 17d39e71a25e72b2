import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { inSpan, SpanKind } from '@orrery/runtime';
import { bareHost, checkResolvesPublic, publicOnlyLookup, type WebhookTarget } from './webhook-target';

export interface WebhookResponse {
  status: number;
}

/**
 * One POST to a webhook. A target that is not allow-listed connects only through `publicOnlyLookup` (an IP
 * literal is checked here, since a socket given one looks nothing up), on a connection of its own (no agent
 * pool whose sockets another lookup opened). Redirects are never followed: a 3xx is a failed delivery.
 */
export function sendWebhook(target: WebhookTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<WebhookResponse> {
  const { url } = target;
  // An HTTP client span (https://opentelemetry.io/docs/specs/semconv/http/http-spans/); the query is left out of
  // url.full, since a receiver's URL may carry a token there.
  const attributes = {
    'http.request.method': 'POST',
    'server.address': bareHost(url),
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'url.full': `${url.origin}${url.pathname}`,
  };
  return inSpan(
    'POST',
    attributes,
    async (span) => {
      const res = await post(target, body, headers, timeoutMs);
      span.setAttribute('http.response.status_code', res.status);
      if (res.status >= 400) span.setAttribute('error.type', String(res.status));
      return res;
    },
    SpanKind.CLIENT,
  );
}

async function post(target: WebhookTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<WebhookResponse> {
  const { url } = target;
  if (!target.allowListed && isIP(bareHost(url))) await checkResolvesPublic(target, timeoutMs);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<WebhookResponse>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        timeout: timeoutMs,
        ...(target.allowListed ? {} : { lookup: publicOnlyLookup }),
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'orrery-webhooks/1', ...headers },
      },
      (res) => {
        // The answer's body is not read beyond draining it: a receiver has nothing to tell the sender.
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
