/** The client went away mid-conversation: nothing to answer, just clean up. */
export class ClientGone extends Error {
  constructor() {
    super('client connection closed');
    this.name = 'ClientGone';
  }
}
