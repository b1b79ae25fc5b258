/**
 * A startup packet so broken that PostgreSQL only logs it (COMMERROR) and closes the
 * socket without a word: a bad length, a truncated packet, a malformed CancelRequest.
 * Clients rely on the silence (an ErrorResponse would be read as garbage by a peer
 * that is not speaking the protocol at all), so the wire logs it and sends nothing.
 */
export class SilentClose extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SilentClose';
  }
}
