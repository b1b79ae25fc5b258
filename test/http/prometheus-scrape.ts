import { Readable } from 'node:stream';
import { getMetricsFromStream, type PromData, type PromHistogramData, type PromMetrics } from 'prom2javascript';

/** /metrics fetched with Node's fetch and parsed by an exposition-format parser (prom2javascript), never by regular expressions. */
export async function scrape(url: string, init: RequestInit = {}): Promise<PromMetrics> {
  const res = await fetch(url, init);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`GET ${url}: content type ${type}`);
  const text = await res.text();
  // prom2javascript 0.2 refuses NaN values, which the format allows (prom-client writes one for the
  // event-loop lag of an interval without samples). Such lines must be spelled as the format says,
  // "NaN"; they are left out of the parse.
  const nan = text.split('\n').filter((line) => /\sNa[Nn]$/i.test(line));
  for (const line of nan) if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? NaN$/.test(line)) throw new Error(`bad NaN sample: ${line}`);
  return getMetricsFromStream(Readable.from([text.split('\n').filter((line) => !nan.includes(line)).join('\n')]));
}

function matches(labels: Record<string, string>, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

/** The series of a counter or gauge with these labels (among others); undefined when there is none. */
export function valueOf(m: PromMetrics, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = m[name];
  if (family === undefined) return undefined;
  if (family.type !== 'counter' && family.type !== 'gauge') throw new Error(`${name} is a ${family.type}`);
  return (family.data as PromData[]).find((d) => matches(d.labels, labels))?.value;
}

/** A histogram series's count of observations (0 when the series does not exist yet). */
export function histogramCount(m: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const family = m[name];
  if (family === undefined) throw new Error(`no metric ${name}`);
  if (family.type !== 'histogram') throw new Error(`${name} is a ${family.type}`);
  return (family.data as PromHistogramData[]).find((d) => matches(d.labels, labels))?.count ?? 0;
}

/** Every series of a family (counter or gauge), labels and value. */
export function seriesOf(m: PromMetrics, name: string): PromData[] {
  return (m[name]?.data ?? []) as PromData[];
}
