import { describe, expect, it } from 'vitest';
import { FollowupRequestSchema, ResearchRequestSchema } from './research-request';
import { formatZodError } from './validation';
import { WebhookRequestSchema } from './webhook';

describe('WebhookRequestSchema', () => {
  // Each of these once reached `new URL` in a later check and threw, so the request was a 500.
  it.each(['not a url', '', 'http://', 'https://[::1%25lo]/', 'http://a:99999/', 'https://%zz/', 'https:/x.example', 'ftp://example.com/h'])(
    'refuses %j as a validation issue naming webhook.url, never by throwing',
    (url) => {
      for (const parse of [() => ResearchRequestSchema.safeParse({ topic: 'kestrels', webhook: { url } }), () => FollowupRequestSchema.safeParse({ question: 'kestrels', webhook: { url } })]) {
        const r = parse();
        expect(r.success).toBe(false);
        expect(formatZodError(r.error!)).toBe('webhook.url: webhook.url must be an absolute http(s) URL');
      }
    },
  );

  it('refuses credentials and over-long URLs, and accepts http(s) URLs', () => {
    expect(formatZodError(WebhookRequestSchema.safeParse({ url: 'https://u:p@example.com/h' }).error!)).toMatch(/^url: webhook.url must not carry a user name or password$/);
    expect(formatZodError(WebhookRequestSchema.safeParse({ url: `https://example.com/${'a'.repeat(2048)}` }).error!)).toMatch(/at most 2048/);
    for (const url of ['https://hooks.example.com/orrery?x=1', 'http://127.0.0.1:8080/h', 'https://[2606:4700::1]/h']) expect(WebhookRequestSchema.parse({ url })).toEqual({ url });
  });
});
