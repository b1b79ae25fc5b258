/**
 * Subscriptions (CDC in, issue 27): what the catalog keeps of each, so a restarted server
 * resumes exactly where its last commit left off. LSNs are PostgreSQL's 64-bit WAL
 * positions as bigints; times are microseconds since the Unix epoch.
 */

/** How far a published table's initial copy has come (PostgreSQL's pg_subscription_rel.srsubstate, in words). */
export type SubscriptionTableState = 'init' | 'ready';

/** One published source table and the Floe table its changes go to. */
export interface SubscriptionTable {
  readonly sourceSchema: string;
  readonly sourceName: string;
  readonly tableId: number;
  readonly state: SubscriptionTableState;
  /**
   * The source LSN of the snapshot its copy was taken at: a source transaction that
   * committed below it is already in the copy and is skipped for this table.
   */
  readonly syncLsn: bigint;
}

export interface NewSubscription {
  readonly name: string;
  readonly conninfo: string;
  readonly publications: readonly string[];
  /** undefined: slot_name = NONE. */
  readonly slotName: string | undefined;
  readonly enabled: boolean;
  /** The WITH options as given and defaulted (copy_data, binary, streaming, …), as text. */
  readonly options: Readonly<Record<string, string>>;
  readonly tables: readonly Omit<SubscriptionTable, 'syncLsn'>[];
}

/**
 * Who runs a subscription: one process at a time holds its lease (owner `host:pid:…`) and
 * heartbeats it; another takes it once the heartbeat is older than the lease.
 */
export interface SubscriptionRunner {
  readonly subscriptionId: number;
  readonly owner: string;
  readonly heartbeatMicros: bigint;
}

/** What the runner last saw of the source (pg_stat_subscription, floe_subscriptions). */
export interface SubscriptionStatus {
  /** The end of the last WAL the source sent. */
  readonly receivedLsn: bigint;
  /** The source's WAL end as its last message reported it. */
  readonly sourceWalEnd: bigint;
  readonly lastMsgSendMicros: bigint | undefined;
  readonly lastMsgReceiptMicros: bigint | undefined;
  /** Source commit time of the oldest transaction received but not yet committed in Floe (undefined: none waits). */
  readonly pendingSinceMicros: bigint | undefined;
  /** The runner's process, while one streams. */
  readonly pid: number | undefined;
}

export interface SubscriptionMetadata extends NewSubscription, SubscriptionStatus {
  /** Also its oid in pg_subscription (from the relation id counter, so no oid is shared). */
  readonly id: number;
  readonly tables: readonly SubscriptionTable[];
  /** The end LSN of the last source transaction committed in Floe: a restart resumes after it. */
  readonly appliedLsn: bigint;
  /** Source commit time of that transaction. */
  readonly appliedSourceMicros: bigint | undefined;
  /** When Floe committed it. */
  readonly appliedMicros: bigint | undefined;
  readonly lastError: string | undefined;
  readonly lastErrorMicros: bigint | undefined;
  /** Moves on every ALTER: a runner streaming an older generation restarts. */
  readonly generation: number;
}

/**
 * What a Floe commit records of a subscription in the same catalog transaction as its data
 * (CommitRequest.subscriptionProgress), so the data and the position can never disagree.
 */
export interface SubscriptionProgress {
  readonly subscriptionId: number;
  /** The end LSN of the last source transaction the commit holds (never lowers the stored one). */
  readonly appliedLsn?: bigint;
  readonly appliedSourceMicros?: bigint;
  /** Tables whose initial copy the commit holds: they become ready at `lsn`. */
  readonly synced?: { readonly lsn: bigint; readonly tables: readonly { readonly schema: string; readonly name: string }[] };
}

/** What ALTER SUBSCRIPTION changes. */
export interface SubscriptionPatch {
  readonly enabled?: boolean;
  readonly conninfo?: string;
  readonly publications?: readonly string[];
  readonly slotName?: string | null;
  readonly options?: Readonly<Record<string, string>>;
  /** REFRESH PUBLICATION: the table list as the source publishes it now (kept rows keep their state). */
  readonly tables?: readonly Omit<SubscriptionTable, 'syncLsn'>[];
}
