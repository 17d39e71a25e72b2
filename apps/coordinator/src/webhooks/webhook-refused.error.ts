/** A webhook target the SSRF rules refuse: at request time a 400, at delivery the end of its retries. */
export class WebhookRefusedError extends Error {
  override readonly name = 'WebhookRefusedError';
}
