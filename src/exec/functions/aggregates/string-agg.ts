import { BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** string_agg over text and over bytea (the executor orders the rows before stepping). */
export function registerStringAgg(): void {
  registerAggregateFunction({
    name: 'string_agg', args: [T.text, T.text], returns: T.text, strict: false,
    impl: () => simple(() => ({ parts: [] as string[], seps: [] as string[] }),
      (s, [v, d]) => { if (v === null) return s; const st = s as { parts: string[]; seps: string[] }; st.parts.push(v as string); st.seps.push((d as string | null) ?? ''); return st; },
      (a, b) => { const x = a as { parts: string[]; seps: string[] }; const y = b as { parts: string[]; seps: string[] }; return { parts: [...x.parts, ...y.parts], seps: [...x.seps, ...y.seps] }; },
      (s) => {
        const st = s as { parts: string[]; seps: string[] };
        if (st.parts.length === 0) return null;
        let out = st.parts[0]!;
        for (let i = 1; i < st.parts.length; i++) out += st.seps[i]! + st.parts[i]!;
        return out;
      }),
  });
  registerAggregateFunction({
    name: 'string_agg', args: [T.bytea, T.bytea], returns: T.bytea, strict: false,
    impl: () => simple(() => ({ parts: [] as Uint8Array[] }),
      (s, [v, d]) => { if (v === null) return s; const st = s as { parts: Uint8Array[] }; if (st.parts.length > 0 && d) st.parts.push(d as Uint8Array); st.parts.push(v as Uint8Array); return st; },
      (a, b) => ({ parts: [...(a as { parts: Uint8Array[] }).parts, ...(b as { parts: Uint8Array[] }).parts] }),
      (s) => ((s as { parts: Uint8Array[] }).parts.length === 0 ? null : new Uint8Array(Buffer.concat((s as { parts: Uint8Array[] }).parts)))),
  });
}
