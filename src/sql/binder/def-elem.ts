import { str, unwrap, type Raw } from './ast.js';

/** A DefElem's argument as text (PostgreSQL's defGetString): strings, numbers, booleans, identifiers. */
export function defElemValue(arg: Raw): string | undefined {
  if (arg === undefined || arg === null) return undefined;
  const [tag, v] = unwrap(arg);
  switch (tag) {
    case 'String': return v.sval ?? '';
    case 'Integer': return String(v.ival ?? 0);
    case 'Float': return String(v.fval);
    case 'Boolean': return v.boolval ? 'true' : 'false';
    case 'A_Const':
      if (v.sval !== undefined) return v.sval.sval ?? '';
      if (v.ival !== undefined) return String(v.ival.ival ?? 0);
      if (v.fval !== undefined) return String(v.fval.fval);
      if (v.boolval !== undefined) return v.boolval.boolval ? 'true' : 'false';
      return undefined;
    case 'TypeName': return (v.names as Raw[]).map(str).join('.');
    case 'List': return (v.items as Raw[]).map((x) => defElemValue(x) ?? '').join(', ');
    case 'A_Star': return '*';
    default: return undefined;
  }
}

/** A DefElem's key, with its namespace (`toast.x`) when given. */
export function defElemKey(d: Raw): string {
  return d.defnamespace ? `${d.defnamespace}.${d.defname}` : d.defname;
}
