/**
 * Text forms of IP addresses, parsed without `node:net` so that the core runs on any runtime.
 */

const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const HEXTET = /^[0-9a-f]{1,4}$/i;

/** Whether `text` is a dotted-quad IPv4 address (no leading zeros, which some parsers read as octal). */
export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/**
 * The eight 16-bit groups of an IPv6 address, or `undefined` if `text` is not one. Accepts `::`
 * compression, a dotted IPv4 tail (`::ffff:1.2.3.4`) and a zone (`fe80::1%eth0`, ignored).
 */
export function parseIpv6(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = groups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1]!, true) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The groups of one side of `::`; a dotted IPv4 may only end the address, as two groups. */
function groups(side: string, endsAddress: boolean): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const result: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (HEXTET.test(part)) {
      result.push(Number.parseInt(part, 16));
    } else if (endsAddress && i === parts.length - 1 && isIpv4(part)) {
      const [a, b, c, d] = part.split('.').map(Number) as [number, number, number, number];
      result.push((a << 8) | b, (c << 8) | d);
    } else {
      return undefined;
    }
  }
  return result;
}

/**
 * The address in one `X-Forwarded-For` entry or socket address, without port, brackets or zone:
 * `1.2.3.4:5678` → `1.2.3.4`, `[::1]:443` → `::1`. IPv6 comes back lowercase. `undefined` when
 * the text is not an address.
 */
export function parseHostAddress(text: string): string | undefined {
  const value = text.trim();
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return undefined;
    const rest = value.slice(close + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    return ipv6Text(value.slice(1, close));
  }
  const colons = value.split(':').length - 1;
  if (colons === 0) return isIpv4(value) ? value : undefined;
  if (colons === 1) {
    // Only IPv4 carries a port without brackets; a bare IPv6 has at least two colons.
    const [host, port] = value.split(':') as [string, string];
    return isIpv4(host) && /^\d{1,5}$/.test(port) ? host : undefined;
  }
  return ipv6Text(value);
}

/** The IPv6 text lowercased and without its zone, if it parses. */
function ipv6Text(text: string): string | undefined {
  if (parseIpv6(text) === undefined) return undefined;
  const zone = text.indexOf('%');
  return (zone === -1 ? text : text.slice(0, zone)).toLowerCase();
}
