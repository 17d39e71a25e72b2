import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './public-address';
import { WebhookRefusedError } from './webhook-refused.error';

/** A webhook URL, with what the rules allow it: an allow-listed `host:port` may be loopback and plain http. */
export interface WebhookTarget {
  url: URL;
  /** `host:port` as WEBHOOK_ALLOWED_HOSTS names it (IPv6 in brackets, lower case). */
  hostPort: string;
  allowListed: boolean;
}

const defaultPort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/** The rules a URL must pass before anything is resolved: https (unless allow-listed), no credentials. */
export function webhookTarget(raw: string, allowedHosts: ReadonlySet<string>): WebhookTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookRefusedError('webhook.url is not a URL');
  }
  const hostPort = `${url.hostname.toLowerCase()}:${defaultPort(url)}`;
  const allowListed = allowedHosts.has(hostPort);
  if (url.protocol !== 'https:' && !(allowListed && url.protocol === 'http:')) {
    throw new WebhookRefusedError(`webhook.url must use https (${hostPort} is not in WEBHOOK_ALLOWED_HOSTS)`);
  }
  if (url.username || url.password) throw new WebhookRefusedError('webhook.url must not carry a user name or password');
  return { url, hostPort, allowListed };
}

/** The host as the resolver and the socket take it: without the brackets of an IPv6 literal. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

const NOT_PUBLIC = 'private, loopback, link-local or otherwise special-purpose (docs/webhooks.md lists the ranges)';

/** An IP literal is named as written: whoever wrote it knows it. */
function refuseLiteralUnlessPublic(address: string): void {
  if (!isPublicAddress(address)) throw new WebhookRefusedError(`webhook host ${address} is not a public address: ${NOT_PUBLIC}`);
}

/** A name's addresses are not told: the reason must not map the network behind the service for its callers. */
function refuseUnlessPublic(host: string, addresses: readonly string[]): void {
  if (!addresses.length) throw new WebhookRefusedError(`webhook host ${host} has no address`);
  if (!addresses.every(isPublicAddress)) throw new WebhookRefusedError(`webhook host ${host} resolves to an address that is not public: ${NOT_PUBLIC}`);
}

/**
 * A `lookup` for the socket that connects to a webhook: it resolves as Node does, then refuses the connection
 * if any address is not public. The check runs on the very addresses the socket is given, so a name that
 * resolved to a public address when the run was created and to a private one now (DNS rebinding) is refused.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    try {
      refuseUnlessPublic(hostname, addresses.map((a) => a.address));
    } catch (refused) {
      return callback(refused as NodeJS.ErrnoException, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * Resolves a target that is not allow-listed and refuses it unless every address is public. An IP literal
 * is checked as it is (a socket given one never calls its lookup).
 */
export async function checkResolvesPublic(target: WebhookTarget, timeoutMs: number): Promise<void> {
  if (target.allowListed) return;
  const host = bareHost(target.url);
  if (isIP(host)) return refuseLiteralUnlessPublic(host);
  const addresses = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new WebhookRefusedError(`webhook host ${host} did not resolve within ${timeoutMs} ms`)), timeoutMs);
    dnsLookup(host, { all: true }, (err, all) => {
      clearTimeout(timer);
      if (err) reject(new WebhookRefusedError(`webhook host ${host} does not resolve (${err.code ?? err.message})`));
      else resolve(all.map((a) => a.address));
    });
  });
  refuseUnlessPublic(host, addresses);
}
