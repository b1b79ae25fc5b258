import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/** A TLS client's certificate as the rules see it: whether a trusted CA issued it, and its subject's CN. */
export interface ClientCertificate {
  readonly verified: boolean;
  readonly commonName: string | undefined;
}

/** The certificates of a PEM bundle (--tls-ca). */
export function certificateAuthorities(pem: Buffer): X509Certificate[] {
  return (pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
}

/**
 * The client's certificate on a server TLS socket, checked against `authorities`: issued and
 * signed by one of them, and within its validity period. A socket wrapped by hand (the wire
 * upgrades after SSLRequest) does not get node's own `authorized` verdict, so the check is
 * made here; a chain through intermediate CAs is not followed.
 */
export function clientCertificate(socket: TLSSocket, authorities: readonly X509Certificate[], now = new Date()): ClientCertificate | undefined {
  const raw = socket.getPeerX509Certificate();
  if (raw === undefined) return undefined;
  const inForce = new Date(raw.validFrom) <= now && now <= new Date(raw.validTo);
  const verified = inForce && authorities.some((ca) => raw.checkIssued(ca) && raw.verify(ca.publicKey));
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(raw.subject)?.[1];
  return { verified, commonName: cn };
}
