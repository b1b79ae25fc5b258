/** Where data files live. Plain data, so scan tasks can carry it into worker threads. */
export type StorageConfig =
  | { readonly kind: 'local'; readonly root: string };
