import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

export interface Polled<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly reload: () => void;
}

/** GETs an API path now and every few seconds while the page shows, keeping the last good answer. */
export function usePoll<T>(path: string, everyMs = 5000): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    const load = () => api<T>(path).then((d) => { if (live) { setData(d); setError(undefined); } }, (e: Error) => { if (live) setError(e); });
    void load();
    const timer = setInterval(load, everyMs);
    return () => { live = false; clearInterval(timer); };
  }, [path, everyMs, tick]);
  return { data, error, reload };
}
