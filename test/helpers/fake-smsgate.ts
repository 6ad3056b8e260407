/** A fake SMSGate phone in local server mode; see fake-smsgate/server.ts. */
export { type FakeSmsGate, type FakeSmsGateOptions, startFakeSmsGate } from './fake-smsgate/server.ts';
export type { FakeSmsGateDelivery } from './fake-smsgate/webhooks.ts';
export {
  type FakeSmsGateInboxEntry,
  type FakeSmsGateMessage,
  type FakeSmsGateWebhook,
  incomingIds,
  SMSGATE_DEVICE_ID,
  SMSGATE_PASSWORD,
  SMSGATE_SIGNING_KEY,
  SMSGATE_USERNAME,
} from './fake-smsgate/wire.ts';
