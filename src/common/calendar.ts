import { FloeError } from './floe-error.js';
import { SqlState } from './sqlstate.js';

/**
 * PostgreSQL's calendar rules for date/time input, in one place: the executor's
 * text input, the binder's literal folding and the wire's codecs all validate
 * through these, so every path refuses the same values with the same SQLSTATE.
 * Days count from 1970-01-01, microseconds from 1970-01-01 00:00 (Floe's storage).
 */

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in month `m` (1-12) of astronomical year `y` (0 = 1 BC). */
export function daysInMonthOf(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/** 22008 `date/time field value out of range: "text"`. */
export function datetimeFieldOverflow(text: string): FloeError {
  return new FloeError(SqlState.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
}

/**
 * Checks a written calendar date: the year as written (there is no year 0, before or
 * after Christ), a month 1-12 and a day that exists in that month (Feb 29 only in leap
 * years). Returns the astronomical year (1 BC = 0).
 */
export function checkDateFields(writtenYear: number, bc: boolean, month: number, day: number, text: string): number {
  if (writtenYear < 1) throw datetimeFieldOverflow(text);
  const year = bc ? 1 - writtenYear : writtenYear;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonthOf(year, month)) throw datetimeFieldOverflow(text);
  return year;
}

/** Checks a time of day: minutes 0-59, seconds 0-60 (a leap second), at most 24:00:00 exactly. */
export function checkTimeFields(hour: number, minute: number, second: number, fractionMicros: number | bigint, text: string): void {
  const frac = Number(fractionMicros);
  if (hour < 0 || hour > 24 || minute < 0 || minute > 59 || second < 0 || second > 60 || frac < 0 || frac > 1_000_000
    || (hour === 24 && (minute > 0 || second > 0 || frac > 0))) {
    throw datetimeFieldOverflow(text);
  }
}

/** PostgreSQL's limit on a written UTC offset: ±15:59:59. */
export const MAX_ZONE_DISPLACEMENT_SECONDS = 15 * 3600 + 59 * 60 + 59;

/** Checks an explicit UTC offset (seconds east) in a timestamptz or timetz literal. */
export function checkZoneDisplacement(offsetSeconds: number, text: string): void {
  if (Math.abs(offsetSeconds) > MAX_ZONE_DISPLACEMENT_SECONDS) {
    throw new FloeError(SqlState.invalidTimeZoneDisplacementValue, `time zone displacement out of range: "${text}"`);
  }
}

/** First valid date, 4714-11-24 BC (Julian day 0), in days since 1970-01-01. */
export const MIN_DATE_DAYS = -2_440_588;
/** First date past the range, 5874898-01-01. */
export const END_DATE_DAYS = 2_145_042_906;

export function isValidDateDays(days: number): boolean {
  return days >= MIN_DATE_DAYS && days < END_DATE_DAYS;
}

/** First valid timestamp, 4714-11-24 00:00 BC, in microseconds since 1970-01-01. */
export const MIN_TIMESTAMP_MICROS = -210_866_803_200_000_000n;
/**
 * First timestamp past the range. PostgreSQL's is 294277-01-01, which does not fit
 * Floe's int64 microseconds since 1970 (the extremes of int64 stand for ±infinity),
 * so Floe's range ends a little earlier, just below the +infinity sentinel.
 */
export const END_TIMESTAMP_MICROS = 2n ** 63n - 1n;

export function isValidTimestampMicros(micros: bigint): boolean {
  return micros >= MIN_TIMESTAMP_MICROS && micros < END_TIMESTAMP_MICROS;
}

/** 22008 `date out of range: "text"` unless `days` is inside PostgreSQL's date range (infinities pass). */
export function checkDateRange(days: number, text: string): number {
  if (Number.isFinite(days) && !isValidDateDays(days)) {
    throw new FloeError(SqlState.datetimeFieldOverflow, `date out of range: "${text}"`);
  }
  return days;
}

/** 22008 `timestamp out of range: "text"` for a finite timestamp outside the range. */
export function checkTimestampRange(micros: bigint, text: string): bigint {
  if (micros !== -(2n ** 63n) && micros !== 2n ** 63n - 1n && !isValidTimestampMicros(micros)) {
    throw new FloeError(SqlState.datetimeFieldOverflow, `timestamp out of range: "${text}"`);
  }
  return micros;
}
