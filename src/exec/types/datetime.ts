/**
 * Date/time text input and output, arithmetic and time zones live in src/common so
 * that the wire's codecs parse parameters with the very same rules; the executor
 * keeps importing them from here.
 */
export * from '../../common/datetime.js';
