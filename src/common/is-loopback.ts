/** Whether a peer address is this machine (IPv4 127/8, IPv6 ::1, or IPv4 mapped into IPv6): the peers Floe trusts by default. */
export function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('::ffff:127.') || address.startsWith('127.') || address === 'localhost';
}
