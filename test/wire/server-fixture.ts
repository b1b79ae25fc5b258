import type { Logger } from 'pino';
import { startWireServer, type WireServer } from '../../src/wire/server.js';
import type { AuthProvider } from '../../src/wire/auth/auth-provider.js';
import { FakeSession, fakeAuth, newFakeState, type FakeState } from './fake-session.js';

export interface Fixture {
  readonly server: WireServer;
  readonly state: FakeState;
  readonly port: number;
  /** Waits (briefly) for clients' Terminate to be processed, then closes the server. */
  stop(): Promise<void>;
}

export async function startFakeServer(opts: { auth?: AuthProvider; maxMessageBytes?: number; logger?: Logger } = {}): Promise<Fixture> {
  const state = newFakeState();
  const server = await startWireServer({
    host: '127.0.0.1',
    port: 0,
    auth: opts.auth ?? fakeAuth(),
    createSession: (info) => new FakeSession(state, info),
    ...(opts.maxMessageBytes === undefined ? {} : { maxMessageBytes: opts.maxMessageBytes }),
    ...(opts.logger === undefined ? {} : { logger: opts.logger }),
  });
  return {
    server,
    state,
    port: server.port,
    async stop() {
      for (let i = 0; i < 100 && state.closed < state.started; i++) await new Promise((r) => setTimeout(r, 20));
      await server.close({ drainMs: 200 });
    },
  };
}
