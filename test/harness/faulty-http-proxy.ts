import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What can go wrong between a client and an S3 server:
 * - `server-error`: a 503 SlowDown, the request never reaching the server;
 * - `reset-before`: the connection reset before the server saw the request;
 * - `reset-after`: the server did the work (a put stored its object) but the answer is lost;
 * - `truncate`: the answer's headers promise a body that stops halfway;
 * - `stall`: no answer at all, until the client gives up;
 * - `slow`: the answer, 150 ms late;
 * - `corrupt-request`: one byte of the request's body flipped on the way (a bad NIC, say).
 */
export type HttpFault = 'server-error' | 'reset-before' | 'reset-after' | 'truncate' | 'stall' | 'slow' | 'corrupt-request';

export interface FaultyHttpProxy {
  readonly endpoint: string;
  /** From now on each request meets a fault with probability `rate`, drawn from `kinds`; undefined: none. */
  setRandomFaults(faults: { rate: number; kinds: readonly HttpFault[] } | undefined): void;
  /** The next requests meet these faults, in order, before any random ones. */
  failNext(...faults: HttpFault[]): void;
  /** Requests seen, and faults met by kind. */
  readonly requests: number;
  readonly faultsMet: ReadonlyMap<HttpFault, number>;
  stop(): Promise<void>;
}

/** An HTTP proxy on loopback in front of `upstreamPort` that injects faults. */
export async function startFaultyHttpProxy(upstreamPort: number): Promise<FaultyHttpProxy> {
  let random: { rate: number; kinds: readonly HttpFault[] } | undefined;
  const queued: HttpFault[] = [];
  const faultsMet = new Map<HttpFault, number>();
  let requests = 0;

  const pick = (): HttpFault | undefined => {
    const q = queued.shift();
    if (q !== undefined) return q;
    if (random === undefined || Math.random() >= random.rate) return undefined;
    return random.kinds[Math.floor(Math.random() * random.kinds.length)];
  };

  const forward = (req: IncomingMessage, res: ServerResponse, fault: HttpFault | undefined): void => {
    const up = request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers });
    up.on('error', () => req.socket.destroy());
    up.on('response', (answer) => {
      if (fault === 'reset-after') {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      if (fault === 'truncate') {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          res.write(body.subarray(0, Math.floor(body.length / 2)), () => req.socket.destroy());
        });
        return;
      }
      const send = () => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      };
      if (fault === 'slow') setTimeout(send, 150);
      else send();
    });
    if (fault !== 'corrupt-request') {
      req.pipe(up);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) body[body.length >> 1] ^= 0xff;
      up.end(body);
    });
  };

  const server = createServer((req, res) => {
    requests++;
    const fault = pick();
    if (fault !== undefined) faultsMet.set(fault, (faultsMet.get(fault) ?? 0) + 1);
    switch (fault) {
      case 'server-error':
        req.resume();
        req.on('end', () => {
          res.writeHead(503, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>injected by the test</Message></Error>');
        });
        return;
      case 'reset-before':
        req.socket.destroy();
        return;
      case 'stall':
        req.resume();
        return;
      default:
        forward(req, res, fault);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    setRandomFaults(f) { random = f; },
    failNext(...faults) { queued.push(...faults); },
    get requests() { return requests; },
    faultsMet,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
