import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseLsn } from '../../lake/index.js';

/**
 * The walsender's commands (PostgreSQL's replication grammar), accepted on a connection
 * whose startup packet asked for `replication=database`. Anything else on such a
 * connection is SQL.
 */
export type ReplicationCommand =
  | { readonly kind: 'identifySystem' }
  | {
      readonly kind: 'createSlot';
      readonly name: string;
      readonly temporary: boolean;
      /** undefined for a PHYSICAL slot. */
      readonly plugin: string | undefined;
      readonly snapshot: 'export' | 'nothing' | 'use';
    }
  | { readonly kind: 'dropSlot'; readonly name: string; readonly wait: boolean }
  | {
      readonly kind: 'startReplication';
      /** undefined: a physical stream without a slot. */
      readonly slot: string | undefined;
      readonly logical: boolean;
      readonly startLsn: bigint;
      /** Output plugin options, names lower-cased, values as text (undefined when given bare). */
      readonly options: ReadonlyMap<string, string | undefined>;
    }
  | { readonly kind: 'unsupported'; readonly command: string };

const COMMANDS = new Set(['identify_system', 'create_replication_slot', 'drop_replication_slot', 'start_replication', 'base_backup',
  'timeline_history', 'read_replication_slot', 'alter_replication_slot']);

type Token =
  | { readonly kind: 'word'; readonly text: string; readonly quoted: boolean }
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'punct'; readonly text: string };

function syntaxError(): FloeError {
  return new FloeError(SqlState.syntaxError, 'syntax error');
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch) || ch === ';') { i++; continue; }
    if (ch === '(' || ch === ')' || ch === ',') { out.push({ kind: 'punct', text: ch }); i++; continue; }
    if (ch === '"' || ch === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FloeError(SqlState.syntaxError, ch === '"' ? 'unterminated quoted identifier' : 'unterminated quoted string');
        if (text[i] === ch) {
          if (text[i + 1] === ch) { s += ch; i += 2; continue; }
          i++;
          break;
        }
        s += text[i++];
      }
      out.push(ch === '"' ? { kind: 'word', text: s, quoted: true } : { kind: 'string', text: s });
      continue;
    }
    const start = i;
    while (i < text.length && !/[\s;(),"']/.test(text[i]!)) i++;
    out.push({ kind: 'word', text: text.slice(start, i), quoted: false });
  }
  return out;
}

/** The command, or undefined when the text is not a replication command (it is then run as SQL). */
export function parseReplicationCommand(text: string): ReplicationCommand | undefined {
  const first = /^\s*([A-Za-z_]+)/.exec(text)?.[1]?.toLowerCase();
  if (first === undefined || !COMMANDS.has(first)) return undefined;
  const tokens = tokenize(text);
  let at = 1;
  const peek = (): Token | undefined => tokens[at];
  const keyword = (k: string): boolean => {
    const t = peek();
    if (t?.kind === 'word' && !t.quoted && t.text.toLowerCase() === k) { at++; return true; }
    return false;
  };
  const ident = (): string => {
    const t = tokens[at++];
    if (t?.kind !== 'word') throw syntaxError();
    return t.quoted ? t.text : t.text.toLowerCase();
  };
  const end = (): void => {
    if (at < tokens.length) throw syntaxError();
  };
  switch (first) {
    case 'identify_system':
      end();
      return { kind: 'identifySystem' };
    case 'drop_replication_slot': {
      const name = ident();
      const wait = keyword('wait');
      end();
      return { kind: 'dropSlot', name, wait };
    }
    case 'create_replication_slot': {
      const name = ident();
      const temporary = keyword('temporary');
      let plugin: string | undefined;
      if (keyword('logical')) plugin = ident();
      else if (!keyword('physical')) throw syntaxError();
      let snapshot: 'export' | 'nothing' | 'use' = 'export';
      if (peek()?.kind === 'punct' && peek()!.text === '(') {
        for (const [k, v] of optionList()) {
          if (k === 'snapshot') {
            if (v !== 'export' && v !== 'nothing' && v !== 'use') {
              throw new FloeError(SqlState.syntaxError, `unrecognized value for CREATE_REPLICATION_SLOT option "snapshot": "${v ?? ''}"`);
            }
            snapshot = v;
          } else if (k !== 'two_phase' && k !== 'reserve_wal') {
            throw new FloeError(SqlState.syntaxError, `unrecognized option: ${k}`);
          }
        }
      } else {
        // The spellings before PostgreSQL 15.
        for (;;) {
          if (keyword('export_snapshot')) snapshot = 'export';
          else if (keyword('noexport_snapshot')) snapshot = 'nothing';
          else if (keyword('use_snapshot')) snapshot = 'use';
          else if (keyword('two_phase') || keyword('reserve_wal')) continue;
          else break;
        }
      }
      end();
      return { kind: 'createSlot', name, temporary, plugin, snapshot };
    }
    case 'start_replication': {
      let slot: string | undefined;
      if (keyword('slot')) slot = ident();
      const logical = keyword('logical');
      if (!logical) keyword('physical');
      const lsnToken = tokens[at++];
      const startLsn = lsnToken?.kind === 'word' ? parseLsn(lsnToken.text) : undefined;
      if (startLsn === undefined) throw syntaxError();
      const options = new Map<string, string | undefined>();
      if (logical && peek()?.kind === 'punct' && peek()!.text === '(') {
        for (const [k, v] of optionList()) options.set(k, v);
      } else if (keyword('timeline')) {
        at++;
      }
      end();
      return { kind: 'startReplication', slot, logical, startLsn, options };
    }
    default:
      return { kind: 'unsupported', command: first.toUpperCase() };
  }

  /** `( name [value] [, …] )`: a value is a string, a word or a number. */
  function optionList(): [string, string | undefined][] {
    at++; // (
    const out: [string, string | undefined][] = [];
    for (;;) {
      const name = ident();
      const t = peek();
      let value: string | undefined;
      if (t?.kind === 'string') { value = t.text; at++; }
      else if (t?.kind === 'word') { value = t.quoted ? t.text : t.text.toLowerCase(); at++; }
      out.push([name, value]);
      const sep = tokens[at++];
      if (sep?.kind === 'punct' && sep.text === ')') return out;
      if (sep?.kind !== 'punct' || sep.text !== ',') throw syntaxError();
    }
  }
}

/** A startup packet's `replication=database` (logical; SQL is allowed too) or `replication=true` (physical). */
export function isReplicationConnection(startup: { readonly parameters: Readonly<Record<string, string>> }): boolean {
  const v = startup.parameters.replication?.toLowerCase();
  return v !== undefined && /^(database|true|on|yes|1)$/.test(v);
}
