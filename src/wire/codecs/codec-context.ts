/** Session settings that change how values are written: only TimeZone does (DateStyle is ISO, IntervalStyle postgres). */
export interface CodecContext {
  readonly timeZone: string;
}
