import type { ContactRow, MessageRow } from '../../rows.ts';
import type { accountEventQueries, NewAccountEvent } from './account-events.ts';
import type { accountQueries } from './accounts.ts';
import type { contactQueries } from './contacts.ts';
import type { OutboxEntry } from './delivery-rows.ts';
import type { MessageInsert, StatusEventInsert, StatusUpdate } from './message-writes.ts';
import type { messageQueries } from './messages.ts';
import type { outboxQueries } from './outbox.ts';

/**
 * A send's whole write: the QUEUED message, its QUEUED event, its account event, its contact's
 * conversation summary and its callbacks; for a first send to a person, their contact and pin too.
 */
export type SendWrite = {
  message: MessageInsert;
  /** The message's QUEUED event (its handle is the message's). */
  event: StatusEventInsert;
  accountEvent: NewAccountEvent;
  /** The end user's contact, whose summary moves to this message; none for a group send. */
  contact?: { id: string; previewText: string } | undefined;
  /** The end user's contact when this send creates it (`contact` names it), with its contact.created event, logged first. */
  newContact?: { row: ContactRow; accountEvent: NewAccountEvent } | undefined;
  /** The end user's first pin, to the message's line. */
  pin?: { endUserNumber: string } | undefined;
  /** The callbacks the send queues, in their order, at the time of its event. */
  callbacks: readonly OutboxEntry[];
};

/** One applied step of a status change: its event, the message's new status, its account event, its callbacks. */
export type StatusStepWrite = {
  messageId: number;
  update: StatusUpdate;
  event: StatusEventInsert;
  accountEvent: NewAccountEvent;
  /** Queued, in their order, at the time of the event. */
  callbacks: readonly OutboxEntry[];
};

type Modules = {
  messages: ReturnType<typeof messageQueries>;
  accountEvents: ReturnType<typeof accountEventQueries>;
  contacts: ReturnType<typeof contactQueries>;
  accounts: ReturnType<typeof accountQueries>;
  outbox: ReturnType<typeof outboxQueries>;
};

/**
 * The whole writes on SQLite: each part is its module's own prepared statement (a statement costs
 * microseconds here, so nothing is gained by merging them); the modules' methods are looked up at
 * each call, as the store's callers see them.
 */
export function wholeWriteQueries(modules: Modules) {
  function queue(callbacks: readonly OutboxEntry[], at: number): void {
    for (const callback of callbacks) modules.outbox.enqueue(callback, at);
  }

  function send(write: SendWrite): MessageRow {
    const at = write.event.receivedAt;
    if (write.pin) modules.accounts.pinEndUser(write.message.accountId, write.pin.endUserNumber, write.message.lineNumber, at);
    if (write.newContact) {
      if (!modules.contacts.insert(write.newContact.row)) throw new Error(`contact ${write.newContact.row.phone} exists already`);
      modules.accountEvents.append(write.newContact.accountEvent);
    }
    const message = modules.messages.insert(write.message);
    modules.messages.insertStatusEvent(write.event);
    modules.accountEvents.append(write.accountEvent);
    if (write.contact) modules.contacts.recordMessage(write.contact.id, message.dateSent, write.contact.previewText, true);
    queue(write.callbacks, at);
    return message;
  }
  /** False, and nothing written, when a unique index says the step's event is already recorded. */
  function statusStep(write: StatusStepWrite): boolean {
    if (!modules.messages.insertStatusEvent(write.event)) return false;
    modules.messages.updateStatus(write.messageId, write.update);
    modules.accountEvents.append(write.accountEvent);
    queue(write.callbacks, write.event.receivedAt);
    return true;
  }

  return {
    send,
    statusStep,
    /** The sends one by one: statements cost microseconds here, so a batch gains nothing from one set-based statement. */
    sendMany(calls: [SendWrite][]): MessageRow[] {
      return calls.map(([write]) => send(write));
    },
    /** The status steps one by one, as sendMany. */
    statusStepMany(calls: [StatusStepWrite][]): boolean[] {
      return calls.map(([write]) => statusStep(write));
    },
  };
}
