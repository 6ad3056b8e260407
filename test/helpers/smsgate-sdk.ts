import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { ALICE } from './fixtures.ts';
import { eventually } from './live.ts';
import { type SmsGateWorld, startSmsGateWorld } from './smsgate-world.ts';

/** The SMSGate phone's number, the account's one line. */
export const SMSGATE_LINE = '+14155550170';

/** An SMSGate world whose account sends its receive webhooks (`/receive`) and status callbacks (`/status`) to a receiver. */
export type SmsGateSdkWorld = SmsGateWorld & { receiver: Receiver; closeAll(): Promise<void> };

/** Starts the world (carriers, courier, dispatcher) once the account's receive webhook points at the receiver. */
export async function startSmsGateSdkWorld(options: Partial<Parameters<typeof startSmsGateWorld>[0]> = {}): Promise<SmsGateSdkWorld> {
  const world = await startSmsGateWorld({ line: SMSGATE_LINE, ...options });
  const receiver = await startReceiver();
  const closeAll = async () => {
    await world.close();
    await receiver.close();
  };
  try {
    await world.sdk.webhooks.create({ webhooks: [receiver.url('/receive')], type: 'receive' });
    await world.start();
  } catch (error) {
    await closeAll();
    throw error;
  }
  return Object.assign(world, { receiver, closeAll });
}

/** Sends through the SDK from the line with a status callback to the receiver; the message handle. */
export async function sendOverSmsGate(world: SmsGateSdkWorld, content = 'hello over SMS', number = ALICE): Promise<string> {
  const sent = await world.sdk.messages.send({
    number,
    from_number: SMSGATE_LINE,
    content,
    status_callback: world.receiver.url('/status'),
  });
  return sent.message_handle as string;
}

/** Sends, and waits for the phone to have the message and textrelay to have recorded its hand-over. */
export async function sentToPhone(world: SmsGateSdkWorld, content = 'hello over SMS', number = ALICE) {
  const handle = await sendOverSmsGate(world, content, number);
  const message = await eventually('the phone to have the message', async () => world.phone.messages.find((m) => m.id === handle), 10_000);
  await handedOver(world, handle);
  return { handle, message };
}

export function handedOver(world: SmsGateSdkWorld, handle: string): Promise<true> {
  return eventually(
    'the hand-over recorded',
    async () => ((await world.t.store.messages.findByAnyHandle(handle))?.transportHandle === handle ? true : undefined),
    10_000,
  );
}

/** The message as the SDK retrieves it. */
export async function statusOf(world: SmsGateSdkWorld, handle: string) {
  const { data } = await world.sdk.messages.retrieve(handle);
  if (!data) throw new Error(`no message ${handle}`);
  return data;
}

export function untilStatus(world: SmsGateSdkWorld, handle: string, status: string) {
  return eventually(
    `${handle} to be ${status}`,
    async () => {
      const message = await statusOf(world, handle);
      return message.status === status ? message : undefined;
    },
    10_000,
  );
}

/** The statuses called back for `handle`, in the order they arrived. */
export const callbacksOf = (world: SmsGateSdkWorld, handle: string): string[] =>
  world.receiver.received.filter((request) => request.json?.message_handle === handle).map((request) => request.json.status);

/** Waits for the `last` status callback of `handle`, then for the phone's webhooks to settle and stragglers to arrive. */
export async function callbacksUpTo(world: SmsGateSdkWorld, handle: string, last: string): Promise<void> {
  await eventually(`the ${last} callback`, async () => (callbacksOf(world, handle).includes(last) ? true : undefined), 10_000);
  await world.phone.settled();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** The receive webhooks that carried `text`. */
export const receivedWebhooks = (world: SmsGateSdkWorld, text: string) =>
  world.receiver.received.filter((request) => request.path === '/receive' && request.json?.content === text);

/** The applied statuses of a message's history. */
export async function appliedStatuses(world: SmsGateSdkWorld, handle: string): Promise<string[]> {
  return (await world.t.store.messages.history(handle)).filter((event) => event.applied).map((event) => event.status);
}
