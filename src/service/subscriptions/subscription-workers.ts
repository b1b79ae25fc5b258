/** What the statements need of the process's subscription runners (src/service/subscriptions/subscription-manager.ts). */
export interface SubscriptionWorkers {
  /** Stops this process's runner of the subscription and waits for it (before its slot is dropped). */
  stopWorker(subscriptionId: number): Promise<void>;
  /** Reads the catalog again now, so a created or enabled subscription starts without waiting for the next poll. */
  reconcile(): void;
}
