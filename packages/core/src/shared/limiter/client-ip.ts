import { isIpv4, parseHostAddress, parseIpv6 } from './ip-address.js';

/** What {@link resolveClientIp} needs from a request. */
export interface ClientIpInput {
  /** The socket's remote address, when the runtime exposes one. */
  clientAddress: string | undefined;
  /** The `X-Forwarded-For` header, or `null` when absent. */
  forwardedFor: string | null;
  /** How many proxies in front of the server to believe (0: none). */
  trustProxy: number;
}

/** The client IP when the request does not reveal one; all such requests share its limits. */
export const UNKNOWN_CLIENT_IP = 'unknown';

/**
 * The client's IP address, without port or brackets, or `'unknown'`.
 *
 * With `trustProxy` 0 it is the socket address: `X-Forwarded-For` is anyone's to write. With N,
 * it is the N-th address from the right of `X-Forwarded-For`: each trusted proxy appends the
 * address it saw, so entries left of those are the client's own claims and are never believed.
 * With fewer entries than N, the leftmost (the furthest hop known); with none, the socket address.
 * Malformed entries are skipped.
 */
export function resolveClientIp(input: ClientIpInput): string {
  const socket = input.clientAddress === undefined ? undefined : parseHostAddress(input.clientAddress);
  if (input.trustProxy > 0 && input.forwardedFor !== null) {
    const hops: string[] = [];
    for (const entry of input.forwardedFor.split(',')) {
      const address = parseHostAddress(entry);
      if (address !== undefined) hops.push(address);
    }
    if (hops.length > 0) return hops[Math.max(0, hops.length - input.trustProxy)]!;
  }
  return socket ?? UNKNOWN_CLIENT_IP;
}

/**
 * The key per-IP limits count under: IPv4 as is (IPv4-mapped IPv6 too, as its IPv4), IPv6 by its
 * /64, since one subscriber usually holds a whole /64 and could otherwise rotate through it to
 * escape a limit. Anything else is returned unchanged.
 */
export function ipScopeKey(ip: string): string {
  if (isIpv4(ip)) return ip;
  const groups = parseIpv6(ip);
  if (groups === undefined) return ip;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const high = groups[6]!;
    const low = groups[7]!;
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * The per-IP limit key of each request (docs/api.md#order-of-checks, step 1), remembering the last one
 * worked out: a server's requests come from few addresses at a time (a load balancer, the
 * customer's back end), and parsing an address is as dear as the rest of the step. The answer is
 * the same as {@link ipScopeKey} of {@link resolveClientIp}; `X-Forwarded-For` is read only when
 * it is believed.
 */
export function createClientIpKeys(trustProxy: number): {
  of(clientAddress: string | undefined, request: Request): string;
} {
  let lastAddress: string | undefined;
  let lastForwardedFor: string | null = null;
  let lastKey: string | null = null;
  return {
    of(clientAddress, request) {
      const forwardedFor = trustProxy > 0 ? request.headers.get('x-forwarded-for') : null;
      if (lastKey !== null && clientAddress === lastAddress && forwardedFor === lastForwardedFor) return lastKey;
      lastKey = ipScopeKey(resolveClientIp({ clientAddress, forwardedFor, trustProxy }));
      lastAddress = clientAddress;
      lastForwardedFor = forwardedFor;
      return lastKey;
    },
  };
}
