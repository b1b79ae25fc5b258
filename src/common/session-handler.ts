/**
 * The contract between the protocol server (src/wire) and the engine session
 * (src/session). The wire knows bytes, message order, portals, formats and
 * ReadyForQuery; the session knows SQL, transactions and tables. Neither reaches
 * into the other: the wire never parses SQL, the session never sees a message.
 *
 * Values cross this boundary in the canonical form documented in
 * src/common/sql-type.ts; the wire encodes them as text or binary by type OID.
 */

/** What the client sent in its StartupMessage, plus where it came from. */
export interface StartupInfo {
  readonly user: string;
  readonly database: string;
  readonly parameters: Readonly<Record<string, string>>;
  readonly remoteAddress: string;
  readonly processId: number;
  /** The client's TCP port (pg_stat_activity.client_port); absent for a socket without one. */
  readonly remotePort?: number;
  /** When the client connected, in microseconds since the epoch (pg_stat_activity.backend_start). */
  readonly connectedAtMicros?: bigint;
}

/** A NOTIFY delivered to a listening session (NotificationResponse). */
export interface Notification {
  /** The notifying session's process id. */
  readonly processId: number;
  readonly channel: string;
  readonly payload: string;
}

/** One RowDescription field, as PostgreSQL fills it. */
export interface ColumnDescription {
  readonly name: string;
  readonly tableOid: number;
  readonly columnNumber: number;
  readonly typeOid: number;
  readonly typeSize: number;
  readonly typeModifier: number;
  /** The built-in type whose codec writes the values, when typeOid is one the wire has none for (an enum's labels are text). */
  readonly codecOid?: number;
}

/** A column of a result batch: anything that yields canonical values by row index (null for NULL). */
export interface ColumnReader {
  get(row: number): unknown;
}

/** Rows travel in batches so the engine can hand over columnar data without building row objects. */
export interface RowBatch {
  readonly numRows: number;
  readonly columns: readonly ColumnReader[];
}

/** A notice to send to the client before the statement completes (NoticeResponse). */
export interface Notice {
  readonly severity: 'NOTICE' | 'WARNING' | 'INFO' | 'DEBUG' | 'LOG';
  readonly sqlstate: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
}

/** Receives COPY FROM STDIN data; the session parses the text/CSV/binary format itself. */
export interface CopyInSink {
  write(chunk: Uint8Array): Promise<void>;
  /** CopyDone: returns the command tag, e.g. "COPY 42". */
  finish(): Promise<string>;
  /** CopyFail or connection loss: nothing written may become visible. */
  fail(reason: string): Promise<void>;
  /** Binary format: the wire decodes the PGCOPY stream with its codecs (by `columnOids`) and hands over rows of canonical values instead of bytes. */
  writeRows?(rows: readonly (readonly unknown[])[]): Promise<void>;
}

/**
 * One statement's outcome. The wire turns these into messages:
 *  rows → RowDescription (simple query, or Describe) + DataRow* + CommandComplete(tag(rowCount))
 *  command → CommandComplete(tag)        empty → EmptyQueryResponse
 *  copyIn → CopyInResponse, then CopyData* feeds the sink
 *  copyOut → CopyOutResponse + CopyData(chunk)* + CopyDone + CommandComplete(tag)
 */
export type StatementResult =
  | {
      readonly kind: 'rows';
      readonly columns: readonly ColumnDescription[];
      readonly batches: AsyncIterable<RowBatch>;
      /**
       * Built after the last row, e.g. (n) => `SELECT ${n}` or `FETCH ${n}`. n is the number of
       * rows sent: all of them in a simple query; for a portal read with row-limited Executes,
       * those of the final Execute, as PostgreSQL reports it.
       */
      readonly commandTag: (rowCount: number) => string;
    }
  | { readonly kind: 'command'; readonly tag: string }
  | { readonly kind: 'empty' }
  | {
      readonly kind: 'copyIn';
      readonly format: 'text' | 'binary';
      readonly columnCount: number;
      readonly sink: CopyInSink;
      /** Binary format: each column's type OID, for the wire's codecs. */
      readonly columnOids?: readonly number[];
    }
  | {
      readonly kind: 'copyOut';
      readonly format: 'text' | 'binary';
      readonly columnCount: number;
      readonly chunks: AsyncIterable<Uint8Array>;
      /** n counts newline bytes (text format) or chunks (binary); a session that knows the row count may ignore it. */
      readonly commandTag: (rowCount: number) => string;
      /** Binary format: the rows, which the wire encodes with its codecs (by `columnOids`) between the PGCOPY header and trailer; `chunks` is then unused. */
      readonly rowBatches?: AsyncIterable<RowBatch>;
      readonly columnOids?: readonly number[];
    }
  | {
      /** Replication streaming (START_REPLICATION): CopyBothResponse, then CopyData both ways until `run` returns; then CopyDone and CommandComplete(tag). */
      readonly kind: 'copyBoth';
      readonly run: (channel: CopyBothChannel, signal: AbortSignal) => Promise<void>;
      readonly commandTag: string;
    };

