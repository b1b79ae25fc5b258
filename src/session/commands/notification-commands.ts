import { commandTag, type UtilityHandlers } from './utility-handler.js';

/** LISTEN, UNLISTEN and NOTIFY (a NOTIFY is delivered when its transaction commits). */
export const notificationCommands: Pick<UtilityHandlers, 'listen' | 'unlisten' | 'notify'> = {
  async listen(ctx, c) {
    ctx.server.notifications.listen(c.channel);
    return commandTag('LISTEN');
  },

  async unlisten(ctx, c) {
    ctx.server.notifications.unlisten(c.channel);
    return commandTag('UNLISTEN');
  },

  async notify(ctx, c) {
    ctx.server.notify(c.channel, c.payload ?? '');
    return commandTag('NOTIFY');
  },
};
