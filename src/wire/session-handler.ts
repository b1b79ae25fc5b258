// The contract lives in src/common so the session and the executor can name its
// types without importing the protocol server; the wire re-exports it as its own.
export type * from '../common/session-handler.js';