/**
 * The two directions of a CopyBoth stream, as the wire gives them to the session. The
 * payloads are the replication sub-protocol's messages (XLogData, keepalives, status
 * updates); the wire frames them as CopyData and knows nothing of their content.
 */
export interface CopyBothChannel {
  /** Queues one CopyData message for the client. */
  send(data: Uint8Array): void;
  /** Writes what is queued, waiting while the socket is full. */
  flush(): Promise<void>;
  /**
   * The client's next CopyData payload; 'done' once the client sent CopyDone; 'waited' when
   * `wait` fired first (nothing consumed). Throws on CopyFail, a cancel, or a vanished client.
   */
  receive(wait: AbortSignal): Promise<Uint8Array | 'done' | 'waited'>;
}

/**
 * Side effects the wire must relay: ParameterStatus after SET, NoticeResponse.
 * The wire also reads the TimeZone value reported here to write timestamptz text.
 */
export interface SessionEvents {
  parameterStatus(name: string, value: string): void;
  notice(notice: Notice): void;
  /** Interrupts the connection's running statement, as its CancelRequest would (pg_cancel_backend). */
  cancel?(): void;
  /** Ends the connection with FATAL 57P01, interrupting what it runs (pg_terminate_backend). */
  terminate?(): void;
  /** Queues a NotificationResponse; the wire sends it once the session is outside a transaction block. */
  notification?(notification: Notification): void;
}

/** A parsed statement (extended protocol). The wire hands the same object back to bind(), so a session may extend it. */
export interface PreparedStatement {
  /** Parameter type OIDs, with the client's unspecified (0) ones resolved. */
  readonly paramTypeOids: readonly number[];
  /** The built-in types whose codecs decode the parameters, where a type OID has none (an enum's labels are text). */
  readonly paramCodecOids?: readonly number[];
  /** Result columns, or null when the statement returns no rows (NoData). */
  readonly columns: readonly ColumnDescription[] | null;
}

/** A bound portal: ready to run; the wire pulls its batches and may suspend between them. */
export interface BoundPortal {
  readonly columns: readonly ColumnDescription[] | null;
  /**
   * Called once per portal. The signal is aborted with a FloeError as its reason: 57014 for a
   * CancelRequest, FATAL 57P01 when the server shuts down; throw signal.reason when it fires.
   * The wire calls return() on a rows result's iterator when the portal closes before its end.
   */
  execute(signal: AbortSignal): Promise<StatementResult>;
  /** Releases what the portal holds (cursor state, snapshot pin). */
  close(): void;
}

export type TransactionStatus = 'I' | 'T' | 'E';

/**
 * Implemented by src/session. Every method may throw a FloeError (src/common);
 * the wire turns it into an ErrorResponse and applies the protocol's recovery.
 */
export interface SessionHandler {
  /** Called once after authentication; returns the ParameterStatus set to send. */
  start(events: SessionEvents): Promise<Readonly<Record<string, string>>>;
  /**
   * Simple Query: may hold several statements. Yields one result per statement,
   * in order; a thrown error ends the string (and fails an implicit transaction).
   */
  simpleQuery(sql: string, signal: AbortSignal): AsyncIterable<StatementResult>;
  /** Parse message. paramTypeOids holds 0 where the client left a type open. */
  prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedStatement>;
  /** Bind message: params already decoded to canonical values by the wire. */
  bind(statement: PreparedStatement, params: readonly unknown[]): Promise<BoundPortal>;
  /** Sync after an error inside an implicit extended-protocol transaction. */
  sync(): Promise<void>;
  transactionStatus(): TransactionStatus;
  /**
   * The wire is about to send ReadyForQuery: the query cycle is over. An autocommit
   * statement's transaction ends here (its NOTIFYs go out, its transaction-level locks
   * are released) and the session reports itself idle, as PostgreSQL does at that point.
   */
  readyForQuery?(): void;
  /**
   * How long the wire may wait for the next message before ending the connection, by
   * PostgreSQL's idle timeouts: idle_in_transaction_session_timeout inside a transaction
   * block, idle_session_timeout outside one. 0 waits forever.
   */
  idleTimeout?(): { readonly ms: number; readonly inTransaction: boolean };
  /**
   * PostgreSQL's log_min_duration_statement, in ms: the wire logs each query string (and each
   * Parse, Bind and Execute) that took at least this long; 0 logs every one, -1 none.
   */
  logMinDurationMs?(): number;
  /** Connection closed: roll back any open transaction, release everything. */
  close(): Promise<void>;
}

