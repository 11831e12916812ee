import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { TargetError } from './target.js';

/**
 * The SSRF guard of the `http` target: a URL may be fetched only if every address its host
 * resolves to is public unicast. The `http` target then connects to an address the guard
 * checked (see pinnedDispatcher in builtin/http.ts), never resolving the name a second time, so
 * a hostile resolver cannot answer a public address to the check and a private one to the
 * connection (DNS rebinding).
 */

/** One resolved address, as `dns.promises.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses; injectable so tests never touch real DNS. */
export type AddressLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: AddressLookup = (hostname) => dns.lookup(hostname, { all: true });

/** Names blocked before resolution: they only ever point at instance metadata. */
const BLOCKED_NAMES = new Set(['metadata.google.internal', 'metadata.goog']);

/** Metadata endpoints named in the message; the ranges below already block them. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

/**
 * Why an address may not be called, or `undefined` if it is public unicast. Everything that is
 * not plain unicast fails closed, including IPv6 transition ranges (6to4, Teredo, NAT64) that
 * can embed a private IPv4 address.
 */
export function blockedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) ip = ip.toIPv4Address();
  if (METADATA_ADDRESSES.has(ip.toString())) return 'cloud metadata endpoint';
  const range = ip.range();
  if (range !== 'unicast') return range;
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291) is unicast to ipaddr.js.
  if (ip instanceof ipaddr.IPv6 && ip.parts.slice(0, 6).every((part) => part === 0)) {
    return 'IPv4-compatible IPv6';
  }
  return undefined;
}

/** The host of a URL without IPv6 brackets or a trailing dot, lower-cased. */
function hostOf(url: URL): string {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/**
 * Throws `HTTP_BLOCKED` if the URL's host is or resolves to any non-public address, and
 * `HTTP_NETWORK` if it does not resolve. Returns the addresses it checked.
 */
export async function assertPublicUrl(
  url: URL,
  lookup: AddressLookup = systemLookup,
  blockedReason: (address: string) => string | undefined = blockedAddressReason,
): Promise<string[]> {
  const host = hostOf(url);
  if (BLOCKED_NAMES.has(host)) {
    throw new TargetError('HTTP_BLOCKED', `http: ${host} is a cloud metadata endpoint`, { url: url.href });
  }
  const literal = ipaddr.isValid(host);
  let addresses: string[];
  if (literal) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host)).map((a) => a.address);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TargetError('HTTP_NETWORK', `http: cannot resolve ${host}${code ? ` (${code})` : ''}`, {
        url: url.href,
      });
    }
    if (addresses.length === 0) {
      throw new TargetError('HTTP_NETWORK', `http: ${host} resolves to no address`, { url: url.href });
    }
  }
  // Any one bad address blocks: the connection may use whichever the resolver lists first.
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (reason) {
      throw new TargetError(
        'HTTP_BLOCKED',
        `http: ${literal ? address : `${host} resolves to ${address}, which`} is not a public address ` +
          `(${reason}); set CRONQL_HTTP_ALLOW_PRIVATE=true to allow it`,
        { url: url.href, address, reason },
      );
    }
  }
  return addresses;
}
