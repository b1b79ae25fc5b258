/**
 * The sequence functions' way into the session (nextval, currval, setval, lastval): the
 * session keeps currval and lastval, the warehouse hands out values. Relations are by oid
 * (regclass).
 */
export interface SessionSequences {
  nextval(oid: number): bigint;
  currval(oid: number): bigint;
  setval(oid: number, value: bigint, isCalled: boolean): bigint;
  lastval(): bigint;
}
